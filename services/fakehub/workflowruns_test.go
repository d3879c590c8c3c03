package fakehub_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-github/v66/github"

	"ghops.dev/services/fakehub"
)

// TestSetDispatchJobs: a dispatch of a workflow whose outcome a test set
// records a finished run with those jobs (their conclusions, failed steps
// and logs as GitHub serves them); other workflows' dispatches stay queued,
// and nil jobs restore the queued run.
func TestSetDispatchJobs(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	const repo = "octo-org/hello-world"
	ctx := context.Background()
	c := client(t, s, writer, "")
	if err := s.Hub.SetDispatchJobs(repo, "nope.yml", nil); !errors.Is(err, fakehub.ErrWorkflowNotFound) {
		t.Fatalf("unknown workflow: %v, want ErrWorkflowNotFound", err)
	}
	if err := s.Hub.SetDispatchJobs("octo-org/nope", "ci.yml", nil); !errors.Is(err, fakehub.ErrRepoNotFound) {
		t.Fatalf("unknown repository: %v, want ErrRepoNotFound", err)
	}
	jobs := []fakehub.JobSpec{
		{Name: "build", Conclusion: "success", Steps: []string{"Set up job", "Build"}, Log: "ok\n"},
		{Name: "test", Conclusion: "failure", Steps: []string{"Set up job", "Test", "Complete job"}, FailedStep: 2, Log: "--- FAIL: TestX\n##[error]Process completed with exit code 1.\n"},
	}
	dispatch := func(t *testing.T) *github.WorkflowRun {
		t.Helper()
		if _, err := c.Actions.CreateWorkflowDispatchEventByFileName(ctx, "octo-org", "hello-world", "ci.yml", github.CreateWorkflowDispatchEventRequest{Ref: "main"}); err != nil {
			t.Fatal(err)
		}
		runs, _, err := c.Actions.ListWorkflowRunsByFileName(ctx, "octo-org", "hello-world", "ci.yml", &github.ListWorkflowRunsOptions{Event: "workflow_dispatch"})
		if err != nil || len(runs.WorkflowRuns) == 0 {
			t.Fatalf("runs %v, err %v", runs, err)
		}
		return runs.WorkflowRuns[0]
	}
	tests := []struct {
		name           string
		workflow       string // "" leaves the outcome as it is
		jobs           []fakehub.JobSpec
		status, concl  string
		failedJobSteps map[string]string // job -> its failed step
	}{
		{name: "queued by default", status: "queued"},
		{name: "finished with the jobs set", workflow: "CI", jobs: jobs, status: "completed", concl: "failure", failedJobSteps: map[string]string{"test": "Test"}},
		{name: "again by file name", workflow: "ci.yml", jobs: jobs, status: "completed", concl: "failure", failedJobSteps: map[string]string{"test": "Test"}},
		{name: "nil restores the queued run", workflow: "CI", status: "queued"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.workflow != "" {
				if err := s.Hub.SetDispatchJobs(repo, tc.workflow, tc.jobs); err != nil {
					t.Fatal(err)
				}
			}
			run := dispatch(t)
			if run.GetStatus() != tc.status || run.GetConclusion() != tc.concl {
				t.Fatalf("run %d: %s/%s, want %s/%s", run.GetID(), run.GetStatus(), run.GetConclusion(), tc.status, tc.concl)
			}
			got, _, err := c.Actions.ListWorkflowJobs(ctx, "octo-org", "hello-world", run.GetID(), nil)
			if err != nil {
				t.Fatal(err)
			}
			failed := map[string]string{}
			for _, j := range got.Jobs {
				for _, st := range j.Steps {
					if st.GetConclusion() == "failure" {
						failed[j.GetName()] = st.GetName()
					}
				}
				if j.GetConclusion() == "failure" {
					u, _, err := c.Actions.GetWorkflowJobLogs(ctx, "octo-org", "hello-world", j.GetID(), 1)
					if err != nil || u == nil {
						t.Fatalf("log of job %d: %v", j.GetID(), err)
					}
				}
			}
			if len(failed) != len(tc.failedJobSteps) {
				t.Fatalf("failed steps %v, want %v", failed, tc.failedJobSteps)
			}
			for k, v := range tc.failedJobSteps {
				if failed[k] != v {
					t.Fatalf("failed steps %v, want %v", failed, tc.failedJobSteps)
				}
			}
		})
	}
}

// TestAddWorkflowRunOf: runs recorded in each state are listed with the
// filters GitHub's runs list takes, a queued or running one can be
// cancelled and a completed one cannot (GitHub's 409).
func TestAddWorkflowRunOf(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	const repo = "octo-org/hello-world"
	ctx := context.Background()
	c := client(t, s, writer, "")
	if _, err := s.Hub.Commit(repo, "feature/slow", "Slow down", map[string]string{"slow.txt": "slow\n"}); err != nil {
		t.Fatal(err)
	}
	build := []fakehub.JobSpec{{Name: "build", Conclusion: "success", Steps: []string{"Set up job", "Build"}}}
	if _, err := s.Hub.AddWorkflowRunOf(repo, "CI", fakehub.RunSpec{Branch: "nope"}, build); !errors.Is(err, fakehub.ErrRefNotFound) {
		t.Fatalf("unknown branch: %v, want ErrRefNotFound", err)
	}
	if _, err := s.Hub.AddWorkflowRunOf("octo-org/nope", "CI", fakehub.RunSpec{Branch: "main"}, build); !errors.Is(err, fakehub.ErrRepoNotFound) {
		t.Fatalf("unknown repository: %v, want ErrRepoNotFound", err)
	}
	ids := map[string]int64{}
	for _, st := range []string{"queued", "in_progress", "completed"} {
		id, err := s.Hub.AddWorkflowRunOf(repo, "CI", fakehub.RunSpec{Branch: "feature/slow", Status: st}, build)
		if err != nil {
			t.Fatal(err)
		}
		ids[st] = id
	}
	tests := []struct {
		name, status string
		want         []int64
	}{
		{name: "queued", status: "queued", want: []int64{ids["queued"]}},
		{name: "in progress", status: "in_progress", want: []int64{ids["in_progress"]}},
		{name: "by conclusion", status: "success", want: []int64{ids["completed"]}},
		{name: "all", want: []int64{ids["completed"], ids["in_progress"], ids["queued"]}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs, _, err := c.Actions.ListWorkflowRunsByFileName(ctx, "octo-org", "hello-world", "ci.yml",
				&github.ListWorkflowRunsOptions{Branch: "feature/slow", Status: tc.status})
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, run := range runs.WorkflowRuns {
				if run.GetEvent() != "push" {
					t.Fatalf("run %d: event %q, want push", run.GetID(), run.GetEvent())
				}
				got = append(got, run.GetID())
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("runs %v, want %v", got, tc.want)
			}
		})
	}
	for st, want := range map[string]int{"queued": 202, "in_progress": 202, "completed": 409} {
		resp, err := c.Actions.CancelWorkflowRunByID(ctx, "octo-org", "hello-world", ids[st])
		if resp == nil || resp.StatusCode != want {
			t.Fatalf("cancel the %s run: %v, want %d", st, err, want)
		}
	}
}
