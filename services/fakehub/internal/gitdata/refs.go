package gitdata

import (
	"strings"

	"ghops.dev/services/fakehub/internal/hub"
	"github.com/go-git/go-git/v5/plumbing"
)

func (h *api) getRef(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	if r.Empty() {
		return hub.EmptyRepo()
	}
	name := "refs/" + strings.TrimPrefix(c.Params["ref"], "refs/")
	sha, err := r.Git.Ref(name)
	if err != nil {
		return hub.NotFound()
	}
	return hub.OkReply(200, c.RefObj(r, name, sha))
}

func validRefName(name string) bool {
	return strings.HasPrefix(name, "refs/") && strings.Count(name, "/") >= 2 && !strings.Contains(name, "..") &&
		!strings.HasSuffix(name, "/") && !strings.ContainsAny(name, " ~^:?*[\\")
}

func (h *api) createRef(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	var in struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if !validRefName(in.Ref) {
		return hub.Validation(&hub.ValidationError{Message: "Reference name must start with 'refs/' and have at least two slashes."})
	}
	if _, err := r.Git.Ref(in.Ref); err == nil {
		return hub.Validation(&hub.ValidationError{Message: "Reference already exists"})
	}
	if _, err := r.Git.Commit(plumbing.NewHash(in.SHA)); !hub.HexSHA.MatchString(in.SHA) || err != nil {
		return hub.Validation(&hub.ValidationError{Message: "Object does not exist"})
	}
	sha := plumbing.NewHash(in.SHA)
	if err := r.Git.SetRef(in.Ref, sha); err != nil {
		return hub.ErrReply(500, "Server Error", "")
	}
	return hub.Created(c.RefObj(r, in.Ref, sha))
}

func (h *api) updateRef(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	var in struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	// The path names a ref below refs/ (heads/x): GitHub reads refs/heads/x there as
	// refs/refs/heads/x, which does not exist.
	name := "refs/" + c.Params["ref"]
	cur, err := r.Git.Ref(name)
	if err != nil {
		return hub.Validation(&hub.ValidationError{Message: "Reference does not exist"})
	}
	if _, err := r.Git.Commit(plumbing.NewHash(in.SHA)); !hub.HexSHA.MatchString(in.SHA) || err != nil {
		return hub.Validation(&hub.ValidationError{Message: "Object does not exist"})
	}
	sha := plumbing.NewHash(in.SHA)
	if !in.Force && !r.Git.IsAncestor(cur, sha) {
		return hub.Validation(&hub.ValidationError{Message: "Update is not a fast forward"})
	}
	if err := r.Git.SetRef(name, sha); err != nil {
		return hub.ErrReply(500, "Server Error", "")
	}
	r.Pushed = h.Stamp()
	return hub.OkReply(200, c.RefObj(r, name, sha))
}

// deleteRef deletes a branch or tag as GitHub does: a missing ref and the default branch are 422s,
// as is a protected branch (fakehub's protection never allows deletions), and open pull requests
// from or into a deleted branch are closed.
func (h *api) deleteRef(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	name := "refs/" + strings.TrimPrefix(c.Params["ref"], "refs/")
	if _, err := r.Git.Ref(name); err != nil || !validRefName(name) {
		return hub.Validation(&hub.ValidationError{Message: "Reference does not exist"})
	}
	branch, isBranch := strings.CutPrefix(name, "refs/heads/")
	if isBranch {
		if branch == r.Opts.DefaultBranch {
			return hub.Validation(&hub.ValidationError{Message: "Cannot delete the default branch"})
		}
		if _, ok := r.Protected[branch]; ok {
			return hub.Validation(&hub.ValidationError{Message: "Cannot delete this protected branch"})
		}
	}
	var closing []*hub.Pull
	if isBranch {
		for _, p := range r.Pulls {
			if p.State == "open" && (p.Head == branch || p.Base == branch) {
				closing = append(closing, p)
			}
		}
	}
	t := h.Stamp()
	for _, p := range closing {
		// Freeze the SHAs while the branch still resolves, as a closed pull request keeps them.
		p.HeadSHA, p.BaseSHA = r.PullSHAs(p)
		p.State, p.ClosedAt, p.Updated = "closed", t, t
	}
	if err := r.Git.DeleteRef(name); err != nil {
		return hub.ErrReply(500, "Server Error", "")
	}
	r.Pushed = t
	return &hub.Reply{Status: 204}
}
