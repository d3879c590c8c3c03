package taskbench

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"ghops.dev/services/fakehub"
)

// The pull request tasks: work an agent does on a change under review.
func init() {
	register(fixFailingPR())
}

// The fix-failing-pr task's change: a Goodbye function whose first
// version fails its test, and the fix.
const (
	farewellBranch = "feature/farewell"
	farewellPath   = "internal/greet/farewell.go"
	farewellTest   = "internal/greet/farewell_test.go"
	farewellBad    = "package greet\n\n// Goodbye returns a farewell for name.\nfunc Goodbye(name string) string {\n\treturn \"Bye \" + name\n}\n"
	farewellGood   = "package greet\n\n// Goodbye returns a farewell for name.\nfunc Goodbye(name string) string {\n\treturn \"Goodbye, \" + name + \".\"\n}\n"
	farewellTestGo = "package greet\n\nimport \"testing\"\n\nfunc TestGoodbye(t *testing.T) {\n\tif got, want := Goodbye(\"world\"), \"Goodbye, world.\"; got != want {\n" +
		"\t\tt.Errorf(\"Goodbye(%q) = %q, want %q\", \"world\", got, want)\n\t}\n}\n"
	// farewellWant is what the agent looks for in the failure: the
	// failing assertion.
	farewellWant = `want "Goodbye, world."`
)

// FarewellLog is the log CI writes for the first commit's failing test
// (gateway/e2e's fix-the-pull-request test plays the same CI).
var FarewellLog = GoTestLog(`--- FAIL: TestGoodbye (0.00s)
    farewell_test.go:8: Goodbye("world") = "Bye world", want "Goodbye, world."
FAIL
FAIL	example.com/hello-world/internal/greet	0.003s
`)

// GoTestLog is the log of a CI job that checks out the demo repository,
// sets up Go and runs `go test ./...`, as GitHub's runner writes it, with
// failure (the failing package's lines of `go test`'s output) in place.
func GoTestLog(failure string) string {
	return `##[group]Run actions/checkout@v4
with:
  repository: octo-org/hello-world
##[endgroup]
Syncing repository: octo-org/hello-world
##[group]Run actions/setup-go@v5
##[endgroup]
go version go1.22.5 linux/amd64
##[group]Run go test ./...
go test ./...
shell: /usr/bin/bash -e {0}
##[endgroup]
?   	example.com/hello-world/cmd/hello	[no test files]
` + failure + `FAIL
##[error]Process completed with exit code 1.
Post job cleanup.
Cleaning up orphan processes
`
}

// JobSteps are the steps of a CI job whose one step of its own is run
// (the fourth: a failure there is FailedStep 4).
func JobSteps(run string) []string {
	return []string{"Set up job", "Run actions/checkout@v4", "Run actions/setup-go@v5", run, "Complete job"}
}

// ghContent is GitHub's answer for a file's contents.
type ghContent struct {
	Content string `json:"content"`
}

// fileAt reads path at ref of Repo from h ("" when it does not exist).
func fileAt(ctx context.Context, h *fakehub.Hub, path, ref string) (string, bool) {
	var c ghContent
	if err := Get(ctx, h, "/repos/"+Repo+"/contents/"+path+"?ref="+ref, &c); err != nil {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(c.Content, "\n", ""))
	return string(b), err == nil
}

// farewellCI plays CI for the farewell branch: when its head holds
// farewell.go and has no run yet, it records one, whose test job fails
// while Goodbye says "Bye" and passes once fixed. Stateless: the runs
// fakehub already has say what was done.
func farewellCI(ctx context.Context, h *fakehub.Hub) error {
	head, err := h.BranchSHA(Repo, farewellBranch)
	if err != nil {
		return nil // no branch yet
	}
	src, ok := fileAt(ctx, h, farewellPath, head)
	if !ok {
		return nil // nothing to test yet
	}
	var runs struct {
		WorkflowRuns []struct {
			HeadSHA string `json:"head_sha"`
		} `json:"workflow_runs"`
	}
	if err := Get(ctx, h, "/repos/"+Repo+"/actions/runs?branch="+farewellBranch, &runs); err != nil {
		return err
	}
	for _, r := range runs.WorkflowRuns {
		if r.HeadSHA == head {
			return nil
		}
	}
	build := fakehub.JobSpec{Name: "build", Conclusion: "success", Steps: JobSteps("Run go build ./..."), Log: "##[group]Run go build ./...\ngo build ./...\n##[endgroup]\n"}
	test := fakehub.JobSpec{Name: "test", Conclusion: "success", Steps: JobSteps("Run go test ./..."), Log: "##[group]Run go test ./...\ngo test ./...\n##[endgroup]\nok  \texample.com/hello-world/internal/greet\t0.002s\n"}
	if strings.Contains(src, `"Bye "`) {
		test.Conclusion, test.FailedStep, test.Log = "failure", 4, FarewellLog
	}
	_, err = h.AddWorkflowRun(Repo, farewellBranch, "CI", []fakehub.JobSpec{build, test})
	return err
}

// fixComment is the comment on the pull request once the fix is pushed.
func fixComment(sha string) string {
	if len(sha) > 7 {
		sha = sha[:7]
	}
	return "CI failed in TestGoodbye (\"Bye world\" instead of \"Goodbye, world.\"); fixed in " + sha + "."
}

// fixFailingPR: branch, commit, open a pull request, read why its CI
// failed, fix it and say so on the pull request.
func fixFailingPR() Task {
	return Task{
		Name:     "fix-failing-pr",
		Category: "pull requests",
		Summary: "Add Goodbye and its test on a new branch, open a pull request, read why CI fails, push the fix " +
			"and say on the pull request what failed and which commit fixes it.",
		Toolsets:  map[Server]string{Ghops: "repos,pulls,actions", GMS: "repos,pull_requests,actions,issues"},
		AfterCall: farewellCI,
		Gap: map[Server]string{Ghops: "the branch (its start point, then the ref: 2 requests), the pull request (1) and the CI " +
			"failure (the head's check runs, the job, the log's redirect and the log: 4) cost both servers the same 7 requests; " +
			"ghops saves on the commits (2 each, through createCommitOnBranch, against gms's 5 through the git data API) " +
			"and on the comment"},
		Scripts: map[Server]Script{
			Ghops: func(ctx context.Context, c Caller) error {
				if err := call(ctx, c, "create_branch", map[string]any{"repo": Repo, "branch": farewellBranch}, nil); err != nil {
					return err
				}
				if err := call(ctx, c, "commit_files", map[string]any{"repo": Repo, "branch": farewellBranch, "message": "Add Goodbye", "files": []any{
					map[string]any{"path": farewellPath, "content": farewellBad},
					map[string]any{"path": farewellTest, "content": farewellTestGo},
				}}, nil); err != nil {
					return err
				}
				var pr struct {
					PullRequest struct {
						Number int `json:"number"`
					} `json:"pull_request"`
				}
				if err := call(ctx, c, "create_pull_request", map[string]any{"repo": Repo, "title": "Add a farewell", "head": farewellBranch,
					"base": "main", "body": "Adds Goodbye next to Hello."}, &pr); err != nil {
					return err
				}
				var fails struct {
					Failed []struct {
						JobID      any `json:"job_id"`
						LogExcerpt struct {
							Lines []string `json:"lines"`
						} `json:"log_excerpt"`
					} `json:"failed"`
				}
				if err := call(ctx, c, "get_ci_failures", map[string]any{"repo": Repo, "prNumber": pr.PullRequest.Number}, &fails); err != nil {
					return err
				}
				if len(fails.Failed) == 0 {
					return fmt.Errorf("get_ci_failures found no failed job")
				}
				// The excerpt around the error is usually enough; the
				// log is read only when it does not show the assertion.
				if f := fails.Failed[0]; !strings.Contains(strings.Join(f.LogExcerpt.Lines, "\n"), farewellWant) {
					var log struct {
						Lines []string `json:"lines"`
					}
					if err := call(ctx, c, "get_job_log", map[string]any{"repo": Repo, "job_id": f.JobID, "tail_lines": 50}, &log); err != nil {
						return err
					}
					if !strings.Contains(strings.Join(log.Lines, "\n"), farewellWant) {
						return fmt.Errorf("the job's log does not show why the test failed")
					}
				}
				var fix struct {
					CommitSHA string `json:"commit_sha"`
				}
				if err := call(ctx, c, "commit_files", map[string]any{"repo": Repo, "branch": farewellBranch, "message": "Goodbye says goodbye, as its test wants",
					"files": []any{map[string]any{"path": farewellPath, "content": farewellGood}}}, &fix); err != nil {
					return err
				}
				return call(ctx, c, "add_pull_request_comment", map[string]any{"repo": Repo, "prNumber": pr.PullRequest.Number, "body": fixComment(fix.CommitSHA)}, nil)
			},
			GMS: func(ctx context.Context, c Caller) error {
				base := map[string]any{"owner": owner, "repo": name}
				with := func(kv ...any) map[string]any {
					m := map[string]any{}
					for k, v := range base {
						m[k] = v
					}
					for i := 0; i+1 < len(kv); i += 2 {
						m[kv[i].(string)] = kv[i+1]
					}
					return m
				}
				if err := call(ctx, c, "create_branch", with("branch", farewellBranch, "from_branch", "main"), nil); err != nil {
					return err
				}
				// push_files rather than create_or_update_file: updating
				// a file with the latter needs its blob sha first.
				if err := call(ctx, c, "push_files", with("branch", farewellBranch, "message", "Add Goodbye", "files", []any{
					map[string]any{"path": farewellPath, "content": farewellBad},
					map[string]any{"path": farewellTest, "content": farewellTestGo},
				}), nil); err != nil {
					return err
				}
				var pr struct {
					Number int    `json:"number"`
					URL    string `json:"url"`
				}
				if err := call(ctx, c, "create_pull_request", with("title", "Add a farewell", "head", farewellBranch, "base", "main",
					"body", "Adds Goodbye next to Hello."), &pr); err != nil {
					return err
				}
				number := pr.Number
				if number == 0 {
					// gms answers the new pull request's id and URL; the
					// number is the URL's last segment.
					i := strings.LastIndex(pr.URL, "/")
					if _, err := fmt.Sscan(pr.URL[i+1:], &number); err != nil {
						return fmt.Errorf("create_pull_request: no number in %q", pr.URL)
					}
				}
				// The failing job: a check run's id is its job's id.
				var checks struct {
					CheckRuns []struct {
						ID         int64  `json:"id"`
						Name       string `json:"name"`
						Conclusion string `json:"conclusion"`
					} `json:"check_runs"`
				}
				if err := call(ctx, c, "pull_request_read", with("method", "get_check_runs", "pullNumber", number), &checks); err != nil {
					return err
				}
				var job int64
				for _, cr := range checks.CheckRuns {
					if cr.Conclusion == "failure" {
						job = cr.ID
					}
				}
				if job == 0 {
					return fmt.Errorf("pull_request_read get_check_runs: no failed check in %+v", checks.CheckRuns)
				}
				// tail_lines 50 as ghops's excerpt holds at most 50 lines:
				// the agent does not know where the error is.
				res, err := c.Call(ctx, "get_job_logs", with("job_id", job, "return_content", true, "tail_lines", 50))
				if err != nil {
					return err
				}
				if res.IsError || !strings.Contains(res.Text, `want \"Goodbye, world.\"`) && !strings.Contains(res.Text, farewellWant) {
					return fmt.Errorf("get_job_logs does not show why the test failed: %.300s", res.Text)
				}
				var pushed struct {
					Object struct {
						SHA string `json:"sha"`
					} `json:"object"`
				}
				if err := call(ctx, c, "push_files", with("branch", farewellBranch, "message", "Goodbye says goodbye, as its test wants",
					"files", []any{map[string]any{"path": farewellPath, "content": farewellGood}}), &pushed); err != nil {
					return err
				}
				return call(ctx, c, "add_issue_comment", with("issue_number", number, "body", fixComment(pushed.Object.SHA)), nil)
			},
		},
		Verify: func(ctx context.Context, h *fakehub.Hub) error {
			var pulls []struct {
				Number int `json:"number"`
				Head   struct {
					Ref string `json:"ref"`
					SHA string `json:"sha"`
				} `json:"head"`
			}
			if err := Get(ctx, h, "/repos/"+Repo+"/pulls?state=open&head=octo-org:"+farewellBranch, &pulls); err != nil {
				return err
			}
			if len(pulls) != 1 {
				return fmt.Errorf("%d open pull requests from %s, want 1", len(pulls), farewellBranch)
			}
			pr := pulls[0]
			if src, _ := fileAt(ctx, h, farewellPath, pr.Head.SHA); src != farewellGood {
				return fmt.Errorf("%s at the head %s is %q, want the fix", farewellPath, pr.Head.SHA, src)
			}
			var runs struct {
				WorkflowRuns []struct {
					HeadSHA    string `json:"head_sha"`
					Conclusion string `json:"conclusion"`
				} `json:"workflow_runs"`
			}
			if err := Get(ctx, h, "/repos/"+Repo+"/actions/runs?branch="+farewellBranch, &runs); err != nil {
				return err
			}
			passed := false
			for _, r := range runs.WorkflowRuns {
				passed = passed || r.HeadSHA == pr.Head.SHA && r.Conclusion == "success"
			}
			if !passed {
				return fmt.Errorf("no passing CI run on the head %s: %+v", pr.Head.SHA, runs.WorkflowRuns)
			}
			cs, err := issueComments(ctx, h, pr.Number)
			if err != nil {
				return err
			}
			if len(cs) != 1 || cs[0].Body != fixComment(pr.Head.SHA) {
				return fmt.Errorf("the pull request's comments %+v, want one naming the fix %.7s", cs, pr.Head.SHA)
			}
			return nil
		},
	}
}
