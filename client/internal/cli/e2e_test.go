package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ghops.dev/gateway/gatewaytest"
)

// TestRunAgainstStack runs the command against the real stack (the
// equivalent of `make run`), over both transports, with the service split
// off and embedded in the gateway.
func TestRunAgainstStack(t *testing.T) {
	for _, shape := range gatewaytest.Shapes {
		t.Run(shape.Name, func(t *testing.T) {
			runAgainstStack(t, gatewaytest.StartStack(t, gatewaytest.StackOptions{Embedded: shape.Embedded}))
		})
	}
}

// runAgainstStack runs the table against the stack st.
func runAgainstStack(t *testing.T, st *gatewaytest.Stack) {
	tests := []struct {
		name     string
		args     []string
		wantExit int
		wantOut  []string
	}{
		{"tools", []string{"tools"}, ExitOK, []string{"read_file", "read-only", "merge_pull_request"}},
		{"remote tools", []string{"tools", "--remote"}, ExitOK, []string{"get_pr_mergeability", "read-only", "write, destructive"}},
		{"read_file over rpc", []string{"call", "read_file", "repo=octo-org/hello-world", "path=docs/guide.md"}, ExitOK, []string{`"path": "docs/guide.md"`, "# Guide"}},
		{"read_file over mcp", []string{"--transport", "mcp", "call", "read_file", "repo=octo-org/hello-world", "path=docs/guide.md"}, ExitOK, []string{`"encoding": "utf8"`}},
		{"json output", []string{"call", "get_pr_mergeability", "repo=octo-org/hello-world", "prNumber=1", "--json"}, ExitOK, []string{`"mergeable_state":"clean"`}},
		{"invalid params", []string{"call", "search"}, ExitInvalidParams, []string{"error -32602 invalid params", "  - root: must have required property 'query'"}},
		{"not found", []string{"call", "fetch", "repo=octo-org/nope"}, ExitNotFound, []string{"error -32002 not found"}},
		{"not mergeable", []string{"call", "merge_pull_request", "repo=octo-org/hello-world", "prNumber=2"}, ExitConflict, []string{"mergeable_state: dirty"}},
		{"sha mismatch over mcp", []string{"call", "merge_pull_request", "repo=octo-org/hello-world", "prNumber=1", "sha=0000000", "--transport=mcp"}, ExitConflict, []string{"error -32006"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runExpect(t, st.URL, tc.args, "", tc.wantExit, tc.wantOut)
		})
	}
}

// runExpect runs the command against the gateway at url with stdin and
// checks its exit code and that its output holds each of wantOut.
func runExpect(t *testing.T, url string, args []string, stdin string, wantExit int, wantOut []string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := map[string]string{"GHOPS_ENDPOINT": url}
	code := Run(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr, func(k string) string { return env[k] })
	if code != wantExit {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, wantExit, stdout.String(), stderr.String())
	}
	out := stdout.String() + stderr.String()
	for _, w := range wantOut {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

// TestRunPatchAndDiagnosis: apply_patch's patch=@FILE and patch=@- read the
// diff from a file and from standard input; validate_environment prints one
// line per check.
func TestRunPatchAndDiagnosis(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{})
	diff := func(name string) string {
		return "diff --git a/" + name + " b/" + name + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + name + "\n@@ -0,0 +1 @@\n+patched\n"
	}
	file := filepath.Join(t.TempDir(), "change.diff")
	if err := os.WriteFile(file, []byte(diff("FROM_FILE.md")), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		stdin    string
		wantExit int
		wantOut  []string
	}{
		{"patch from a file", []string{"call", "apply_patch", "repo=octo-org/hello-world", "branch=main", "message=m", "patch=@" + file}, "", ExitOK, []string{`"change": "added"`, "FROM_FILE.md"}},
		{"patch from stdin", []string{"call", "apply_patch", "repo=octo-org/hello-world", "branch=main", "message=m", "patch=@-"}, diff("FROM_STDIN.md"), ExitOK, []string{"FROM_STDIN.md"}},
		{"patch that does not apply", []string{"call", "apply_patch", "repo=octo-org/hello-world", "branch=main", "message=m", "patch=@-"}, diff("FROM_STDIN.md"), ExitConflict, []string{"error -32003", "patch: PATCH_DOES_NOT_APPLY FROM_STDIN.md"}},
		{"missing patch file", []string{"call", "apply_patch", "repo=octo-org/hello-world", "branch=main", "message=m", "patch=@/nonexistent/x.diff"}, "", ExitUsage, []string{"patch=@/nonexistent/x.diff"}},
		{"diagnosis", []string{"call", "validate_environment", "repo=octo-org/hello-world"}, "", ExitOK, []string{"overall: warning", "github.reachable", "github.token", "gateway.config"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runExpect(t, st.URL, tc.args, tc.stdin, tc.wantExit, tc.wantOut)
		})
	}
}
