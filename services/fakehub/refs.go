package fakehub

import (
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

func (c *reqCtx) refObj(r *repo, name string, sha plumbing.Hash) obj {
	return obj{"ref": name, "node_id": nodeID("Ref", int64(len(name))), "url": c.repoURL(r) + "/git/" + name,
		"object": obj{"type": "commit", "sha": sha.String(), "url": c.repoURL(r) + "/git/commits/" + sha.String()}}
}

func (h *Hub) getRef(c *reqCtx, r *repo) *reply {
	if r.empty() {
		return emptyRepo()
	}
	name := "refs/" + strings.TrimPrefix(c.p["ref"], "refs/")
	sha, err := r.git.Ref(name)
	if err != nil {
		return notFound()
	}
	return okReply(200, c.refObj(r, name, sha))
}

func validRefName(name string) bool {
	return strings.HasPrefix(name, "refs/") && strings.Count(name, "/") >= 2 && !strings.Contains(name, "..") &&
		!strings.HasSuffix(name, "/") && !strings.ContainsAny(name, " ~^:?*[\\")
}

func (h *Hub) createRef(c *reqCtx, r *repo) *reply {
	var in struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if !validRefName(in.Ref) {
		return validation(&validationError{Message: "Reference name must start with 'refs/' and have at least two slashes."})
	}
	if _, err := r.git.Ref(in.Ref); err == nil {
		return validation(&validationError{Message: "Reference already exists"})
	}
	if _, err := r.git.Commit(plumbing.NewHash(in.SHA)); !hexSHA.MatchString(in.SHA) || err != nil {
		return validation(&validationError{Message: "Object does not exist"})
	}
	sha := plumbing.NewHash(in.SHA)
	if err := r.git.SetRef(in.Ref, sha); err != nil {
		return errReply(500, "Server Error", "")
	}
	return created(c.refObj(r, in.Ref, sha))
}

func (h *Hub) updateRef(c *reqCtx, r *repo) *reply {
	var in struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	// The path names a ref below refs/ (heads/x): GitHub reads refs/heads/x there as
	// refs/refs/heads/x, which does not exist.
	name := "refs/" + c.p["ref"]
	cur, err := r.git.Ref(name)
	if err != nil {
		return validation(&validationError{Message: "Reference does not exist"})
	}
	if _, err := r.git.Commit(plumbing.NewHash(in.SHA)); !hexSHA.MatchString(in.SHA) || err != nil {
		return validation(&validationError{Message: "Object does not exist"})
	}
	sha := plumbing.NewHash(in.SHA)
	if !in.Force && !r.git.IsAncestor(cur, sha) {
		return validation(&validationError{Message: "Update is not a fast forward"})
	}
	if err := r.git.SetRef(name, sha); err != nil {
		return errReply(500, "Server Error", "")
	}
	r.pushed = h.stamp()
	return okReply(200, c.refObj(r, name, sha))
}

// deleteRef deletes a branch or tag as GitHub does: a missing ref and the default branch are 422s,
// as is a protected branch (fakehub's protection never allows deletions), and open pull requests
// from or into a deleted branch are closed.
func (h *Hub) deleteRef(c *reqCtx, r *repo) *reply {
	name := "refs/" + strings.TrimPrefix(c.p["ref"], "refs/")
	if _, err := r.git.Ref(name); err != nil || !validRefName(name) {
		return validation(&validationError{Message: "Reference does not exist"})
	}
	branch, isBranch := strings.CutPrefix(name, "refs/heads/")
	if isBranch {
		if branch == r.opts.DefaultBranch {
			return validation(&validationError{Message: "Cannot delete the default branch"})
		}
		if _, ok := r.protected[branch]; ok {
			return validation(&validationError{Message: "Cannot delete this protected branch"})
		}
	}
	var closing []*pull
	if isBranch {
		for _, p := range r.pulls {
			if p.state == "open" && (p.head == branch || p.base == branch) {
				closing = append(closing, p)
			}
		}
	}
	t := h.stamp()
	for _, p := range closing {
		// Freeze the SHAs while the branch still resolves, as a closed pull request keeps them.
		p.headSHA, p.baseSHA = r.pullSHAs(p)
		p.state, p.closedAt, p.updated = "closed", t, t
	}
	if err := r.git.DeleteRef(name); err != nil {
		return errReply(500, "Server Error", "")
	}
	r.pushed = t
	return &reply{status: 204}
}
