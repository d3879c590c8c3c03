package pulls

// Requested reviewers, a pull request's commits and bringing its base into its head.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"ghops.dev/services/fakehub/internal/hub"
)

func (h *api) listRequestedReviewers(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p := c.PullNumber(r)
	if p == nil {
		return hub.NotFound()
	}
	users, teams := c.RequestedObjs(r, p)
	return hub.OkReply(200, hub.Obj{"users": users, "teams": teams})
}

type reviewersInput struct {
	Reviewers     []string `json:"reviewers"`
	TeamReviewers []string `json:"team_reviewers"`
}

func (h *api) requestReviewers(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p := c.PullNumber(r)
	if p == nil {
		return hub.NotFound()
	}
	var in reviewersInput
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if len(in.Reviewers) == 0 && len(in.TeamReviewers) == 0 {
		return hub.Validation(hub.Invalid("PullRequest", "reviewers", "missing_field", ""))
	}
	for _, l := range in.Reviewers {
		if strings.EqualFold(l, p.Author()) {
			return unprocessable("Review cannot be requested from pull request author.")
		}
		if !h.Collaborator(r, l) {
			return unprocessable("Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the " + r.FullName() + " repository.")
		}
	}
	for _, l := range in.Reviewers {
		if !slices.ContainsFunc(p.Reviews.Requested, func(x string) bool { return strings.EqualFold(x, l) }) {
			p.Reviews.Requested = append(p.Reviews.Requested, l)
		}
	}
	for _, s := range in.TeamReviewers {
		if !slices.Contains(p.Reviews.RequestedTeams, s) {
			p.Reviews.RequestedTeams = append(p.Reviews.RequestedTeams, s)
		}
	}
	p.Updated = h.Stamp()
	rep := hub.OkReply(201, c.PullObj(r, p, false))
	rep.SetHeader("Location", c.RepoURL(r)+"/pulls/"+strconv.Itoa(p.Number))
	return rep
}

func (h *api) removeRequestedReviewers(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p := c.PullNumber(r)
	if p == nil {
		return hub.NotFound()
	}
	var in reviewersInput
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if in.Reviewers == nil {
		return hub.Validation(hub.Invalid("PullRequest", "reviewers", "missing_field", ""))
	}
	for _, l := range in.Reviewers {
		p.Reviews.Requested = hub.RemoveFold(p.Reviews.Requested, l)
	}
	for _, s := range in.TeamReviewers {
		p.Reviews.RequestedTeams = slices.DeleteFunc(slices.Clone(p.Reviews.RequestedTeams), func(x string) bool { return x == s })
	}
	p.Updated = h.Stamp()
	return hub.OkReply(200, c.PullObj(r, p, false))
}

// listPullCommits answers GET pulls/{n}/commits: the head's commits not on the base, oldest
// first, at most 250 as on GitHub.
func (h *api) listPullCommits(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p := c.PullNumber(r)
	if p == nil {
		return hub.NotFound()
	}
	head, base := r.PullSHAs(p)
	inBase := r.Git.Ancestors(plumbing.NewHash(base))
	log := r.Git.Log(plumbing.NewHash(head))
	var commits []plumbing.Hash
	for i := len(log) - 1; i >= 0; i-- {
		if !inBase[log[i].Hash] {
			commits = append(commits, log[i].Hash)
		}
	}
	if len(commits) > 250 {
		commits = commits[:250]
	}
	return hub.PageReply(c, commits, func(sha plumbing.Hash) hub.Obj {
		cm, err := r.Git.Commit(sha)
		if err != nil {
			return hub.Obj{}
		}
		return c.Commit(r, cm)
	})
}

// docUpdateBranch is the documentation_url of update-branch's errors.
const docUpdateBranch = "https://docs.github.com/rest/pulls/pulls#update-a-pull-request-branch"

// updatePullBranch answers PUT pulls/{n}/update-branch: the base merged into the head branch
// with a merge commit, as GitHub's "Update branch" button does; 202 while GitHub would work on
// it in the background (fakehub has finished by then).
func (h *api) updatePullBranch(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p := c.PullNumber(r)
	if p == nil {
		return hub.NotFound()
	}
	var in struct {
		ExpectedHeadSHA *string `json:"expected_head_sha"`
	}
	if c.Req.ContentLength != 0 {
		if bad := hub.Decode(c, &in); bad != nil {
			return bad
		}
	}
	if p.State != "open" {
		return unprocessable("Pull request is closed")
	}
	headStr, _ := r.PullSHAs(p)
	if in.ExpectedHeadSHA != nil && *in.ExpectedHeadSHA != headStr {
		return &hub.Reply{Status: 422, Body: hub.Obj{"message": "expected head sha didn’t match current head ref.", "documentation_url": docUpdateBranch, "status": "422"}}
	}
	if _, why := h.MergeBaseIntoHead(r, p); why != "" {
		if why == "Server Error" {
			return hub.ErrReply(500, why, "")
		}
		return &hub.Reply{Status: 422, Body: hub.Obj{"message": why, "documentation_url": docUpdateBranch, "status": "422"}}
	}
	return hub.OkReply(202, hub.Obj{"message": "Updating pull request branch.", "url": c.Web + "/" + r.FullName() + "/pull/" + strconv.Itoa(p.Number)})
}
