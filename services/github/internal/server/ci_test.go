package server_test

import (
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/codes"

	"ghops.dev/services/github/servicetest"
)

// TestCITools walks the demo's failing pull request (#3, feature/greet-test)
// through get_ci_failures, get_job_log and rerun_failed_jobs against
// fakehub, with the GitHub calls each makes.
func TestCITools(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	c := e.svc.Client
	head, err := e.hub.BranchSHA(repo, "feature/greet-test")
	if err != nil {
		t.Fatal(err)
	}
	checkFailure := func(t *testing.T, r *ghopsv1.GetCiFailuresResponse) *ghopsv1.FailedCheck {
		t.Helper()
		if r.Sha != head || r.Passed != 1 || r.Pending != 0 || len(r.Failed) != 1 || r.Truncated {
			t.Fatalf("got %v", r)
		}
		f := r.Failed[0]
		x := f.GetLogExcerpt()
		if f.Name != "test" || f.Conclusion != "failure" || f.JobId == 0 || f.RunId == 0 ||
			strings.Join(f.FailedSteps, ",") != "Run go test ./..." || x == nil {
			t.Fatalf("failed check %v", f)
		}
		if x.ErrorLine < x.FirstLine || len(x.Lines) > 50 || x.TotalLines < int32(len(x.Lines)) ||
			x.Lines[x.ErrorLine-x.FirstLine] != "--- FAIL: TestHello (0.00s)" ||
			!strings.Contains(strings.Join(x.Lines, "\n"), `greet_test.go:14: Hello("world") = "Good day, world.", want "Hello, world!"`) {
			t.Errorf("excerpt %v", x)
		}
		return f
	}
	var failed *ghopsv1.FailedCheck
	ciCalls := map[string]int{
		"GET /repos/{owner}/{repo}/commits/{ref}/check-runs":   1,
		"GET /repos/{owner}/{repo}/actions/jobs/{job_id}":      1,
		"GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs": 1,
		"GET /_logs/{owner}/{repo}/jobs/{job_id}":              1,
	}
	with := func(extra string) map[string]int {
		m := map[string]int{}
		for k, v := range ciCalls {
			m[k] = v
		}
		if extra != "" {
			m[extra] = 1
		}
		return m
	}
	// A pull request's check runs are read by its head ref (refs/pull/3/head) and the commit taken
	// from their head_sha: 4 requests for one failing job (runs, job, log URL, log), the pull
	// request itself is not read.
	t.Run("get_ci_failures by pull request", func(t *testing.T) {
		e.hub.ResetStats()
		r, err := c.GetCiFailures(ctx(t), &ghopsv1.GetCiFailuresRequest{Repo: repo, PrNumber: ptr[int32](3)})
		if err != nil {
			t.Fatal(err)
		}
		failed = checkFailure(t, r)
		assertCalls(t, e.hub, with(""))
		if n := e.hub.Stats().Total; n != 4 {
			t.Errorf("%d GitHub requests, want 4", n)
		}
	})
	t.Run("get_ci_failures by ref", func(t *testing.T) {
		e.hub.ResetStats()
		r, err := c.GetCiFailures(ctx(t), &ghopsv1.GetCiFailuresRequest{Repo: repo, Ref: ptr("feature/greet-test")})
		if err != nil {
			t.Fatal(err)
		}
		checkFailure(t, r)
		assertCalls(t, e.hub, with(""))
	})
	// Without a check run nothing names the commit: the pull request (or the commits list) is
	// read for its sha, then the runs of that sha.
	noRuns := []struct {
		name   string
		req    *ghopsv1.GetCiFailuresRequest
		branch string
		read   string
	}{
		{name: "pull request", req: &ghopsv1.GetCiFailuresRequest{Repo: repo, PrNumber: ptr[int32](2)}, branch: "feature/conflict",
			read: "GET /repos/{owner}/{repo}/pulls/{pull_number}"},
		{name: "ref", req: &ghopsv1.GetCiFailuresRequest{Repo: repo, Ref: ptr("feature/conflict")}, branch: "feature/conflict",
			read: "GET /repos/{owner}/{repo}/commits"},
	}
	for _, tt := range noRuns {
		t.Run("get_ci_failures by "+tt.name+" without check runs", func(t *testing.T) {
			want, err := e.hub.BranchSHA(repo, tt.branch)
			if err != nil {
				t.Fatal(err)
			}
			e.hub.ResetStats()
			r, err := c.GetCiFailures(ctx(t), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if r.Sha != want || len(r.Failed)+int(r.Passed)+int(r.Pending) != 0 {
				t.Errorf("got %v, want sha %s and no checks", r, want)
			}
			assertCalls(t, e.hub, map[string]int{"GET /repos/{owner}/{repo}/commits/{ref}/check-runs": 2, tt.read: 1})
		})
	}
	t.Run("get_ci_failures by full sha", func(t *testing.T) {
		e.hub.ResetStats()
		r, err := c.GetCiFailures(ctx(t), &ghopsv1.GetCiFailuresRequest{Repo: repo, Sha: ptr(head)})
		if err != nil {
			t.Fatal(err)
		}
		checkFailure(t, r)
		assertCalls(t, e.hub, with(""))
	})
	t.Run("get_ci_failures by short sha", func(t *testing.T) {
		e.hub.ResetStats()
		r, err := c.GetCiFailures(ctx(t), &ghopsv1.GetCiFailuresRequest{Repo: repo, Sha: ptr(head[:7])})
		if err != nil {
			t.Fatal(err)
		}
		checkFailure(t, r)
		assertCalls(t, e.hub, with("GET /repos/{owner}/{repo}/commits"))
	})
	t.Run("get_ci_failures of a commit that passed", func(t *testing.T) {
		r, err := c.GetCiFailures(ctx(t), &ghopsv1.GetCiFailuresRequest{Repo: repo, Ref: ptr("feature/clean")})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Failed) != 0 || r.Passed != 1 || r.Pending != 0 || len(r.Sha) != 40 {
			t.Errorf("got %v", r)
		}
	})
	if failed == nil {
		t.Fatal("no failed job to read")
	}
	logTests := []struct {
		name                    string
		req                     *ghopsv1.GetJobLogRequest
		first, lines, wantTotal int
		firstText               string
		truncated               bool
	}{
		{name: "tail", req: &ghopsv1.GetJobLogRequest{Repo: repo, JobId: failed.JobId, TailLines: ptr[int32](3)},
			lines: 3, firstText: "/usr/bin/git version", truncated: true},
		{name: "window", req: &ghopsv1.GetJobLogRequest{Repo: repo, JobId: failed.JobId, StartLine: ptr[int32](1), MaxLines: ptr[int32](2)},
			first: 1, lines: 2, firstText: "##[group]Run actions/checkout@v4", truncated: true},
		{name: "whole", req: &ghopsv1.GetJobLogRequest{Repo: repo, JobId: failed.JobId, TailLines: ptr[int32](500)},
			first: 1, firstText: "##[group]Run actions/checkout@v4"},
	}
	total := int(failed.GetLogExcerpt().GetTotalLines())
	for _, tt := range logTests {
		t.Run("get_job_log "+tt.name, func(t *testing.T) {
			e.hub.ResetStats()
			r, err := c.GetJobLog(ctx(t), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			lines, first := tt.lines, tt.first
			if lines == 0 {
				lines = total
			}
			if first == 0 {
				first = total - lines + 1
			}
			if int(r.TotalLines) != total || len(r.Lines) != lines || int(r.FirstLine) != first || r.Lines[0] != tt.firstText || r.Truncated != tt.truncated {
				t.Errorf("got first %d, %d lines of %d, truncated %v, first %q", r.FirstLine, len(r.Lines), r.TotalLines, r.Truncated, r.Lines[0])
			}
			// The job first: its answer must name the call's repository.
			assertCalls(t, e.hub, map[string]int{"GET /repos/{owner}/{repo}/actions/jobs/{job_id}": 1, "GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs": 1, "GET /_logs/{owner}/{repo}/jobs/{job_id}": 1})
		})
	}
	t.Run("rerun_failed_jobs", func(t *testing.T) {
		e.hub.ResetStats()
		r, err := c.RerunFailedJobs(ctx(t), &ghopsv1.RerunFailedJobsRequest{Repo: repo, RunId: failed.RunId})
		if err != nil {
			t.Fatal(err)
		}
		if r.RunId != failed.RunId || r.Status != "queued" {
			t.Errorf("got %v", r)
		}
		// The run before the re-run (its answer must name the call's
		// repository) and after it (its status).
		assertCalls(t, e.hub, map[string]int{"POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs": 1, "GET /repos/{owner}/{repo}/actions/runs/{run_id}": 2})
		after, err := c.GetCiFailures(ctx(t), &ghopsv1.GetCiFailuresRequest{Repo: repo, Sha: ptr(head)})
		if err != nil {
			t.Fatal(err)
		}
		if len(after.Failed) != 0 || after.Pending != 1 || after.Passed != 1 {
			t.Errorf("after the re-run: %v", after)
		}
	})
	failures := []struct {
		name    string
		call    func() error
		code    codes.Code
		reason  ghopsv1.ErrorReason
		resType string
	}{
		{name: "get_ci_failures of a missing pull request", call: func() error {
			_, err := c.GetCiFailures(ctx(t), &ghopsv1.GetCiFailuresRequest{Repo: repo, PrNumber: ptr[int32](99)})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "pr"},
		{name: "get_ci_failures of a missing ref", call: func() error {
			_, err := c.GetCiFailures(ctx(t), &ghopsv1.GetCiFailuresRequest{Repo: repo, Ref: ptr("nope")})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "ref"},
		{name: "get_job_log of a missing job", call: func() error {
			_, err := c.GetJobLog(ctx(t), &ghopsv1.GetJobLogRequest{Repo: repo, JobId: 1, TailLines: ptr[int32](5)})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "job"},
		{name: "rerun_failed_jobs of a missing run", call: func() error {
			_, err := c.RerunFailedJobs(ctx(t), &ghopsv1.RerunFailedJobsRequest{Repo: repo, RunId: 1})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "run"},
		{name: "rerun_failed_jobs of a run in progress", call: func() error {
			_, err := c.RerunFailedJobs(ctx(t), &ghopsv1.RerunFailedJobsRequest{Repo: repo, RunId: failed.RunId})
			return err
		}, code: codes.PermissionDenied, reason: ghopsv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED, resType: "run"},
	}
	for _, tt := range failures {
		t.Run(tt.name, func(t *testing.T) {
			d := wantStatus(t, tt.call(), tt.code, tt.reason)
			if tt.code == codes.NotFound && d.gh.GetResource().GetType() != tt.resType {
				t.Errorf("resource = %v, want type %s", d.gh.GetResource(), tt.resType)
			}
		})
	}
	t.Run("get_job_log with neither form is refused before GitHub", func(t *testing.T) {
		e.hub.ResetStats()
		_, err := c.GetJobLog(ctx(t), &ghopsv1.GetJobLogRequest{Repo: repo, JobId: failed.JobId})
		if statusCode(err) != codes.InvalidArgument {
			t.Fatalf("err = %v, want InvalidArgument", err)
		}
		assertCalls(t, e.hub, map[string]int{})
	})
}
