package hub

import (
	"bytes"
	"regexp"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// DiffEntries lists the files changed from tree a to tree b (either may be
// zero), by path, as GitHub's diff-entry objects.
func (c *ReqCtx) DiffEntries(r *Repo, a, b plumbing.Hash, ref string) ([]Obj, error) {
	ta, tb := &object.Tree{}, &object.Tree{}
	var err error
	if !a.IsZero() {
		if ta, err = r.Git.Tree(a); err != nil {
			return nil, err
		}
	}
	if !b.IsZero() {
		if tb, err = r.Git.Tree(b); err != nil {
			return nil, err
		}
	}
	changes, err := object.DiffTree(ta, tb)
	if err != nil {
		return nil, err
	}
	sort.Slice(changes, func(i, j int) bool { return changePath(changes[i]) < changePath(changes[j]) })
	out := make([]Obj, 0, len(changes))
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
		fileURL := c.Web + "/" + r.FullName() + "/blob/" + ref + "/" + p
		e := Obj{
			"sha": sha, "filename": p, "status": status, "additions": adds, "deletions": dels, "changes": adds + dels,
			"blob_url": fileURL, "raw_url": c.Web + "/" + r.FullName() + "/raw/" + ref + "/" + p,
			"contents_url": c.RepoURL(r) + "/contents/" + p + "?ref=" + ref,
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

// TreeOf is the tree of commit, the zero hash for no commit ("") or one that cannot be read.
func (r *Repo) TreeOf(commit string) plumbing.Hash {
	if commit == "" {
		return plumbing.ZeroHash
	}
	t, _ := r.Git.CommitTree(plumbing.NewHash(commit))
	return t
}

// shortSHA is an abbreviated commit sha, which GitHub resolves wherever it
// takes a ref (7 characters at least, as git abbreviates).
var shortSHA = regexp.MustCompile(`^[0-9a-f]{7,39}$`)

// resolveShort finds the one commit reachable from a branch or tag whose
// sha starts with ref; an ambiguous or unknown prefix resolves to nothing,
// as on GitHub.
func (r *Repo) resolveShort(ref string) (plumbing.Hash, bool) {
	if !shortSHA.MatchString(ref) {
		return plumbing.ZeroHash, false
	}
	found := plumbing.ZeroHash
	seen := map[plumbing.Hash]bool{}
	for _, prefix := range []string{"refs/heads/", "refs/tags/"} {
		refs, _ := r.Git.Refs(prefix)
		for _, tip := range refs {
			for h := range r.Git.Ancestors(tip) {
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
