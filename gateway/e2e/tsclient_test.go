package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"ghops.dev/services/fakehub"

	"ghops.dev/gateway/gatewaytest"
	"ghops.dev/gateway/internal/app"
	"ghops.dev/gateway/internal/config"
)

// envStdioChild makes the test binary serve MCP over its stdin and stdout
// as `ghops-gateway stdio` does, configured from the environment only: the
// TypeScript SDK's stdio transport spawns it as a host spawns a local
// server.
const envStdioChild = "GHOPS_E2E_STDIO_GATEWAY"

// TestMain lets the test binary act as the stdio gateway when asked to.
func TestMain(m *testing.M) {
	if os.Getenv(envStdioChild) != "" {
		os.Exit(serveStdioChild())
	}
	os.Exit(m.Run())
}

// serveStdioChild is ghops-gateway's stdio command: configuration from the
// GHOPS_* variables, logs to stderr, MCP on stdin and stdout.
func serveStdioChild() int {
	cfg, err := config.Load([]string{"stdio"}, os.Getenv, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stdio child:", err)
		return 2
	}
	a, err := app.New(cfg, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stdio child:", err)
		return 1
	}
	defer a.Close()
	if err := a.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "stdio child:", err)
		return 1
	}
	return 0
}

// fakehubAdmin is the stack's fakehub admin token: the Node client sets
// faults through fakehub's admin API, as the Go scenario does in process.
const fakehubAdmin = "e2e-fakehub-admin"

// tsStep is one tools/call of the TypeScript plan.
type tsStep struct {
	Name   string           `json:"name"`
	Tool   string           `json:"tool"`
	Args   map[string]any   `json:"args"`
	Faults []map[string]any `json:"faults,omitempty"`
	code   int              // expected error code (0: success)
	text   string           // text the result must contain
}

// tsSteps is the TypeScript plan: a success, then one failure of each code
// the contract has (the unknown tool is the MCP specification's -32602
// JSON-RPC error in every mode). None of the failures changes the demo
// data, so every run of the matrix can share one stack.
func tsSteps() []tsStep {
	a := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	return []tsStep{
		{Name: "search", Tool: "search", Args: a("query", "greeter")},
		{Name: "read_file", Tool: "read_file", Args: a("repo", repo, "path", "go.mod"), text: "example.com/hello-world"},
		{Name: "-32602 validation", Tool: "search", Args: a(), code: -32602},
		{Name: "-32602 unknown tool", Tool: "no_such_tool", Args: a(), code: -32602},
		{Name: "-32001 permission denied", Tool: "create_pull_request", Args: a("repo", "octo-org/empty", "title", "t", "head", "a", "base", "b"), code: -32001},
		{Name: "-32002 not found", Tool: "fetch", Args: a("repo", "octo-org/nope"), code: -32002},
		{Name: "-32003 github validation", Tool: "create_pull_request", Args: a("repo", repo, "title", "t", "head", "main", "base", "main"), code: -32003},
		{Name: "-32005 not mergeable", Tool: "merge_pull_request", Args: a("repo", repo, "prNumber", 2), code: -32005},
		{Name: "-32006 head sha mismatch", Tool: "merge_pull_request", Args: a("repo", repo, "prNumber", 1, "sha", "0000000"), code: -32006},
		{Name: "-32603 upstream 500", Tool: "fetch", Args: a("repo", repo), code: -32603,
			Faults: []map[string]any{{"error_rate": 1, "error_status": 500}}},
		// GitHub's secondary limit, with a Retry-After of one second that
		// the service's GitHub client then honours too: the probe call
		// after it waits that second, as a host would.
		{Name: "-32004 rate limited", Tool: "fetch", Args: a("repo", repo), code: -32004,
			Faults: []map[string]any{{"rate_limit": "secondary", "retry_after": 1}}},
	}
}

// tsPlan is what client.mjs reads.
type tsPlan struct {
	SDK       string            `json:"sdk"` // "v1" or "v2"
	Transport string            `json:"transport"`
	URL       string            `json:"url,omitempty"`
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	Pin       string            `json:"pin,omitempty"`
	Hub       map[string]string `json:"hub"`
	Steps     []tsStep          `json:"steps"`
	Probe     tsStep            `json:"probe"`
}

// tsOutput is what client.mjs prints.
type tsOutput struct {
	Negotiated string `json:"negotiated"`
	ServerInfo struct {
		Name string `json:"name"`
	} `json:"serverInfo"`
	Tools []struct {
		Name            string `json:"name"`
		HasOutputSchema bool   `json:"hasOutputSchema"`
	} `json:"tools"`
	Steps        []tsResult `json:"steps"`
	SentVersions []string   `json:"sentVersions"`
}

// tsResult is what the SDK surfaced for one step.
type tsResult struct {
	Name       string                     `json:"name"`
	Outcome    string                     `json:"outcome"` // "result" or "error" (thrown)
	IsError    bool                       `json:"isError"`
	Text       *string                    `json:"text"`
	Meta       map[string]json.RawMessage `json:"meta"`
	Structured json.RawMessage            `json:"structuredContent"`
	RetryAfter *string                    `json:"retryAfter"`
	UsableMark *bool                      `json:"usableAfter"`
	WireCode   *int                       `json:"wireCode"`
	Error      *struct {
		Name    string          `json:"name"`
		Code    *int            `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// wantTools are the tools every run must list (more may come).
var wantTools = []string{
	"search", "fetch", "list_directory", "read_file", "get_tree", "get_commits", "get_branches",
	"list_pull_requests", "get_pr_mergeability", "get_checks_for_sha", "create_pull_request",
	"update_pull_request", "merge_pull_request", "commit_files",
}

// tsRun is one SDK line at one protocol version.
type tsRun struct {
	sdk     string // "v1" (@modelcontextprotocol/sdk) or "v2" (@modelcontextprotocol/client)
	version string // the version it must negotiate
	pin     string // tsPlan.Pin
}

// tsRuns are the versions each SDK line speaks among 2025-06-18,
// 2025-11-25 and 2026-07-28: v1 offers 2025-11-25 (and 2025-06-18 when a
// host pins it); v2 probes with server/discover and takes 2026-07-28
// (its default, the 2025 handshake, is v1's).
var tsRuns = []tsRun{
	{sdk: "v1", version: "2025-11-25"},
	{sdk: "v1", version: "2025-06-18", pin: "2025-06-18"},
	{sdk: "v2", version: "2026-07-28", pin: "auto"},
}

// TestTypeScriptSDK runs the official MCP TypeScript SDK (the client of
// MCP Inspector, mcp-remote and most TypeScript hosts), v1
// (@modelcontextprotocol/sdk) and v2 (@modelcontextprotocol/client),
// against the real stack, over Streamable HTTP and over stdio (the SDK
// spawns the gateway), in the three tool-error modes, at the versions each
// speaks (tsRuns). Each run lists the tools, calls two, then provokes
// every error code and checks what the SDK hands the host: in auto and
// result mode an isError result with the rendered text, the contract error
// under _meta["dev.ghops/error"] and no structuredContent (which the SDK
// would check against the tool's outputSchema and reject); in jsonrpc mode
// the thrown error's code. After every failure the same session must still
// serve a call.
func TestTypeScriptSDK(t *testing.T) {
	dir := npmInstall(t, "tsclient")
	node := needNode(t, "node")
	if major := nodeMajor(t, node); major < 20 {
		msg := fmt.Sprintf("the TypeScript SDK v2 needs Node.js 20 or later; node is %d", major)
		if os.Getenv(envRequireNode) != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	script := installScript(t, dir, "tsclient", "client.mjs")
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{
		Hub: &fakehub.Config{Seed: "demo", AdminToken: fakehubAdmin}, CallTimeout: 20 * time.Second,
	})
	gateways := map[string]*gatewaytest.Gateway{"auto": st.Gateway}
	for _, mode := range []string{"jsonrpc", "result"} {
		gateways[mode] = gatewaytest.StartGateway(t, st.Service.Addr, gatewaytest.StackOptions{MCPToolErrors: mode, CallTimeout: 20 * time.Second})
	}
	for _, run := range tsRuns {
		for _, transport := range []string{"http", "stdio"} {
			for _, mode := range []string{"auto", "jsonrpc", "result"} {
				t.Run(run.sdk+" "+transport+" "+run.version+" "+mode, func(t *testing.T) {
					plan := tsPlan{
						SDK:       run.sdk,
						Transport: transport,
						Pin:       run.pin,
						Hub:       map[string]string{"url": strings.TrimSuffix(st.HubURL, "/"), "token": fakehubAdmin},
						Steps:     tsSteps(),
						Probe:     tsStep{Tool: "fetch", Args: map[string]any{"repo": repo}},
					}
					if transport == "http" {
						plan.URL = gateways[mode].URL + "/mcp"
					} else {
						plan.Command, plan.Args = os.Args[0], []string{"-test.run=^$"}
						plan.Env = map[string]string{
							envStdioChild: "1", "GHOPS_SERVICE_ADDR": st.Service.Addr,
							"GHOPS_MCP_TOOL_ERRORS": mode, "GHOPS_CALL_TIMEOUT": "20s",
						}
					}
					out, stderr := runTSClient(t, node, script, plan)
					checkTSRun(t, plan, out, run.version, mode)
					if strings.Contains(stderr, fakehub.DemoToken) {
						t.Error("the service token reached the stdio gateway's log")
					}
					if transport == "http" && strings.Contains(gateways[mode].Logs(), fakehub.DemoToken) {
						t.Error("the service token reached the gateway's log")
					}
				})
			}
		}
	}
}

// nodeMajor returns node's major version.
func nodeMajor(t *testing.T, node string) int {
	t.Helper()
	out, err := exec.Command(node, "-p", "process.versions.node.split('.')[0]").Output()
	if err != nil {
		t.Fatalf("node -p: %v", err)
	}
	major, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("node version %q", out)
	}
	return major
}

// runTSClient runs client.mjs with plan and returns its parsed output and
// its stderr (where a stdio gateway's log goes too).
func runTSClient(t *testing.T, node, script string, plan tsPlan) (tsOutput, string) {
	t.Helper()
	pf := filepath.Join(t.TempDir(), "plan.json")
	b, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pf, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, pf)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\nstdout: %s\nstderr: %s", filepath.Base(script), err, stdout.String(), stderr.String())
	}
	var out tsOutput
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("client output %q: %v\nstderr: %s", stdout.String(), err, stderr.String())
	}
	return out, stderr.String()
}

// checkTSRun asserts one run's output against the plan.
func checkTSRun(t *testing.T, plan tsPlan, out tsOutput, version, mode string) {
	t.Helper()
	if out.Negotiated != version {
		t.Errorf("negotiated %q, want %q", out.Negotiated, version)
	}
	if out.ServerInfo.Name != "ghops-gateway" {
		t.Errorf("serverInfo.name %q", out.ServerInfo.Name)
	}
	if plan.Transport == "http" && !slices.Contains(out.SentVersions, version) {
		t.Errorf("no request carried MCP-Protocol-Version %s (sent %v)", version, out.SentVersions)
	}
	var names []string
	for _, tool := range out.Tools {
		names = append(names, tool.Name)
	}
	for _, w := range wantTools {
		if !slices.Contains(names, w) {
			t.Errorf("tools/list lacks %s: %v", w, names)
		}
	}
	if len(out.Steps) != len(plan.Steps) {
		t.Fatalf("%d step results for %d steps", len(out.Steps), len(plan.Steps))
	}
	for i, s := range plan.Steps {
		r := out.Steps[i]
		t.Run(s.Name, func(t *testing.T) {
			if s.code == 0 {
				checkTSSuccess(t, s, r)
				return
			}
			if r.UsableMark == nil || !*r.UsableMark {
				t.Errorf("the session did not serve a call after the failure")
			}
			if mode == "jsonrpc" || s.Tool == "no_such_tool" {
				checkTSThrown(t, s, r, plan)
				return
			}
			checkTSErrorResult(t, s, r, plan.Transport)
		})
	}
}

// checkTSSuccess: a plain result whose text is the tool's JSON answer.
func checkTSSuccess(t *testing.T, s tsStep, r tsResult) {
	t.Helper()
	if r.Outcome != "result" || r.IsError || r.Text == nil {
		t.Fatalf("want a result, got %s", dump(r))
	}
	if !json.Valid([]byte(*r.Text)) {
		t.Errorf("text is not the JSON result: %q", *r.Text)
	}
	if s.text != "" && !strings.Contains(*r.Text, s.text) {
		t.Errorf("text %q lacks %q", *r.Text, s.text)
	}
}

// checkTSThrown: the SDK threw an McpError carrying the contract's code
// and error object.
func checkTSThrown(t *testing.T, s tsStep, r tsResult, plan tsPlan) {
	t.Helper()
	if r.Outcome != "error" || r.Error == nil {
		t.Fatalf("want a thrown JSON-RPC error, got %s", dump(r))
	}
	// v1 throws McpError("MCP error <code>: <message>"), v2 ProtocolError
	// with the message as sent.
	name, prefix := "McpError", fmt.Sprintf("MCP error %d: ", s.code)
	if plan.SDK == "v2" {
		name, prefix = "ProtocolError", ""
	}
	if r.Error.Name != name || r.Error.Code == nil || *r.Error.Code != s.code {
		t.Fatalf("want %s %d, got %s", name, s.code, dump(r))
	}
	if !strings.HasPrefix(r.Error.Message, prefix) || len(r.Error.Message) == len(prefix) {
		t.Errorf("message %q", r.Error.Message)
	}
	var d struct {
		Tool      string `json:"tool"`
		Timestamp string `json:"timestamp"`
	}
	if err := json.Unmarshal(r.Error.Data, &d); err != nil || d.Tool != s.Tool || d.Timestamp == "" {
		t.Errorf("error data %s", r.Error.Data)
	}
	if s.code == -32004 && plan.Transport == "http" && r.RetryAfter == nil {
		t.Error("-32004 without a Retry-After header")
	}
}

// checkTSErrorResult: an isError result the model can read, the contract
// error object in _meta, no structuredContent.
func checkTSErrorResult(t *testing.T, s tsStep, r tsResult, transport string) {
	t.Helper()
	if r.Outcome != "result" || !r.IsError {
		t.Fatalf("want an isError result, got %s", dump(r))
	}
	if len(r.Structured) > 0 && string(r.Structured) != "null" {
		t.Errorf("isError result has structuredContent %s", r.Structured)
	}
	if r.Text == nil || !strings.HasPrefix(*r.Text, fmt.Sprintf("Error %d: ", s.code)) {
		t.Fatalf("want text starting %q, got %s", fmt.Sprintf("Error %d: ", s.code), dump(r))
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
	raw := r.Meta[errorMetaKey]
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatalf("_meta[%q] = %s: %v", errorMetaKey, raw, err)
	}
	if e.Code != s.code || e.Message == "" || e.Data.Tool != s.Tool || e.Data.Timestamp == "" {
		t.Errorf("_meta error %s", raw)
	}
	switch s.code {
	case -32602:
		if len(e.Data.ValidationErrors) == 0 || !strings.Contains(*r.Text, "\n  - root: must have required property 'query'") {
			t.Errorf("-32602 text %q, _meta %s", *r.Text, raw)
		}
	case -32004:
		if e.Data.RetryAfter == nil || *e.Data.RetryAfter <= 0 {
			t.Errorf("-32004 without data.retryAfter: %s", raw)
		}
		if transport == "http" && r.RetryAfter == nil {
			t.Error("-32004 without a Retry-After header")
		}
	}
}

// dump renders a step result for a failure message.
func dump(r tsResult) string {
	b, _ := json.Marshal(r)
	return string(b)
}
