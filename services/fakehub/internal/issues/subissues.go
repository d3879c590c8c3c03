package issues

import (
	"encoding/json"

	"ghops.dev/services/fakehub/internal/hub"
)

// maxSubIssues is GitHub's limit of sub-issues per parent.
const maxSubIssues = 100

// registerSubIssues adds the sub-issue routes: an issue's sub-issues (list, add, remove) and its
// parent. Writes need push access to the parent's repository and read access to the sub-issue's.
func (h *api) registerSubIssues(add hub.AddFunc) {
	add("GET", "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues", h.WithRepo(hub.PermRead, h.listSubIssues))
	add("POST", "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues", h.WithRepo(hub.PermWrite, h.addSubIssue))
	add("DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/sub_issue", h.WithRepo(hub.PermWrite, h.removeSubIssue))
	add("GET", "/repos/{owner}/{repo}/issues/{issue_number}/parent", h.WithRepo(hub.PermRead, h.getParent))
}

// plainIssue resolves {issue_number} to a plain issue: pull requests have no sub-issues.
func plainIssue(c *hub.ReqCtx, r *hub.Repo) (*hub.Issue, bool) {
	x, ok := c.IssueNumber(r, false)
	if !ok || x.P != nil {
		return nil, false
	}
	return x.Is, true
}

// issueObjOf renders a plain issue of any repository.
func (h *api) issueObjOf(c *hub.ReqCtx, is *hub.Issue) hub.Obj {
	return c.IssueObj(h.RepoOfIssue(is), hub.IssueRef{Is: is})
}

func (h *api) listSubIssues(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	is, ok := plainIssue(c, r)
	if !ok {
		return hub.NotFound()
	}
	return hub.PageReply(c, is.SubIssues, func(s *hub.Issue) hub.Obj { return h.issueObjOf(c, s) })
}

func (h *api) getParent(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	is, ok := plainIssue(c, r)
	if !ok || is.Parent == nil {
		return hub.NotFound()
	}
	return hub.OkReply(200, h.issueObjOf(c, is.Parent))
}

// subIssueInput is the body of POST sub_issues and DELETE sub_issue.
type subIssueInput struct {
	SubIssueID    *json.Number `json:"sub_issue_id"`
	ReplaceParent *bool        `json:"replace_parent"`
}

// subIssue resolves the body's sub_issue_id to an issue the token may read: 422 when the id is
// missing or not an integer, 404 when no such issue can be seen.
func (h *api) subIssue(c *hub.ReqCtx) (subIssueInput, *hub.Issue, *hub.Reply) {
	var in subIssueInput
	if bad := hub.Decode(c, &in); bad != nil {
		return in, nil, bad
	}
	if in.SubIssueID == nil {
		return in, nil, hub.Validation(hub.Invalid("Issue", "sub_issue_id", "missing_field", ""))
	}
	id, err := in.SubIssueID.Int64()
	if err != nil {
		return in, nil, hub.Validation(hub.Invalid("Issue", "sub_issue_id", "invalid", ""))
	}
	sr, sub := h.IssueByID(id)
	if sub == nil || h.Perm(c.Tok, sr) == hub.PermNone {
		return in, nil, hub.NotFound()
	}
	return in, sub, nil
}

// addSubIssue answers POST .../issues/{issue_number}/sub_issues with the parent (201). GitHub
// refuses with 422 an issue made its own sub-issue or its ancestor's, one that has another
// parent unless replace_parent, one already there, and a 101st.
func (h *api) addSubIssue(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	parent, ok := plainIssue(c, r)
	if !ok {
		return hub.NotFound()
	}
	in, sub, bad := h.subIssue(c)
	if bad != nil {
		return bad
	}
	for a := parent; a != nil; a = a.Parent {
		if a == sub {
			return hub.Validation(hub.Invalid("Issue", "sub_issue_id", "invalid", "An issue cannot be its own ancestor"))
		}
	}
	switch {
	case sub.Parent == parent:
		return hub.Validation(hub.Invalid("Issue", "sub_issue_id", "already_exists", "Issue is already a sub-issue of this issue"))
	case sub.Parent != nil && (in.ReplaceParent == nil || !*in.ReplaceParent):
		return hub.Validation(hub.Invalid("Issue", "sub_issue_id", "invalid", "Issue may not contain duplicate sub-issues and Sub issue may only have one parent"))
	case len(parent.SubIssues) >= maxSubIssues:
		return hub.Validation(hub.Invalid("Issue", "sub_issue_id", "invalid", "Parent cannot have more than 100 sub-issues"))
	}
	if old := sub.Parent; old != nil {
		old.SubIssues = without(old.SubIssues, sub)
		old.Updated = h.Stamp()
	}
	sub.Parent = parent
	parent.SubIssues = append(parent.SubIssues, sub)
	parent.Updated = h.Stamp()
	o := c.IssueObj(r, hub.IssueRef{Is: parent})
	rep := hub.OkReply(201, o)
	rep.SetHeader("Location", o["url"].(string))
	return rep
}

// removeSubIssue answers DELETE .../issues/{issue_number}/sub_issue with the parent; 404 when the
// issue is not one of its sub-issues.
func (h *api) removeSubIssue(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	parent, ok := plainIssue(c, r)
	if !ok {
		return hub.NotFound()
	}
	_, sub, bad := h.subIssue(c)
	if bad != nil {
		return bad
	}
	if sub.Parent != parent {
		return hub.NotFound()
	}
	sub.Parent = nil
	parent.SubIssues = without(parent.SubIssues, sub)
	parent.Updated = h.Stamp()
	o := c.IssueObj(r, hub.IssueRef{Is: parent})
	rep := hub.OkReply(200, o)
	rep.SetHeader("Location", o["url"].(string))
	return rep
}

func without(xs []*hub.Issue, x *hub.Issue) []*hub.Issue {
	out := make([]*hub.Issue, 0, len(xs))
	for _, o := range xs {
		if o != x {
			out = append(out, o)
		}
	}
	return out
}
