package seed

import (
	"ghops.dev/services/fakehub/internal/hub"
)

// The demo's pull request with failing CI (issue 22): feature/greet-test
// adds a test that expects the old greeting, so its "test" job fails with
// a log as `go test` and GitHub's runner write it.

// demoTestLog is the failing job's log, without GitHub's timestamps.
const demoTestLog = `##[group]Run actions/checkout@v4
with:
  repository: octo-org/hello-world
  fetch-depth: 1
##[endgroup]
Syncing repository: octo-org/hello-world
Getting Git version info
Temporarily overriding HOME='/home/runner/work/_temp' before making global git config changes
/usr/bin/git init /home/runner/work/hello-world/hello-world
Initialized empty Git repository in /home/runner/work/hello-world/hello-world/.git/
/usr/bin/git -c protocol.version=2 fetch --no-tags --prune --no-recurse-submodules --depth=1 origin +refs/pull/3/merge
From https://github.com/octo-org/hello-world
 * [new ref]         refs/pull/3/merge -> refs/remotes/pull/3/merge
##[group]Run actions/setup-go@v5
with:
  go-version-file: go.mod
  cache: true
##[endgroup]
Setup go version spec 1.22
Found in cache @ /opt/hostedtoolcache/go/1.22.5/x64
Added go to the path
Successfully set up Go version 1.22
go version go1.22.5 linux/amd64
##[group]Run go test ./...
go test ./...
shell: /usr/bin/bash -e {0}
##[endgroup]
go: downloading example.com/hello-world v0.0.0
?   	example.com/hello-world/cmd/hello	[no test files]
--- FAIL: TestHello (0.00s)
    --- FAIL: TestHello/world (0.00s)
        greet_test.go:14: Hello("world") = "Good day, world.", want "Hello, world!"
    --- FAIL: TestHello/empty_name (0.00s)
        greet_test.go:14: Hello("") = "Good day, .", want "Hello, !"
FAIL
FAIL	example.com/hello-world/internal/greet	0.004s
FAIL
##[error]Process completed with exit code 1.
Post job cleanup.
/usr/bin/git version
git version 2.45.2
Cleaning up orphan processes
`

// demoBuildLog is the passing job's log.
const demoBuildLog = `##[group]Run go build ./...
go build ./...
shell: /usr/bin/bash -e {0}
##[endgroup]
Post job cleanup.
Cleaning up orphan processes
`

// seedDemoCI adds the branch, the pull request and its workflow run.
func (h *api) seedDemoCI(r *hub.Repo) error {
	test := "package greet\n\nimport \"testing\"\n\nfunc TestHello(t *testing.T) {\n\tfor _, tc := range []struct{ name, in, want string }{\n" +
		"\t\t{\"world\", \"world\", \"Hello, world!\"},\n\t\t{\"empty name\", \"\", \"Hello, !\"},\n\t} {\n\t\tt.Run(tc.name, func(t *testing.T) {\n" +
		"\t\t\tif got := Hello(tc.in); got != tc.want {\n\t\t\t\tt.Errorf(\"Hello(%q) = %q, want %q\", tc.in, got, tc.want)\n\t\t\t}\n\t\t})\n\t}\n}\n"
	head, err := r.CommitFiles("feature/greet-test", "Test the greeting", map[string]string{"internal/greet/greet_test.go": test}, h.Stamp())
	if err != nil {
		return err
	}
	steps := func(run string) []string {
		return []string{"Set up job", "Run actions/checkout@v4", "Run actions/setup-go@v5", run, "Post Run actions/checkout@v4", "Complete job"}
	}
	h.AddRunLocked(r, "feature/greet-test", head.String(), "CI", []hub.JobSpec{
		{Name: "build", Conclusion: "success", Steps: steps("Run go build ./..."), Log: demoBuildLog},
		{Name: "test", Conclusion: "failure", Steps: steps("Run go test ./..."), FailedStep: 4, Log: demoTestLog},
	})
	p, verr := h.OpenPullLocked(r, "feature/greet-test", "main", "Test the greeting", "Adds a table test for Hello.", false, "octocat")
	if verr != nil {
		return verr.AsError()
	}
	r.Mergeability(p, true)
	return nil
}

// seedDemoWorkflows adds the demo's second workflow and runs in every state an agent meets: CI
// (which can be dispatched) passed and is running again on main's first commit, beside the failed
// run of feature/greet-test; Release (no workflow_dispatch trigger, so dispatching it is GitHub's
// 422) has a cancelled run and a queued one. The runs are of main's first commit, not its head, so
// that main's head keeps no check runs.
func (h *api) seedDemoWorkflows(r *hub.Repo) error {
	head, ok := r.Resolve("main")
	if !ok {
		return hub.ErrRefNotFound
	}
	cm, err := r.Git.Commit(head)
	if err != nil {
		return err
	}
	first := cm.ParentHashes[0].String()
	ci := h.WorkflowLocked(r, "CI", true)
	release := h.WorkflowLocked(r, "Release", true)
	release.Dispatch = false
	steps := []string{"Set up job", "Run actions/checkout@v4", "Run go build ./...", "Complete job"}
	done := []hub.JobSpec{{Name: "build", Conclusion: "success", Steps: steps, Log: demoBuildLog}}
	on := func(status, conclusion string) hub.RunSpec {
		return hub.RunSpec{Branch: "main", SHA: first, Event: "push", Status: status, Conclusion: conclusion}
	}
	h.AddRunOfLocked(r, ci, on("completed", ""), done)
	h.AddRunOfLocked(r, ci, on("in_progress", ""), []hub.JobSpec{{Name: "build", Steps: steps}})
	h.AddRunOfLocked(r, release, on("completed", "cancelled"), []hub.JobSpec{{Name: "publish", Conclusion: "cancelled", Steps: []string{"Set up job", "Publish"}, FailedStep: 2}})
	h.AddRunOfLocked(r, release, on("queued", ""), []hub.JobSpec{{Name: "publish", Steps: []string{"Set up job", "Publish"}}})
	return nil
}
