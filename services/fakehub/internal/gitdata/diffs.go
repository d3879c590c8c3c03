package gitdata

import (
	"strings"

	"ghops.dev/services/fakehub/internal/hub"
	"github.com/go-git/go-git/v5/plumbing"
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

// listPullFiles answers GET pulls/{pull_number}/files: the files of head
// over the merge base with base, paged, at most 3,000 as on GitHub.
func (h *api) listPullFiles(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p := c.PullNumber(r)
	if p == nil {
		return hub.NotFound()
	}
	head, base := r.PullSHAs(p)
	if head == "" || base == "" {
		return hub.OkReply(200, []hub.Obj{})
	}
	mb := r.Git.MergeBase(plumbing.NewHash(head), plumbing.NewHash(base))
	files, err := c.DiffEntries(r, r.TreeOf(mbString(mb)), r.TreeOf(head), head)
	if err != nil {
		return hub.ErrReply(500, "Server Error", "")
	}
	if len(files) > maxPullFiles {
		files = files[:maxPullFiles]
	}
	lo, hi, rep := c.PageOf(len(files))
	rep.Body = files[lo:hi]
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
func (h *api) compare(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	if r.Empty() {
		return hub.EmptyRepo()
	}
	base, head, ok := strings.Cut(c.Params["basehead"], "...")
	if !ok || base == "" || head == "" {
		return hub.NotFound()
	}
	bh, ok1 := r.Resolve(base)
	hh, ok2 := r.Resolve(head)
	if !ok1 || !ok2 {
		return hub.NotFound()
	}
	mb := r.Git.MergeBase(hh, bh)
	inBase := r.Git.Ancestors(bh)
	inHead := r.Git.Ancestors(hh)
	var ahead []*object.Commit
	for _, cm := range r.Git.Log(hh) {
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
	files, err := c.DiffEntries(r, r.TreeOf(mbString(mb)), r.TreeOf(hh.String()), hh.String())
	if err != nil {
		return hub.ErrReply(500, "Server Error", "")
	}
	if len(files) > maxCompareFiles {
		files = files[:maxCompareFiles]
	}
	q := c.Req.URL.Query()
	lo, hi := 0, len(ahead)
	rep := &hub.Reply{Status: 200}
	if q.Get("page") != "" || q.Get("per_page") != "" {
		lo, hi, rep = c.PageOf(len(ahead))
	} else if hi > 250 {
		hi = 250
	}
	commits := []hub.Obj{}
	for _, cm := range ahead[lo:hi] {
		commits = append(commits, c.Commit(r, cm))
	}
	baseCommit, _ := r.Git.Commit(bh)
	u := c.RepoURL(r) + "/compare/" + c.Params["basehead"]
	web := c.Web + "/" + r.FullName() + "/compare/" + c.Params["basehead"]
	body := hub.Obj{
		"url": u, "html_url": web, "permalink_url": web, "diff_url": web + ".diff", "patch_url": web + ".patch",
		"base_commit": c.Commit(r, baseCommit), "status": status, "ahead_by": len(ahead), "behind_by": behind,
		"total_commits": len(ahead), "commits": commits, "files": files,
	}
	if mbc, err := r.Git.Commit(mb); err == nil {
		body["merge_base_commit"] = c.Commit(r, mbc)
	} else {
		body["merge_base_commit"] = c.Commit(r, baseCommit)
	}
	rep.Body = body
	return rep
}
