package ops

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"

	"ghops.dev/services/github/internal/ghpath"
	"ghops.dev/services/github/internal/ghstatus"
)

// Size caps of the issue tools' answers (docs/errors.md lists the caps of every tool). An issue's
// title (256) and body (65,536 characters) are capped by GitHub itself, so get_issue passes them
// whole; comments are read in lists, where one long comment would crowd out the others, so each
// body is cut at MaxCommentBytes and marked body_truncated. Lists hold at most per_page items (at
// most 100) and say has_next.
const (
	// MaxCommentBytes caps each comment body of list_issue_comments.
	MaxCommentBytes = 8192
)

// issueResource names issue n of repo for a 404's data.resource.
func issueResource(repo string, n int32) *ghopsv1.Resource {
	return &ghopsv1.Resource{Type: "issue", Id: repo + "#" + strconv.Itoa(int(n))}
}

func issueContext(tool, repo string, n int32) ghstatus.Context {
	return ghstatus.Context{Tool: tool, Repo: repo, Resource: issueResource(repo, n)}
}

func labelNames(ls []*github.Label) []string {
	out := make([]string, 0, len(ls))
	for _, l := range ls {
		out = append(out, l.GetName())
	}
	return out
}

func toIssue(is *github.Issue) *ghopsv1.Issue {
	out := &ghopsv1.Issue{
		Number: int32(is.GetNumber()), Title: is.GetTitle(), Body: is.GetBody(), State: is.GetState(),
		StateReason: is.GetStateReason(), Labels: labelNames(is.Labels), Author: is.GetUser().GetLogin(),
		Comments: int32(is.GetComments()), HtmlUrl: is.GetHTMLURL(), CreatedAt: ts(is.CreatedAt), UpdatedAt: ts(is.UpdatedAt),
		AuthorAssociation: is.GetAuthorAssociation(),
	}
	for _, a := range is.Assignees {
		out.Assignees = append(out.Assignees, a.GetLogin())
	}
	if m := is.Milestone; m != nil {
		out.Milestone, out.MilestoneNumber = m.GetTitle(), int32(m.GetNumber())
	}
	return out
}

// ListIssues implements the list_issues tool. GitHub's issues list holds pull requests too (each
// with a pull_request key); they are left out, so a page may hold fewer than per_page issues while
// has_next still follows GitHub's paging.
func (s *Service) ListIssues(ctx context.Context, req *ghopsv1.ListIssuesRequest) (*ghopsv1.ListIssuesResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolListIssues, Repo: req.GetRepo()}
	p, pp := pageOf(req.Page, req.PerPage)
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("issues"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	q := listQuery(p, pp, "state", req.GetState(), "labels", strings.Join(req.GetLabels(), ","),
		"assignee", req.GetAssignee(), "since", req.GetSince(), "milestone", req.GetMilestone())
	list, resp, err := get[[]*github.Issue](ctx, s, s.client(ctx), u, q)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.ListIssuesResponse{Issues: []*ghopsv1.IssueSummary{}, Page: pageInfo(p, pp, resp)}
	for _, is := range list {
		s.kinds.put(req.GetRepo(), is.GetNumber(), is.GetID(), is.IsPullRequest())
		if is.IsPullRequest() {
			continue
		}
		out.Issues = append(out.Issues, &ghopsv1.IssueSummary{
			Number: int32(is.GetNumber()), Title: is.GetTitle(), State: is.GetState(), Labels: labelNames(is.Labels),
			Author: is.GetUser().GetLogin(), Comments: int32(is.GetComments()), UpdatedAt: ts(is.UpdatedAt),
			AuthorAssociation: is.GetAuthorAssociation(), Milestone: is.GetMilestone().GetTitle(),
			MilestoneNumber: int32(is.GetMilestone().GetNumber()),
		})
	}
	return out, nil
}

// ghIssue is GitHub's issue with the sub-issue fields go-github v66 does not know:
// parent_issue_url (absent or null when the issue has no parent) and sub_issues_summary.
type ghIssue struct {
	github.Issue
	ParentIssueURL   string            `json:"parent_issue_url"`
	SubIssuesSummary *subIssuesSummary `json:"sub_issues_summary"`
}

// subIssuesSummary is GitHub's sub_issues_summary.
type subIssuesSummary struct {
	Total            int `json:"total"`
	Completed        int `json:"completed"`
	PercentCompleted int `json:"percent_completed"`
}

// summary is the answer's progress; nil when the issue has no sub-issues.
func (s *subIssuesSummary) summary() *ghopsv1.SubIssuesSummary {
	if s == nil || s.Total == 0 {
		return nil
	}
	return &ghopsv1.SubIssuesSummary{Total: int32(s.Total), Completed: int32(s.Completed), PercentCompleted: int32(s.PercentCompleted)}
}

// links are the issue's parent (from parent_issue_url, ".../repos/owner/name/issues/n") and
// sub-issue progress, both read from the issue's own answer: no request more.
func (is *ghIssue) links() (*ghopsv1.IssueLink, *ghopsv1.SubIssuesSummary) {
	var parent *ghopsv1.IssueLink
	if head, num, ok := cutLast(strings.TrimSuffix(is.ParentIssueURL, "/"), "/issues/"); ok {
		if n, err := strconv.Atoi(num); err == nil && n > 0 && repoOfURL(head) != "" {
			parent = &ghopsv1.IssueLink{Repo: repoOfURL(head), Number: int32(n)}
		}
	}
	return parent, is.SubIssuesSummary.summary()
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// GetIssue implements the get_issue tool in one call. A pull request's number is refused
// (-32002 naming the pull request tools): GitHub's issues endpoint serves pull requests too, but
// this tool is about issues, so the agent learns it named the wrong kind instead of reading half
// a pull request.
func (s *Service) GetIssue(ctx context.Context, req *ghopsv1.GetIssueRequest) (*ghopsv1.GetIssueResponse, error) {
	c := issueContext(ghopsv1.ToolGetIssue, req.GetRepo(), req.GetIssueNumber())
	is, err := s.issueOnly(ctx, s.client(ctx), req.GetRepo(), int(req.GetIssueNumber()))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := toIssue(&is.Issue)
	out.Parent, out.SubIssues = is.links()
	return &ghopsv1.GetIssueResponse{Issue: out}, nil
}

// ListIssueComments implements the list_issue_comments tool: the issue's kind (issueOnly, the
// GET get_issue makes), then its comments. A pull request's number is refused, as GitHub would
// list its conversation comments. Each body is cut at MaxCommentBytes, on a character boundary,
// and then marked body_truncated.
func (s *Service) ListIssueComments(ctx context.Context, req *ghopsv1.ListIssueCommentsRequest) (*ghopsv1.ListIssueCommentsResponse, error) {
	c := issueContext(ghopsv1.ToolListIssueComments, req.GetRepo(), req.GetIssueNumber())
	p, pp := pageOf(req.Page, req.PerPage)
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("issues"), ghpath.Lit(strconv.Itoa(int(req.GetIssueNumber()))), ghpath.Lit("comments"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	gh := s.client(ctx)
	if _, err := s.issueOnly(ctx, gh, req.GetRepo(), int(req.GetIssueNumber())); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	comments, page, err := s.listComments(ctx, gh, u, p, pp)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.ListIssueCommentsResponse{Comments: comments, Page: page}, nil
}

// ListPullRequestComments implements the list_pull_request_comments tool: the number's kind
// (pullOnly: an issue's number is refused), then the pull request's conversation comments, which
// GitHub keeps as its issue's, cut as list_issue_comments cuts them.
func (s *Service) ListPullRequestComments(ctx context.Context, req *ghopsv1.ListPullRequestCommentsRequest) (*ghopsv1.ListPullRequestCommentsResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolListPullRequestComments, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), Resource: prResource(req.GetRepo(), req.GetPrNumber())}
	p, pp := pageOf(req.Page, req.PerPage)
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("issues"), ghpath.Lit(strconv.Itoa(int(req.GetPrNumber()))), ghpath.Lit("comments"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	gh := s.client(ctx)
	if err := s.pullOnly(ctx, gh, req.GetRepo(), int(req.GetPrNumber())); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	comments, page, err := s.listComments(ctx, gh, u, p, pp)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.ListPullRequestCommentsResponse{Comments: comments, Page: page}, nil
}

// listComments reads a page of the issue comments at u, each body cut at MaxCommentBytes.
func (s *Service) listComments(ctx context.Context, gh *github.Client, u string, p, pp int) ([]*ghopsv1.IssueComment, *ghopsv1.PageInfo, error) {
	list, resp, err := get[[]*github.IssueComment](ctx, s, gh, u, listQuery(p, pp))
	if err != nil {
		return nil, nil, err
	}
	out := []*ghopsv1.IssueComment{}
	for _, cm := range list {
		body, cut := capText(cm.GetBody(), MaxCommentBytes)
		out = append(out, &ghopsv1.IssueComment{
			Id: cm.GetID(), Author: cm.GetUser().GetLogin(), Body: body, BodyTruncated: cut, CreatedAt: ts(cm.CreatedAt),
			AuthorAssociation: cm.GetAuthorAssociation(),
		})
	}
	return out, pageInfo(p, pp, resp), nil
}

// SearchIssues implements the search_issues tool: one GitHub search, in the search bucket (30 a
// minute). Each item's repo comes from its repository_url, the field GitHub always sends.
func (s *Service) SearchIssues(ctx context.Context, req *ghopsv1.SearchIssuesRequest) (*ghopsv1.SearchIssuesResponse, error) {
	p, pp := pageOf(req.Page, req.PerPage)
	res, resp, err := s.client(ctx).Search.Issues(ctx, req.GetQuery(), &github.SearchOptions{ListOptions: github.ListOptions{Page: p, PerPage: pp}})
	if err != nil {
		return nil, s.fail(ctx, err, ghstatus.Context{Tool: ghopsv1.ToolSearchIssues})
	}
	out := &ghopsv1.SearchIssuesResponse{
		TotalCount: int32(res.GetTotal()), IncompleteResults: res.GetIncompleteResults(),
		Items: []*ghopsv1.IssueSearchItem{}, Page: pageInfo(p, pp, resp),
	}
	for _, is := range res.Issues {
		s.kinds.put(repoOfURL(is.GetRepositoryURL()), is.GetNumber(), is.GetID(), is.IsPullRequest())
		out.Items = append(out.Items, &ghopsv1.IssueSearchItem{
			Repo: repoOfURL(is.GetRepositoryURL()), Number: int32(is.GetNumber()), Title: is.GetTitle(),
			State: is.GetState(), IsPullRequest: is.IsPullRequest(), Labels: labelNames(is.Labels),
			Author: is.GetUser().GetLogin(), AuthorAssociation: is.GetAuthorAssociation(), UpdatedAt: ts(is.UpdatedAt),
			Milestone: is.GetMilestone().GetTitle(), MilestoneNumber: int32(is.GetMilestone().GetNumber()),
		})
	}
	return out, nil
}

// repoOfURL takes "owner/name" from the end of a repository's API URL
// (".../repos/owner/name").
func repoOfURL(u string) string {
	parts := strings.Split(strings.TrimSuffix(u, "/"), "/")
	if len(parts) < 3 || parts[len(parts)-3] != "repos" {
		return ""
	}
	return parts[len(parts)-2] + "/" + parts[len(parts)-1]
}

// SearchCode implements the search_code tool: one GitHub code search, in its own code_search
// bucket of 10 a minute.
func (s *Service) SearchCode(ctx context.Context, req *ghopsv1.SearchCodeRequest) (*ghopsv1.SearchCodeResponse, error) {
	p, pp := pageOf(req.Page, req.PerPage)
	res, resp, err := s.client(ctx).Search.Code(ctx, req.GetQuery(), &github.SearchOptions{ListOptions: github.ListOptions{Page: p, PerPage: pp}})
	if err != nil {
		return nil, s.fail(ctx, err, ghstatus.Context{Tool: ghopsv1.ToolSearchCode})
	}
	out := &ghopsv1.SearchCodeResponse{
		TotalCount: int32(res.GetTotal()), IncompleteResults: res.GetIncompleteResults(),
		Items: []*ghopsv1.CodeSearchItem{}, Page: pageInfo(p, pp, resp),
	}
	for _, r := range res.CodeResults {
		out.Items = append(out.Items, &ghopsv1.CodeSearchItem{Repo: r.GetRepository().GetFullName(), Path: r.GetPath(), Sha: r.GetSHA()})
	}
	return out, nil
}

// CreateIssue implements the create_issue tool. GitHub creates the labels it does not know, refuses
// an unknown milestone or an assignee who cannot be assigned with 422 (INVALID_PARAMS' -32003
// family through ghstatus), and silently drops labels, assignees and milestone for a token
// without push access.
func (s *Service) CreateIssue(ctx context.Context, req *ghopsv1.CreateIssueRequest) (*ghopsv1.CreateIssueResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolCreateIssue, Repo: req.GetRepo()}
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("issues"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	body := &github.IssueRequest{Title: github.String(req.GetTitle()), Body: req.Body}
	setIssueLists(body, req.Labels, req.Assignees, req.Milestone)
	c.FieldResources = milestoneResource(req.GetRepo(), req.Milestone)
	is, err := send[github.Issue](ctx, s.client(ctx), http.MethodPost, u, body)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	s.kinds.put(req.GetRepo(), is.GetNumber(), is.GetID(), false)
	return &ghopsv1.CreateIssueResponse{Issue: toIssue(is)}, nil
}

// UpdateIssue implements the update_issue tool: the issue's kind (issueOnly: a pull request's
// number is refused before anything is written, as GitHub's PATCH would change the pull request),
// then one PATCH: only the given fields change, and given lists replace (an empty list is the
// same as none, as proto3 cannot tell them apart).
func (s *Service) UpdateIssue(ctx context.Context, req *ghopsv1.UpdateIssueRequest) (*ghopsv1.UpdateIssueResponse, error) {
	c := issueContext(ghopsv1.ToolUpdateIssue, req.GetRepo(), req.GetIssueNumber())
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("issues"), ghpath.Lit(strconv.Itoa(int(req.GetIssueNumber()))))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	if _, err := s.issueID(ctx, s.client(ctx), req.GetRepo(), int(req.GetIssueNumber())); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	body := &github.IssueRequest{Title: req.Title, Body: req.Body, State: req.State, StateReason: req.StateReason}
	setIssueLists(body, req.Labels, req.Assignees, req.Milestone)
	c.FieldResources = milestoneResource(req.GetRepo(), req.Milestone)
	is, err := send[github.Issue](ctx, s.client(ctx), http.MethodPatch, u, body)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.UpdateIssueResponse{Issue: toIssue(is)}, nil
}

// milestoneResource names the milestone an issue write sets, for the 422
// GitHub answers when there is no such milestone (its documented answer for
// an unknown milestone number is 422 "Validation Failed" naming the field,
// not a 404): the answer stays -32003, with data.resource the milestone.
// Labels need nothing alike: GitHub creates a label it does not know.
func milestoneResource(repo string, milestone *int32) map[string]*ghopsv1.Resource {
	if milestone == nil {
		return nil
	}
	return map[string]*ghopsv1.Resource{"milestone": {Type: "milestone", Id: repo + "/milestones/" + strconv.Itoa(int(*milestone))}}
}

// setIssueLists sets the labels, assignees and milestone of an issue write
// (create_issue, update_issue): a given list replaces GitHub's, and an empty
// one is left out, as proto3 cannot tell it from an absent one.
func setIssueLists(body *github.IssueRequest, labels, assignees []string, milestone *int32) {
	if len(labels) > 0 {
		body.Labels = &labels
	}
	if len(assignees) > 0 {
		body.Assignees = &assignees
	}
	if milestone != nil {
		m := int(*milestone)
		body.Milestone = &m
	}
}

// AddIssueComment implements the add_issue_comment tool: the issue's kind (issueOnly: a pull
// request's number is refused before anything is written), then the comment.
func (s *Service) AddIssueComment(ctx context.Context, req *ghopsv1.AddIssueCommentRequest) (*ghopsv1.AddIssueCommentResponse, error) {
	c := issueContext(ghopsv1.ToolAddIssueComment, req.GetRepo(), req.GetIssueNumber())
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("issues"), ghpath.Lit(strconv.Itoa(int(req.GetIssueNumber()))), ghpath.Lit("comments"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	gh := s.client(ctx)
	if _, err := s.issueID(ctx, gh, req.GetRepo(), int(req.GetIssueNumber())); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	cm, err := addComment(ctx, gh, u, req.GetBody())
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.AddIssueCommentResponse{Id: cm.GetID(), Url: cm.GetHTMLURL()}, nil
}

// AddPullRequestComment implements the add_pull_request_comment tool: the number's kind
// (pullOnly: an issue's number is refused before anything is written), then the comment on the
// pull request's conversation, which GitHub keeps as its issue's.
func (s *Service) AddPullRequestComment(ctx context.Context, req *ghopsv1.AddPullRequestCommentRequest) (*ghopsv1.AddPullRequestCommentResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolAddPullRequestComment, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), Resource: prResource(req.GetRepo(), req.GetPrNumber())}
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("issues"), ghpath.Lit(strconv.Itoa(int(req.GetPrNumber()))), ghpath.Lit("comments"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	gh := s.client(ctx)
	if err := s.pullOnly(ctx, gh, req.GetRepo(), int(req.GetPrNumber())); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	cm, err := addComment(ctx, gh, u, req.GetBody())
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.AddPullRequestCommentResponse{Id: cm.GetID(), Url: cm.GetHTMLURL()}, nil
}

// addComment posts body as an issue comment at u (never retried: a write).
func addComment(ctx context.Context, gh *github.Client, u, body string) (*github.IssueComment, error) {
	hreq, err := gh.NewRequest(http.MethodPost, u, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		return nil, err
	}
	cm := new(github.IssueComment)
	if _, err := gh.Do(ctx, hreq, cm); err != nil {
		return nil, err
	}
	return cm, nil
}
