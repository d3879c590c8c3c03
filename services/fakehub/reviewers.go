package fakehub

// Requested reviewers, a pull request's commits and bringing its base into its head.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

func removeFold(xs []string, login string) []string {
	return slices.DeleteFunc(slices.Clone(xs), func(x string) bool { return strings.EqualFold(x, login) })
}

func (c *reqCtx) teamObj(r *repo, slug string) obj {
	u := c.api + "/orgs/" + r.opts.Owner + "/teams/" + slug
	id := c.h.userID("team:" + r.opts.Owner + "/" + slug)
	return obj{
		"id": id, "node_id": nodeID("Team", id), "url": u, "members_url": u + "/members{/member}", "name": slug,
		"slug": slug, "description": nil, "permission": "pull", "privacy": "closed", "notification_setting": "notifications_enabled",
		"html_url": c.web + "/orgs/" + r.opts.Owner + "/teams/" + slug, "repositories_url": u + "/repos", "parent": nil, "type": "organization",
	}
}

func (c *reqCtx) requestedObjs(r *repo, p *pull) ([]obj, []obj) {
	users, teams := []obj{}, []obj{}
	for _, l := range p.rv.requested {
		users = append(users, c.user(l))
	}
	for _, s := range p.rv.requestedTeams {
		teams = append(teams, c.teamObj(r, s))
	}
	return users, teams
}

func (h *Hub) listRequestedReviewers(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	users, teams := c.requestedObjs(r, p)
	return okReply(200, obj{"users": users, "teams": teams})
}

type reviewersInput struct {
	Reviewers     []string `json:"reviewers"`
	TeamReviewers []string `json:"team_reviewers"`
}

// collaborator reports whether login can be asked for a review: a user with access to r
// through a token, as fakehub models collaborators.
func (h *Hub) collaborator(r *repo, login string) bool {
	for _, t := range h.tokens {
		if strings.EqualFold(t.Login, login) && !t.installation {
			_, one := t.Repos[r.fullName()]
			_, all := t.Repos["*"]
			if one || all {
				return true
			}
		}
	}
	return strings.EqualFold(login, r.opts.Owner)
}

func (h *Hub) requestReviewers(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	var in reviewersInput
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if len(in.Reviewers) == 0 && len(in.TeamReviewers) == 0 {
		return validation(invalid("PullRequest", "reviewers", "missing_field", ""))
	}
	for _, l := range in.Reviewers {
		if strings.EqualFold(l, p.user) {
			return unprocessable("Review cannot be requested from pull request author.")
		}
		if !h.collaborator(r, l) {
			return unprocessable("Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the " + r.fullName() + " repository.")
		}
	}
	for _, l := range in.Reviewers {
		if !slices.ContainsFunc(p.rv.requested, func(x string) bool { return strings.EqualFold(x, l) }) {
			p.rv.requested = append(p.rv.requested, l)
		}
	}
	for _, s := range in.TeamReviewers {
		if !slices.Contains(p.rv.requestedTeams, s) {
			p.rv.requestedTeams = append(p.rv.requestedTeams, s)
		}
	}
	p.updated = h.stamp()
	rep := okReply(201, c.pullObj(r, p, false))
	rep.setHeader("Location", c.repoURL(r)+"/pulls/"+strconv.Itoa(p.number))
	return rep
}

func (h *Hub) removeRequestedReviewers(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	var in reviewersInput
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if in.Reviewers == nil {
		return validation(invalid("PullRequest", "reviewers", "missing_field", ""))
	}
	for _, l := range in.Reviewers {
		p.rv.requested = removeFold(p.rv.requested, l)
	}
	for _, s := range in.TeamReviewers {
		p.rv.requestedTeams = slices.DeleteFunc(slices.Clone(p.rv.requestedTeams), func(x string) bool { return x == s })
	}
	p.updated = h.stamp()
	return okReply(200, c.pullObj(r, p, false))
}

// listPullCommits answers GET pulls/{n}/commits: the head's commits not on the base, oldest
// first, at most 250 as on GitHub.
func (h *Hub) listPullCommits(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	head, base := r.pullSHAs(p)
	inBase := r.git.Ancestors(plumbing.NewHash(base))
	log := r.git.Log(plumbing.NewHash(head))
	var commits []plumbing.Hash
	for i := len(log) - 1; i >= 0; i-- {
		if !inBase[log[i].Hash] {
			commits = append(commits, log[i].Hash)
		}
	}
	if len(commits) > 250 {
		commits = commits[:250]
	}
	return pageReply(c, commits, func(sha plumbing.Hash) obj {
		cm, err := r.git.Commit(sha)
		if err != nil {
			return obj{}
		}
		return c.commit(r, cm)
	})
}

// updatePullBranch answers PUT pulls/{n}/update-branch: the base merged into the head branch
// with a merge commit, as GitHub's "Update branch" button does; 202 while GitHub would work on
// it in the background (fakehub has finished by then).
func (h *Hub) updatePullBranch(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	var in struct {
		ExpectedHeadSHA *string `json:"expected_head_sha"`
	}
	if c.r.ContentLength != 0 {
		if bad := decode(c, &in); bad != nil {
			return bad
		}
	}
	if p.state != "open" {
		return unprocessable("Pull request is closed")
	}
	headStr, baseStr := r.pullSHAs(p)
	if in.ExpectedHeadSHA != nil && *in.ExpectedHeadSHA != headStr {
		return &reply{status: 422, body: obj{"message": "expected head sha didn’t match current head ref.", "documentation_url": "https://docs.github.com/rest/pulls/pulls#update-a-pull-request-branch", "status": "422"}}
	}
	head, base := plumbing.NewHash(headStr), plumbing.NewHash(baseStr)
	if r.git.IsAncestor(base, head) {
		return &reply{status: 422, body: obj{"message": "There are no new commits on the base branch.", "documentation_url": "https://docs.github.com/rest/pulls/pulls#update-a-pull-request-branch", "status": "422"}}
	}
	tree, conflicts, err := r.testMerge(head, base)
	if err != nil || len(conflicts) > 0 {
		return &reply{status: 422, body: obj{"message": "merge conflict between base and head", "documentation_url": "https://docs.github.com/rest/pulls/pulls#update-a-pull-request-branch", "status": "422"}}
	}
	t := h.stamp()
	msg := "Merge branch '" + p.base + "' into " + p.head + "\n"
	sha, err := r.git.WriteCommit(tree, []plumbing.Hash{head, base}, msg, systemSig(t), systemSig(t))
	if err != nil {
		return errReply(500, "Server Error", "")
	}
	if err := r.git.SetRef("refs/heads/"+p.head, sha); err != nil {
		return errReply(500, "Server Error", "")
	}
	r.pushed, p.updated = t, t
	return okReply(202, obj{"message": "Updating pull request branch.", "url": c.web + "/" + r.fullName() + "/pull/" + strconv.Itoa(p.number)})
}
