package taskbench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"ghops.dev/services/fakehub"
)

// The CI/CD tasks: dispatching a workflow and reading why its run failed,
// and clearing a superseded branch's runs while reporting main's failures.
// fakehub plays the runner: Hub.SetDispatchJobs decides how a dispatched
// run ends, Hub.AddWorkflowRunOf records runs in every state.

func init() {
	register(workflowFailureTask(), ciHousekeepingTask())
}

// The branches and workflow of the CI tasks.
const (
	ciWorkflow   = "ci.yml"
	ciPolite     = "feature/polite"
	ciSuperseded = "feature/slow"
)

// ciFlakyLog is the log of the test job a dispatched CI run fails in: a
// test that reaches the network timed out, the kind of failure an engineer
// re-runs (timestamps are added by fakehub, as GitHub's runner writes them).
var ciFlakyLog = GoTestLog(`--- FAIL: TestFetchGreeting (30.00s)
    fetch_test.go:21: Get "https://greetings.example/v1/hello": dial tcp 203.0.113.7:443: i/o timeout
FAIL
FAIL	example.com/hello-world/internal/greet	30.004s
`)

// ciFailedTest is the failing test the agent must name.
const ciFailedTest = "TestFetchGreeting"

// ciLogTail is how many of the log's last lines github-mcp-server's script
// asks for: as many as ghops's get_ci_failures excerpt holds at most (it
// picks the lines around the error itself), as the other CI tasks ask.
const ciLogTail = 50

// workflowFailureTask: dispatch CI on a branch, find the run it started, read
// which test failed and why, and re-run the failed job.
func workflowFailureTask() Task {
	return Task{
		Name:     "workflow-failure",
		Category: "ci/cd",
		Summary:  "Run CI by hand on feature/polite, find the run, read which test failed and why, and re-run the failed job.",
		Toolsets: map[Server]string{Ghops: "actions", GMS: "actions"},
		Setup: func(h *fakehub.Hub) error {
			if _, err := h.Commit(Repo, ciPolite, "Say please", map[string]string{
				"internal/greet/greet.go": "package greet\n\n// Hello returns a greeting for name.\nfunc Hello(name string) string {\n\treturn \"Good day, \" + name + \", please.\"\n}\n",
			}); err != nil {
				return err
			}
			return h.SetDispatchJobs(Repo, "CI", []fakehub.JobSpec{
				{Name: "build", Conclusion: "success", Steps: JobSteps("Run go build ./..."), Log: "go build ./...\n"},
				{Name: "test", Conclusion: "failure", Steps: JobSteps("Run go test ./..."), FailedStep: 4, Log: ciFlakyLog},
			})
		},
		Scripts: map[Server]Script{Ghops: workflowFailureGhops, GMS: workflowFailureGMS},
		Gap: map[Server]string{Ghops: "get_ci_failures costs 4 requests (the head's check runs, the failed job, read to check it is " +
			"the repository's, the log's redirect and the log) against gms's 3 for get_job_logs, and rerun_failed_jobs 3 (the run read " +
			"for the same check, the POST, its status read back) against gms's POST alone: ids GitHub scopes by the URL alone are " +
			"checked before they are used (docs/security.md)"},
		Verify: verifyWorkflowFailure,
	}
}

// workflowFailureGhops: run_workflow answers the run it started;
// get_ci_failures on the branch names that run's failed job with the log
// around its error (one call where get_workflow_run and get_job_log take
// two, 1,220 bytes against 1,020 when measured); rerun_failed_jobs re-runs
// it.
func workflowFailureGhops(ctx context.Context, c Caller) error {
	var started struct {
		RunID int64 `json:"run_id"`
	}
	if err := call(ctx, c, "run_workflow", map[string]any{"repo": Repo, "workflow": ciWorkflow, "ref": ciPolite}, &started); err != nil {
		return err
	}
	if started.RunID == 0 {
		return errors.New("run_workflow did not say which run it started")
	}
	var ci struct {
		Failed []struct {
			RunID      int64 `json:"run_id"`
			LogExcerpt struct {
				Lines []string `json:"lines"`
			} `json:"log_excerpt"`
		} `json:"failed"`
	}
	if err := call(ctx, c, "get_ci_failures", map[string]any{"repo": Repo, "ref": ciPolite}, &ci); err != nil {
		return err
	}
	if len(ci.Failed) == 0 {
		return fmt.Errorf("no failed check on %s", ciPolite)
	}
	if ci.Failed[0].RunID != started.RunID {
		return fmt.Errorf("the failed check is of run %d, not of the run started, %d", ci.Failed[0].RunID, started.RunID)
	}
	if err := failureIn(ci.Failed[0].LogExcerpt.Lines); err != nil {
		return err
	}
	return call(ctx, c, "rerun_failed_jobs", map[string]any{"repo": Repo, "run_id": started.RunID}, nil)
}

// workflowFailureGMS: actions_run_trigger answers no run id, so the run is
// the newest dispatched run of the branch (one per page); get_job_logs reads
// the failed jobs' log tails in one call.
func workflowFailureGMS(ctx context.Context, c Caller) error {
	gms := func(args map[string]any) map[string]any {
		args["owner"], args["repo"] = owner, name
		return args
	}
	if err := call(ctx, c, "actions_run_trigger", gms(map[string]any{"method": "run_workflow", "workflow_id": ciWorkflow, "ref": ciPolite}), nil); err != nil {
		return err
	}
	var runs struct {
		Runs []struct {
			ID int64 `json:"id"`
		} `json:"workflow_runs"`
	}
	if err := call(ctx, c, "actions_list", gms(map[string]any{"method": "list_workflow_runs", "resource_id": ciWorkflow, "per_page": 1,
		"workflow_runs_filter": map[string]any{"branch": ciPolite, "event": "workflow_dispatch"}}), &runs); err != nil {
		return err
	}
	if len(runs.Runs) == 0 {
		return errors.New("no dispatched run on " + ciPolite)
	}
	id := runs.Runs[0].ID
	var logs struct {
		Logs []struct {
			Content string `json:"logs_content"`
		} `json:"logs"`
	}
	if err := call(ctx, c, "get_job_logs", gms(map[string]any{"run_id": id, "failed_only": true, "return_content": true, "tail_lines": ciLogTail}), &logs); err != nil {
		return err
	}
	var lines []string
	for _, l := range logs.Logs {
		lines = append(lines, strings.Split(l.Content, "\n")...)
	}
	if err := failureIn(lines); err != nil {
		return err
	}
	return call(ctx, c, "actions_run_trigger", gms(map[string]any{"method": "rerun_failed_jobs", "run_id": id}), nil)
}

// failureIn checks that log lines name the failing test and its cause, as
// the agent must report them.
func failureIn(lines []string) error {
	all := strings.Join(lines, "\n")
	if !strings.Contains(all, "--- FAIL: "+ciFailedTest) || !strings.Contains(all, "i/o timeout") {
		return fmt.Errorf("the log's tail does not show %s and its cause: %q", ciFailedTest, all)
	}
	return nil
}

// hubRun is the part of GitHub's workflow run the Verifies read.
type hubRun struct {
	ID         int64  `json:"id"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
	Branch     string `json:"head_branch"`
	Attempt    int    `json:"run_attempt"`
}

// hubRuns is GitHub's list of workflow runs.
type hubRuns struct {
	Runs []hubRun `json:"workflow_runs"`
}

// verifyWorkflowFailure: the branch has one dispatched run, in its second
// attempt, which re-runs the test job only.
func verifyWorkflowFailure(ctx context.Context, h *fakehub.Hub) error {
	var runs hubRuns
	if err := Get(ctx, h, "/repos/"+Repo+"/actions/runs?event=workflow_dispatch&branch="+ciPolite, &runs); err != nil {
		return err
	}
	if len(runs.Runs) != 1 {
		return fmt.Errorf("%d dispatched runs on %s, want 1", len(runs.Runs), ciPolite)
	}
	run := runs.Runs[0]
	if run.Attempt != 2 || run.Status != "queued" {
		return fmt.Errorf("run %d: attempt %d, %s; want its failed jobs re-run (attempt 2, queued)", run.ID, run.Attempt, run.Status)
	}
	var jobs struct {
		Jobs []struct {
			Name string `json:"name"`
		} `json:"jobs"`
	}
	if err := Get(ctx, h, "/repos/"+Repo+"/actions/runs/"+strconv.FormatInt(run.ID, 10)+"/jobs", &jobs); err != nil {
		return err
	}
	if len(jobs.Jobs) != 1 || jobs.Jobs[0].Name != "test" {
		return fmt.Errorf("attempt 2 runs %+v, want the test job only", jobs.Jobs)
	}
	return nil
}

// ciHousekeepingTask: feature/slow was superseded; cancel its queued and
// running CI runs, leave every other run alone, and report which CI runs on
// main failed.
func ciHousekeepingTask() Task {
	return Task{
		Name:     "ci-housekeeping",
		Category: "ci/cd",
		Summary:  "Cancel every queued or running CI run of the superseded feature/slow, and report which CI runs on main failed.",
		Toolsets: map[Server]string{Ghops: "actions", GMS: "actions"},
		// The demo has CI running on main and a queued Release run: neither
		// may be cancelled. feature/slow gets a finished, a running and a
		// queued CI run; main two failed CI runs beside the demo's passed one.
		Setup: func(h *fakehub.Hub) error {
			if _, err := h.Commit(Repo, ciSuperseded, "Cache the greeting", map[string]string{"internal/greet/cache.go": "package greet\n"}); err != nil {
				return err
			}
			build := func(conclusion string) []fakehub.JobSpec {
				return []fakehub.JobSpec{{Name: "build", Conclusion: conclusion, Steps: JobSteps("Run go build ./..."), FailedStep: map[bool]int{true: 4}[conclusion == "failure"]}}
			}
			for _, r := range []struct {
				branch, status, conclusion string
			}{
				{ciSuperseded, "completed", "success"},
				{"main", "completed", "failure"},
				{ciSuperseded, "in_progress", ""},
				{"main", "completed", "failure"},
				{ciSuperseded, "queued", ""},
			} {
				if _, err := h.AddWorkflowRunOf(Repo, "CI", fakehub.RunSpec{Branch: r.branch, Status: r.status}, build(r.conclusion)); err != nil {
					return err
				}
			}
			return nil
		},
		Scripts: map[Server]Script{Ghops: ciHousekeepingGhops, GMS: ciHousekeepingGMS},
		Gap: map[Server]string{Ghops: "each cancel_workflow_run is 3 requests (the run read to check it is the repository's before " +
			"the write, docs/security.md; the POST; the run read back for the answer's status) where gms sends the POST alone; " +
			"the two lists cost both servers the same"},
		Verify: verifyCIHousekeeping,
	}
}

// unfinished tells whether a run's status is one cancel_workflow_run
// takes.
func unfinished(status string) bool {
	return status == "queued" || status == "in_progress" || status == "waiting" || status == "requested" || status == "pending"
}

// ciHousekeepingGhops lists the branch's CI runs in one call (a status
// filter takes one status), cancels the unfinished ones, then lists main's
// failed CI runs with the conclusion as the filter.
func ciHousekeepingGhops(ctx context.Context, c Caller) error {
	type runs struct {
		Runs []struct {
			ID     int64  `json:"id"`
			Status string `json:"status"`
		} `json:"runs"`
	}
	var slow runs
	if err := call(ctx, c, "list_workflow_runs", map[string]any{"repo": Repo, "workflow": ciWorkflow, "branch": ciSuperseded}, &slow); err != nil {
		return err
	}
	for _, r := range slow.Runs {
		if unfinished(r.Status) {
			if err := call(ctx, c, "cancel_workflow_run", map[string]any{"repo": Repo, "run_id": r.ID}, nil); err != nil {
				return err
			}
		}
	}
	var failed runs
	if err := call(ctx, c, "list_workflow_runs", map[string]any{"repo": Repo, "workflow": ciWorkflow, "branch": "main", "status": "failure"}, &failed); err != nil {
		return err
	}
	var ids []int64
	for _, r := range failed.Runs {
		ids = append(ids, r.ID)
	}
	report(ctx, ids)
	return nil
}

// ciHousekeepingGMS does the same with actions_list and actions_run_trigger.
func ciHousekeepingGMS(ctx context.Context, c Caller) error {
	type runs struct {
		Runs []struct {
			ID     int64  `json:"id"`
			Status string `json:"status"`
		} `json:"workflow_runs"`
	}
	list := func(filter map[string]any, out *runs) error {
		return call(ctx, c, "actions_list", map[string]any{"owner": owner, "repo": name, "method": "list_workflow_runs",
			"resource_id": ciWorkflow, "workflow_runs_filter": filter}, out)
	}
	var slow runs
	if err := list(map[string]any{"branch": ciSuperseded}, &slow); err != nil {
		return err
	}
	for _, r := range slow.Runs {
		if unfinished(r.Status) {
			if err := call(ctx, c, "actions_run_trigger", map[string]any{"owner": owner, "repo": name,
				"method": "cancel_workflow_run", "run_id": r.ID}, nil); err != nil {
				return err
			}
		}
	}
	var failed runs
	if err := list(map[string]any{"branch": "main", "status": "failure"}, &failed); err != nil {
		return err
	}
	var ids []int64
	for _, r := range failed.Runs {
		ids = append(ids, r.ID)
	}
	report(ctx, ids)
	return nil
}

// verifyCIHousekeeping: feature/slow's unfinished runs are cancelled and
// its finished one is not; main's running CI run and the queued Release run
// are untouched; the answer is main's failed CI runs, as fakehub lists them.
func verifyCIHousekeeping(ctx context.Context, h *fakehub.Hub) error {
	got, ok := take[[]int64](ctx)
	if !ok {
		return errors.New("the script reported no failed runs")
	}
	var all hubRuns
	if err := Get(ctx, h, "/repos/"+Repo+"/actions/runs?per_page=100", &all); err != nil {
		return err
	}
	var errs []error
	cancelled := 0
	for _, r := range all.Runs {
		if r.Branch != ciSuperseded {
			continue
		}
		if unfinished(r.Status) {
			errs = append(errs, fmt.Errorf("run %d on %s is still %s", r.ID, ciSuperseded, r.Status))
		}
		if r.Conclusion == "cancelled" {
			cancelled++
		}
	}
	if cancelled != 2 {
		errs = append(errs, fmt.Errorf("%d runs of %s cancelled, want 2 (the finished one keeps its conclusion)", cancelled, ciSuperseded))
	}
	for _, status := range []string{"in_progress", "queued"} {
		var left hubRuns
		if err := Get(ctx, h, "/repos/"+Repo+"/actions/runs?branch=main&status="+status, &left); err != nil {
			return err
		}
		if len(left.Runs) != 1 {
			errs = append(errs, fmt.Errorf("%d runs %s on main, want the demo's one untouched", len(left.Runs), status))
		}
	}
	var failed hubRuns
	if err := Get(ctx, h, "/repos/"+Repo+"/actions/workflows/"+ciWorkflow+"/runs?branch=main&status=failure", &failed); err != nil {
		return err
	}
	var want []int64
	for _, r := range failed.Runs {
		want = append(want, r.ID)
	}
	if len(want) != 2 || !slices.Equal(got, want) {
		errs = append(errs, fmt.Errorf("reported failed runs %v, want %v (two)", got, want))
	}
	return errors.Join(errs...)
}
