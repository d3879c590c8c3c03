package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"ghops.dev/client"
)

var update = flag.Bool("update", false, "rewrite golden files")

const secret = "tok-very-SECRET-42"

// echoed is a token-shaped value a gateway might echo back.
const echoed = "ghp_echoedechoedechoed0123456789"

// gateway is a loopback stand-in for /rpc: it answers the body given for
// the called tool (ID replaced by the request id) and records the requests.
type gateway struct {
	mu      sync.Mutex
	answers map[string]string
	status  map[string]int
	bodies  []string
	auth    []string
}

func (g *gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	g.mu.Lock()
	g.bodies = append(g.bodies, string(b))
	g.auth = append(g.auth, r.Header.Get("Authorization"))
	g.mu.Unlock()
	var id, method string
	// The tests send one request at a time with simple ids and methods.
	if i := strings.Index(string(b), `"id":`); i >= 0 {
		id = strings.SplitN(string(b)[i+5:], ",", 2)[0]
	}
	if i := strings.Index(string(b), `"method":"`); i >= 0 {
		method = strings.SplitN(string(b)[i+10:], `"`, 2)[0]
	}
	if r.URL.Path == "/mcp" {
		method = "mcp"
	}
	ans, ok := g.answers[method]
	if !ok {
		ans = `{"jsonrpc":"2.0","id":ID,"result":{"ok":true}}`
	}
	if s := g.status[method]; s != 0 {
		w.WriteHeader(s)
	}
	_, _ = io.WriteString(w, strings.ReplaceAll(ans, "ID", id))
}

func rpcErr(code int, msg, data string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":ID,"error":{"code":%d,"message":%q,"data":%s}}`, code, msg, data)
}

// TestRun runs the command end to end against a loopback gateway and
// compares the exit code, stdout, stderr and the request sent with golden
// files.
func TestRun(t *testing.T) {
	g := &gateway{
		answers: map[string]string{
			"fetch":               `{"jsonrpc":"2.0","id":ID,"result":{"full_name":"octo-org/hello-world","default_branch":"main","topics":["demo"]}}`,
			"search":              rpcErr(-32602, "Validation errors: must have required property 'query'", `{"tool":"search","validation_errors":[{"message":"must have required property 'query'","path":"root","keyword":"required","params":{"missingProperty":"query"},"value":{}}],"timestamp":"2025-10-12T15:49:21.049Z"}`),
			"read_file":           rpcErr(-32002, "Not Found", `{"tool":"read_file","github":{"status":404,"message":"Not Found","documentation_url":"https://docs.github.com/rest"},"resource":{"type":"file","id":"octo-org/hello-world:nope.md"},"timestamp":"t"}`),
			"commit_files":        rpcErr(-32001, "Permission denied", `{"tool":"commit_files","github":{"status":403,"message":"Resource not accessible by personal access token"},"timestamp":"t"}`),
			"get_tree":            rpcErr(-32004, "API rate limit exceeded", `{"tool":"get_tree","retryAfter":42,"rateLimit":{"limit":5000,"remaining":0,"reset":1795000000,"retryAfter":42},"timestamp":"t"}`),
			"merge_pull_request":  rpcErr(-32005, "Pull Request is not mergeable", `{"tool":"merge_pull_request","mergeable_state":"dirty","timestamp":"t"}`),
			"update_pull_request": rpcErr(-32006, "Head branch was modified", `{"tool":"update_pull_request","expected_sha":"abc1234","actual_sha":"def5678","timestamp":"t"}`),
			"create_pull_request": rpcErr(-32003, "Validation Failed", `{"tool":"create_pull_request","github":{"status":422,"message":"A pull request already exists for octo-org:feature/clean."},"timestamp":"t"}`),
			"get_commits":         rpcErr(-32603, "Internal error", `{"tool":"get_commits","requestId":"req-7","timestamp":"t"}`),
			"get_branches":        `<html><body>502 Bad Gateway ` + secret + `</body></html>`,
			"list_pull_requests":  `{"jsonrpc":"2.0","id":999,"result":{}}`,
			// A gateway (or a proxy) echoing token shapes in every field the
			// command prints: they must be redacted in text and JSON output.
			"list_directory": rpcErr(-32602, "Validation errors: bad "+echoed, `{"tool":"list_directory","validation_errors":[{"message":"must match pattern","path":"/`+echoed+`","keyword":"pattern","params":{},"value":"`+echoed+`"}],"github":{"status":401,"message":"Bad credentials x_`+echoed+`","documentation_url":"https://u:p@docs.github.com/x?access_token=abc"},"resource":{"type":"repository","id":"o/`+echoed+`"},"requestId":"Bearer abcdefghijkl","timestamp":"t"}`),
		},
		status: map[string]int{"get_branches": http.StatusBadGateway},
	}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	_ = ln.Close()

	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		wantExit int
	}{
		{"tools", []string{"tools"}, nil, ExitOK},
		{"tools_json", []string{"tools", "--json"}, nil, ExitOK},
		{"call_readable", []string{"call", "fetch", "repo=octo-org/hello-world"}, nil, ExitOK},
		{"call_json_output", []string{"--json", "call", "fetch", "repo=octo-org/hello-world"}, nil, ExitOK},
		{"call_json_input", []string{"call", "fetch", "--json", `{"repo":"octo-org/hello-world"}`}, nil, ExitOK},
		{"call_json_input_and_output", []string{"call", "fetch", `--json={"repo":"octo-org/hello-world"}`, "--json"}, nil, ExitOK},
		{"call_typed_values", []string{"call", "get_checks_for_sha", "repo=octo-org/hello-world", "sha=1234567"}, nil, ExitOK},
		{"call_typed_values_pr", []string{"call", "get_pr_mergeability", "repo=octo-org/hello-world", "prNumber=2"}, nil, ExitOK},
		{"call_args_merge", []string{"call", "get_pr_mergeability", "--args", `{"repo":"a/b","prNumber":1}`, "prNumber=3", `extra=[1,"x"]`, "flag=true", `title="quoted"`}, nil, ExitOK},
		{"call_token_from_env", []string{"call", "fetch", "repo=a/b"}, map[string]string{"GHOPS_TOKEN": secret}, ExitOK},
		{"err_invalid_params", []string{"call", "search"}, nil, ExitInvalidParams},
		{"err_invalid_params_json", []string{"call", "search", "--json"}, nil, ExitInvalidParams},
		{"err_not_found", []string{"call", "read_file", "repo=octo-org/hello-world", "path=nope.md"}, nil, ExitNotFound},
		{"err_permission", []string{"call", "commit_files", "repo=a/b", "--token", secret}, nil, ExitPermission},
		{"err_rate_limited", []string{"call", "get_tree", "repo=a/b"}, nil, ExitRateLimited},
		{"err_not_mergeable", []string{"call", "merge_pull_request", "repo=a/b", "prNumber=2"}, nil, ExitConflict},
		{"err_sha_mismatch", []string{"call", "update_pull_request", "repo=a/b", "prNumber=1"}, nil, ExitConflict},
		{"err_github_validation", []string{"call", "create_pull_request", "repo=a/b"}, nil, ExitConflict},
		{"err_internal", []string{"call", "get_commits", "repo=a/b"}, nil, ExitFailure},
		{"err_html_proxy", []string{"call", "get_branches", "repo=a/b"}, map[string]string{"GHOPS_TOKEN": secret}, ExitFailure},
		{"err_echoed_token", []string{"call", "list_directory", "repo=a/b"}, nil, ExitInvalidParams},
		{"err_echoed_token_json", []string{"--json", "call", "list_directory", "repo=a/b"}, nil, ExitInvalidParams},
		{"err_wrong_id", []string{"call", "list_pull_requests", "repo=a/b"}, nil, ExitFailure},
		{"err_connection_refused", []string{"call", "fetch", "repo=a/b", "--endpoint", refused}, nil, ExitFailure},
		{"usage_no_command", nil, nil, ExitUsage},
		{"usage_unknown_command", []string{"frobnicate"}, nil, ExitUsage},
		{"usage_unknown_tool", []string{"call", "nope"}, nil, ExitUsage},
		{"usage_no_tool", []string{"call"}, nil, ExitUsage},
		{"usage_bad_pair", []string{"call", "fetch", "repo"}, nil, ExitUsage},
		{"usage_duplicate_key", []string{"call", "fetch", "repo=a/b", "repo=c/d"}, nil, ExitUsage},
		{"usage_bad_args_json", []string{"call", "fetch", "--args", "[1]"}, nil, ExitUsage},
		{"usage_unknown_flag", []string{"call", "fetch", "--bogus"}, nil, ExitUsage},
		{"usage_bad_transport", []string{"call", "fetch", "--transport", "smoke"}, nil, ExitUsage},
		{"usage_bad_endpoint", []string{"call", "fetch", "--endpoint", "ftp://x"}, nil, ExitUsage},
		{"help", []string{"-h"}, nil, ExitOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"GHOPS_ENDPOINT": srv.URL}
			for k, v := range tc.env {
				env[k] = v
			}
			g.mu.Lock()
			before := len(g.bodies)
			g.mu.Unlock()
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), tc.args, nil, &stdout, &stderr, func(k string) string { return env[k] })
			if code != tc.wantExit {
				t.Errorf("exit = %d, want %d; stderr:\n%s", code, tc.wantExit, stderr.String())
			}
			g.mu.Lock()
			var sent, auth string
			if len(g.bodies) > before {
				sent, auth = g.bodies[before], g.auth[before]
			}
			g.mu.Unlock()
			for _, out := range []string{stdout.String(), stderr.String()} {
				for _, leak := range []string{secret, echoed, "abcdefghijkl", "access_token=abc"} {
					if strings.Contains(out, leak) {
						t.Errorf("output contains %q:\n%s", leak, out)
					}
				}
			}
			if tc.env["GHOPS_TOKEN"] != "" && auth != "Bearer "+secret {
				t.Errorf("Authorization = %q, want the bearer token", auth)
			}
			got := fmt.Sprintf("$ ghops %s\nexit %d\n--- request\n%s\n--- stdout\n%s--- stderr\n%s",
				strings.Join(tc.args, " "), code, sent, stdout.String(), stderr.String())
			got = strings.ReplaceAll(got, srv.URL, "http://GATEWAY")
			got = strings.ReplaceAll(got, strings.TrimPrefix(refused, "http://"), "REFUSED")
			checkGolden(t, tc.name+".golden", got)
		})
	}
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// TestExitCode checks the documented exit code of each error family.
func TestExitCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, ExitOK},
		{"-32602", client.NewError(-32602, "v", nil, 0), ExitInvalidParams},
		{"-32002", client.NewError(-32002, "nf", nil, 0), ExitNotFound},
		{"-32001", client.NewError(-32001, "pd", nil, 0), ExitPermission},
		{"-32004", client.NewError(-32004, "rl", nil, 0), ExitRateLimited},
		{"-32005", client.NewError(-32005, "nm", nil, 0), ExitConflict},
		{"-32006", client.NewError(-32006, "sha", nil, 0), ExitConflict},
		{"-32003", client.NewError(-32003, "422", nil, 0), ExitConflict},
		{"-32601", client.NewError(-32601, "mnf", nil, 0), ExitUsage},
		{"-32603", client.NewError(-32603, "ie", nil, 0), ExitFailure},
		{"unknown code", client.NewError(-32099, "?", nil, 0), ExitFailure},
		{"transport", &client.TransportError{Kind: client.ErrConnection}, ExitFailure},
		{"protocol", &client.ProtocolError{Kind: client.ErrIDMismatch}, ExitFailure},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ExitCode(tc.err); got != tc.want {
				t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
			}
		})
	}
}
