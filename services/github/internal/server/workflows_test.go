package server_test

import (
	"strconv"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/codes"

	"ghops.dev/services/github/servicetest"
)

// TestWorkflowTools runs the workflow tools over the demo's two workflows
// (CI, which can be dispatched, and Release, which cannot) and their runs
// in every state, with the GitHub requests each call makes; later steps
// see what earlier ones wrote.
func TestWorkflowTools(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	c := e.svc.Client
	const (
		runsRoute = "GET /repos/{owner}/{repo}/actions/runs"
		runRoute  = "GET /repos/{owner}/{repo}/actions/runs/{run_id}"
	)

	t.Run("list_workflows", func(t *testing.T) {
		e.hub.ResetStats()
		r, err := c.ListWorkflows(ctx(t), &ghopsv1.ListWorkflowsRequest{Repo: repo})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range r.Workflows {
			got = append(got, w.File+":"+w.Name+":"+w.State)
		}
		if strings.Join(got, ",") != "ci.yml:CI:active,release.yml:Release:active" || r.TotalCount != 2 || r.Page.HasNext {
			t.Errorf("got %v", r)
		}
		assertCalls(t, e.hub, map[string]int{"GET /repos/{owner}/{repo}/actions/workflows": 1})
	})

	// runsOf lists the runs a request matches as workflow:status:conclusion:branch:event.
	runsOf := func(t *testing.T, req *ghopsv1.ListWorkflowRunsRequest) (*ghopsv1.ListWorkflowRunsResponse, []string) {
		t.Helper()
		r, err := c.ListWorkflowRuns(ctx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, run := range r.Runs {
			if run.Id == 0 || len(run.HeadSha) != 40 || run.Attempt < 1 || run.CreatedAt == nil || run.Name == "" || run.Title == "" {
				t.Errorf("run %v lacks a field", run)
			}
			got = append(got, run.Workflow+":"+run.Status+":"+run.Conclusion+":"+run.Branch+":"+run.Event)
		}
		if int(r.TotalCount) != len(got) {
			t.Errorf("total_count %d, %d runs", r.TotalCount, len(got))
		}
		return r, got
	}
	var failedRun, queuedRun, runningRun int64
	listTests := []struct {
		name  string
		req   *ghopsv1.ListWorkflowRunsRequest
		want  []string
		route string
	}{
		{name: "all, newest first", req: &ghopsv1.ListWorkflowRunsRequest{Repo: repo}, route: runsRoute, want: []string{
			"release.yml:queued::main:push", "release.yml:completed:cancelled:main:push", "ci.yml:in_progress::main:push",
			"ci.yml:completed:success:main:push", "ci.yml:completed:failure:feature/greet-test:pull_request"}},
		{name: "of one workflow by file", req: &ghopsv1.ListWorkflowRunsRequest{Repo: repo, Workflow: ptr("release.yml")},
			route: "GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs",
			want:  []string{"release.yml:queued::main:push", "release.yml:completed:cancelled:main:push"}},
		{name: "of one workflow by id", req: &ghopsv1.ListWorkflowRunsRequest{Repo: repo, Workflow: ptr("161335"), Status: ptr("failure")},
			route: "GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs",
			want:  []string{"ci.yml:completed:failure:feature/greet-test:pull_request"}},
		{name: "by status", req: &ghopsv1.ListWorkflowRunsRequest{Repo: repo, Status: ptr("in_progress")}, route: runsRoute,
			want: []string{"ci.yml:in_progress::main:push"}},
		{name: "by branch and event", req: &ghopsv1.ListWorkflowRunsRequest{Repo: repo, Branch: ptr("feature/greet-test"), Event: ptr("pull_request")},
			route: runsRoute, want: []string{"ci.yml:completed:failure:feature/greet-test:pull_request"}},
		{name: "nothing matches", req: &ghopsv1.ListWorkflowRunsRequest{Repo: repo, Event: ptr("schedule")}, route: runsRoute},
	}
	for _, tt := range listTests {
		t.Run("list_workflow_runs "+tt.name, func(t *testing.T) {
			e.hub.ResetStats()
			r, got := runsOf(t, tt.req)
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			assertCalls(t, e.hub, map[string]int{tt.route: 1})
			if tt.name == "all, newest first" && len(r.Runs) == 5 {
				queuedRun, runningRun, failedRun = r.Runs[0].Id, r.Runs[2].Id, r.Runs[4].Id
			}
		})
	}
	if failedRun == 0 {
		t.Fatal("the demo's runs were not listed")
	}

	// One call answers the run with its jobs, their conclusions and failed steps: two requests.
	t.Run("get_workflow_run", func(t *testing.T) {
		e.hub.ResetStats()
		r, err := c.GetWorkflowRun(ctx(t), &ghopsv1.GetWorkflowRunRequest{Repo: repo, RunId: failedRun})
		if err != nil {
			t.Fatal(err)
		}
		var jobs []string
		for _, j := range r.Jobs {
			if j.Id == 0 {
				t.Errorf("job %v has no id", j)
			}
			jobs = append(jobs, j.Name+":"+j.Status+":"+j.Conclusion+":"+strings.Join(j.FailedSteps, "|"))
		}
		if r.Run.GetId() != failedRun || r.Run.Conclusion != "failure" || r.Run.Workflow != "ci.yml" || r.JobsTruncated ||
			!strings.HasSuffix(r.HtmlUrl, "/octo-org/hello-world/actions/runs/"+strconv.FormatInt(failedRun, 10)) ||
			strings.Join(jobs, ",") != "build:completed:success:,test:completed:failure:Run go test ./..." {
			t.Errorf("got %v (jobs %v)", r, jobs)
		}
		assertCalls(t, e.hub, map[string]int{runRoute: 1, "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs": 1})
	})

	var dispatched int64
	t.Run("run_workflow", func(t *testing.T) {
		e.hub.ResetStats()
		r, err := c.RunWorkflow(ctx(t), &ghopsv1.RunWorkflowRequest{Repo: repo, Workflow: "ci.yml", Ref: "main", Inputs: map[string]string{"level": "debug"}})
		if err != nil {
			t.Fatal(err)
		}
		if r.RunId == 0 || !strings.HasSuffix(r.HtmlUrl, "/actions/runs/"+strconv.FormatInt(r.RunId, 10)) {
			t.Fatalf("got %v", r)
		}
		dispatched = r.RunId
		assertCalls(t, e.hub, map[string]int{"POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches": 1})
		run, err := c.GetWorkflowRun(ctx(t), &ghopsv1.GetWorkflowRunRequest{Repo: repo, RunId: dispatched})
		if err != nil {
			t.Fatal(err)
		}
		if run.Run.Status != "queued" || run.Run.Event != "workflow_dispatch" || run.Run.Branch != "main" || run.Run.Workflow != "ci.yml" {
			t.Errorf("the dispatched run: %v", run.Run)
		}
	})

	t.Run("cancel_workflow_run", func(t *testing.T) {
		for _, id := range []int64{runningRun, dispatched} {
			e.hub.ResetStats()
			r, err := c.CancelWorkflowRun(ctx(t), &ghopsv1.CancelWorkflowRunRequest{Repo: repo, RunId: id})
			if err != nil {
				t.Fatal(err)
			}
			if r.RunId != id || r.Status != "completed" || r.Conclusion != "cancelled" {
				t.Errorf("got %v", r)
			}
			// The run before (its answer must name the call's repository) and after the write.
			assertCalls(t, e.hub, map[string]int{"POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel": 1, runRoute: 2})
		}
	})

	t.Run("rerun_workflow_run", func(t *testing.T) {
		e.hub.ResetStats()
		r, err := c.RerunWorkflowRun(ctx(t), &ghopsv1.RerunWorkflowRunRequest{Repo: repo, RunId: failedRun})
		if err != nil {
			t.Fatal(err)
		}
		if r.RunId != failedRun || r.Status != "queued" {
			t.Errorf("got %v", r)
		}
		assertCalls(t, e.hub, map[string]int{"POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun": 1, runRoute: 2})
		run, err := c.GetWorkflowRun(ctx(t), &ghopsv1.GetWorkflowRunRequest{Repo: repo, RunId: failedRun})
		if err != nil {
			t.Fatal(err)
		}
		// Every job again, not only the failed one (rerun_failed_jobs' part).
		if run.Run.Attempt != 2 || len(run.Jobs) != 2 || run.Jobs[0].Status != "queued" || run.Jobs[1].Status != "queued" {
			t.Errorf("after the re-run: %v", run)
		}
	})

	failures := []struct {
		name    string
		call    func() error
		code    codes.Code
		reason  ghopsv1.ErrorReason
		resType string // data.resource.type, where GitHub's answer names one
		status  int32  // data.github.status
	}{
		{name: "list_workflow_runs of a missing workflow", call: func() error {
			_, err := c.ListWorkflowRuns(ctx(t), &ghopsv1.ListWorkflowRunsRequest{Repo: repo, Workflow: ptr("nope.yml")})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "workflow", status: 404},
		{name: "get_workflow_run of a missing run", call: func() error {
			_, err := c.GetWorkflowRun(ctx(t), &ghopsv1.GetWorkflowRunRequest{Repo: repo, RunId: 1})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "run", status: 404},
		{name: "run_workflow of a missing workflow", call: func() error {
			_, err := c.RunWorkflow(ctx(t), &ghopsv1.RunWorkflowRequest{Repo: repo, Workflow: "nope.yml", Ref: "main"})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "workflow", status: 404},
		{name: "run_workflow on a missing ref", call: func() error {
			_, err := c.RunWorkflow(ctx(t), &ghopsv1.RunWorkflowRequest{Repo: repo, Workflow: "ci.yml", Ref: "nope"})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "ref"},
		{name: "run_workflow of a workflow without workflow_dispatch", call: func() error {
			_, err := c.RunWorkflow(ctx(t), &ghopsv1.RunWorkflowRequest{Repo: repo, Workflow: "release.yml", Ref: "main"})
			return err
		}, code: codes.FailedPrecondition, reason: ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION, status: 422},
		{name: "cancel_workflow_run of a finished run", call: func() error {
			_, err := c.CancelWorkflowRun(ctx(t), &ghopsv1.CancelWorkflowRunRequest{Repo: repo, RunId: runningRun})
			return err
		}, code: codes.FailedPrecondition, reason: ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION, resType: "run", status: 409},
		{name: "cancel_workflow_run of a missing run", call: func() error {
			_, err := c.CancelWorkflowRun(ctx(t), &ghopsv1.CancelWorkflowRunRequest{Repo: repo, RunId: 1})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "run", status: 404},
		{name: "rerun_workflow_run of a queued run", call: func() error {
			_, err := c.RerunWorkflowRun(ctx(t), &ghopsv1.RerunWorkflowRunRequest{Repo: repo, RunId: queuedRun})
			return err
		}, code: codes.PermissionDenied, reason: ghopsv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED, status: 403},
	}
	for _, tt := range failures {
		t.Run(tt.name, func(t *testing.T) {
			d := wantStatus(t, tt.call(), tt.code, tt.reason)
			if tt.resType != "" && d.gh.GetResource().GetType() != tt.resType {
				t.Errorf("resource = %v, want type %s", d.gh.GetResource(), tt.resType)
			}
			if tt.status != 0 && d.gh.GetStatus() != tt.status {
				t.Errorf("github.status = %d, want %d", d.gh.GetStatus(), tt.status)
			}
		})
	}
	t.Run("a refused dispatch starts no run", func(t *testing.T) {
		_, got := runsOf(t, &ghopsv1.ListWorkflowRunsRequest{Repo: repo, Event: ptr("workflow_dispatch")})
		if len(got) != 1 {
			t.Errorf("dispatched runs %v, want only run_workflow's", got)
		}
	})
	t.Run("run_workflow with a bad workflow name is refused before GitHub", func(t *testing.T) {
		e.hub.ResetStats()
		_, err := c.RunWorkflow(ctx(t), &ghopsv1.RunWorkflowRequest{Repo: repo, Workflow: "../pulls", Ref: "main"})
		if statusCode(err) != codes.InvalidArgument {
			t.Fatalf("err = %v, want InvalidArgument", err)
		}
		assertCalls(t, e.hub, map[string]int{})
	})
}
