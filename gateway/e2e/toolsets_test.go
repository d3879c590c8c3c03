package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ghops.dev/gateway/gatewaytest"
	"ghops.dev/gateway/internal/config"
)

// The tools of each group, sorted as listTools sorts them: proto decides
// the groups (the toolset of the (ghops.v1.tool) option), this guards them.
var (
	issuesTools = []string{"add_issue_comment", "add_sub_issue", "create_issue", "create_label", "create_milestone", "get_issue", "label_issue", "list_issue_comments", "list_issues", "list_labels", "list_milestones", "list_sub_issues", "remove_sub_issue", "update_issue", "update_label", "update_milestone"}
	searchTools = []string{"search", "search_code", "search_issues"}
)

const keyTriager = "ghk_triager_0123456789abcdef01234"

// toolsetsPolicy gives a triager the issues and search groups only, and a
// second principal the issues group narrowed by tools globs.
var toolsetsPolicy = `principals:
  - name: triager
    key_sha256: ` + sha256hex(keyTriager) + `
    toolsets: [issues, search]
  - name: writer
    key_sha256: ` + sha256hex(keyWriter) + `
    toolsets: [issues]
    tools: ["get_issue", "add_issue_comment", "read_file"]
`

// mcpCallError calls tool over /mcp with the official SDK and returns the
// error it got: a JSON-RPC error's code, message and data, or an isError
// result's contract error (the gateway answers tool failures so to a
// client that named its protocol version); nil for a success.
func mcpCallError(t *testing.T, url, key, tool string, args map[string]any) *sdkjsonrpc.Error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e-toolsets", Version: "1"}, nil)
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{key}}, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	var we *sdkjsonrpc.Error
	if errors.As(err, &we) {
		return we
	}
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	if !res.IsError {
		return nil
	}
	b, _ := json.Marshal(res.Meta[errorMetaKey])
	var e struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &e); err != nil || e.Code == 0 {
		t.Fatalf("call %s: an error result without the contract error: %+v", tool, res)
	}
	return &sdkjsonrpc.Error{Code: e.Code, Message: e.Message, Data: e.Data}
}

// TestGatewayToolsets: -toolsets leaves the other groups out of the
// gateway for everyone: tools/list lists only its groups (minus the writes
// under -read-only), and a call of another group's tool is an unknown tool,
// -32602 "Unknown tool" on /mcp and -32601 on /rpc, both listing the visible
// tools, without a GitHub request.
func TestGatewayToolsets(t *testing.T) {
	tests := []struct {
		name     string
		toolsets []string
		readOnly bool
		want     []string
		offered  int // tools of the toolsets, writes included (under -read-only)
	}{
		{name: "issues", toolsets: []string{"issues"}, want: issuesTools},
		{name: "issues and search", toolsets: []string{"issues", "search"}, want: sortedUnion(issuesTools, searchTools)},
		{name: "issues read-only", toolsets: []string{"issues"}, readOnly: true, want: []string{"get_issue", "list_issue_comments", "list_issues", "list_labels", "list_milestones", "list_sub_issues"}, offered: 16},
		{name: "meta", toolsets: []string{"meta"}, want: []string{"get_me", "validate_environment"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := gatewaytest.StartStack(t, gatewaytest.StackOptions{ReadOnly: tc.readOnly, Configure: func(c *config.Config) { c.Toolsets = tc.toolsets }})
			for _, pin := range []string{"", "2025-06-18"} {
				if got := listTools(t, st.URL+"/mcp", "", pin); !slices.Equal(got, tc.want) {
					t.Fatalf("tools/list (pin %q) = %v, want %v", pin, got, tc.want)
				}
			}
			// The start-up line (written before the first request is
			// served) says what is offered: the operator's check. -read-only
			// is logged on its own.
			offered := len(tc.want)
			if tc.readOnly {
				offered = tc.offered
			}
			want := `"tools":` + strconv.Itoa(offered) + `,"toolsets":"` + strings.Join(tc.toolsets, ",") + `"`
			if !strings.Contains(st.Gateway.Logs(), want) {
				t.Fatalf("the start-up log does not say %s:\n%s", want, st.Gateway.Logs())
			}
			before := githubCalls(st)
			_, out := rpcCall(t, st.URL, "read_file", `{"repo":"octo-org/hello-world","path":"README.md"}`)
			code, rpcData := errOf(t, out)
			var listed []string
			if code != -32601 || json.Unmarshal(rpcData["tools"], &listed) != nil {
				t.Fatalf("/rpc read_file: code %d, want -32601 listing the visible tools (%s)", code, out["error"])
			}
			if got := slices.Sorted(slices.Values(listed)); !slices.Equal(got, tc.want) {
				t.Fatalf("/rpc unknown method lists %v, want the visible tools %v", got, tc.want)
			}
			we := mcpCallError(t, st.URL+"/mcp", "", "read_file", map[string]any{"repo": "octo-org/hello-world", "path": "README.md"})
			if we == nil || we.Code != -32602 || we.Message != "Unknown tool: read_file" {
				t.Fatalf("/mcp read_file: %+v, want -32602 Unknown tool: read_file", we)
			}
			var data struct {
				Violations []struct {
					Params struct {
						AllowedValues []string `json:"allowedValues"`
					} `json:"params"`
				} `json:"validation_errors"`
			}
			if err := json.Unmarshal(we.Data, &data); err != nil || len(data.Violations) != 1 {
				t.Fatalf("/mcp unknown tool data %s: %v", we.Data, err)
			}
			allowed := slices.Sorted(slices.Values(data.Violations[0].Params.AllowedValues))
			if !slices.Equal(allowed, tc.want) {
				t.Fatalf("unknown tool lists %v, want the visible tools %v", allowed, tc.want)
			}
			if n := githubCalls(st) - before; n != 0 {
				t.Fatalf("GitHub was called %d times for tools outside the toolsets", n)
			}
		})
	}
	t.Run("a tool of the toolsets still works", func(t *testing.T) {
		st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Configure: func(c *config.Config) { c.Toolsets = []string{"issues"} }})
		_, out := rpcCall(t, st.URL, "get_issue", `{"repo":"octo-org/hello-world","issueNumber":4}`)
		if out["error"] != nil || out["result"] == nil {
			t.Fatalf("get_issue: %s", out["error"])
		}
	})
}

// TestPrincipalToolsets: a principal's toolsets narrow its tools/list and
// refuse other groups' tools with -32001, rule "toolsets", on /rpc and on
// /mcp, before any GitHub request; with tools globs both rules apply.
func TestPrincipalToolsets(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: toolsetsPolicy})
	for _, tc := range []struct {
		name, key string
		want      []string
	}{
		{"triager", keyTriager, sortedUnion(issuesTools, searchTools)},
		{"writer", keyWriter, []string{"add_issue_comment", "get_issue"}},
	} {
		t.Run("tools/list "+tc.name, func(t *testing.T) {
			if got := listTools(t, st.URL+"/mcp", tc.key, ""); !slices.Equal(got, tc.want) {
				t.Fatalf("tools/list = %v, want %v", got, tc.want)
			}
		})
	}
	tests := []struct {
		name, key, tool, params, rule string
	}{
		{"triager outside its toolsets", keyTriager, "read_file", `{"repo":"octo-org/hello-world","path":"README.md"}`, "toolsets"},
		{"triager writes outside its toolsets", keyTriager, "create_branch", `{"repo":"octo-org/hello-world","branch":"x"}`, "toolsets"},
		{"tools glob outside the toolsets", keyWriter, "read_file", `{"repo":"octo-org/hello-world","path":"README.md"}`, "toolsets"},
		{"toolset but not the tools globs", keyWriter, "update_issue", `{"repo":"octo-org/hello-world","issueNumber":4,"state":"closed"}`, "tools"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := githubCalls(st)
			_, out := rpcCall(t, st.URL, tc.tool, tc.params, "Authorization", "Bearer "+tc.key)
			code, data := errOf(t, out)
			var pol struct{ Principal, Rule, Detail string }
			_ = json.Unmarshal(data["policy"], &pol)
			if code != -32001 || pol.Rule != tc.rule || pol.Principal == "" || pol.Detail == "" {
				t.Fatalf("code %d policy %s, want -32001 rule %s", code, data["policy"], tc.rule)
			}
			var args map[string]any
			if err := json.Unmarshal([]byte(tc.params), &args); err != nil {
				t.Fatal(err)
			}
			we := mcpCallError(t, st.URL+"/mcp", tc.key, tc.tool, args)
			if we == nil || we.Code != -32001 {
				t.Fatalf("/mcp: %+v, want -32001", we)
			}
			var mdata struct {
				Policy struct{ Rule string } `json:"policy"`
			}
			if err := json.Unmarshal(we.Data, &mdata); err != nil || mdata.Policy.Rule != tc.rule {
				t.Fatalf("/mcp data %s, want rule %s", we.Data, tc.rule)
			}
			if n := githubCalls(st) - before; n != 0 {
				t.Fatalf("GitHub was called %d times", n)
			}
		})
	}
	t.Run("triager's tool works", func(t *testing.T) {
		_, out := rpcCall(t, st.URL, "list_issues", `{"repo":"octo-org/hello-world","labels":["bug"]}`, "Authorization", "Bearer "+keyTriager)
		if out["error"] != nil || out["result"] == nil {
			t.Fatalf("list_issues: %s", out["error"])
		}
	})
}

// sortedUnion returns the sorted union of lists.
func sortedUnion(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestStdioToolsets: `ghops-gateway stdio -toolsets issues` offers the
// same tools over stdio as over HTTP, and another group's tool is an
// unknown tool there too.
func TestStdioToolsets(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{})
	cfg := config.Default()
	cfg.ServiceAddr = st.Service.Addr
	cfg.Toolsets = []string{"issues"}
	ctx, s := stdioClient(t, cfg)
	names := listedTools(ctx, t, s)
	if !slices.Equal(names, issuesTools) {
		t.Fatalf("tools %v, want %v", names, issuesTools)
	}
	_, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"repo": repo, "path": "README.md"}})
	var we *sdkjsonrpc.Error
	if !errors.As(err, &we) || we.Code != -32602 || we.Message != "Unknown tool: read_file" {
		t.Fatalf("read_file over stdio: %v, want -32602 Unknown tool: read_file", err)
	}
}
