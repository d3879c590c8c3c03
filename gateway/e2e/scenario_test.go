package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"ghops.dev/services/fakehub"

	"ghops.dev/gateway/gatewaytest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const repo = "octo-org/hello-world"

// step is one tools/call of the scenario.
type step struct {
	name string
	tool string
	args func() map[string]any
	code int                           // expected error code (0: success)
	hub  func(h *fakehub.Hub)          // fault setup before the call
	chk  func(t *testing.T, o outcome) // extra checks
}

// obj is a literal-args helper.
func obj(kv ...any) func() map[string]any {
	return func() map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
}

// scenario calls every tool and provokes every error code, in an order that
// keeps the demo data meaningful (errors before the writes that change it).
func scenario(headSHA *string) []step {
	return []step{
		{name: "search", tool: "search", args: obj("query", "greeter")},
		{name: "fetch", tool: "fetch", args: obj("repo", repo)},
		{name: "list_directory", tool: "list_directory", args: obj("repo", repo, "path", "/")},
		{name: "read_file", tool: "read_file", args: obj("repo", repo, "path", "go.mod"), chk: func(t *testing.T, o outcome) {
			if !strings.Contains(o.text, "example.com/hello-world") {
				t.Errorf("read_file text %q", o.text)
			}
		}},
		{name: "get_tree", tool: "get_tree", args: obj("repo", repo, "branch", "main")},
		{name: "get_commits", tool: "get_commits", args: obj("repo", repo, "per_page", 2)},
		{name: "get_branches", tool: "get_branches", args: obj("repo", repo)},
		{name: "list_pull_requests", tool: "list_pull_requests", args: obj("repo", repo, "state", "open")},
		{name: "get_pr_mergeability", tool: "get_pr_mergeability", args: obj("repo", repo, "prNumber", 1), chk: func(t *testing.T, o outcome) {
			var m struct {
				HeadSHA string `json:"head_sha"`
			}
			if err := json.Unmarshal([]byte(o.text), &m); err != nil || len(m.HeadSHA) != 40 {
				t.Fatalf("no head_sha in %q", o.text)
			}
			*headSHA = m.HeadSHA
		}},
		{name: "get_checks_for_sha", tool: "get_checks_for_sha", args: func() map[string]any { return map[string]any{"repo": repo, "sha": *headSHA} }},
		{name: "-32602 validation", tool: "search", args: obj(), code: -32602},
		{name: "-32602 unknown tool", tool: "no_such_tool", args: obj(), code: -32602},
		{name: "-32001 permission denied", tool: "create_pull_request", args: obj("repo", "octo-org/empty", "title", "t", "head", "a", "base", "b"), code: -32001},
		{name: "-32002 not found", tool: "fetch", args: obj("repo", "octo-org/nope"), code: -32002},
		{name: "-32003 github validation", tool: "create_pull_request", args: obj("repo", repo, "title", "t", "head", "main", "base", "main"), code: -32003},
		{name: "-32005 not mergeable", tool: "merge_pull_request", args: obj("repo", repo, "prNumber", 2), code: -32005},
		{name: "-32006 head sha mismatch", tool: "merge_pull_request", args: obj("repo", repo, "prNumber", 1, "sha", "0000000"), code: -32006},
		{name: "create_pull_request", tool: "create_pull_request", args: obj("repo", repo, "title", "Casual on clean", "head", "feature/conflict", "base", "feature/clean", "draft", true)},
		{name: "update_pull_request", tool: "update_pull_request", args: obj("repo", repo, "prNumber", 3, "title", "Renamed", "draft", false)},
		{name: "commit_files", tool: "commit_files", args: func() map[string]any {
			return map[string]any{"repo": repo, "branch": "feature/clean", "message": "Add notes", "files": []any{map[string]any{"path": "NOTES.md", "content": "notes\n"}}}
		}},
		{name: "apply_patch", tool: "apply_patch", args: obj("repo", repo, "branch", "feature/clean", "message", "Add a file by patch", "patch", "diff --git a/PATCHED.md b/PATCHED.md\nnew file mode 100644\n--- /dev/null\n+++ b/PATCHED.md\n@@ -0,0 +1 @@\n+patched\n")},
		{name: "-32003 patch does not apply", tool: "apply_patch", args: obj("repo", repo, "branch", "feature/clean", "message", "again", "patch", "diff --git a/PATCHED.md b/PATCHED.md\nnew file mode 100644\n--- /dev/null\n+++ b/PATCHED.md\n@@ -0,0 +1 @@\n+patched\n"), code: -32003},
		{name: "validate_environment", tool: "validate_environment", args: obj("repo", repo)},
		{name: "merge_pull_request", tool: "merge_pull_request", args: obj("repo", repo, "prNumber", 1, "merge_method", "squash")},
		{name: "-32603 upstream 500", tool: "fetch", args: obj("repo", repo), code: -32603,
			hub: func(h *fakehub.Hub) { h.SetFaults([]fakehub.Fault{{ErrorRate: 1, ErrorStatus: 500}}) }},
		{name: "-32004 rate limited", tool: "fetch", args: obj("repo", repo), code: -32004,
			hub: func(h *fakehub.Hub) { h.SetFaults([]fakehub.Fault{{RateLimit: "primary"}}) },
			chk: func(t *testing.T, o outcome) {
				if o.retryAfter == "" {
					t.Error("no Retry-After header on -32004")
				}
			}},
	}
}

// TestSDKs runs the scenario with both Go SDK clients, at every protocol
// version each speaks that matters here (2026-07-28 is their default), in
// the three tool-error modes, against both deployment shapes (split and
// embedded). Every SDK client names its version (by
// _meta, the MCP-Protocol-Version header or its session), so in "auto" mode
// every tool failure must arrive as an isError result carrying the contract
// error in _meta, as in "result" mode; in "jsonrpc" mode as a JSON-RPC error.
// An unknown tool is a JSON-RPC error in every mode. After every failure the
// scenario goes on with the same session, which must stay usable.
func TestSDKs(t *testing.T) {
	clients := []struct {
		name      string
		newClient func(t *testing.T, url, pin string) client
		pins      []string
	}{
		{"go-sdk", newSDKClient, []string{"", "2025-11-25", "2025-06-18", "2025-03-26"}},
		{"mcp-go", newMCPGoClient, []string{"", "2025-06-18", "2024-11-05"}},
	}
	for _, shape := range gatewaytest.Shapes {
		t.Run(shape.Name, func(t *testing.T) {
			for _, cl := range clients {
				for _, pin := range cl.pins {
					for _, mode := range []string{"auto", "jsonrpc", "result"} {
						want := pin
						if want == "" {
							want = "2026-07-28"
						}
						t.Run(cl.name+" "+want+" "+mode, func(t *testing.T) {
							opts := gatewaytest.StackOptions{MCPToolErrors: mode, CallTimeout: 20 * time.Second, Embedded: shape.Embedded}
							runScenario(t, opts, cl.newClient, pin, want, mode)
						})
					}
				}
			}
		})
	}
}

// runScenario runs the whole scenario with one client against a new stack.
func runScenario(t *testing.T, opts gatewaytest.StackOptions, newClient func(t *testing.T, url, pin string) client, pin, wantVersion, mode string) {
	st := gatewaytest.StartStack(t, opts)
	c := newClient(t, st.URL+"/mcp", pin)
	if got := c.protocolVersion(); got != wantVersion {
		t.Fatalf("negotiated %q, want %q", got, wantVersion)
	}
	defer func() {
		if wantVersion >= "2025-06-18" && !c.sentVersion(wantVersion) {
			t.Errorf("no request carried MCP-Protocol-Version %s", wantVersion)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	names, err := c.tools(ctx)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if got, want := slices.Sorted(slices.Values(names)), gatewaytest.DeclaredTools(false); !slices.Equal(got, want) {
		t.Fatalf("tools %v, want the tools proto declares %v", got, want)
	}
	seen := map[string]bool{}
	var head string
	for _, s := range scenario(&head) {
		if s.hub != nil {
			s.hub(st.Hub)
		}
		o, err := c.call(ctx, s.tool, s.args())
		if s.hub != nil {
			st.Hub.SetFaults(nil)
		}
		if err != nil {
			t.Fatalf("%s: transport error: %v", s.name, err)
		}
		if o.code != s.code {
			t.Fatalf("%s: code %d, want %d (text %q)", s.name, o.code, s.code, o.text)
		}
		if s.code == 0 && !json.Valid([]byte(o.text)) {
			t.Fatalf("%s: text content is not the JSON result: %q", s.name, o.text)
		}
		if s.code != 0 {
			checkFailure(t, s, o, mode)
		}
		if s.chk != nil {
			s.chk(t, o)
		}
		seen[s.tool] = true
	}
	if len(seen) != 17 { // 16 tools + the unknown one
		t.Errorf("called %d tools", len(seen))
	}
	logs := st.Gateway.Logs()
	if strings.Contains(logs, fakehub.DemoToken) {
		t.Error("the service token reached the gateway logs")
	}
	for _, code := range []string{"-32602", "-32001", "-32002", "-32003", "-32004", "-32005", "-32006", "-32603"} {
		if !strings.Contains(logs, "jsonrpc_error tool=") || !strings.Contains(logs, " code="+code+" ") {
			t.Errorf("no jsonrpc_error line with code=%s", code)
		}
	}
}

// checkFailure checks how a failed call was answered: the form the mode
// asks for, and for isError results the text rendering, the contract error
// in _meta and no structuredContent.
func checkFailure(t *testing.T, s step, o outcome, mode string) {
	t.Helper()
	wantResult := mode != "jsonrpc" && s.tool != "no_such_tool"
	if o.asResult != wantResult {
		t.Fatalf("%s: answered as isError result %v, want %v", s.name, o.asResult, wantResult)
	}
	if !o.asResult {
		return
	}
	if o.structured != nil {
		t.Errorf("%s: isError result has structuredContent %s", s.name, o.structured)
	}
	if !strings.HasPrefix(o.text, fmt.Sprintf("Error %d: ", s.code)) {
		t.Errorf("%s: isError text %q", s.name, o.text)
	}
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Tool             string            `json:"tool"`
			Timestamp        string            `json:"timestamp"`
			ValidationErrors []json.RawMessage `json:"validation_errors"`
			RetryAfter       *int              `json:"retryAfter"`
		} `json:"data"`
	}
	if err := json.Unmarshal(o.errObj, &e); err != nil {
		t.Fatalf("%s: _meta error %s: %v", s.name, o.errObj, err)
	}
	if e.Message == "" || e.Data.Tool != s.tool || e.Data.Timestamp == "" {
		t.Errorf("%s: _meta error %s", s.name, o.errObj)
	}
	switch s.code {
	case -32602:
		if len(e.Data.ValidationErrors) == 0 || !strings.Contains(o.text, "\n  - root: must have required property 'query'") {
			t.Errorf("%s: -32602 text %q, _meta %s", s.name, o.text, o.errObj)
		}
	case -32004:
		if e.Data.RetryAfter == nil || *e.Data.RetryAfter <= 0 {
			t.Errorf("%s: -32004 without data.retryAfter: %s", s.name, o.errObj)
		}
	}
}

// alternator sends each request to the next of several gateways in turn.
type alternator struct {
	mu    sync.Mutex
	hosts []string
	n     int
	used  map[string]int
}

func (a *alternator) RoundTrip(req *http.Request) (*http.Response, error) {
	a.mu.Lock()
	host := a.hosts[a.n%len(a.hosts)]
	a.n++
	a.used[host]++
	a.mu.Unlock()
	r := req.Clone(req.Context())
	r.URL.Host = host
	r.Host = host
	return http.DefaultTransport.RoundTrip(r)
}

// TestTwoGatewaysOneClient serves one MCP SDK session (handshake era, with a
// session id) alternately from two gateway processes sharing only the
// session secret and the service: every request lands on the other gateway.
func TestTwoGatewaysOneClient(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{SessionSecret: []byte("replica-secret")})
	other := gatewaytest.StartGateway(t, st.Service.Addr, gatewaytest.StackOptions{SessionSecret: []byte("replica-secret")})
	alt := &alternator{hosts: []string{strings.TrimPrefix(st.URL, "http://"), other.Addr}, used: map[string]int{}}
	for _, pin := range []string{"2025-11-25", ""} {
		name := pin
		if name == "" {
			name = "stateless"
		}
		t.Run(name, func(t *testing.T) {
			c := sdk.NewClient(&sdk.Implementation{Name: "e2e-replicas", Version: "1.0.0"}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var opts *sdk.ClientSessionOptions
			if pin != "" {
				opts = &sdk.ClientSessionOptions{ProtocolVersion: pin}
			}
			s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: st.URL + "/mcp", HTTPClient: &http.Client{Transport: alt}, DisableStandaloneSSE: true, MaxRetries: -1}, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for i := range 4 {
				res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "fetch", Arguments: map[string]any{"repo": repo}})
				if err != nil || res.IsError {
					t.Fatalf("call %d: %v %v", i, err, res)
				}
			}
		})
	}
	t.Run("replicas with different secrets refuse each other's sessions", func(t *testing.T) {
		stranger := gatewaytest.StartGateway(t, st.Service.Addr, gatewaytest.StackOptions{SessionSecret: []byte("another-secret")})
		bad := &alternator{hosts: []string{strings.TrimPrefix(st.URL, "http://"), stranger.Addr}, used: map[string]int{}}
		c := sdk.NewClient(&sdk.Implementation{Name: "e2e-replicas", Version: "1.0.0"}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: st.URL + "/mcp", HTTPClient: &http.Client{Transport: bad}, DisableStandaloneSSE: true, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err == nil {
			defer s.Close()
			_, err = s.CallTool(ctx, &sdk.CallToolParams{Name: "fetch", Arguments: map[string]any{"repo": repo}})
		}
		if err == nil {
			t.Fatal("a session minted under another secret was accepted")
		}
	})
	alt.mu.Lock()
	defer alt.mu.Unlock()
	for h, n := range alt.used {
		if n < 4 {
			t.Errorf("gateway %s served only %d requests", h, n)
		}
	}
	if len(alt.used) != 2 {
		t.Errorf("requests reached %d gateways", len(alt.used))
	}
}
