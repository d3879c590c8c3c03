package mcp

import (
	"fmt"
	"strings"
	"testing"

	"ghops.dev/gateway/internal/golden"
)

// wireCase is one request whose exact answer is pinned by a golden file.
type wireCase struct {
	name    string
	body    string
	headers []string
	errs    int // jsonrpc_error lines the answer must log
}

// mergeCall is a 2025-06-18 tools/call of merge_pull_request on PR n.
func mergeCall(n int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"merge_pull_request","arguments":{"repo":"octo-org/hello-world","prNumber":%d,"sha":"abcdef1"}}}`, n)
}

var v0618 = []string{"MCP-Protocol-Version", V20250618}

// statelessHeaders are the headers of a 2026-07-28 tools/call.
func statelessHeaders(method, name string) []string {
	h := []string{"MCP-Protocol-Version", V20260728, "Mcp-Method", method}
	if name != "" {
		h = append(h, "Mcp-Name", name)
	}
	return h
}

const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

var wireCases = []wireCase{
	{name: "success", body: mergeCall(1), headers: v0618},
	{name: "32602_validation", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{}}}`, headers: v0618, errs: 1},
	{name: "32602_unknown_tool", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, headers: v0618, errs: 1},
	{name: "32001_unauthenticated", body: mergeCall(401), headers: v0618, errs: 1},
	{name: "32001_permission_denied", body: mergeCall(403), headers: v0618, errs: 1},
	{name: "32002_not_found", body: mergeCall(404), headers: v0618, errs: 1},
	{name: "32003_github_validation", body: mergeCall(422), headers: v0618, errs: 1},
	{name: "32004_rate_limited", body: mergeCall(429), headers: v0618, errs: 1},
	{name: "32005_not_mergeable", body: mergeCall(405), headers: v0618, errs: 1},
	{name: "32006_head_sha_mismatch", body: mergeCall(409), headers: v0618, errs: 1},
	{name: "32603_internal", body: mergeCall(500), headers: v0618, errs: 1},
	{name: "32700_parse_error", body: `{"jsonrpc":"2.0",`, headers: v0618, errs: 1},
	{name: "32600_invalid_request", body: `{"jsonrpc":"1.0","id":3,"method":"ping"}`, headers: v0618, errs: 1},
	{name: "32601_method_not_found", body: `{"jsonrpc":"2.0","id":"x","method":"prompts/list"}`, headers: v0618, errs: 1},
	{name: "32602_bad_cursor", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"bogus"}}`, headers: v0618, errs: 1},
	{name: "32022_unsupported_header", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, headers: []string{"MCP-Protocol-Version", "1999-01-01"}, errs: 1},
	{name: "stateless_success", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"merge_pull_request","arguments":{"repo":"octo-org/hello-world","prNumber":1},` + statelessMeta + `}}`, headers: statelessHeaders("tools/call", "merge_pull_request")},
	{name: "stateless_32005", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"merge_pull_request","arguments":{"repo":"octo-org/hello-world","prNumber":405},` + statelessMeta + `}}`, headers: statelessHeaders("tools/call", "merge_pull_request"), errs: 1},
	{name: "stateless_32020_name_mismatch", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"merge_pull_request","arguments":{},` + statelessMeta + `}}`, headers: statelessHeaders("tools/call", "search"), errs: 1},
	{name: "stateless_32022_meta_version", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-01-01"}}}`, headers: []string{"MCP-Protocol-Version", "2027-01-01"}, errs: 1},
	{name: "stateless_32601_removed", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + statelessMeta + `}}`, headers: statelessHeaders("ping", ""), errs: 1},
}

// TestWireGolden pins the exact answer (status, Retry-After, body) of every
// code on /mcp in both tool-error modes, and checks each error answer logs
// exactly one jsonrpc_error line.
func TestWireGolden(t *testing.T) {
	for _, mode := range []string{ToolErrorsJSONRPC, ToolErrorsResult} {
		s := newTestServer(t, WithToolErrorMode(mode))
		for _, tc := range wireCases {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				before := len(s.log.ErrorLines())
				r := s.post(t, tc.body, tc.headers...)
				var b strings.Builder
				fmt.Fprintf(&b, "HTTP %d\n", r.status)
				if ra := r.header.Get("Retry-After"); ra != "" {
					fmt.Fprintf(&b, "Retry-After: %s\n", ra)
				}
				fmt.Fprintf(&b, "Content-Type: %s\n\n%s\n", r.header.Get("Content-Type"), normalize(r.body))
				golden.Compare(t, "wire/"+mode+"/"+tc.name+".txt", []byte(b.String()))
				if got := len(s.log.ErrorLines()) - before; got != tc.errs {
					t.Errorf("logged %d jsonrpc_error lines, want %d", got, tc.errs)
				}
			})
		}
	}
}
