package fakehub

import (
	"bytes"
	"regexp"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The pull request files and compare endpoints (issue 22): GitHub's
// "diff-entry" shape, patches made by go-git's unified encoder (three lines
// of context, as GitHub shows) so that fakehub writes no diff algorithm of
// its own. Renames are not detected: a moved file is one removed and one
// added entry, which GitHub shows only when the contents differ too much.

// maxCompareFiles is GitHub's cap on the files of a compare answer.
const maxCompareFiles = 300

// maxPullFiles is GitHub's cap on the files a pull request lists.
const maxPullFiles = 3000

// diffEntries lists the files changed from tree a to tree b (either may be
// zero), by path, as GitHub's diff-entry objects.
func (c *reqCtx) diffEntries(r *repo, a, b plumbing.Hash, ref string) ([]obj, error) {
	ta, tb := &object.Tree{}, &object.Tree{}
	var err error
	if !a.IsZero() {
		if ta, err = r.git.Tree(a); err != nil {
			return nil, err
		}
	}
	if !b.IsZero() {
		if tb, err = r.git.Tree(b); err != nil {
			return nil, err
		}
	}
	changes, err := object.DiffTree(ta, tb)
	if err != nil {
		return nil, err
	}
	sort.Slice(changes, func(i, j int) bool { return changePath(changes[i]) < changePath(changes[j]) })
	out := make([]obj, 0, len(changes))
	for _, ch := range changes {
		patch, err := ch.Patch()
		if err != nil {
			return nil, err
		}
		fps := patch.FilePatches()
		if len(fps) != 1 {
			continue
		}
		from, to := fps[0].Files()
		status, sha := "modified", ""
		switch {
		case from == nil:
			status = "added"
		case to == nil:
			status = "removed"
		}
		if to != nil {
			sha = to.Hash().String()
		} else {
			sha = from.Hash().String()
		}
		adds, dels := 0, 0
		for _, st := range patch.Stats() {
			adds, dels = st.Addition, st.Deletion
		}
		p := changePath(ch)
		fileURL := c.web + "/" + r.fullName() + "/blob/" + ref + "/" + p
		e := obj{
			"sha": sha, "filename": p, "status": status, "additions": adds, "deletions": dels, "changes": adds + dels,
			"blob_url": fileURL, "raw_url": c.web + "/" + r.fullName() + "/raw/" + ref + "/" + p,
			"contents_url": c.repoURL(r) + "/contents/" + p + "?ref=" + ref,
		}
		if !fps[0].IsBinary() {
			e["patch"] = hunks(patch)
		}
		out = append(out, e)
	}
	return out, nil
}

func changePath(ch *object.Change) string {
	if ch.To.Name != "" {
		return ch.To.Name
	}
	return ch.From.Name
}

// hunks is the unified diff of one file without its header lines: GitHub's
// patch field starts at the first "@@".
func hunks(p diff.Patch) string {
	var buf bytes.Buffer
	if err := diff.NewUnifiedEncoder(&buf, diff.DefaultContextLines).Encode(p); err != nil {
		return ""
	}
	s := buf.String()
	if i := strings.Index(s, "\n@@"); i >= 0 {
		s = s[i+1:]
	} else if !strings.HasPrefix(s, "@@") {
		return ""
	}
	return strings.TrimSuffix(s, "\n")
}

func (r *repo) treeOf(commit string) plumbing.Hash {
	if commit == "" {
		return plumbing.ZeroHash
	}
	t, _ := r.git.CommitTree(plumbing.NewHash(commit))
	return t
}

// listPullFiles answers GET pulls/{pull_number}/files: the files of head
// over the merge base with base, paged, at most 3,000 as on GitHub.
func (h *Hub) listPullFiles(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	head, base := r.pullSHAs(p)
	if head == "" || base == "" {
		return okReply(200, []obj{})
	}
	mb := r.git.MergeBase(plumbing.NewHash(head), plumbing.NewHash(base))
	files, err := c.diffEntries(r, r.treeOf(mbString(mb)), r.treeOf(head), head)
	if err != nil {
		return errReply(500, "Server Error", "")
	}
	if len(files) > maxPullFiles {
		files = files[:maxPullFiles]
	}
	lo, hi, rep := c.pageOf(len(files))
	rep.body = files[lo:hi]
	return rep
}

func mbString(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// compare answers GET compare/{basehead} ("base...head"): status, counts,
// the merge base, the commits of head not in base (oldest first, paged by
// page and per_page, 250 without them) and the files (at most 300), as
// GitHub's commit-comparison.
func (h *Hub) compare(c *reqCtx, r *repo) *reply {
	if r.empty() {
		return emptyRepo()
	}
	base, head, ok := strings.Cut(c.p["basehead"], "...")
	if !ok || base == "" || head == "" {
		return notFound()
	}
	bh, ok1 := r.resolve(base)
	hh, ok2 := r.resolve(head)
	if !ok1 || !ok2 {
		return notFound()
	}
	mb := r.git.MergeBase(hh, bh)
	inBase := r.git.Ancestors(bh)
	inHead := r.git.Ancestors(hh)
	var ahead []*object.Commit
	for _, cm := range r.git.Log(hh) {
		if !inBase[cm.Hash] {
			ahead = append(ahead, cm)
		}
	}
	behind := 0
	for x := range inBase {
		if !inHead[x] {
			behind++
		}
	}
	// Log is newest first; GitHub lists the comparison's commits oldest first.
	for i, j := 0, len(ahead)-1; i < j; i, j = i+1, j-1 {
		ahead[i], ahead[j] = ahead[j], ahead[i]
	}
	status := "identical"
	switch {
	case len(ahead) > 0 && behind > 0:
		status = "diverged"
	case len(ahead) > 0:
		status = "ahead"
	case behind > 0:
		status = "behind"
	}
	files, err := c.diffEntries(r, r.treeOf(mbString(mb)), r.treeOf(hh.String()), hh.String())
	if err != nil {
		return errReply(500, "Server Error", "")
	}
	if len(files) > maxCompareFiles {
		files = files[:maxCompareFiles]
	}
	q := c.r.URL.Query()
	lo, hi := 0, len(ahead)
	rep := &reply{status: 200}
	if q.Get("page") != "" || q.Get("per_page") != "" {
		lo, hi, rep = c.pageOf(len(ahead))
	} else if hi > 250 {
		hi = 250
	}
	commits := []obj{}
	for _, cm := range ahead[lo:hi] {
		commits = append(commits, c.commit(r, cm))
	}
	baseCommit, _ := r.git.Commit(bh)
	u := c.repoURL(r) + "/compare/" + c.p["basehead"]
	web := c.web + "/" + r.fullName() + "/compare/" + c.p["basehead"]
	body := obj{
		"url": u, "html_url": web, "permalink_url": web, "diff_url": web + ".diff", "patch_url": web + ".patch",
		"base_commit": c.commit(r, baseCommit), "status": status, "ahead_by": len(ahead), "behind_by": behind,
		"total_commits": len(ahead), "commits": commits, "files": files,
	}
	if mbc, err := r.git.Commit(mb); err == nil {
		body["merge_base_commit"] = c.commit(r, mbc)
	} else {
		body["merge_base_commit"] = c.commit(r, baseCommit)
	}
	rep.body = body
	return rep
}

// shortSHA is an abbreviated commit sha, which GitHub resolves wherever it
// takes a ref (7 characters at least, as git abbreviates).
var shortSHA = regexp.MustCompile(`^[0-9a-f]{7,39}$`)

// resolveShort finds the one commit reachable from a branch or tag whose
// sha starts with ref; an ambiguous or unknown prefix resolves to nothing,
// as on GitHub.
func (r *repo) resolveShort(ref string) (plumbing.Hash, bool) {
	if !shortSHA.MatchString(ref) {
		return plumbing.ZeroHash, false
	}
	found := plumbing.ZeroHash
	seen := map[plumbing.Hash]bool{}
	for _, prefix := range []string{"refs/heads/", "refs/tags/"} {
		refs, _ := r.git.Refs(prefix)
		for _, tip := range refs {
			for h := range r.git.Ancestors(tip) {
				if seen[h] || !strings.HasPrefix(h.String(), ref) {
					continue
				}
				seen[h] = true
				if !found.IsZero() {
					return plumbing.ZeroHash, false
				}
				found = h
			}
		}
	}
	return found, !found.IsZero()
}
