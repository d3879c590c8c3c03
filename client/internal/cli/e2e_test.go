package cli

import (
	"bytes"
	"context"
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
			var stdout, stderr bytes.Buffer
			env := map[string]string{"GHOPS_ENDPOINT": st.URL}
			code := Run(context.Background(), tc.args, &stdout, &stderr, func(k string) string { return env[k] })
			if code != tc.wantExit {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantExit, stdout.String(), stderr.String())
			}
			out := stdout.String() + stderr.String()
			for _, w := range tc.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
