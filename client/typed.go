package client

import (
	"context"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Call calls tool with req encoded by the contract's wire rules (protojson
// with JSON names, e.g. prNumber, and 64-bit integers as JSON numbers) and decodes the result into a new T
// (protojson, proto names, unknown fields ignored so that a newer gateway
// does not break an older client). A result that does not decode is a
// *ProtocolError of kind ErrBadShape.
//
//	resp, err := client.Call[ghopsv1.FetchResponse](ctx, c, "fetch", &ghopsv1.FetchRequest{Repo: "octo-org/hello-world"})
func Call[T any, PT interface {
	*T
	proto.Message
}](ctx context.Context, c *Client, tool string, req proto.Message) (PT, error) {
	var args []byte
	if req != nil {
		var err error
		if args, err = marshalArgs(req); err != nil {
			return nil, err
		}
	}
	raw, err := c.CallRaw(ctx, tool, args)
	if err != nil {
		return nil, err
	}
	resp := PT(new(T))
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(raw, resp); err != nil {
		return nil, &ProtocolError{Kind: ErrBadShape, Detail: "result of " + tool + " does not decode", Err: err}
	}
	return resp, nil
}

// Search calls the search tool.
func (c *Client) Search(ctx context.Context, req *ghopsv1.SearchRequest) (*ghopsv1.SearchResponse, error) {
	return Call[ghopsv1.SearchResponse](ctx, c, "search", req)
}

// Fetch calls the fetch tool.
func (c *Client) Fetch(ctx context.Context, req *ghopsv1.FetchRequest) (*ghopsv1.FetchResponse, error) {
	return Call[ghopsv1.FetchResponse](ctx, c, "fetch", req)
}

// ListDirectory calls the list_directory tool.
func (c *Client) ListDirectory(ctx context.Context, req *ghopsv1.ListDirectoryRequest) (*ghopsv1.ListDirectoryResponse, error) {
	return Call[ghopsv1.ListDirectoryResponse](ctx, c, "list_directory", req)
}

// ReadFile calls the read_file tool.
func (c *Client) ReadFile(ctx context.Context, req *ghopsv1.ReadFileRequest) (*ghopsv1.ReadFileResponse, error) {
	return Call[ghopsv1.ReadFileResponse](ctx, c, "read_file", req)
}

// GetTree calls the get_tree tool.
func (c *Client) GetTree(ctx context.Context, req *ghopsv1.GetTreeRequest) (*ghopsv1.GetTreeResponse, error) {
	return Call[ghopsv1.GetTreeResponse](ctx, c, "get_tree", req)
}

// GetCommits calls the get_commits tool.
func (c *Client) GetCommits(ctx context.Context, req *ghopsv1.GetCommitsRequest) (*ghopsv1.GetCommitsResponse, error) {
	return Call[ghopsv1.GetCommitsResponse](ctx, c, "get_commits", req)
}

// GetBranches calls the get_branches tool.
func (c *Client) GetBranches(ctx context.Context, req *ghopsv1.GetBranchesRequest) (*ghopsv1.GetBranchesResponse, error) {
	return Call[ghopsv1.GetBranchesResponse](ctx, c, "get_branches", req)
}

// ListPullRequests calls the list_pull_requests tool.
func (c *Client) ListPullRequests(ctx context.Context, req *ghopsv1.ListPullRequestsRequest) (*ghopsv1.ListPullRequestsResponse, error) {
	return Call[ghopsv1.ListPullRequestsResponse](ctx, c, "list_pull_requests", req)
}

// GetPrMergeability calls the get_pr_mergeability tool.
func (c *Client) GetPrMergeability(ctx context.Context, req *ghopsv1.GetPrMergeabilityRequest) (*ghopsv1.GetPrMergeabilityResponse, error) {
	return Call[ghopsv1.GetPrMergeabilityResponse](ctx, c, "get_pr_mergeability", req)
}

// GetChecksForSha calls the get_checks_for_sha tool.
func (c *Client) GetChecksForSha(ctx context.Context, req *ghopsv1.GetChecksForShaRequest) (*ghopsv1.GetChecksForShaResponse, error) {
	return Call[ghopsv1.GetChecksForShaResponse](ctx, c, "get_checks_for_sha", req)
}

// CreatePullRequest calls the create_pull_request tool.
func (c *Client) CreatePullRequest(ctx context.Context, req *ghopsv1.CreatePullRequestRequest) (*ghopsv1.CreatePullRequestResponse, error) {
	return Call[ghopsv1.CreatePullRequestResponse](ctx, c, "create_pull_request", req)
}

// UpdatePullRequest calls the update_pull_request tool.
func (c *Client) UpdatePullRequest(ctx context.Context, req *ghopsv1.UpdatePullRequestRequest) (*ghopsv1.UpdatePullRequestResponse, error) {
	return Call[ghopsv1.UpdatePullRequestResponse](ctx, c, "update_pull_request", req)
}

// MergePullRequest calls the merge_pull_request tool.
func (c *Client) MergePullRequest(ctx context.Context, req *ghopsv1.MergePullRequestRequest) (*ghopsv1.MergePullRequestResponse, error) {
	return Call[ghopsv1.MergePullRequestResponse](ctx, c, "merge_pull_request", req)
}

// CommitFiles calls the commit_files tool.
func (c *Client) CommitFiles(ctx context.Context, req *ghopsv1.CommitFilesRequest) (*ghopsv1.CommitFilesResponse, error) {
	return Call[ghopsv1.CommitFilesResponse](ctx, c, "commit_files", req)
}

// ApplyPatch calls the apply_patch tool: a unified diff applied to a branch
// as one commit; a refusal carries Error.Data.Patch.
func (c *Client) ApplyPatch(ctx context.Context, req *ghopsv1.ApplyPatchRequest) (*ghopsv1.ApplyPatchResponse, error) {
	return Call[ghopsv1.ApplyPatchResponse](ctx, c, "apply_patch", req)
}

// ValidateEnvironment calls the validate_environment tool.
func (c *Client) ValidateEnvironment(ctx context.Context, req *ghopsv1.ValidateEnvironmentRequest) (*ghopsv1.ValidateEnvironmentResponse, error) {
	return Call[ghopsv1.ValidateEnvironmentResponse](ctx, c, "validate_environment", req)
}
