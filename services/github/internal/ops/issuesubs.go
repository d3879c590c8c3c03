package ops

import (
	"context"
	"net/http"
	"strconv"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"

	"ghops.dev/services/github/internal/ghpath"
)

// subIssuesPage is list_sub_issues' page size (GitHub's limit is 100 sub-issues a parent).
const subIssuesPage = 50

// A sub-issue may belong to another repository than its parent. The contract names it by two
// fields, sub_issue (its number) and sub_issue_repo (its repository, marked as a repository
// like repo), rather than by one "owner/repo#n" string: the gateway's policy and the service's
// request guard (reposcope) read every repository-marked field generically and would not look
// inside a string, so the other repository is checked like any other, with no parsing of its
// own (docs/security.md). Answers name sub-issues and parents the same way (repo and number),
// and the gateway confines them like every repository-marked answer field.

// subIssuePath is the path of a sub-issue endpoint of issue n of repo.
func subIssuePath(repo string, n int32, last string) (string, error) {
	return ghpath.Repo("repo", repo, ghpath.Lit("issues"), ghpath.Lit(strconv.Itoa(int(n))), ghpath.Lit(last))
}

// ListSubIssues implements the list_sub_issues tool: one GET of a page of 50, in the parent's
// order. Each item names its own repository.
func (s *Service) ListSubIssues(ctx context.Context, req *ghopsv1.ListSubIssuesRequest) (*ghopsv1.ListSubIssuesResponse, error) {
	c := issueContext(ghopsv1.ToolListSubIssues, req.GetRepo(), req.GetIssueNumber())
	p := max(int(req.GetPage()), 1)
	u, err := subIssuePath(req.GetRepo(), req.GetIssueNumber(), "sub_issues")
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	list, resp, err := get[[]*github.Issue](ctx, s, s.client(ctx), u, listQuery(p, subIssuesPage))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.ListSubIssuesResponse{SubIssues: []*ghopsv1.SubIssue{}, Page: pageInfo(p, subIssuesPage, resp)}
	for _, is := range list {
		out.SubIssues = append(out.SubIssues, &ghopsv1.SubIssue{
			Repo: repoOfURL(is.GetRepositoryURL()), Number: int32(is.GetNumber()), Title: is.GetTitle(), State: is.GetState(),
			Author: is.GetUser().GetLogin(), AuthorAssociation: is.GetAuthorAssociation(),
		})
	}
	return out, nil
}

// subIssueID resolves the sub-issue a request names (its number in sub_issue_repo, or in repo)
// to the id GitHub's sub-issue endpoints take: one GET (conditional, shared with get_issue), none
// when an answer of GitHub's gave it lately (kindmemo.go). A pull request's number is refused
// (-32002): GitHub makes only issues sub-issues.
func (s *Service) subIssueID(ctx context.Context, tool, repo string, subRepo *string, n int32) (int64, error) {
	r := repo
	if subRepo != nil {
		r = *subRepo
	}
	c := issueContext(tool, r, n)
	id, err := s.issueID(ctx, s.client(ctx), r, int(n))
	if err != nil {
		return 0, s.fail(ctx, err, c)
	}
	return id, nil
}

// AddSubIssue implements the add_sub_issue tool: the sub-issue's id (one GET), then one POST.
// GitHub refuses with 422 (-32003) a sub-issue that has another parent unless replace_parent, one
// already there, or the parent's own ancestor. The answer is the parent's progress.
func (s *Service) AddSubIssue(ctx context.Context, req *ghopsv1.AddSubIssueRequest) (*ghopsv1.AddSubIssueResponse, error) {
	c := issueContext(ghopsv1.ToolAddSubIssue, req.GetRepo(), req.GetIssueNumber())
	u, err := subIssuePath(req.GetRepo(), req.GetIssueNumber(), "sub_issues")
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	id, err := s.subIssueID(ctx, ghopsv1.ToolAddSubIssue, req.GetRepo(), req.SubIssueRepo, req.GetSubIssue())
	if err != nil {
		return nil, err
	}
	body := &struct {
		SubIssueID    int64 `json:"sub_issue_id"`
		ReplaceParent *bool `json:"replace_parent,omitempty"`
	}{id, req.ReplaceParent}
	parent, err := send[ghIssue](ctx, s.client(ctx), http.MethodPost, u, body)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.AddSubIssueResponse{SubIssues: subProgress(parent)}, nil
}

// RemoveSubIssue implements the remove_sub_issue tool: the sub-issue's id (one GET), then one
// DELETE. An issue that is not a sub-issue of this parent is GitHub's 404, -32002 naming the
// parent. Both issues stay; the answer is the parent's progress.
func (s *Service) RemoveSubIssue(ctx context.Context, req *ghopsv1.RemoveSubIssueRequest) (*ghopsv1.RemoveSubIssueResponse, error) {
	c := issueContext(ghopsv1.ToolRemoveSubIssue, req.GetRepo(), req.GetIssueNumber())
	u, err := subIssuePath(req.GetRepo(), req.GetIssueNumber(), "sub_issue")
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	id, err := s.subIssueID(ctx, ghopsv1.ToolRemoveSubIssue, req.GetRepo(), req.SubIssueRepo, req.GetSubIssue())
	if err != nil {
		return nil, err
	}
	parent, err := send[ghIssue](ctx, s.client(ctx), http.MethodDelete, u, &struct {
		SubIssueID int64 `json:"sub_issue_id"`
	}{id})
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.RemoveSubIssueResponse{SubIssues: subProgress(parent)}, nil
}

// subProgress is the parent's sub-issue progress, zero counts when it has none left.
func subProgress(parent *ghIssue) *ghopsv1.SubIssuesSummary {
	if p := parent.SubIssuesSummary.summary(); p != nil {
		return p
	}
	return &ghopsv1.SubIssuesSummary{}
}
