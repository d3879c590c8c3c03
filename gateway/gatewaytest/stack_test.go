package gatewaytest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"

	"ghops.dev/gateway/internal/httpcall"
)

// rpc posts one JSON-RPC call to the stack's /rpc and returns the status,
// headers and decoded answer.
func rpc(t *testing.T, url, method, params string, hdr ...string) (int, http.Header, map[string]json.RawMessage) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
	resp, b := httpcall.Do(t, http.MethodPost, url+"/rpc", body, append([]string{"Content-Type", "application/json"}, hdr...)...)
	var out map[string]json.RawMessage
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("answer %q: %v", b, err)
	}
	if (out["result"] == nil) == (out["error"] == nil) {
		t.Fatalf("result xor error violated: %s", b)
	}
	return resp.StatusCode, resp.Header, out
}

// code returns the answer's error code (0 for a result).
func code(t *testing.T, out map[string]json.RawMessage) int {
	t.Helper()
	if out["error"] == nil {
		return 0
	}
	var e struct{ Code int }
	if err := json.Unmarshal(out["error"], &e); err != nil {
		t.Fatal(err)
	}
	return e.Code
}

// TestStackEveryTool calls each of the 16 tools through /rpc against the
// real service and the demo data, and provokes the error codes the demo can
// produce, in an order that keeps the shared state meaningful.
func TestStackEveryTool(t *testing.T) {
	st := StartStack(t, StackOptions{HTTPStatusMapping: true})
	const repo = `"repo":"octo-org/hello-world"`
	var headSHA string
	steps := []struct {
		name, tool, params string
		params2            func() string // computed params, when set
		wantCode, wantHTTP int
		check              func(t *testing.T, result json.RawMessage)
	}{
		{name: "search", tool: "search", params: `{"query":"greeter"}`},
		{name: "fetch", tool: "fetch", params: `{` + repo + `}`},
		{name: "list_directory", tool: "list_directory", params: `{` + repo + `,"path":"/"}`},
		{name: "read_file", tool: "read_file", params: `{` + repo + `,"path":"go.mod"}`},
		{name: "get_tree", tool: "get_tree", params: `{` + repo + `,"branch":"main"}`},
		{name: "get_commits", tool: "get_commits", params: `{` + repo + `,"per_page":2}`},
		{name: "get_branches", tool: "get_branches", params: `{` + repo + `}`},
		{name: "list_pull_requests", tool: "list_pull_requests", params: `{` + repo + `,"state":"open"}`},
		{name: "get_pr_mergeability", tool: "get_pr_mergeability", params: `{` + repo + `,"prNumber":1}`,
			check: func(t *testing.T, r json.RawMessage) {
				var m struct {
					HeadSHA string `json:"head_sha"`
				}
				if err := json.Unmarshal(r, &m); err != nil || len(m.HeadSHA) != 40 {
					t.Fatalf("head_sha missing: %s", r)
				}
				headSHA = m.HeadSHA
			}},
		{name: "get_checks_for_sha", tool: "get_checks_for_sha", params2: func() string { return `{` + repo + `,"sha":"` + headSHA + `"}` }},
		{name: "invalid params -32602", tool: "search", params: `{}`, wantCode: -32602, wantHTTP: 400},
		{name: "unknown tool -32601", tool: "no_such_tool", params: `{}`, wantCode: -32601, wantHTTP: 404},
		{name: "method not found -32601", tool: "tools/list", params: `{}`, wantCode: -32601, wantHTTP: 404},
		{name: "not found -32002", tool: "fetch", params: `{"repo":"octo-org/nope"}`, wantCode: -32002, wantHTTP: 404},
		{name: "github validation -32003", tool: "create_pull_request", params: `{` + repo + `,"title":"t","head":"main","base":"main"}`, wantCode: -32003, wantHTTP: 422},
		{name: "not mergeable -32005", tool: "merge_pull_request", params: `{` + repo + `,"prNumber":2}`, wantCode: -32005, wantHTTP: 409},
		{name: "head sha mismatch -32006", tool: "merge_pull_request", params: `{` + repo + `,"prNumber":1,"sha":"0000000"}`, wantCode: -32006, wantHTTP: 409},
		{name: "create_pull_request", tool: "create_pull_request", params: `{` + repo + `,"title":"Casual on clean","head":"feature/conflict","base":"feature/clean","draft":true}`},
		{name: "update_pull_request", tool: "update_pull_request", params: `{` + repo + `,"prNumber":3,"title":"Renamed","draft":false}`},
		{name: "commit_files", tool: "commit_files", params: `{` + repo + `,"branch":"feature/clean","message":"Add notes","files":[{"path":"NOTES.md","content":"notes\n"}]}`},
		{name: "apply_patch", tool: "apply_patch", params: `{` + repo + `,"branch":"feature/clean","message":"Add a file by patch","patch":"diff --git a/PATCHED.md b/PATCHED.md\nnew file mode 100644\n--- /dev/null\n+++ b/PATCHED.md\n@@ -0,0 +1 @@\n+patched\n"}`},
		{name: "patch does not apply -32003", tool: "apply_patch", params: `{` + repo + `,"branch":"feature/clean","message":"again","patch":"diff --git a/PATCHED.md b/PATCHED.md\nnew file mode 100644\n--- /dev/null\n+++ b/PATCHED.md\n@@ -0,0 +1 @@\n+patched\n"}`, wantCode: -32003, wantHTTP: 422},
		{name: "validate_environment", tool: "validate_environment", params: `{` + repo + `}`},
		{name: "merge_pull_request", tool: "merge_pull_request", params: `{` + repo + `,"prNumber":1,"merge_method":"squash"}`},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			params := s.params
			if s.params2 != nil {
				params = s.params2()
			}
			status, _, out := rpc(t, st.URL, s.tool, params)
			if got := code(t, out); got != s.wantCode {
				t.Fatalf("code %d want %d: %s", got, s.wantCode, out["error"])
			}
			wantHTTP := s.wantHTTP
			if wantHTTP == 0 {
				wantHTTP = 200
			}
			if status != wantHTTP {
				t.Errorf("HTTP %d want %d", status, wantHTTP)
			}
			if s.check != nil {
				s.check(t, out["result"])
			}
		})
	}
	if strings.Contains(st.Gateway.Logs(), fakehub.DemoToken) {
		t.Error("the service token reached the gateway logs")
	}
}

// callerToken is a GitHub-shaped token fakehub knows (the gateway sends
// only GitHub-shaped bearers to GitHub's /user).
const callerToken = "ghu_carol0123456789abcdef0123456789ab"

// TestStackFaults provokes the codes that need GitHub to misbehave.
func TestStackFaults(t *testing.T) {
	tests := []struct {
		name      string
		opts      StackOptions
		hdr       []string
		params    string
		wantCode  int
		wantRetry bool
	}{
		{name: "bad caller token -32001", opts: StackOptions{GitHubOAuth: true}, hdr: []string{"Authorization", "Bearer not-a-valid-token"},
			params: `{"repo":"octo-org/hello-world"}`, wantCode: -32001},
		{name: "caller token forwarded", opts: StackOptions{GitHubOAuth: true, Hub: &fakehub.Config{Seed: "demo", Tokens: []fakehub.Token{
			{Value: callerToken, Login: "carol", Repos: map[string]fakehub.Permission{"octo-org/hello-world": fakehub.PermRead}}}}},
			hdr: []string{"Authorization", "Bearer " + callerToken}, params: `{"repo":"octo-org/hello-world"}`},
		{name: "rate limited -32004", opts: StackOptions{Hub: &fakehub.Config{Seed: "demo", Faults: []fakehub.Fault{{RateLimit: "primary"}}}},
			params: `{"repo":"octo-org/hello-world"}`, wantCode: -32004, wantRetry: true},
		{name: "upstream 500 -32603", opts: StackOptions{Hub: &fakehub.Config{Seed: "demo", Faults: []fakehub.Fault{{ErrorRate: 1, ErrorStatus: 500}}}},
			params: `{"repo":"octo-org/hello-world"}`, wantCode: -32603},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := StartStack(t, tc.opts)
			_, hdr, out := rpc(t, st.URL, "fetch", tc.params, tc.hdr...)
			if tc.wantCode == 0 {
				if out["result"] == nil {
					t.Fatalf("no result: %s", out["error"])
				}
				return
			}
			if got := code(t, out); got != tc.wantCode {
				t.Fatalf("code %d want %d: %s", got, tc.wantCode, out["error"])
			}
			if tc.wantRetry && hdr.Get("Retry-After") == "" {
				t.Error("no Retry-After header")
			}
			if strings.Contains(string(out["error"]), "not-a-valid-token") || strings.Contains(st.Gateway.Logs(), "not-a-valid-token") {
				t.Error("caller token leaked")
			}
		})
	}
}
