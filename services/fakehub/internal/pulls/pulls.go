// Package pulls serves fakehub's pull request routes: list, create, get (with lazily computed
// mergeability), update and merge; reviews, review comments, requested reviewers, the pull
// request's commits and update-branch (reviews.go, reviewcomments.go, reviewers.go).
package pulls

import (
	"strconv"
	"strings"

	"ghops.dev/services/fakehub/internal/hub"
)

// registerPulls adds the pull request routes.
func (h *api) registerPulls(add hub.AddFunc) {
	add("GET", "/repos/{owner}/{repo}/pulls", h.WithRepo(hub.PermRead, h.listPulls))
	add("POST", "/repos/{owner}/{repo}/pulls", h.WithRepo(hub.PermWrite, h.createPull))
	// A full pull request computes its mergeability lazily; it reads shared only once that is
	// settled for its current SHAs.
	add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}", h.WithRepo(hub.PermRead, h.getPull), h.pullSettled)
	add("PATCH", "/repos/{owner}/{repo}/pulls/{pull_number}", h.WithRepo(hub.PermWrite, h.updatePull))
	add("PUT", "/repos/{owner}/{repo}/pulls/{pull_number}/merge", h.WithRepo(hub.PermWrite, h.mergePullHandler))
	add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/merge", h.WithRepo(hub.PermRead, h.checkMerged))
}

func (h *api) listPulls(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	q := c.Req.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	if state != "open" && state != "closed" && state != "all" {
		return hub.Validation(hub.Invalid("PullRequest", "state", "invalid", ""))
	}
	head := q.Get("head")
	var prs []*hub.Pull
	for i := len(r.Pulls) - 1; i >= 0; i-- {
		p := r.Pulls[i]
		if state != "all" && p.State != state {
			continue
		}
		if b := q.Get("base"); b != "" && p.Base != b {
			continue
		}
		if head != "" {
			owner, branch, ok := strings.Cut(head, ":")
			if !ok {
				owner, branch = r.Opts.Owner, head
			}
			if !strings.EqualFold(owner, r.Opts.Owner) || branch != p.Head {
				continue
			}
		}
		prs = append(prs, p)
	}
	if q.Get("direction") == "asc" {
		for i, j := 0, len(prs)-1; i < j; i, j = i+1, j-1 {
			prs[i], prs[j] = prs[j], prs[i]
		}
	}
	return hub.PageReply(c, prs, func(p *hub.Pull) hub.Obj { return c.PullObj(r, p, false) })
}

func (h *api) createPull(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	var in struct {
		Title string `json:"title"`
		Head  string `json:"head"`
		Base  string `json:"base"`
		Body  string `json:"body"`
		Draft bool   `json:"draft"`
	}
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	p, verr := h.OpenPullLocked(r, in.Head, in.Base, in.Title, in.Body, in.Draft, c.Tok.Login)
	if verr != nil {
		return hub.Validation(verr)
	}
	rep := hub.OkReply(201, c.PullObj(r, p, true))
	// The creation answer shows mergeable null; the first read after it is still null, as on GitHub.
	p.SeenPair = [2]string{}
	rep.SetHeader("Location", c.RepoURL(r)+"/pulls/"+strconv.Itoa(p.Number))
	return rep
}

// pullSettled reports whether GET pulls/{pull_number} can be answered without writing, that is
// without computing mergeability; it runs under the shared lock.
func (h *api) pullSettled(c *hub.ReqCtx) bool {
	r, ok := h.Repos[hub.RepoKey(c.Params["owner"]+"/"+c.Params["repo"])]
	if !ok {
		return true
	}
	p := c.PullNumber(r)
	return p == nil || r.MergeabilitySettled(p)
}

func (h *api) getPull(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p := c.PullNumber(r)
	if p == nil {
		return hub.NotFound()
	}
	return hub.OkReply(200, c.PullObj(r, p, true))
}

func (h *api) updatePull(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p := c.PullNumber(r)
	if p == nil {
		return hub.NotFound()
	}
	var in struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
		State *string `json:"state"`
		Base  *string `json:"base"`
	}
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if in.Title != nil {
		p.Title = *in.Title
	}
	if in.Body != nil {
		p.Body = *in.Body
	}
	if in.Base != nil && *in.Base != p.Base {
		if _, err := r.Git.Ref("refs/heads/" + *in.Base); err != nil {
			return hub.Validation(hub.Invalid("PullRequest", "base", "invalid", ""))
		}
		p.Base = *in.Base
	}
	if in.State != nil {
		switch *in.State {
		case "closed":
			if p.State == "open" {
				p.HeadSHA, p.BaseSHA = r.PullSHAs(p)
				p.State, p.ClosedAt = "closed", h.Stamp()
			}
		case "open":
			if p.State == "closed" && !p.Merged {
				p.State, p.ClosedAt, p.HeadSHA, p.BaseSHA = "open", hub.TimeZero, "", ""
			}
		default:
			return hub.Validation(hub.Invalid("PullRequest", "state", "invalid", ""))
		}
	}
	p.Updated = h.Stamp()
	return hub.OkReply(200, c.PullObj(r, p, true))
}

func (h *api) mergePullHandler(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p := c.PullNumber(r)
	if p == nil {
		return hub.NotFound()
	}
	var in struct {
		CommitTitle   string `json:"commit_title"`
		CommitMessage string `json:"commit_message"`
		SHA           string `json:"sha"`
		MergeMethod   string `json:"merge_method"`
	}
	if c.Req.ContentLength != 0 {
		if bad := hub.Decode(c, &in); bad != nil {
			return bad
		}
	}
	if m := in.MergeMethod; m != "" && m != "merge" && m != "squash" && m != "rebase" {
		return hub.Validation(hub.Invalid("PullRequest", "merge_method", "invalid", ""))
	}
	out := h.MergePull(r, p, in.MergeMethod, in.SHA, in.CommitTitle, in.CommitMessage)
	if out.Status != 200 {
		if out.Status == 422 {
			return hub.Validation(hub.Invalid("PullRequest", "merge_method", "invalid", out.Message))
		}
		return hub.ErrReply(out.Status, out.Message, hub.DocRest)
	}
	return hub.OkReply(200, hub.Obj{"sha": out.SHA, "merged": true, "message": out.Message})
}

func (h *api) checkMerged(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p := c.PullNumber(r)
	if p == nil || !p.Merged {
		return &hub.Reply{Status: 404}
	}
	return &hub.Reply{Status: 204}
}

// api serves this area's routes over the shared hub; its methods are the area's handlers.
type api struct{ *hub.Hub }

// Register adds this area's routes to h through add (see hub.New).
func Register(h *hub.Hub, add hub.AddFunc) {
	(&api{h}).registerPulls(add)
	(&api{h}).registerReviews(add)
}
