package toolschema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

func TestToolsGolden(t *testing.T) {
	r := registry(t)
	got, err := json.MarshalIndent(map[string]any{"tools": r.Tools()}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "tools.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("tools/list schemas differ from %s (run go test -update after checking the change):\n%s", golden, got)
	}
}

func TestRegistryTools(t *testing.T) {
	r := registry(t)
	tests := []struct {
		name       string
		fullMethod string
		req, resp  proto.Message
		ann        Annotations
	}{
		{"search", ghopsv1.GitHubService_Search_FullMethodName, &ghopsv1.SearchRequest{}, &ghopsv1.SearchResponse{}, Annotations{true, false, true, true}},
		{"fetch", ghopsv1.GitHubService_Fetch_FullMethodName, &ghopsv1.FetchRequest{}, &ghopsv1.FetchResponse{}, Annotations{true, false, true, true}},
		{"list_directory", ghopsv1.GitHubService_ListDirectory_FullMethodName, &ghopsv1.ListDirectoryRequest{}, &ghopsv1.ListDirectoryResponse{}, Annotations{true, false, true, true}},
		{"read_file", ghopsv1.GitHubService_ReadFile_FullMethodName, &ghopsv1.ReadFileRequest{}, &ghopsv1.ReadFileResponse{}, Annotations{true, false, true, true}},
		{"get_tree", ghopsv1.GitHubService_GetTree_FullMethodName, &ghopsv1.GetTreeRequest{}, &ghopsv1.GetTreeResponse{}, Annotations{true, false, true, true}},
		{"get_commits", ghopsv1.GitHubService_GetCommits_FullMethodName, &ghopsv1.GetCommitsRequest{}, &ghopsv1.GetCommitsResponse{}, Annotations{true, false, true, true}},
		{"get_branches", ghopsv1.GitHubService_GetBranches_FullMethodName, &ghopsv1.GetBranchesRequest{}, &ghopsv1.GetBranchesResponse{}, Annotations{true, false, true, true}},
		{"list_pull_requests", ghopsv1.GitHubService_ListPullRequests_FullMethodName, &ghopsv1.ListPullRequestsRequest{}, &ghopsv1.ListPullRequestsResponse{}, Annotations{true, false, true, true}},
		{"get_pr_mergeability", ghopsv1.GitHubService_GetPrMergeability_FullMethodName, &ghopsv1.GetPrMergeabilityRequest{}, &ghopsv1.GetPrMergeabilityResponse{}, Annotations{true, false, true, true}},
		{"get_checks_for_sha", ghopsv1.GitHubService_GetChecksForSha_FullMethodName, &ghopsv1.GetChecksForShaRequest{}, &ghopsv1.GetChecksForShaResponse{}, Annotations{true, false, true, true}},
		{"create_pull_request", ghopsv1.GitHubService_CreatePullRequest_FullMethodName, &ghopsv1.CreatePullRequestRequest{}, &ghopsv1.CreatePullRequestResponse{}, Annotations{false, false, false, true}},
		{"update_pull_request", ghopsv1.GitHubService_UpdatePullRequest_FullMethodName, &ghopsv1.UpdatePullRequestRequest{}, &ghopsv1.UpdatePullRequestResponse{}, Annotations{false, false, true, true}},
		{"merge_pull_request", ghopsv1.GitHubService_MergePullRequest_FullMethodName, &ghopsv1.MergePullRequestRequest{}, &ghopsv1.MergePullRequestResponse{}, Annotations{false, true, false, true}},
		{"commit_files", ghopsv1.GitHubService_CommitFiles_FullMethodName, &ghopsv1.CommitFilesRequest{}, &ghopsv1.CommitFilesResponse{}, Annotations{false, true, false, true}},
		{"apply_patch", ghopsv1.GitHubService_ApplyPatch_FullMethodName, &ghopsv1.ApplyPatchRequest{}, &ghopsv1.ApplyPatchResponse{}, Annotations{false, true, false, true}},
		{"validate_environment", ghopsv1.GitHubService_ValidateEnvironment_FullMethodName, &ghopsv1.ValidateEnvironmentRequest{}, &ghopsv1.ValidateEnvironmentResponse{}, Annotations{true, false, true, true}},
		{"create_branch", ghopsv1.GitHubService_CreateBranch_FullMethodName, &ghopsv1.CreateBranchRequest{}, &ghopsv1.CreateBranchResponse{}, Annotations{false, false, false, true}},
		{"get_pull_request", ghopsv1.GitHubService_GetPullRequest_FullMethodName, &ghopsv1.GetPullRequestRequest{}, &ghopsv1.GetPullRequestResponse{}, Annotations{true, false, true, true}},
		{"list_pull_request_files", ghopsv1.GitHubService_ListPullRequestFiles_FullMethodName, &ghopsv1.ListPullRequestFilesRequest{}, &ghopsv1.ListPullRequestFilesResponse{}, Annotations{true, false, true, true}},
		{"compare_refs", ghopsv1.GitHubService_CompareRefs_FullMethodName, &ghopsv1.CompareRefsRequest{}, &ghopsv1.CompareRefsResponse{}, Annotations{true, false, true, true}},
		{"list_issues", ghopsv1.GitHubService_ListIssues_FullMethodName, &ghopsv1.ListIssuesRequest{}, &ghopsv1.ListIssuesResponse{}, Annotations{true, false, true, true}},
		{"get_issue", ghopsv1.GitHubService_GetIssue_FullMethodName, &ghopsv1.GetIssueRequest{}, &ghopsv1.GetIssueResponse{}, Annotations{true, false, true, true}},
		{"list_issue_comments", ghopsv1.GitHubService_ListIssueComments_FullMethodName, &ghopsv1.ListIssueCommentsRequest{}, &ghopsv1.ListIssueCommentsResponse{}, Annotations{true, false, true, true}},
		{"search_issues", ghopsv1.GitHubService_SearchIssues_FullMethodName, &ghopsv1.SearchIssuesRequest{}, &ghopsv1.SearchIssuesResponse{}, Annotations{true, false, true, true}},
		{"create_issue", ghopsv1.GitHubService_CreateIssue_FullMethodName, &ghopsv1.CreateIssueRequest{}, &ghopsv1.CreateIssueResponse{}, Annotations{false, false, false, true}},
		{"update_issue", ghopsv1.GitHubService_UpdateIssue_FullMethodName, &ghopsv1.UpdateIssueRequest{}, &ghopsv1.UpdateIssueResponse{}, Annotations{false, false, true, true}},
		{"add_issue_comment", ghopsv1.GitHubService_AddIssueComment_FullMethodName, &ghopsv1.AddIssueCommentRequest{}, &ghopsv1.AddIssueCommentResponse{}, Annotations{false, false, false, true}},
		{"list_pull_request_comments", ghopsv1.GitHubService_ListPullRequestComments_FullMethodName, &ghopsv1.ListPullRequestCommentsRequest{}, &ghopsv1.ListPullRequestCommentsResponse{}, Annotations{true, false, true, true}},
		{"add_pull_request_comment", ghopsv1.GitHubService_AddPullRequestComment_FullMethodName, &ghopsv1.AddPullRequestCommentRequest{}, &ghopsv1.AddPullRequestCommentResponse{}, Annotations{false, false, false, true}},
		{"search_code", ghopsv1.GitHubService_SearchCode_FullMethodName, &ghopsv1.SearchCodeRequest{}, &ghopsv1.SearchCodeResponse{}, Annotations{true, false, true, true}},
		{"get_ci_failures", ghopsv1.GitHubService_GetCiFailures_FullMethodName, &ghopsv1.GetCiFailuresRequest{}, &ghopsv1.GetCiFailuresResponse{}, Annotations{true, false, true, true}},
		{"get_job_log", ghopsv1.GitHubService_GetJobLog_FullMethodName, &ghopsv1.GetJobLogRequest{}, &ghopsv1.GetJobLogResponse{}, Annotations{true, false, true, true}},
		{"rerun_failed_jobs", ghopsv1.GitHubService_RerunFailedJobs_FullMethodName, &ghopsv1.RerunFailedJobsRequest{}, &ghopsv1.RerunFailedJobsResponse{}, Annotations{false, false, false, true}},
		{"get_commit", ghopsv1.GitHubService_GetCommit_FullMethodName, &ghopsv1.GetCommitRequest{}, &ghopsv1.GetCommitResponse{}, Annotations{true, false, true, true}},
		{"list_pull_request_reviews", ghopsv1.GitHubService_ListPullRequestReviews_FullMethodName, &ghopsv1.ListPullRequestReviewsRequest{}, &ghopsv1.ListPullRequestReviewsResponse{}, Annotations{true, false, true, true}},
		{"list_review_threads", ghopsv1.GitHubService_ListReviewThreads_FullMethodName, &ghopsv1.ListReviewThreadsRequest{}, &ghopsv1.ListReviewThreadsResponse{}, Annotations{true, false, true, true}},
		{"create_review", ghopsv1.GitHubService_CreateReview_FullMethodName, &ghopsv1.CreateReviewRequest{}, &ghopsv1.CreateReviewResponse{}, Annotations{false, false, false, true}},
		{"submit_review", ghopsv1.GitHubService_SubmitReview_FullMethodName, &ghopsv1.SubmitReviewRequest{}, &ghopsv1.SubmitReviewResponse{}, Annotations{false, false, false, true}},
		{"delete_pending_review", ghopsv1.GitHubService_DeletePendingReview_FullMethodName, &ghopsv1.DeletePendingReviewRequest{}, &ghopsv1.DeletePendingReviewResponse{}, Annotations{false, true, false, true}},
		{"reply_to_review_thread", ghopsv1.GitHubService_ReplyToReviewThread_FullMethodName, &ghopsv1.ReplyToReviewThreadRequest{}, &ghopsv1.ReplyToReviewThreadResponse{}, Annotations{false, false, false, true}},
		{"resolve_review_thread", ghopsv1.GitHubService_ResolveReviewThread_FullMethodName, &ghopsv1.ResolveReviewThreadRequest{}, &ghopsv1.ResolveReviewThreadResponse{}, Annotations{false, false, true, true}},
		{"request_reviewers", ghopsv1.GitHubService_RequestReviewers_FullMethodName, &ghopsv1.RequestReviewersRequest{}, &ghopsv1.RequestReviewersResponse{}, Annotations{false, false, true, true}},
		{"list_pull_request_commits", ghopsv1.GitHubService_ListPullRequestCommits_FullMethodName, &ghopsv1.ListPullRequestCommitsRequest{}, &ghopsv1.ListPullRequestCommitsResponse{}, Annotations{true, false, true, true}},
		{"update_pull_request_branch", ghopsv1.GitHubService_UpdatePullRequestBranch_FullMethodName, &ghopsv1.UpdatePullRequestBranchRequest{}, &ghopsv1.UpdatePullRequestBranchResponse{}, Annotations{false, false, false, true}},
		{"list_projects", ghopsv1.GitHubService_ListProjects_FullMethodName, &ghopsv1.ListProjectsRequest{}, &ghopsv1.ListProjectsResponse{}, Annotations{true, false, true, true}},
		{"get_project", ghopsv1.GitHubService_GetProject_FullMethodName, &ghopsv1.GetProjectRequest{}, &ghopsv1.GetProjectResponse{}, Annotations{true, false, true, true}},
		{"list_project_items", ghopsv1.GitHubService_ListProjectItems_FullMethodName, &ghopsv1.ListProjectItemsRequest{}, &ghopsv1.ListProjectItemsResponse{}, Annotations{true, false, true, true}},
		{"add_project_item", ghopsv1.GitHubService_AddProjectItem_FullMethodName, &ghopsv1.AddProjectItemRequest{}, &ghopsv1.AddProjectItemResponse{}, Annotations{false, false, false, true}},
		{"update_project_items", ghopsv1.GitHubService_UpdateProjectItems_FullMethodName, &ghopsv1.UpdateProjectItemsRequest{}, &ghopsv1.UpdateProjectItemsResponse{}, Annotations{false, false, true, true}},
		{"archive_project_item", ghopsv1.GitHubService_ArchiveProjectItem_FullMethodName, &ghopsv1.ArchiveProjectItemRequest{}, &ghopsv1.ArchiveProjectItemResponse{}, Annotations{false, false, true, true}},
		{"delete_project_item", ghopsv1.GitHubService_DeleteProjectItem_FullMethodName, &ghopsv1.DeleteProjectItemRequest{}, &ghopsv1.DeleteProjectItemResponse{}, Annotations{false, true, true, true}},
		{"create_project", ghopsv1.GitHubService_CreateProject_FullMethodName, &ghopsv1.CreateProjectRequest{}, &ghopsv1.CreateProjectResponse{}, Annotations{false, false, false, true}},
		{"create_project_field", ghopsv1.GitHubService_CreateProjectField_FullMethodName, &ghopsv1.CreateProjectFieldRequest{}, &ghopsv1.CreateProjectFieldResponse{}, Annotations{false, false, false, true}},
		{"create_project_status_update", ghopsv1.GitHubService_CreateProjectStatusUpdate_FullMethodName, &ghopsv1.CreateProjectStatusUpdateRequest{}, &ghopsv1.CreateProjectStatusUpdateResponse{}, Annotations{false, false, false, true}},
		{"list_milestones", ghopsv1.GitHubService_ListMilestones_FullMethodName, &ghopsv1.ListMilestonesRequest{}, &ghopsv1.ListMilestonesResponse{}, Annotations{true, false, true, true}},
		{"create_milestone", ghopsv1.GitHubService_CreateMilestone_FullMethodName, &ghopsv1.CreateMilestoneRequest{}, &ghopsv1.CreateMilestoneResponse{}, Annotations{false, false, false, true}},
		{"update_milestone", ghopsv1.GitHubService_UpdateMilestone_FullMethodName, &ghopsv1.UpdateMilestoneRequest{}, &ghopsv1.UpdateMilestoneResponse{}, Annotations{false, false, true, true}},
		{"list_releases", ghopsv1.GitHubService_ListReleases_FullMethodName, &ghopsv1.ListReleasesRequest{}, &ghopsv1.ListReleasesResponse{}, Annotations{true, false, true, true}},
		{"get_release", ghopsv1.GitHubService_GetRelease_FullMethodName, &ghopsv1.GetReleaseRequest{}, &ghopsv1.GetReleaseResponse{}, Annotations{true, false, true, true}},
		{"create_release", ghopsv1.GitHubService_CreateRelease_FullMethodName, &ghopsv1.CreateReleaseRequest{}, &ghopsv1.CreateReleaseResponse{}, Annotations{false, false, false, true}},
		{"update_release", ghopsv1.GitHubService_UpdateRelease_FullMethodName, &ghopsv1.UpdateReleaseRequest{}, &ghopsv1.UpdateReleaseResponse{}, Annotations{false, false, true, true}},
		{"list_tags", ghopsv1.GitHubService_ListTags_FullMethodName, &ghopsv1.ListTagsRequest{}, &ghopsv1.ListTagsResponse{}, Annotations{true, false, true, true}},
		{"list_repositories", ghopsv1.GitHubService_ListRepositories_FullMethodName, &ghopsv1.ListRepositoriesRequest{}, &ghopsv1.ListRepositoriesResponse{}, Annotations{true, false, true, true}},
		{"create_repository", ghopsv1.GitHubService_CreateRepository_FullMethodName, &ghopsv1.CreateRepositoryRequest{}, &ghopsv1.CreateRepositoryResponse{}, Annotations{false, false, false, true}},
		{"fork_repository", ghopsv1.GitHubService_ForkRepository_FullMethodName, &ghopsv1.ForkRepositoryRequest{}, &ghopsv1.ForkRepositoryResponse{}, Annotations{false, false, false, true}},
		{"get_me", ghopsv1.GitHubService_GetMe_FullMethodName, &ghopsv1.GetMeRequest{}, &ghopsv1.GetMeResponse{}, Annotations{true, false, true, true}},
		{"list_labels", ghopsv1.GitHubService_ListLabels_FullMethodName, &ghopsv1.ListLabelsRequest{}, &ghopsv1.ListLabelsResponse{}, Annotations{true, false, true, true}},
		{"create_label", ghopsv1.GitHubService_CreateLabel_FullMethodName, &ghopsv1.CreateLabelRequest{}, &ghopsv1.CreateLabelResponse{}, Annotations{false, false, false, true}},
		{"update_label", ghopsv1.GitHubService_UpdateLabel_FullMethodName, &ghopsv1.UpdateLabelRequest{}, &ghopsv1.UpdateLabelResponse{}, Annotations{false, false, true, true}},
		{"label_issue", ghopsv1.GitHubService_LabelIssue_FullMethodName, &ghopsv1.LabelIssueRequest{}, &ghopsv1.LabelIssueResponse{}, Annotations{false, false, true, true}},
		{"list_sub_issues", ghopsv1.GitHubService_ListSubIssues_FullMethodName, &ghopsv1.ListSubIssuesRequest{}, &ghopsv1.ListSubIssuesResponse{}, Annotations{true, false, true, true}},
		{"add_sub_issue", ghopsv1.GitHubService_AddSubIssue_FullMethodName, &ghopsv1.AddSubIssueRequest{}, &ghopsv1.AddSubIssueResponse{}, Annotations{false, false, false, true}},
		{"remove_sub_issue", ghopsv1.GitHubService_RemoveSubIssue_FullMethodName, &ghopsv1.RemoveSubIssueRequest{}, &ghopsv1.RemoveSubIssueResponse{}, Annotations{false, false, true, true}},
		{"list_workflows", ghopsv1.GitHubService_ListWorkflows_FullMethodName, &ghopsv1.ListWorkflowsRequest{}, &ghopsv1.ListWorkflowsResponse{}, Annotations{true, false, true, true}},
		{"list_workflow_runs", ghopsv1.GitHubService_ListWorkflowRuns_FullMethodName, &ghopsv1.ListWorkflowRunsRequest{}, &ghopsv1.ListWorkflowRunsResponse{}, Annotations{true, false, true, true}},
		{"get_workflow_run", ghopsv1.GitHubService_GetWorkflowRun_FullMethodName, &ghopsv1.GetWorkflowRunRequest{}, &ghopsv1.GetWorkflowRunResponse{}, Annotations{true, false, true, true}},
		{"run_workflow", ghopsv1.GitHubService_RunWorkflow_FullMethodName, &ghopsv1.RunWorkflowRequest{}, &ghopsv1.RunWorkflowResponse{}, Annotations{false, false, false, true}},
		{"cancel_workflow_run", ghopsv1.GitHubService_CancelWorkflowRun_FullMethodName, &ghopsv1.CancelWorkflowRunRequest{}, &ghopsv1.CancelWorkflowRunResponse{}, Annotations{false, true, false, true}},
		{"rerun_workflow_run", ghopsv1.GitHubService_RerunWorkflowRun_FullMethodName, &ghopsv1.RerunWorkflowRunRequest{}, &ghopsv1.RerunWorkflowRunResponse{}, Annotations{false, false, false, true}},
	}
	tools := r.Tools()
	if len(tools) != len(tests) {
		t.Fatalf("got %d tools, want %d", len(tools), len(tests))
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl := tools[i]
			if tl.Name != tc.name {
				t.Fatalf("tool %d is %q, want %q (declaration order)", i, tl.Name, tc.name)
			}
			if got, ok := r.Lookup(tc.name); !ok || got != tl {
				t.Errorf("Lookup(%q) = %v, %v", tc.name, got, ok)
			}
			if tl.FullMethod != tc.fullMethod {
				t.Errorf("FullMethod = %q, want %q", tl.FullMethod, tc.fullMethod)
			}
			if tl.Annotations != tc.ann {
				t.Errorf("Annotations = %+v, want %+v", tl.Annotations, tc.ann)
			}
			for _, sch := range []json.RawMessage{tl.InputSchema, tl.OutputSchema} {
				var c bytes.Buffer
				if err := json.Compact(&c, sch); err != nil || c.String() != string(sch) {
					t.Errorf("schema is not compact JSON: %s", sch)
				}
			}
			if tl.Title == "" || tl.Description == "" {
				t.Errorf("empty title or description")
			}
			if got, want := proto.MessageName(tl.NewRequest()), proto.MessageName(tc.req); got != want {
				t.Errorf("NewRequest is %s, want %s", got, want)
			}
			if _, ok := tl.NewRequest().(interface{ ProtoMessage() }); !ok {
				t.Errorf("NewRequest is not a generated message")
			}
			if got, want := proto.MessageName(tl.NewResponse()), proto.MessageName(tc.resp); got != want {
				t.Errorf("NewResponse is %s, want %s", got, want)
			}
			if string(tl.Method.FullName()) != "ghops.v1.GitHubService."+string(tl.Method.Name()) {
				t.Errorf("Method = %s", tl.Method.FullName())
			}
		})
	}
	if _, ok := r.Lookup("nope"); ok {
		t.Error("Lookup(nope) found a tool")
	}
	if _, err := NewRegistry(nil); err == nil {
		t.Error("NewRegistry(nil) did not fail")
	}
}

func TestDecodeConcurrent(t *testing.T) {
	tl := tool(t, "commit_files")
	args := json.RawMessage(`{"repo":"o/r","branch":"main","message":"m","files":[{"path":"a","content":"aGk=","encoding":"base64"}]}`)
	bad := json.RawMessage(`{"repo":"o/r","branch":"main","message":"m","files":[{"path":"a","content":"!!","encoding":"base64"}]}`)
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 50; i++ {
				if msg, vs := tl.Decode(args); msg == nil || len(vs) != 0 {
					errs <- "valid arguments rejected"
					return
				}
				if msg, vs := tl.Decode(bad); msg != nil || len(vs) != 2 {
					errs <- "invalid arguments accepted"
					return
				}
			}
			errs <- ""
		}()
	}
	for g := 0; g < 8; g++ {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}
