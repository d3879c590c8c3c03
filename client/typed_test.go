package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// typedCalls holds one typed call per tool, with representative arguments.
var typedCalls = []struct {
	tool string
	call func(ctx context.Context, c *Client) (proto.Message, error)
}{
	{"search", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.Search(ctx, &ghopsv1.SearchRequest{Query: "org:octo-org hello", Page: proto.Int32(2), PerPage: proto.Int32(10)})
	}},
	{"fetch", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.Fetch(ctx, &ghopsv1.FetchRequest{Repo: "octo-org/hello-world"})
	}},
	{"list_directory", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListDirectory(ctx, &ghopsv1.ListDirectoryRequest{Repo: "octo-org/hello-world", Path: "/", Branch: proto.String("main")})
	}},
	{"read_file", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ReadFile(ctx, &ghopsv1.ReadFileRequest{Repo: "octo-org/hello-world", Path: "README.md", Ref: proto.String("feature/clean")})
	}},
	{"get_tree", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.GetTree(ctx, &ghopsv1.GetTreeRequest{Repo: "octo-org/hello-world"})
	}},
	{"get_commits", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.GetCommits(ctx, &ghopsv1.GetCommitsRequest{Repo: "octo-org/hello-world", Branch: proto.String("main"), PerPage: proto.Int32(5)})
	}},
	{"get_branches", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.GetBranches(ctx, &ghopsv1.GetBranchesRequest{Repo: "octo-org/hello-world", Page: proto.Int32(1)})
	}},
	{"list_pull_requests", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListPullRequests(ctx, &ghopsv1.ListPullRequestsRequest{Repo: "octo-org/hello-world", State: proto.String("all")})
	}},
	{"get_pr_mergeability", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.GetPrMergeability(ctx, &ghopsv1.GetPrMergeabilityRequest{Repo: "octo-org/hello-world", PrNumber: 1})
	}},
	{"get_checks_for_sha", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.GetChecksForSha(ctx, &ghopsv1.GetChecksForShaRequest{Repo: "octo-org/hello-world", Sha: "abc1234"})
	}},
	{"create_pull_request", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.CreatePullRequest(ctx, &ghopsv1.CreatePullRequestRequest{Repo: "octo-org/hello-world", Title: "Add feature", Head: "feature/clean", Base: "main", Body: proto.String("Why."), Draft: proto.Bool(true)})
	}},
	{"update_pull_request", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.UpdatePullRequest(ctx, &ghopsv1.UpdatePullRequestRequest{Repo: "octo-org/hello-world", PrNumber: 1, State: proto.String("closed")})
	}},
	{"merge_pull_request", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.MergePullRequest(ctx, &ghopsv1.MergePullRequestRequest{Repo: "octo-org/hello-world", PrNumber: 1, MergeMethod: proto.String("squash"),
			CommitTitle: proto.String("t"), CommitMessage: proto.String("m"), Sha: proto.String("abc1234"), DeleteBranch: proto.Bool(true)})
	}},
	{"commit_files", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.CommitFiles(ctx, &ghopsv1.CommitFilesRequest{Repo: "octo-org/hello-world", Branch: "feature/clean", Message: "Update",
			Files: []*ghopsv1.FileChange{{Path: "a.txt", Content: proto.String("hi\n")}, {Path: "b.bin", Content: proto.String("AAE="), Encoding: proto.String("base64")}}})
	}},
	{"apply_patch", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ApplyPatch(ctx, &ghopsv1.ApplyPatchRequest{Repo: "octo-org/hello-world", Branch: "main", Message: "Patch",
			Patch: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", Sha: proto.String("0123456789abcdef0123456789abcdef01234567")})
	}},
	{"validate_environment", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ValidateEnvironment(ctx, &ghopsv1.ValidateEnvironmentRequest{Repo: proto.String("octo-org/hello-world")})
	}},
	{"create_branch", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.CreateBranch(ctx, &ghopsv1.CreateBranchRequest{Repo: "octo-org/hello-world", Branch: "fix/greeting", From: proto.String("main")})
	}},
	{"get_pull_request", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.GetPullRequest(ctx, &ghopsv1.GetPullRequestRequest{Repo: "octo-org/hello-world", PrNumber: 3})
	}},
	{"list_pull_request_files", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListPullRequestFiles(ctx, &ghopsv1.ListPullRequestFilesRequest{Repo: "octo-org/hello-world", PrNumber: 3, Page: proto.Int32(1), PerPage: proto.Int32(10)})
	}},
	{"compare_refs", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.CompareRefs(ctx, &ghopsv1.CompareRefsRequest{Repo: "octo-org/hello-world", Base: "main", Head: "feature/clean", PerPage: proto.Int32(5)})
	}},
	{"list_issues", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListIssues(ctx, &ghopsv1.ListIssuesRequest{Repo: "octo-org/hello-world", State: proto.String("all"), Labels: []string{"bug"}, Assignee: proto.String("octocat"), Since: proto.String("2024-05-01T00:00:00Z")})
	}},
	{"get_issue", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.GetIssue(ctx, &ghopsv1.GetIssueRequest{Repo: "octo-org/hello-world", IssueNumber: 4})
	}},
	{"list_issue_comments", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListIssueComments(ctx, &ghopsv1.ListIssueCommentsRequest{Repo: "octo-org/hello-world", IssueNumber: 4, PerPage: proto.Int32(20)})
	}},
	{"search_issues", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.SearchIssues(ctx, &ghopsv1.SearchIssuesRequest{Query: "repo:octo-org/hello-world is:issue is:open label:bug greeting"})
	}},
	{"create_issue", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.CreateIssue(ctx, &ghopsv1.CreateIssueRequest{Repo: "octo-org/hello-world", Title: "Greeting is wrong", Body: proto.String("Says good day."), Labels: []string{"bug"}, Assignees: []string{"octocat"}, Milestone: proto.Int32(1)})
	}},
	{"update_issue", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.UpdateIssue(ctx, &ghopsv1.UpdateIssueRequest{Repo: "octo-org/hello-world", IssueNumber: 5, State: proto.String("closed"), StateReason: proto.String("duplicate")})
	}},
	{"add_issue_comment", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.AddIssueComment(ctx, &ghopsv1.AddIssueCommentRequest{Repo: "octo-org/hello-world", IssueNumber: 4, Body: "Confirmed."})
	}},
	{"list_pull_request_comments", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListPullRequestComments(ctx, &ghopsv1.ListPullRequestCommentsRequest{Repo: "octo-org/hello-world", PrNumber: 3, PerPage: proto.Int32(20)})
	}},
	{"add_pull_request_comment", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.AddPullRequestComment(ctx, &ghopsv1.AddPullRequestCommentRequest{Repo: "octo-org/hello-world", PrNumber: 3, Body: "Fixed the test."})
	}},
	{"search_code", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.SearchCode(ctx, &ghopsv1.SearchCodeRequest{Query: "greeting repo:octo-org/hello-world", PerPage: proto.Int32(5)})
	}},
	{"get_ci_failures", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.GetCiFailures(ctx, &ghopsv1.GetCiFailuresRequest{Repo: "octo-org/hello-world", PrNumber: proto.Int32(3)})
	}},
	{"get_job_log", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.GetJobLog(ctx, &ghopsv1.GetJobLogRequest{Repo: "octo-org/hello-world", JobId: 1234567890123, StartLine: proto.Int32(40), MaxLines: proto.Int32(20)})
	}},
	{"rerun_failed_jobs", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.RerunFailedJobs(ctx, &ghopsv1.RerunFailedJobsRequest{Repo: "octo-org/hello-world", RunId: 9876543210})
	}},
	{"get_commit", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.GetCommit(ctx, &ghopsv1.GetCommitRequest{Repo: "octo-org/hello-world", Sha: "feature/clean", Page: proto.Int32(2), PerPage: proto.Int32(100)})
	}},
	{"list_pull_request_reviews", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListPullRequestReviews(ctx, &ghopsv1.ListPullRequestReviewsRequest{Repo: "octo-org/hello-world", PrNumber: 1})
	}},
	{"list_review_threads", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListReviewThreads(ctx, &ghopsv1.ListReviewThreadsRequest{Repo: "octo-org/hello-world", PrNumber: 1, State: proto.String("all")})
	}},
	{"create_review", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.CreateReview(ctx, &ghopsv1.CreateReviewRequest{Repo: "octo-org/hello-world", PrNumber: 1, CommitSha: "abc1234", Event: proto.String("request_changes"),
			Comments: []*ghopsv1.ReviewLineComment{{Path: "main.go", Line: 3, Body: "Handle the error."}}})
	}},
	{"submit_review", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.SubmitReview(ctx, &ghopsv1.SubmitReviewRequest{Repo: "octo-org/hello-world", PrNumber: 1, ReviewId: 80, Event: "approve"})
	}},
	{"delete_pending_review", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.DeletePendingReview(ctx, &ghopsv1.DeletePendingReviewRequest{Repo: "octo-org/hello-world", PrNumber: 1, ReviewId: 80})
	}},
	{"reply_to_review_thread", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ReplyToReviewThread(ctx, &ghopsv1.ReplyToReviewThreadRequest{Repo: "octo-org/hello-world", PrNumber: 1, ThreadId: "PRRT_kwDO1", Body: "Fixed."})
	}},
	{"resolve_review_thread", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ResolveReviewThread(ctx, &ghopsv1.ResolveReviewThreadRequest{Repo: "octo-org/hello-world", PrNumber: 1, ThreadId: "PRRT_kwDO1", Resolved: proto.Bool(true)})
	}},
	{"request_reviewers", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.RequestReviewers(ctx, &ghopsv1.RequestReviewersRequest{Repo: "octo-org/hello-world", PrNumber: 1, Reviewers: []string{"octocat"}})
	}},
	{"list_pull_request_commits", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListPullRequestCommits(ctx, &ghopsv1.ListPullRequestCommitsRequest{Repo: "octo-org/hello-world", PrNumber: 1})
	}},
	{"update_pull_request_branch", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.UpdatePullRequestBranch(ctx, &ghopsv1.UpdatePullRequestBranchRequest{Repo: "octo-org/hello-world", PrNumber: 1, ExpectedHeadSha: "0123456789abcdef0123456789abcdef01234567"})
	}},
	{"list_projects", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListProjects(ctx, &ghopsv1.ListProjectsRequest{Owner: "octo-org"})
	}},
	{"get_project", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.GetProject(ctx, &ghopsv1.GetProjectRequest{Project: "octo-org/1"})
	}},
	{"list_project_items", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListProjectItems(ctx, &ghopsv1.ListProjectItemsRequest{Project: "octo-org/1", Filter: proto.String("sprint:@current -status:Done")})
	}},
	{"add_project_item", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.AddProjectItem(ctx, &ghopsv1.AddProjectItemRequest{Project: "octo-org/1", Repo: proto.String("octo-org/hello-world"), Number: proto.Int32(4), Fields: map[string]*structpb.Value{"Status": structpb.NewStringValue("Todo")}})
	}},
	{"update_project_items", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.UpdateProjectItems(ctx, &ghopsv1.UpdateProjectItemsRequest{Project: "octo-org/1", ItemIds: []string{"PVTI_1"}, Fields: map[string]*structpb.Value{"Sprint": structpb.NewStringValue("@next")}})
	}},
	{"archive_project_item", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ArchiveProjectItem(ctx, &ghopsv1.ArchiveProjectItemRequest{Project: "octo-org/1", ItemId: "PVTI_1", Archived: true})
	}},
	{"delete_project_item", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.DeleteProjectItem(ctx, &ghopsv1.DeleteProjectItemRequest{Project: "octo-org/1", ItemId: "PVTI_1"})
	}},
	{"create_project", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.CreateProject(ctx, &ghopsv1.CreateProjectRequest{Owner: "octo-org", Title: "Plan"})
	}},
	{"create_project_field", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.CreateProjectField(ctx, &ghopsv1.CreateProjectFieldRequest{Project: "octo-org/1", Name: "Estimate", Type: "number"})
	}},
	{"create_project_status_update", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.CreateProjectStatusUpdate(ctx, &ghopsv1.CreateProjectStatusUpdateRequest{Project: "octo-org/1", Status: "at_risk", Body: "b"})
	}},
	{"list_milestones", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListMilestones(ctx, &ghopsv1.ListMilestonesRequest{Repo: "octo-org/hello-world"})
	}},
	{"create_milestone", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.CreateMilestone(ctx, &ghopsv1.CreateMilestoneRequest{Repo: "octo-org/hello-world", Title: "v1"})
	}},
	{"update_milestone", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.UpdateMilestone(ctx, &ghopsv1.UpdateMilestoneRequest{Repo: "octo-org/hello-world", Number: 1, State: proto.String("closed")})
	}},
	{"list_releases", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListReleases(ctx, &ghopsv1.ListReleasesRequest{Repo: "octo-org/hello-world", Page: proto.Int32(2)})
	}},
	{"get_release", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.GetRelease(ctx, &ghopsv1.GetReleaseRequest{Repo: "octo-org/hello-world", Tag: proto.String("v0.1.0")})
	}},
	{"create_release", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.CreateRelease(ctx, &ghopsv1.CreateReleaseRequest{Repo: "octo-org/hello-world", Tag: "v0.3.0", GenerateNotes: proto.Bool(true)})
	}},
	{"update_release", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.UpdateRelease(ctx, &ghopsv1.UpdateReleaseRequest{Repo: "octo-org/hello-world", ReleaseId: 4100001, Draft: proto.Bool(false)})
	}},
	{"list_tags", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListTags(ctx, &ghopsv1.ListTagsRequest{Repo: "octo-org/hello-world"})
	}},
	{"list_repositories", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListRepositories(ctx, &ghopsv1.ListRepositoriesRequest{Owner: proto.String("octo-org"), Sort: proto.String("pushed")})
	}},
	{"create_repository", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.CreateRepository(ctx, &ghopsv1.CreateRepositoryRequest{Owner: proto.String("octo-org"), Name: "lab", Private: true})
	}},
	{"fork_repository", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ForkRepository(ctx, &ghopsv1.ForkRepositoryRequest{Repo: "octo-org/hello-world", Owner: proto.String("octo-org"), Name: proto.String("fork")})
	}},
	{"get_me", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.GetMe(ctx, &ghopsv1.GetMeRequest{})
	}},
	{"list_labels", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListLabels(ctx, &ghopsv1.ListLabelsRequest{Repo: "octo-org/hello-world"})
	}},
	{"create_label", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.CreateLabel(ctx, &ghopsv1.CreateLabelRequest{Repo: "octo-org/hello-world", Name: "stale", Color: "c0ffee"})
	}},
	{"update_label", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.UpdateLabel(ctx, &ghopsv1.UpdateLabelRequest{Repo: "octo-org/hello-world", Name: "stale", NewName: proto.String("inactive")})
	}},
	{"label_issue", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.LabelIssue(ctx, &ghopsv1.LabelIssueRequest{Repo: "octo-org/hello-world", IssueNumber: 2, Add: []string{"stale"}, Remove: []string{"bug"}})
	}},
	{"list_sub_issues", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListSubIssues(ctx, &ghopsv1.ListSubIssuesRequest{Repo: "octo-org/hello-world", IssueNumber: 9})
	}},
	{"add_sub_issue", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.AddSubIssue(ctx, &ghopsv1.AddSubIssueRequest{Repo: "octo-org/hello-world", IssueNumber: 9, SubIssue: 3, SubIssueRepo: proto.String("octo-org/other")})
	}},
	{"remove_sub_issue", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.RemoveSubIssue(ctx, &ghopsv1.RemoveSubIssueRequest{Repo: "octo-org/hello-world", IssueNumber: 9, SubIssue: 3})
	}},
	{"list_workflows", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListWorkflows(ctx, &ghopsv1.ListWorkflowsRequest{Repo: "octo-org/hello-world"})
	}},
	{"list_workflow_runs", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.ListWorkflowRuns(ctx, &ghopsv1.ListWorkflowRunsRequest{Repo: "octo-org/hello-world", Workflow: proto.String("ci.yml"), Status: proto.String("failure")})
	}},
	{"get_workflow_run", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.GetWorkflowRun(ctx, &ghopsv1.GetWorkflowRunRequest{Repo: "octo-org/hello-world", RunId: 9876543210})
	}},
	{"run_workflow", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.RunWorkflow(ctx, &ghopsv1.RunWorkflowRequest{Repo: "octo-org/hello-world", Workflow: "ci.yml", Ref: "main", Inputs: map[string]string{"level": "debug"}})
	}},
	{"cancel_workflow_run", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.CancelWorkflowRun(ctx, &ghopsv1.CancelWorkflowRunRequest{Repo: "octo-org/hello-world", RunId: 9876543210})
	}},
	{"rerun_workflow_run", func(ctx context.Context, c *Client) (proto.Message, error) {
		return c.RerunWorkflowRun(ctx, &ghopsv1.RerunWorkflowRunRequest{Repo: "octo-org/hello-world", RunId: 9876543210})
	}},
}

// TestTypedCallsWire checks that every tool has a typed call, that it sends
// the tool's name as the method and its arguments with the contract's JSON
// names (golden file), and that results decode with proto names.
func TestTypedCallsWire(t *testing.T) {
	rec := &recorder{replies: []reply{{body: `{"jsonrpc":"2.0","id":ID,"result":{"sha":"abc1234","future_field":{"x":1}}}`}}}
	c := newTestClient(t, serve(t, rec))
	covered := map[string]bool{}
	var wire bytes.Buffer
	for i, tc := range typedCalls {
		t.Run(tc.tool, func(t *testing.T) {
			info, ok := LookupTool(tc.tool)
			if !ok {
				t.Fatalf("tool %q is not in the descriptors", tc.tool)
			}
			resp, err := tc.call(context.Background(), c)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if resp.ProtoReflect().Descriptor() != info.Response {
				t.Errorf("response type %s, want %s", resp.ProtoReflect().Descriptor().FullName(), info.Response.FullName())
			}
			if f := info.Response.Fields().ByName("sha"); f != nil && resp.ProtoReflect().Get(f).String() != "abc1234" {
				t.Errorf("sha not decoded: %v", resp)
			}
			var req rpcRequest
			if err := json.Unmarshal(rec.requests()[i], &req); err != nil {
				t.Fatal(err)
			}
			if req.Method != tc.tool || req.JSONRPC != "2.0" {
				t.Errorf("request = %+v", req)
			}
			covered[tc.tool] = true
			wire.WriteString(tc.tool + " " + string(req.Params) + "\n")
		})
	}
	for _, tool := range Tools() {
		if !covered[tool.Name] {
			t.Errorf("tool %s has no typed call", tool.Name)
		}
	}
	golden(t, "typed_requests.golden", wire.Bytes())
}

// TestTypedCallBadResult checks that a result of the wrong shape is a
// protocol error, not a silent zero value.
func TestTypedCallBadResult(t *testing.T) {
	c := newTestClient(t, serve(t, &recorder{replies: []reply{{body: `{"jsonrpc":"2.0","id":ID,"result":{"sha":42}}`}}}))
	_, err := c.ReadFile(context.Background(), &ghopsv1.ReadFileRequest{Repo: "o/r", Path: "x"})
	if !errors.Is(err, ErrBadShape) {
		t.Errorf("err = %v, want ErrBadShape", err)
	}
}

// TestTools checks the descriptor-derived tool list.
func TestTools(t *testing.T) {
	tools := Tools()
	if len(tools) != 79 {
		t.Fatalf("got %d tools, want 79", len(tools))
	}
	tests := []struct {
		name               string
		readOnly, destruct bool
	}{
		{"search", true, false},
		{"get_checks_for_sha", true, false},
		{"create_pull_request", false, false},
		{"update_pull_request", false, false},
		{"merge_pull_request", false, true},
		{"commit_files", false, true},
		{"apply_patch", false, true},
		{"validate_environment", true, false},
		{"get_commit", true, false},
		{"create_review", false, false},
		{"delete_pending_review", false, true},
		{"create_repository", false, false},
		{"get_me", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			info, ok := LookupTool(tc.name)
			if !ok || info.ReadOnly != tc.readOnly || info.Destructive != tc.destruct || info.Title == "" || info.Request == nil {
				t.Errorf("LookupTool(%q) = %+v, %v", tc.name, info, ok)
			}
		})
	}
	if _, ok := LookupTool("nope"); ok {
		t.Error("LookupTool(nope) found a tool")
	}
}
