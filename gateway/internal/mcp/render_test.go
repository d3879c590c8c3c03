package mcp

import (
	"encoding/json"
	"testing"

	"ghops.dev/gateway/internal/rpcerror"
)

// TestRenderErrorNamesWhatToFix renders -32602 as the model reads it: each
// line names the offending property and what is expected (issue 20).
func TestRenderErrorNamesWhatToFix(t *testing.T) {
	reg := newRegistry(t)
	tests := []struct {
		name, tool, args, want string
	}{
		{"unknown property", "get_commits", `{"repo":"octo-org/hello-world","perPage":5}`,
			"Error -32602: Invalid params\n  - root: must NOT have additional properties (perPage)"},
		{"github-mcp-server style", "get_pr_mergeability", `{"owner":"octo-org","repo":"octo-org/hello-world","pullNumber":5}`,
			"Error -32602: Invalid params\n  - root: must have required property 'prNumber'\n  - root: must NOT have additional properties (owner)\n  - root: must NOT have additional properties (pullNumber)"},
		{"unsafe path in words", "commit_files", `{"repo":"o/r","branch":"main","message":"m","files":[{"path":"docs//x.txt","content":"x"}]}`,
			"Error -32602: Invalid params\n  - /files/0/path: must follow the rule: File path from the repository root: segments separated by single slashes, none empty, \".\", \"..\" or \".git\", no leading or trailing slash, no control character (the safe-path rule of docs/errors.md)."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl, ok := reg.Lookup(tc.tool)
			if !ok {
				t.Fatalf("no tool %s", tc.tool)
			}
			_, vs := tl.Decode(json.RawMessage(tc.args))
			if len(vs) == 0 {
				t.Fatal("no violations")
			}
			if got := RenderError(rpcerror.InvalidParams(tc.tool, vs), reg); got != tc.want {
				t.Errorf("rendered\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
