package mcp

import (
	"fmt"
	"strings"
	"testing"

	"ghops.dev/gateway/internal/goldentest"
)

// wireCase is one request whose exact answer is pinned by a golden file.
type wireCase struct {
	name    string
	body    string
	headers []string
	errs    int // jsonrpc_error lines the answer must log
}

// mergeCall is a tools/call of merge_pull_request on PR n (the fake service
// answers each HTTP-like number with that failure); meta adds 2026-07-28's
// _meta.
func mergeCall(n int, meta bool) string {
	m := ""
	if meta {
		m = "," + statelessMeta
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"merge_pull_request","arguments":{"repo":"octo-org/hello-world","prNumber":%d,"sha":"abcdef1"}%s}}`, n, m)
}

const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// statelessHeaders are the headers of a 2026-07-28 request.
func statelessHeaders(method, name string) []string {
	h := []string{"MCP-Protocol-Version", V20260728, "Mcp-Method", method}
	if name != "" {
		h = append(h, "Mcp-Name", name)
	}
	return h
}

var (
	v1125       = []string{"MCP-Protocol-Version", V20251125}
	searchEmpty = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{}}}`
)

// failures are the tool failures, one per code.
var failures = []struct {
	name string
	pr   int
}{
	{"32001_unauthenticated", 401}, {"32001_permission_denied", 403}, {"32002_not_found", 404},
	{"32003_github_validation", 422}, {"32004_rate_limited", 429}, {"32005_not_mergeable", 405},
	{"32006_head_sha_mismatch", 409}, {"32603_internal", 500},
}

// toolCases are the tool calls, success and every failure, in one naming
// style: none (no header, no session), the header, 2026-07-28's _meta.
func toolCases(style string) []wireCase {
	var hdr []string
	meta := false
	switch style {
	case "header":
		hdr = v1125
	case "meta":
		hdr = statelessHeaders("tools/call", "merge_pull_request")
		meta = true
	}
	cases := []wireCase{{name: "success", body: mergeCall(1, meta), headers: hdr}}
	for _, f := range failures {
		cases = append(cases, wireCase{name: f.name, body: mergeCall(f.pr, meta), headers: hdr, errs: 1})
	}
	search := searchEmpty
	name := "search"
	unknown := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}`
	if meta {
		search = strings.Replace(searchEmpty, `"arguments":{}`, `"arguments":{},`+statelessMeta, 1)
		unknown = strings.Replace(unknown, `"arguments":{}`, `"arguments":{},`+statelessMeta, 1)
		hdr = statelessHeaders("tools/call", name)
	}
	cases = append(cases, wireCase{name: "32602_validation", body: search, headers: hdr, errs: 1})
	if meta {
		hdr = statelessHeaders("tools/call", "nope")
	}
	return append(cases, wireCase{name: "32602_unknown_tool", body: unknown, headers: hdr, errs: 1})
}

// protocolCases are the protocol's own answers.
var protocolCases = []wireCase{
	{name: "initialize_2025-06-18", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
	{name: "initialize_unknown_version", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
	{name: "ping", body: `{"jsonrpc":"2.0","id":"p","method":"ping"}`, headers: v1125},
	{name: "notification_202", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, headers: v1125},
	{name: "client_response_202", body: `{"jsonrpc":"2.0","id":5,"result":{}}`, headers: v1125},
	{name: "discover", body: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + statelessMeta + `}}`, headers: statelessHeaders("server/discover", "")},
	{name: "32700_parse_error", body: `{"jsonrpc":"2.0",`, headers: v1125, errs: 1},
	{name: "32700_duplicate_key", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"a"},"_meta":{},"arguments":{"query":"b"}}}`, headers: v1125, errs: 1},
	{name: "32600_invalid_request", body: `{"jsonrpc":"1.0","id":3,"method":"ping"}`, headers: v1125, errs: 1},
	{name: "32601_method_not_found", body: `{"jsonrpc":"2.0","id":"x","method":"nope/nothing"}`, headers: v1125, errs: 1},
	{name: "32602_bad_cursor", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"bogus"}}`, headers: v1125, errs: 1},
	{name: "32022_unsupported_header", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, headers: []string{"MCP-Protocol-Version", "1999-01-01"}, errs: 1},
	{name: "32022_unsupported_meta", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`, headers: []string{"MCP-Protocol-Version", "2027-01-01"}, errs: 1},
	{name: "2026_32602_no_meta", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, headers: statelessHeaders("tools/list", ""), errs: 1},
	{name: "2026_32602_no_capabilities", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, headers: statelessHeaders("tools/list", ""), errs: 1},
	{name: "2026_32020_no_header", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + statelessMeta + `}}`, errs: 1},
	{name: "2026_32020_method_mismatch", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + statelessMeta + `}}`, headers: statelessHeaders("prompts/list", ""), errs: 1},
	{name: "2026_32020_name_mismatch", body: mergeCall(1, true), headers: statelessHeaders("tools/call", "search"), errs: 1},
	{name: "32601_undeclared_prompts_list", body: `{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`, headers: v1125, errs: 1},
	{name: "2026_32601_undeclared_prompts_list", body: `{"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{` + statelessMeta + `}}`, headers: statelessHeaders("prompts/list", ""), errs: 1},
	{name: "2026_32601_subscriptions_listen", body: `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + statelessMeta + `}}`, headers: statelessHeaders("subscriptions/listen", ""), errs: 1},
	{name: "2026_32601_removed", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + statelessMeta + `}}`, headers: statelessHeaders("ping", ""), errs: 1},
	{name: "batch_2025-03-26", body: `[{"jsonrpc":"2.0","id":1,"method":"ping"},` + mergeCall(404, false) + `,{"jsonrpc":"2.0","method":"notifications/initialized"}]`, errs: 1},
	{name: "batch_refused_2025-06-18", body: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, headers: []string{"MCP-Protocol-Version", V20250618}, errs: 1},
	{name: "batch_initialize_refused", body: `[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}]`, errs: 1},
	{name: "forged_session_404", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, headers: []string{"Mcp-Session-Id", "s1.Zm9v.YmFy"}, errs: 1},
}

// TestWireGolden pins the exact answer (status, headers, body) of every
// code on /mcp under the tool-error rule: in auto mode for each way of
// naming a version (none, the header, _meta), and in both forced modes, and
// of the protocol's own answers; each error answer logs exactly one
// jsonrpc_error line.
func TestWireGolden(t *testing.T) {
	runs := []struct {
		mode, style string
	}{
		{ToolErrorsAuto, "none"}, {ToolErrorsAuto, "header"}, {ToolErrorsAuto, "meta"},
		{ToolErrorsJSONRPC, "header"}, {ToolErrorsResult, "none"},
	}
	for _, run := range runs {
		s := newModeServer(t, run.mode)
		for _, tc := range toolCases(run.style) {
			t.Run(run.mode+"/"+run.style+"/"+tc.name, func(t *testing.T) {
				compareWire(t, s, "wire/"+run.mode+"_"+run.style+"/"+tc.name+".txt", tc)
			})
		}
	}
	s := newTestServer(t)
	for _, tc := range protocolCases {
		t.Run("protocol/"+tc.name, func(t *testing.T) {
			compareWire(t, s, "wire/protocol/"+tc.name+".txt", tc)
		})
	}
}

// compareWire sends one case and compares its answer with a golden file.
func compareWire(t *testing.T, s *testServer, file string, tc wireCase) {
	t.Helper()
	before := len(s.log.ErrorLines())
	r := s.post(t, tc.body, tc.headers...)
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %d\n", r.status)
	for _, h := range []string{"Retry-After", "Mcp-Session-Id", "Content-Type"} {
		if v := r.header.Get(h); v != "" {
			fmt.Fprintf(&b, "%s: %s\n", h, normalize([]byte(v)))
		}
	}
	fmt.Fprintf(&b, "\n%s\n", normalize(r.body))
	goldentest.Compare(t, file, []byte(b.String()))
	if got := len(s.log.ErrorLines()) - before; got != tc.errs {
		t.Errorf("logged %d jsonrpc_error lines, want %d", got, tc.errs)
	}
}
