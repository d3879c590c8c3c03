package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"ghops.dev/client"
	"ghops.dev/gateway/gatewaytest"
	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

const demoRepo = "octo-org/hello-world"

// transports are the ways a client reaches the real gateway: /rpc, /mcp with
// tool errors as JSON-RPC errors, and /mcp with tool errors as isError
// results.
var transports = []struct {
	name      string
	transport client.Transport
	toolErrs  string
}{
	{"rpc", client.TransportRPC, ""},
	{"mcp", client.TransportMCP, "jsonrpc"},
	{"mcp_result_errors", client.TransportMCP, "result"},
}

func newStackClient(t *testing.T, url string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestE2EEveryTool calls each tool proto declares through the typed API against
// the real stack (gateway + service + fakehub with the demo data), over /rpc
// and over /mcp, with the service split off and embedded.
func TestE2EEveryTool(t *testing.T) {
	for _, shape := range gatewaytest.Shapes {
		for _, tr := range transports[:2] {
			t.Run(shape.Name+"/"+tr.name, func(t *testing.T) {
				everyTool(t, tr.transport, shape.Embedded)
			})
		}
	}
}

// everyTool calls each tool over transport against a new stack, split or
// embedded.
func everyTool(t *testing.T, transport client.Transport, embedded bool) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Embedded: embedded})
	c := newStackClient(t, st.URL, client.WithTransport(transport))
	ctx := context.Background()
	var headSHA string
	var failedJob, failedRun, dispatched int64
	var threadID, prHead string
	var reviewID int64
	var project string
	var items []string
	var milestone int32
	var release int64
	steps := []struct {
		name string
		run  func() (bool, error)
	}{
		{"search", func() (bool, error) {
			r, err := c.Search(ctx, &ghopsv1.SearchRequest{Query: "greeter"})
			return err == nil && len(r.GetRepositories()) > 0, err
		}},
		{"fetch", func() (bool, error) {
			r, err := c.Fetch(ctx, &ghopsv1.FetchRequest{Repo: demoRepo})
			return err == nil && r.GetRepository().GetFullName() == demoRepo && r.GetRepository().GetDefaultBranch() == "main", err
		}},
		{"list_directory", func() (bool, error) {
			r, err := c.ListDirectory(ctx, &ghopsv1.ListDirectoryRequest{Repo: demoRepo, Path: "/"})
			return err == nil && len(r.GetEntries()) > 0, err
		}},
		{"read_file", func() (bool, error) {
			r, err := c.ReadFile(ctx, &ghopsv1.ReadFileRequest{Repo: demoRepo, Path: "go.mod"})
			return err == nil && strings.Contains(r.GetContent(), "module example.com/hello-world"), err
		}},
		{"get_tree", func() (bool, error) {
			r, err := c.GetTree(ctx, &ghopsv1.GetTreeRequest{Repo: demoRepo, Branch: proto.String("main")})
			return err == nil && len(r.GetEntries()) > 0, err
		}},
		{"get_commits", func() (bool, error) {
			r, err := c.GetCommits(ctx, &ghopsv1.GetCommitsRequest{Repo: demoRepo, PerPage: proto.Int32(2)})
			return err == nil && len(r.GetCommits()) == 2, err
		}},
		{"get_branches", func() (bool, error) {
			r, err := c.GetBranches(ctx, &ghopsv1.GetBranchesRequest{Repo: demoRepo})
			return err == nil && len(r.GetBranches()) >= 3, err
		}},
		{"list_pull_requests", func() (bool, error) {
			r, err := c.ListPullRequests(ctx, &ghopsv1.ListPullRequestsRequest{Repo: demoRepo, State: proto.String("open")})
			return err == nil && len(r.GetPullRequests()) >= 2, err
		}},
		{"get_pr_mergeability", func() (bool, error) {
			r, err := c.GetPrMergeability(ctx, &ghopsv1.GetPrMergeabilityRequest{Repo: demoRepo, PrNumber: 1})
			headSHA = r.GetHeadSha()
			return err == nil && r.GetMergeable() && r.GetMergeableState() == "clean" && len(headSHA) == 40, err
		}},
		{"get_checks_for_sha", func() (bool, error) {
			r, err := c.GetChecksForSha(ctx, &ghopsv1.GetChecksForShaRequest{Repo: demoRepo, Sha: headSHA})
			return err == nil && r.GetSummary().GetVerdict() == "success", err
		}},
		{"get_commit", func() (bool, error) {
			r, err := c.GetCommit(ctx, &ghopsv1.GetCommitRequest{Repo: demoRepo, Sha: headSHA[:7]})
			return err == nil && r.GetSha() == headSHA && len(r.GetParents()) == 1 && len(r.GetFiles()) > 0 &&
				r.GetStats().GetTotal() > 0 && r.GetFiles()[0].GetPatch() != "", err
		}},
		// The demo's pull request #3 (feature/greet-test) fails its "test"
		// job; issues #4-#8 follow it in the shared number sequence, #4
		// with one comment, #8 closed.
		{"get_pull_request", func() (bool, error) {
			r, err := c.GetPullRequest(ctx, &ghopsv1.GetPullRequestRequest{Repo: demoRepo, PrNumber: 3})
			return err == nil && r.GetPullRequest().GetNumber() == 3, err
		}},
		{"list_pull_request_files", func() (bool, error) {
			r, err := c.ListPullRequestFiles(ctx, &ghopsv1.ListPullRequestFilesRequest{Repo: demoRepo, PrNumber: 3})
			return err == nil && len(r.GetFiles()) > 0, err
		}},
		{"compare_refs", func() (bool, error) {
			r, err := c.CompareRefs(ctx, &ghopsv1.CompareRefsRequest{Repo: demoRepo, Base: "main", Head: "feature/greet-test"})
			return err == nil && r.GetAheadBy() > 0 && len(r.GetCommits()) > 0, err
		}},
		{"get_ci_failures", func() (bool, error) {
			r, err := c.GetCiFailures(ctx, &ghopsv1.GetCiFailuresRequest{Repo: demoRepo, PrNumber: proto.Int32(3)})
			if err != nil || len(r.GetFailed()) != 1 {
				return false, err
			}
			failedJob, failedRun = r.GetFailed()[0].GetJobId(), r.GetFailed()[0].GetRunId()
			return r.GetFailed()[0].GetName() == "test" && failedJob != 0 && failedRun != 0, nil
		}},
		{"get_job_log", func() (bool, error) {
			r, err := c.GetJobLog(ctx, &ghopsv1.GetJobLogRequest{Repo: demoRepo, JobId: failedJob, TailLines: proto.Int32(3)})
			return err == nil && len(r.GetLines()) == 3 && r.GetTotalLines() > 3, err
		}},
		{"list_issues", func() (bool, error) {
			r, err := c.ListIssues(ctx, &ghopsv1.ListIssuesRequest{Repo: demoRepo, State: proto.String("all")})
			return err == nil && len(r.GetIssues()) == 9, err
		}},
		{"get_issue", func() (bool, error) {
			r, err := c.GetIssue(ctx, &ghopsv1.GetIssueRequest{Repo: demoRepo, IssueNumber: 4})
			return err == nil && r.GetIssue().GetTitle() == "Greeting ignores empty names", err
		}},
		{"list_issue_comments", func() (bool, error) {
			r, err := c.ListIssueComments(ctx, &ghopsv1.ListIssueCommentsRequest{Repo: demoRepo, IssueNumber: 4})
			return err == nil && len(r.GetComments()) == 1, err
		}},
		{"search_issues", func() (bool, error) {
			r, err := c.SearchIssues(ctx, &ghopsv1.SearchIssuesRequest{Query: "repo:" + demoRepo + " is:issue greeting"})
			return err == nil && len(r.GetItems()) > 0, err
		}},
		{"search_code", func() (bool, error) {
			r, err := c.SearchCode(ctx, &ghopsv1.SearchCodeRequest{Query: "Hello repo:" + demoRepo})
			return err == nil && len(r.GetItems()) > 0, err
		}},
		{"create_branch", func() (bool, error) {
			r, err := c.CreateBranch(ctx, &ghopsv1.CreateBranchRequest{Repo: demoRepo, Branch: "feature/new", From: proto.String("main")})
			return err == nil && r.GetBranch() == "feature/new" && len(r.GetSha()) == 40, err
		}},
		{"create_pull_request", func() (bool, error) {
			r, err := c.CreatePullRequest(ctx, &ghopsv1.CreatePullRequestRequest{Repo: demoRepo, Title: "Casual on clean",
				Head: "feature/conflict", Base: "feature/clean", Draft: proto.Bool(true)})
			return err == nil && r.GetPullRequest().GetNumber() == 13 && r.GetPullRequest().GetDraft(), err
		}},
		{"update_pull_request", func() (bool, error) {
			r, err := c.UpdatePullRequest(ctx, &ghopsv1.UpdatePullRequestRequest{Repo: demoRepo, PrNumber: 13, Title: proto.String("Renamed")})
			return err == nil && r.GetPullRequest().GetTitle() == "Renamed", err
		}},
		{"create_issue", func() (bool, error) {
			r, err := c.CreateIssue(ctx, &ghopsv1.CreateIssueRequest{Repo: demoRepo, Title: "Greet in French", Labels: []string{"enhancement"}})
			return err == nil && r.GetIssue().GetNumber() == 14 && r.GetIssue().GetState() == "open", err
		}},
		{"update_issue", func() (bool, error) {
			r, err := c.UpdateIssue(ctx, &ghopsv1.UpdateIssueRequest{Repo: demoRepo, IssueNumber: 14, State: proto.String("closed"), StateReason: proto.String("not_planned")})
			return err == nil && r.GetIssue().GetState() == "closed", err
		}},
		{"add_issue_comment", func() (bool, error) {
			r, err := c.AddIssueComment(ctx, &ghopsv1.AddIssueCommentRequest{Repo: demoRepo, IssueNumber: 4, Body: "Fixed by the next release."})
			return err == nil && r.GetId() != 0, err
		}},
		{"add_pull_request_comment", func() (bool, error) {
			r, err := c.AddPullRequestComment(ctx, &ghopsv1.AddPullRequestCommentRequest{Repo: demoRepo, PrNumber: 13, Body: "Ready for review."})
			return err == nil && r.GetId() != 0, err
		}},
		{"list_pull_request_comments", func() (bool, error) {
			r, err := c.ListPullRequestComments(ctx, &ghopsv1.ListPullRequestCommentsRequest{Repo: demoRepo, PrNumber: 13})
			return err == nil && len(r.GetComments()) == 1 && r.GetComments()[0].GetBody() == "Ready for review.", err
		}},
		{"rerun_failed_jobs", func() (bool, error) {
			r, err := c.RerunFailedJobs(ctx, &ghopsv1.RerunFailedJobsRequest{Repo: demoRepo, RunId: failedRun})
			return err == nil && r.GetRunId() == failedRun && r.GetStatus() == "queued", err
		}},
		{"list_workflows", func() (bool, error) {
			r, err := c.ListWorkflows(ctx, &ghopsv1.ListWorkflowsRequest{Repo: demoRepo})
			return err == nil && len(r.GetWorkflows()) == 2 && r.GetWorkflows()[0].GetFile() == "ci.yml", err
		}},
		{"list_workflow_runs", func() (bool, error) {
			r, err := c.ListWorkflowRuns(ctx, &ghopsv1.ListWorkflowRunsRequest{Repo: demoRepo, Workflow: proto.String("release.yml"), Status: proto.String("cancelled")})
			return err == nil && len(r.GetRuns()) == 1 && r.GetRuns()[0].GetConclusion() == "cancelled", err
		}},
		{"run_workflow", func() (bool, error) {
			r, err := c.RunWorkflow(ctx, &ghopsv1.RunWorkflowRequest{Repo: demoRepo, Workflow: "ci.yml", Ref: "main", Inputs: map[string]string{"level": "debug"}})
			dispatched = r.GetRunId()
			return err == nil && dispatched != 0, err
		}},
		{"get_workflow_run", func() (bool, error) {
			r, err := c.GetWorkflowRun(ctx, &ghopsv1.GetWorkflowRunRequest{Repo: demoRepo, RunId: dispatched})
			return err == nil && r.GetRun().GetEvent() == "workflow_dispatch" && r.GetRun().GetStatus() == "queued" && len(r.GetJobs()) == 1, err
		}},
		{"cancel_workflow_run", func() (bool, error) {
			r, err := c.CancelWorkflowRun(ctx, &ghopsv1.CancelWorkflowRunRequest{Repo: demoRepo, RunId: dispatched})
			return err == nil && r.GetConclusion() == "cancelled", err
		}},
		{"rerun_workflow_run", func() (bool, error) {
			r, err := c.RerunWorkflowRun(ctx, &ghopsv1.RerunWorkflowRunRequest{Repo: demoRepo, RunId: dispatched})
			return err == nil && r.GetRunId() == dispatched && r.GetStatus() == "queued", err
		}},
		{"list_pull_request_reviews", func() (bool, error) {
			r, err := c.ListPullRequestReviews(ctx, &ghopsv1.ListPullRequestReviewsRequest{Repo: demoRepo, PrNumber: 3})
			return err == nil && len(r.GetReviews()) >= 2 && r.GetReviews()[0].GetState() == "changes_requested", err
		}},
		{"list_review_threads", func() (bool, error) {
			r, err := c.ListReviewThreads(ctx, &ghopsv1.ListReviewThreadsRequest{Repo: demoRepo, PrNumber: 3})
			if len(r.GetThreads()) == 1 {
				threadID = r.GetThreads()[0].GetId()
			}
			return err == nil && threadID != "" && !r.GetThreads()[0].GetIsResolved(), err
		}},
		{"reply_to_review_thread", func() (bool, error) {
			r, err := c.ReplyToReviewThread(ctx, &ghopsv1.ReplyToReviewThreadRequest{Repo: demoRepo, PrNumber: 3, ThreadId: threadID, Body: "Following main now."})
			return err == nil && r.GetId() != 0, err
		}},
		{"resolve_review_thread", func() (bool, error) {
			r, err := c.ResolveReviewThread(ctx, &ghopsv1.ResolveReviewThreadRequest{Repo: demoRepo, PrNumber: 3, ThreadId: threadID, Resolved: proto.Bool(true)})
			return err == nil && r.GetIsResolved(), err
		}},
		{"list_pull_request_commits", func() (bool, error) {
			r, err := c.ListPullRequestCommits(ctx, &ghopsv1.ListPullRequestCommitsRequest{Repo: demoRepo, PrNumber: 3})
			if n := len(r.GetCommits()); n > 0 {
				prHead = r.GetCommits()[n-1].GetSha()
			}
			return err == nil && len(prHead) == 40, err
		}},
		{"create_review", func() (bool, error) {
			r, err := c.CreateReview(ctx, &ghopsv1.CreateReviewRequest{Repo: demoRepo, PrNumber: 3, CommitSha: prHead,
				Comments: []*ghopsv1.ReviewLineComment{{Path: "internal/greet/greet_test.go", Line: 7, Body: "Note to self."}}})
			reviewID = r.GetId()
			return err == nil && r.GetState() == "pending" && reviewID != 0, err
		}},
		{"submit_review", func() (bool, error) {
			r, err := c.SubmitReview(ctx, &ghopsv1.SubmitReviewRequest{Repo: demoRepo, PrNumber: 3, ReviewId: reviewID, Event: "comment"})
			return err == nil && r.GetState() == "commented", err
		}},
		{"delete_pending_review", func() (bool, error) {
			draft, err := c.CreateReview(ctx, &ghopsv1.CreateReviewRequest{Repo: demoRepo, PrNumber: 3, CommitSha: prHead, Body: proto.String("draft")})
			if err != nil {
				return false, err
			}
			r, err := c.DeletePendingReview(ctx, &ghopsv1.DeletePendingReviewRequest{Repo: demoRepo, PrNumber: 3, ReviewId: draft.GetId()})
			return err == nil && r.GetDeleted(), err
		}},
		{"request_reviewers", func() (bool, error) {
			r, err := c.RequestReviewers(ctx, &ghopsv1.RequestReviewersRequest{Repo: demoRepo, PrNumber: 3, Reviewers: []string{"monalisa"}})
			return err == nil && slices.Contains(r.GetReviewers(), "monalisa"), err
		}},
		{"merge_pull_request", func() (bool, error) {
			r, err := c.MergePullRequest(ctx, &ghopsv1.MergePullRequestRequest{Repo: demoRepo, PrNumber: 1, Sha: proto.String(headSHA), MergeMethod: proto.String("squash")})
			return err == nil && r.GetMerged() && r.GetSha() != "", err
		}},
		{"apply_patch", func() (bool, error) {
			r, err := c.ApplyPatch(ctx, &ghopsv1.ApplyPatchRequest{Repo: demoRepo, Branch: "main", Message: "Add by patch",
				Patch: "diff --git a/PATCHED.md b/PATCHED.md\nnew file mode 100644\n--- /dev/null\n+++ b/PATCHED.md\n@@ -0,0 +1 @@\n+patched\n"})
			return err == nil && len(r.GetFiles()) == 1 && r.GetFiles()[0].GetChange() == "added", err
		}},
		{"validate_environment", func() (bool, error) {
			r, err := c.ValidateEnvironment(ctx, &ghopsv1.ValidateEnvironmentRequest{Repo: proto.String(demoRepo)})
			return err == nil && r.GetLevel() != "error" && len(r.GetChecks()) > 5, err
		}},
		// Sprint planning on a new project (docs/benchmarks.md): an
		// iteration field, five issues added with status and sprint by
		// name, the current sprint's unfinished items in one filtered
		// listing rolled to the next sprint in one call, an "at risk"
		// status update and a milestone holding two issues; every outcome
		// read back.
		{"list_projects", func() (bool, error) {
			r, err := c.ListProjects(ctx, &ghopsv1.ListProjectsRequest{Owner: "octo-org"})
			return err == nil && slices.ContainsFunc(r.GetProjects(), func(p *ghopsv1.ProjectSummary) bool { return p.GetProject() == "octo-org/1" }), err
		}},
		{"create_project", func() (bool, error) {
			r, err := c.CreateProject(ctx, &ghopsv1.CreateProjectRequest{Owner: "octo-org", Title: "Sprint planning", Repo: proto.String(demoRepo)})
			project = r.GetProject()
			return err == nil && strings.HasPrefix(project, "octo-org/"), err
		}},
		{"create_project_field", func() (bool, error) {
			r, err := c.CreateProjectField(ctx, &ghopsv1.CreateProjectFieldRequest{Project: project, Name: "Sprint", Type: "iteration",
				Iteration: &ghopsv1.IterationSetup{StartDate: time.Now().UTC().AddDate(0, 0, -3).Format(time.DateOnly), DurationDays: 14, Count: proto.Int32(3)}})
			return err == nil && len(r.GetField().GetIterations()) == 3 && r.GetField().GetIterations()[0].GetCurrent(), err
		}},
		{"add_project_item", func() (bool, error) {
			for n := int32(4); n <= 8; n++ {
				r, err := c.AddProjectItem(ctx, &ghopsv1.AddProjectItemRequest{Project: project, Repo: proto.String(demoRepo), Number: proto.Int32(n),
					Fields: map[string]*structpb.Value{"Status": structpb.NewStringValue("Todo"), "Sprint": structpb.NewStringValue("@current")}})
				if err != nil || r.GetItem().GetFields()["Sprint"].GetSprint() != "Sprint 1" {
					return false, err
				}
				items = append(items, r.GetItem().GetId())
			}
			return true, nil
		}},
		{"list_project_items", func() (bool, error) {
			r, err := c.ListProjectItems(ctx, &ghopsv1.ListProjectItemsRequest{Project: project, Filter: proto.String("sprint:@current status:Todo")})
			return err == nil && len(r.GetItems()) == 5, err
		}},
		{"update_project_items", func() (bool, error) {
			if _, err := c.UpdateProjectItems(ctx, &ghopsv1.UpdateProjectItemsRequest{Project: project, ItemIds: items[:2], Fields: map[string]*structpb.Value{"Status": structpb.NewStringValue("Done")}}); err != nil {
				return false, err
			}
			open, err := c.ListProjectItems(ctx, &ghopsv1.ListProjectItemsRequest{Project: project, Filter: proto.String("sprint:@current -status:Done")})
			if err != nil || len(open.GetItems()) != 3 {
				return false, err
			}
			var ids []string
			for _, it := range open.GetItems() {
				ids = append(ids, it.GetId())
			}
			r, err := c.UpdateProjectItems(ctx, &ghopsv1.UpdateProjectItemsRequest{Project: project, ItemIds: ids, Fields: map[string]*structpb.Value{"Sprint": structpb.NewStringValue("@next")}})
			if err != nil || r.GetUpdated() != 3 || r.GetCost().GetRequests() != 2 {
				return false, err
			}
			next, err := c.ListProjectItems(ctx, &ghopsv1.ListProjectItemsRequest{Project: project, Filter: proto.String("sprint:@next")})
			return err == nil && len(next.GetItems()) == 3, err
		}},
		{"create_project_status_update", func() (bool, error) {
			r, err := c.CreateProjectStatusUpdate(ctx, &ghopsv1.CreateProjectStatusUpdateRequest{Project: project, Status: "at_risk", Body: "Three tasks rolled to the next sprint."})
			return err == nil && r.GetStatusUpdate().GetStatus() == "at_risk", err
		}},
		{"get_project", func() (bool, error) {
			r, err := c.GetProject(ctx, &ghopsv1.GetProjectRequest{Project: project})
			return err == nil && r.GetProject().GetStatusUpdate().GetStatus() == "at_risk" && r.GetProject().GetItemCount() == 5, err
		}},
		{"archive_project_item", func() (bool, error) {
			r, err := c.ArchiveProjectItem(ctx, &ghopsv1.ArchiveProjectItemRequest{Project: project, ItemId: items[0], Archived: true})
			return err == nil && r.GetArchived(), err
		}},
		{"delete_project_item", func() (bool, error) {
			r, err := c.DeleteProjectItem(ctx, &ghopsv1.DeleteProjectItemRequest{Project: project, ItemId: items[1]})
			return err == nil && r.GetDeletedItemId() == items[1], err
		}},
		{"create_milestone", func() (bool, error) {
			r, err := c.CreateMilestone(ctx, &ghopsv1.CreateMilestoneRequest{Repo: demoRepo, Title: "Sprint 1 release", DueOn: proto.String("2026-12-31")})
			milestone = r.GetMilestone().GetNumber()
			return err == nil && milestone > 0, err
		}},
		{"update_milestone", func() (bool, error) {
			for _, n := range []int32{5, 6} {
				if _, err := c.UpdateIssue(ctx, &ghopsv1.UpdateIssueRequest{Repo: demoRepo, IssueNumber: n, Milestone: proto.Int32(milestone)}); err != nil {
					return false, err
				}
			}
			r, err := c.UpdateMilestone(ctx, &ghopsv1.UpdateMilestoneRequest{Repo: demoRepo, Number: milestone, Description: proto.String("Two issues.")})
			return err == nil && r.GetMilestone().GetOpenIssues() == 2, err
		}},
		{"list_milestones", func() (bool, error) {
			r, err := c.ListMilestones(ctx, &ghopsv1.ListMilestonesRequest{Repo: demoRepo, State: proto.String("all")})
			return err == nil && slices.ContainsFunc(r.GetMilestones(), func(m *ghopsv1.Milestone) bool { return m.GetNumber() == milestone && m.GetOpenIssues() == 2 }), err
		}},
		{"list_releases", func() (bool, error) {
			r, err := c.ListReleases(ctx, &ghopsv1.ListReleasesRequest{Repo: demoRepo})
			return err == nil && len(r.GetReleases()) == 2 && r.GetReleases()[0].GetTag() == "v0.2.0", err
		}},
		{"create_release", func() (bool, error) {
			r, err := c.CreateRelease(ctx, &ghopsv1.CreateReleaseRequest{Repo: demoRepo, Tag: "v0.3.0", Draft: proto.Bool(true), GenerateNotes: proto.Bool(true)})
			release = r.GetRelease().GetId()
			return err == nil && r.GetRelease().GetDraft() && strings.Contains(r.GetRelease().GetBody(), "v0.2.0...v0.3.0"), err
		}},
		{"update_release", func() (bool, error) {
			r, err := c.UpdateRelease(ctx, &ghopsv1.UpdateReleaseRequest{Repo: demoRepo, ReleaseId: release, Draft: proto.Bool(false)})
			return err == nil && !r.GetRelease().GetDraft() && r.GetRelease().GetPublishedAt() != nil, err
		}},
		{"get_release", func() (bool, error) {
			r, err := c.GetRelease(ctx, &ghopsv1.GetReleaseRequest{Repo: demoRepo, Latest: proto.Bool(true)})
			return err == nil && r.GetRelease().GetId() == release, err
		}},
		{"list_tags", func() (bool, error) {
			r, err := c.ListTags(ctx, &ghopsv1.ListTagsRequest{Repo: demoRepo})
			return err == nil && len(r.GetTags()) == 3 && r.GetTags()[0].GetName() == "v0.3.0", err
		}},
		{"list_repositories", func() (bool, error) {
			r, err := c.ListRepositories(ctx, &ghopsv1.ListRepositoriesRequest{Owner: proto.String("octo-org")})
			return err == nil && slices.ContainsFunc(r.GetRepositories(), func(x *ghopsv1.RepositorySummary) bool { return x.GetFullName() == demoRepo }), err
		}},
		{"create_repository", func() (bool, error) {
			r, err := c.CreateRepository(ctx, &ghopsv1.CreateRepositoryRequest{Name: "agent-notes", Private: true, AutoInit: proto.Bool(true)})
			return err == nil && r.GetRepository().GetFullName() == "octocat/agent-notes", err
		}},
		{"fork_repository", func() (bool, error) {
			r, err := c.ForkRepository(ctx, &ghopsv1.ForkRepositoryRequest{Repo: demoRepo, Owner: proto.String("octo-org"), Name: proto.String("hello-fork")})
			return err == nil && r.GetFullName() == "octo-org/hello-fork" && r.GetNote() != "", err
		}},
		{"get_me", func() (bool, error) {
			r, err := c.GetMe(ctx, &ghopsv1.GetMeRequest{})
			return err == nil && r.GetLogin() == "octocat" && len(r.GetRateLimits()) > 0, err
		}},
		{"list_labels", func() (bool, error) {
			r, err := c.ListLabels(ctx, &ghopsv1.ListLabelsRequest{Repo: demoRepo})
			return err == nil && slices.ContainsFunc(r.GetLabels(), func(l *ghopsv1.Label) bool { return l.GetName() == "i18n" && l.GetColor() == "fbca04" }), err
		}},
		{"create_label", func() (bool, error) {
			r, err := c.CreateLabel(ctx, &ghopsv1.CreateLabelRequest{Repo: demoRepo, Name: "stale", Color: "#C0FFEE"})
			return err == nil && r.GetLabel().GetColor() == "c0ffee", err
		}},
		{"update_label", func() (bool, error) {
			r, err := c.UpdateLabel(ctx, &ghopsv1.UpdateLabelRequest{Repo: demoRepo, Name: "stale", Description: proto.String("No activity for 30 days")})
			return err == nil && r.GetLabel().GetDescription() == "No activity for 30 days", err
		}},
		{"label_issue", func() (bool, error) {
			r, err := c.LabelIssue(ctx, &ghopsv1.LabelIssueRequest{Repo: demoRepo, IssueNumber: 5, Add: []string{"stale"}, Remove: []string{"bug"}})
			return err == nil && slices.Contains(r.GetLabels(), "stale") && !slices.Contains(r.GetLabels(), "bug"), err
		}},
		{"list_sub_issues", func() (bool, error) {
			r, err := c.ListSubIssues(ctx, &ghopsv1.ListSubIssuesRequest{Repo: demoRepo, IssueNumber: 9})
			return err == nil && len(r.GetSubIssues()) == 3 && r.GetSubIssues()[0].GetRepo() == demoRepo, err
		}},
		{"add_sub_issue", func() (bool, error) {
			r, err := c.AddSubIssue(ctx, &ghopsv1.AddSubIssueRequest{Repo: demoRepo, IssueNumber: 9, SubIssue: 6})
			return err == nil && r.GetSubIssues().GetTotal() == 4, err
		}},
		{"remove_sub_issue", func() (bool, error) {
			r, err := c.RemoveSubIssue(ctx, &ghopsv1.RemoveSubIssueRequest{Repo: demoRepo, IssueNumber: 9, SubIssue: 6})
			return err == nil && r.GetSubIssues().GetTotal() == 3 && r.GetSubIssues().GetCompleted() == 1, err
		}},
		{"commit_files", func() (bool, error) {
			r, err := c.CommitFiles(ctx, &ghopsv1.CommitFilesRequest{Repo: demoRepo, Branch: "main", Message: "Add notes",
				Files: []*ghopsv1.FileChange{{Path: "NOTES.md", Content: proto.String("notes\n")}}})
			return err == nil && r.GetFilesChanged() == 1 && r.GetCommitSha() != "", err
		}},
		{"update_pull_request_branch", func() (bool, error) {
			r, err := c.UpdatePullRequestBranch(ctx, &ghopsv1.UpdatePullRequestBranchRequest{Repo: demoRepo, PrNumber: 3, ExpectedHeadSha: prHead})
			return err == nil && r.GetMessage() != "", err
		}},
	}
	var called []string
	for _, s := range steps {
		called = append(called, s.name)
		ok, err := s.run()
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if !ok {
			t.Fatalf("%s: unexpected result", s.name)
		}
	}
	// Every tool is called: a tool added in proto needs a step here.
	if slices.Sort(called); !slices.Equal(called, gatewaytest.DeclaredTools(false)) {
		t.Errorf("steps call %v, proto declares %v", called, gatewaytest.DeclaredTools(false))
	}
}

// TestE2EErrorCodes provokes each documented code the real stack can produce
// and checks the typed error, over /rpc and /mcp in both tool-error modes,
// with the service split off and embedded.
func TestE2EErrorCodes(t *testing.T) {
	const badToken = "not-a-valid-token-XYZ"
	rateLimited := &fakehub.Config{Seed: "demo", Faults: []fakehub.Fault{{RateLimit: "primary"}}}
	broken := &fakehub.Config{Seed: "demo", Faults: []fakehub.Fault{{ErrorRate: 1, ErrorStatus: 500}}}
	tests := []errorCase{
		{name: "-32602 invalid params", call: func(ctx context.Context, c *client.Client) error {
			_, err := c.Search(ctx, &ghopsv1.SearchRequest{})
			return err
		}, want: client.ErrInvalidParams, check: func(t *testing.T, err error) {
			var ip *client.InvalidParamsError
			if !errors.As(err, &ip) || len(ip.Violations) == 0 || ip.Violations[0].Keyword != "required" || ip.Violations[0].Path != "root" {
				t.Errorf("err = %#v, want a required violation at root", err)
			}
		}},
		// On /rpc a tool is a method: -32601 (JSON-RPC 2.0); over MCP,
		// tools/call of an unknown tool is -32602 (MCP).
		{name: "unknown tool", call: func(ctx context.Context, c *client.Client) error {
			_, err := c.CallRaw(ctx, "no_such_tool", nil)
			return err
		}, want: client.ErrMethodNotFound, wantMCP: client.ErrInvalidParams},
		{name: "-32002 not found", call: func(ctx context.Context, c *client.Client) error {
			_, err := c.Fetch(ctx, &ghopsv1.FetchRequest{Repo: "octo-org/nope"})
			return err
		}, want: client.ErrNotFound},
		{name: "-32002 private repository", call: func(ctx context.Context, c *client.Client) error {
			_, err := c.Fetch(ctx, &ghopsv1.FetchRequest{Repo: "octo-org/secret"})
			return err
		}, want: client.ErrNotFound},
		{name: "-32003 github validation", call: func(ctx context.Context, c *client.Client) error {
			_, err := c.CreatePullRequest(ctx, &ghopsv1.CreatePullRequestRequest{Repo: demoRepo, Title: "t", Head: "main", Base: "main"})
			return err
		}, want: client.ErrValidation},
		{name: "-32005 not mergeable", call: func(ctx context.Context, c *client.Client) error {
			_, err := c.MergePullRequest(ctx, &ghopsv1.MergePullRequestRequest{Repo: demoRepo, PrNumber: 2})
			return err
		}, want: client.ErrNotMergeable, check: func(t *testing.T, err error) {
			var e *client.Error
			if !errors.As(err, &e) || e.Data.MergeableState != "dirty" {
				t.Errorf("err = %v, want mergeable_state dirty", err)
			}
		}},
		{name: "-32006 head sha mismatch", call: func(ctx context.Context, c *client.Client) error {
			_, err := c.MergePullRequest(ctx, &ghopsv1.MergePullRequestRequest{Repo: demoRepo, PrNumber: 1, Sha: proto.String("0000000")})
			return err
		}, want: client.ErrHeadSHAMismatch},
		{name: "-32001 permission denied", opts: gatewaytest.StackOptions{GitHubOAuth: true}, token: badToken, beforeTool: true,
			call: func(ctx context.Context, c *client.Client) error {
				_, err := c.Fetch(ctx, &ghopsv1.FetchRequest{Repo: demoRepo})
				return err
			}, want: client.ErrPermissionDenied},
		{name: "-32004 rate limited", opts: gatewaytest.StackOptions{Hub: rateLimited}, call: func(ctx context.Context, c *client.Client) error {
			_, err := c.Fetch(ctx, &ghopsv1.FetchRequest{Repo: demoRepo})
			return err
		}, want: client.ErrRateLimited, check: func(t *testing.T, err error) {
			var rl *client.RateLimitError
			if !errors.As(err, &rl) || rl.RetryAfter <= 0 {
				t.Errorf("err = %#v, want a *RateLimitError with RetryAfter", err)
			}
		}},
		{name: "-32603 internal", opts: gatewaytest.StackOptions{Hub: broken}, call: func(ctx context.Context, c *client.Client) error {
			_, err := c.Fetch(ctx, &ghopsv1.FetchRequest{Repo: demoRepo})
			return err
		}, want: client.ErrInternal, check: func(t *testing.T, err error) {
			var e *client.Error
			if !errors.As(err, &e) || e.Data.RequestId == "" || e.Message != "Internal error" {
				t.Errorf("err = %v, want Internal error with a requestId", err)
			}
		}},
	}
	for _, shape := range gatewaytest.Shapes {
		for _, tr := range transports {
			t.Run(shape.Name+"/"+tr.name, func(t *testing.T) {
				errorCodes(t, tests, tr.transport, tr.toolErrs, shape.Embedded)
			})
		}
	}
}

// errorCase is one row of TestE2EErrorCodes.
type errorCase struct {
	name  string
	opts  gatewaytest.StackOptions
	token string
	call  func(ctx context.Context, c *client.Client) error
	want  error
	// beforeTool says the gateway refuses before it knows the tool
	// (authentication), so data.tool is empty.
	beforeTool bool
	// wantMCP is the code over /mcp when it differs: MCP answers an
	// unknown tool with -32602, as its specification says.
	wantMCP error
	check   func(t *testing.T, err error)
}

// errorCodes runs the cases over one transport and tool-error mode against
// stacks of one shape.
func errorCodes(t *testing.T, tests []errorCase, transport client.Transport, toolErrs string, embedded bool) {
	// Stacks belong to this level so that they outlive each case;
	// cases without special options share one.
	stacks := map[string]*gatewaytest.Stack{}
	key := func(i int) string {
		if tests[i].opts.Hub == nil && !tests[i].opts.GitHubOAuth {
			return "plain"
		}
		return tests[i].name
	}
	for i := range tests {
		if stacks[key(i)] == nil {
			opts := tests[i].opts
			opts.MCPToolErrors = toolErrs
			opts.Embedded = embedded
			stacks[key(i)] = gatewaytest.StartStack(t, opts)
		}
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := stacks[key(i)]
			c := newStackClient(t, st.URL, client.WithTransport(transport), client.WithToken(tc.token))
			err := tc.call(context.Background(), c)
			want := tc.want
			if transport == client.TransportMCP && tc.wantMCP != nil {
				want = tc.wantMCP
			}
			if !errors.Is(err, want) {
				t.Fatalf("err = %v, want %v", err, want)
			}
			var e *client.Error
			if !errors.As(err, &e) || (e.Data.Tool == "") != tc.beforeTool {
				t.Errorf("err = %v: want an *Error whose data names the tool", err)
			}
			if tc.token != "" && strings.Contains(err.Error(), tc.token) {
				t.Error("the token is in the error")
			}
			if tc.check != nil {
				tc.check(t, err)
			}
		})
	}
}

// TestE2EWholeRequestFailures checks the failures of a request as a whole
// against the real gateway: a batch over its limit (-32600) and a body over
// its size limit (413).
func TestE2EWholeRequestFailures(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{})
	c := newStackClient(t, st.URL)
	small := newStackClient(t, gatewaytest.StartStack(t, gatewaytest.StackOptions{MaxBody: 4096}).URL)
	ctx := context.Background()
	t.Run("batch over the limit is -32600", func(t *testing.T) {
		calls := make([]client.BatchCall, 51)
		for i := range calls {
			calls[i] = client.BatchCall{Tool: "fetch", Args: json.RawMessage(`{"repo":"octo-org/hello-world"}`)}
		}
		_, err := c.Batch(ctx, calls)
		if !errors.Is(err, client.ErrInvalidRequest) {
			t.Fatalf("err = %v, want ErrInvalidRequest", err)
		}
	})
	t.Run("batch answers are matched to calls", func(t *testing.T) {
		res, err := c.Batch(ctx, []client.BatchCall{
			{Tool: "fetch", Args: json.RawMessage(`{"repo":"octo-org/nope"}`)},
			{Tool: "fetch", Args: json.RawMessage(`{"repo":"octo-org/hello-world"}`)},
			{Tool: "search", Args: json.RawMessage(`{}`)},
		})
		if err != nil {
			t.Fatal(err)
		}
		if !errors.Is(res[0].Err, client.ErrNotFound) || res[1].Err != nil || !strings.Contains(string(res[1].Result), demoRepo) ||
			!errors.Is(res[2].Err, client.ErrInvalidParams) {
			t.Errorf("results = %+v", res)
		}
	})
	t.Run("body over the size limit is 413", func(t *testing.T) {
		_, err := small.CommitFiles(ctx, &ghopsv1.CommitFilesRequest{Repo: demoRepo, Branch: "main", Message: "big",
			Files: []*ghopsv1.FileChange{{Path: "big.txt", Content: proto.String(strings.Repeat("x", 8192))}}})
		if !errors.Is(err, client.ErrPayloadTooLarge) || !errors.Is(err, client.ErrTransport) {
			t.Fatalf("err = %v, want ErrPayloadTooLarge", err)
		}
	})
	t.Run("remote tool list matches the contract", func(t *testing.T) {
		remote, err := c.ListRemoteTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		local := client.Tools()
		if len(remote) != len(local) {
			t.Fatalf("%d remote tools, %d in the contract", len(remote), len(local))
		}
		for _, rt := range remote {
			lt, ok := client.LookupTool(rt.Name)
			if !ok || lt.ReadOnly != rt.ReadOnly() || lt.Destructive != rt.Destructive() ||
				lt.Idempotent != rt.Idempotent() || lt.OpenWorld != rt.OpenWorld() {
				t.Errorf("remote tool %+v disagrees with the contract %+v", rt, lt)
			}
		}
	})
}

// TestE2ERetryAfterRateLimit checks retries against the real stack: a
// read-only tool is retried after the gateway's Retry-After, bounded; a
// destructive one is not. Waits are recorded, not slept.
func TestE2ERetryAfterRateLimit(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Hub: &fakehub.Config{Seed: "demo", Faults: []fakehub.Fault{{RateLimit: "primary"}}}})
	var waits []time.Duration
	c := newStackClient(t, st.URL, client.WithRetries(2), client.WithMaxRetryWait(24*time.Hour),
		client.WithSleep(func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }))
	tests := []struct {
		name      string
		call      func() error
		wantWaits int
	}{
		{"read-only fetch retried twice", func() error {
			_, err := c.Fetch(context.Background(), &ghopsv1.FetchRequest{Repo: demoRepo})
			return err
		}, 2},
		{"destructive merge not retried", func() error {
			_, err := c.MergePullRequest(context.Background(), &ghopsv1.MergePullRequestRequest{Repo: demoRepo, PrNumber: 1})
			return err
		}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			waits = nil
			err := tc.call()
			var rl *client.RateLimitError
			if !errors.As(err, &rl) {
				t.Fatalf("err = %v, want a *RateLimitError", err)
			}
			if len(waits) != tc.wantWaits {
				t.Fatalf("waits = %v, want %d", waits, tc.wantWaits)
			}
			for _, w := range waits {
				if w != rl.RetryAfter || w <= 0 {
					t.Errorf("waited %v, want the announced %v", w, rl.RetryAfter)
				}
			}
		})
	}
}
