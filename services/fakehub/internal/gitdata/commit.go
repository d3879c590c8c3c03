package gitdata

import (
	"ghops.dev/services/fakehub/internal/hub"
)

// GET /repos/{owner}/{repo}/commits/{ref}: one commit as GitHub's "commit"
// shape, the list's commit with its stats and the files it changes against
// its first parent (all of a root commit's files are added), as diff
// entries with patches. page and per_page page the files; the stats count
// every file, whatever the page.

// getCommit answers GET commits/{ref} for a branch, tag or (abbreviated)
// sha. A ref that names no commit is 422 "No commit found for SHA", as on
// GitHub, and an empty repository 409.
func (h *api) getCommit(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	if r.Empty() {
		return hub.EmptyRepo()
	}
	ref := c.Params["ref"]
	sha, ok := r.Resolve(ref)
	if !ok {
		return hub.Validation(&hub.ValidationError{Message: "No commit found for SHA: " + ref})
	}
	cm, err := r.Git.Commit(sha)
	if err != nil {
		return hub.Validation(&hub.ValidationError{Message: "No commit found for SHA: " + ref})
	}
	parent := ""
	if len(cm.ParentHashes) > 0 {
		parent = cm.ParentHashes[0].String()
	}
	files, err := c.DiffEntries(r, r.TreeOf(parent), cm.TreeHash, sha.String())
	if err != nil {
		return hub.ErrReply(500, "Server Error", "")
	}
	adds, dels := 0, 0
	for _, f := range files {
		adds += f["additions"].(int)
		dels += f["deletions"].(int)
	}
	if len(files) > maxPullFiles {
		files = files[:maxPullFiles] // GitHub lists at most 3,000 files of a commit
	}
	lo, hi, rep := c.PageOf(len(files))
	body := c.Commit(r, cm)
	body["stats"] = hub.Obj{"additions": adds, "deletions": dels, "total": adds + dels}
	body["files"] = files[lo:hi]
	rep.Body = body
	return rep
}
