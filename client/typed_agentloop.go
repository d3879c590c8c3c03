package client

import (
	"context"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// The typed calls of issue 22's tools (branches, pull request details and
// diffs, issues and comments, code search, CI failures), kept apart from
// typed.go's first sixteen.

// CreateBranch calls the create_branch tool.
func (c *Client) CreateBranch(ctx context.Context, req *ghopsv1.CreateBranchRequest) (*ghopsv1.CreateBranchResponse, error) {
	return Call[ghopsv1.CreateBranchResponse](ctx, c, "create_branch", req)
}

// GetPullRequest calls the get_pull_request tool.
func (c *Client) GetPullRequest(ctx context.Context, req *ghopsv1.GetPullRequestRequest) (*ghopsv1.GetPullRequestResponse, error) {
	return Call[ghopsv1.GetPullRequestResponse](ctx, c, "get_pull_request", req)
}

// ListPullRequestFiles calls the list_pull_request_files tool.
func (c *Client) ListPullRequestFiles(ctx context.Context, req *ghopsv1.ListPullRequestFilesRequest) (*ghopsv1.ListPullRequestFilesResponse, error) {
	return Call[ghopsv1.ListPullRequestFilesResponse](ctx, c, "list_pull_request_files", req)
}

// CompareRefs calls the compare_refs tool.
func (c *Client) CompareRefs(ctx context.Context, req *ghopsv1.CompareRefsRequest) (*ghopsv1.CompareRefsResponse, error) {
	return Call[ghopsv1.CompareRefsResponse](ctx, c, "compare_refs", req)
}

// ListIssues calls the list_issues tool.
func (c *Client) ListIssues(ctx context.Context, req *ghopsv1.ListIssuesRequest) (*ghopsv1.ListIssuesResponse, error) {
	return Call[ghopsv1.ListIssuesResponse](ctx, c, "list_issues", req)
}

// GetIssue calls the get_issue tool.
func (c *Client) GetIssue(ctx context.Context, req *ghopsv1.GetIssueRequest) (*ghopsv1.GetIssueResponse, error) {
	return Call[ghopsv1.GetIssueResponse](ctx, c, "get_issue", req)
}

// ListIssueComments calls the list_issue_comments tool.
func (c *Client) ListIssueComments(ctx context.Context, req *ghopsv1.ListIssueCommentsRequest) (*ghopsv1.ListIssueCommentsResponse, error) {
	return Call[ghopsv1.ListIssueCommentsResponse](ctx, c, "list_issue_comments", req)
}

// SearchIssues calls the search_issues tool.
func (c *Client) SearchIssues(ctx context.Context, req *ghopsv1.SearchIssuesRequest) (*ghopsv1.SearchIssuesResponse, error) {
	return Call[ghopsv1.SearchIssuesResponse](ctx, c, "search_issues", req)
}

// CreateIssue calls the create_issue tool.
func (c *Client) CreateIssue(ctx context.Context, req *ghopsv1.CreateIssueRequest) (*ghopsv1.CreateIssueResponse, error) {
	return Call[ghopsv1.CreateIssueResponse](ctx, c, "create_issue", req)
}

// UpdateIssue calls the update_issue tool.
func (c *Client) UpdateIssue(ctx context.Context, req *ghopsv1.UpdateIssueRequest) (*ghopsv1.UpdateIssueResponse, error) {
	return Call[ghopsv1.UpdateIssueResponse](ctx, c, "update_issue", req)
}

// AddIssueComment calls the add_issue_comment tool.
func (c *Client) AddIssueComment(ctx context.Context, req *ghopsv1.AddIssueCommentRequest) (*ghopsv1.AddIssueCommentResponse, error) {
	return Call[ghopsv1.AddIssueCommentResponse](ctx, c, "add_issue_comment", req)
}

// ListPullRequestComments calls the list_pull_request_comments tool.
func (c *Client) ListPullRequestComments(ctx context.Context, req *ghopsv1.ListPullRequestCommentsRequest) (*ghopsv1.ListPullRequestCommentsResponse, error) {
	return Call[ghopsv1.ListPullRequestCommentsResponse](ctx, c, "list_pull_request_comments", req)
}

// AddPullRequestComment calls the add_pull_request_comment tool.
func (c *Client) AddPullRequestComment(ctx context.Context, req *ghopsv1.AddPullRequestCommentRequest) (*ghopsv1.AddPullRequestCommentResponse, error) {
	return Call[ghopsv1.AddPullRequestCommentResponse](ctx, c, "add_pull_request_comment", req)
}

// SearchCode calls the search_code tool.
func (c *Client) SearchCode(ctx context.Context, req *ghopsv1.SearchCodeRequest) (*ghopsv1.SearchCodeResponse, error) {
	return Call[ghopsv1.SearchCodeResponse](ctx, c, "search_code", req)
}

// GetCiFailures calls the get_ci_failures tool.
func (c *Client) GetCiFailures(ctx context.Context, req *ghopsv1.GetCiFailuresRequest) (*ghopsv1.GetCiFailuresResponse, error) {
	return Call[ghopsv1.GetCiFailuresResponse](ctx, c, "get_ci_failures", req)
}

// GetJobLog calls the get_job_log tool.
func (c *Client) GetJobLog(ctx context.Context, req *ghopsv1.GetJobLogRequest) (*ghopsv1.GetJobLogResponse, error) {
	return Call[ghopsv1.GetJobLogResponse](ctx, c, "get_job_log", req)
}

// RerunFailedJobs calls the rerun_failed_jobs tool.
func (c *Client) RerunFailedJobs(ctx context.Context, req *ghopsv1.RerunFailedJobsRequest) (*ghopsv1.RerunFailedJobsResponse, error) {
	return Call[ghopsv1.RerunFailedJobsResponse](ctx, c, "rerun_failed_jobs", req)
}
