package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"ghops.dev/gateway/internal/golden"
)

// TestHandshakeEveryVersion runs initialize, notifications/initialized, ping,
// tools/list and tools/call at each handshake version and checks what that
// version's answers must and must not hold.
func TestHandshakeEveryVersion(t *testing.T) {
	s := newTestServer(t)
	tests := []struct {
		name, requested, negotiated string
		title, output, annotations  bool
	}{
		{"2024-11-05", V20241105, V20241105, false, false, false},
		{"2025-03-26", V20250326, V20250326, false, false, true},
		{"2025-06-18", V20250618, V20250618, true, true, true},
		{"2025-11-25", V20251125, V20251125, true, true, true},
		{"unknown version negotiates latest handshake one", "2030-01-01", V20251125, true, true, true},
		{"stateless version in initialize negotiates latest handshake one", V20260728, V20251125, true, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := s.post(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+tc.requested+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			if r.status != http.StatusOK {
				t.Fatalf("initialize status %d: %s", r.status, r.body)
			}
			res := decode(t, r.body)["result"].(map[string]any)
			if got := res["protocolVersion"]; got != tc.negotiated {
				t.Fatalf("negotiated %v, want %s", got, tc.negotiated)
			}
			if _, ok := res["capabilities"].(map[string]any)["tools"]; !ok {
				t.Errorf("capabilities lack tools: %s", r.body)
			}
			sid := r.header.Get("Mcp-Session-Id")
			if sid == "" {
				t.Fatal("no Mcp-Session-Id minted")
			}
			hdr := []string{"Mcp-Session-Id", sid}
			if tc.negotiated >= V20250618 {
				hdr = append(hdr, "MCP-Protocol-Version", tc.negotiated)
			}
			if r := s.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr...); r.status != http.StatusAccepted || len(r.body) != 0 {
				t.Errorf("initialized: %d %q", r.status, r.body)
			}
			if r := s.post(t, `{"jsonrpc":"2.0","id":"p","method":"ping"}`, hdr...); string(r.body) != `{"jsonrpc":"2.0","id":"p","result":{}}` {
				t.Errorf("ping: %d %s", r.status, r.body)
			}
			r = s.post(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, hdr...)
			var list struct {
				Result struct {
					Tools []map[string]json.RawMessage `json:"tools"`
				} `json:"result"`
			}
			if err := json.Unmarshal(r.body, &list); err != nil || len(list.Result.Tools) != 14 {
				t.Fatalf("tools/list: %v %s", err, r.body)
			}
			for _, tool := range list.Result.Tools {
				_, hasTitle := tool["title"]
				_, hasOut := tool["outputSchema"]
				_, hasAnn := tool["annotations"]
				if hasTitle != tc.title || hasOut != tc.output || hasAnn != tc.annotations {
					t.Fatalf("tool %s: title %v output %v annotations %v", tool["name"], hasTitle, hasOut, hasAnn)
				}
			}
			r = s.post(t, mergeCall(1), hdr...)
			res = decode(t, r.body)["result"].(map[string]any)
			if _, ok := res["structuredContent"]; ok != tc.output {
				t.Errorf("structuredContent present=%v: %s", ok, r.body)
			}
			text := res["content"].([]any)[0].(map[string]any)["text"].(string)
			if !strings.Contains(text, `"merged":true`) {
				t.Errorf("text content %q", text)
			}
		})
	}
}

// TestTransportRules covers the HTTP rules of Streamable HTTP.
func TestTransportRules(t *testing.T) {
	s := newTestServer(t, WithAllowedOrigins([]string{"https://app.example.com"}))
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	tests := []struct {
		name    string
		method  string
		body    string
		headers []string
		status  int
		want    string // substring of the body ("" = empty body)
	}{
		{"foreign origin 403", http.MethodPost, ping, []string{"Origin", "https://evil.example"}, 403, `"code":-32600`},
		{"allowed origin", http.MethodPost, ping, []string{"Origin", "https://app.example.com"}, 200, `"result":{}`},
		{"loopback origin", http.MethodPost, ping, []string{"Origin", "http://localhost:6274"}, 200, `"result":{}`},
		{"no origin", http.MethodPost, ping, nil, 200, `"result":{}`},
		{"GET 405", http.MethodGet, "", nil, 405, ""},
		{"DELETE 405", http.MethodDelete, "", []string{"Mcp-Session-Id", "x"}, 405, ""},
		{"unsupported version header 400", http.MethodPost, ping, []string{"MCP-Protocol-Version", "2025-01-01"}, 400, `"code":-32022`},
		{"notification 202", http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil, 202, ""},
		{"cancel notification 202", http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`, nil, 202, ""},
		{"client response 202", http.MethodPost, `{"jsonrpc":"2.0","id":5,"result":{}}`, nil, 202, ""},
		{"forged session 404", http.MethodPost, ping, []string{"Mcp-Session-Id", "s1.AAAA.BBBB"}, 404, `"code":-32600`},
		{"batch at 2025-03-26", http.MethodPost, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"x"}}]`, []string{"MCP-Protocol-Version", V20250326}, 200, `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":-32602`},
		{"batch without header (2025-03-26 assumed)", http.MethodPost, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, nil, 200, `[{"jsonrpc":"2.0","id":1,"result":{}}]`},
		{"batch of notifications 202", http.MethodPost, `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`, []string{"MCP-Protocol-Version", V20250326}, 202, ""},
		{"batch with initialize refused", http.MethodPost, `[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}]`, []string{"MCP-Protocol-Version", V20250326}, 200, `initialize must not be part of a JSON-RPC batch`},
		{"batch at 2025-06-18 refused", http.MethodPost, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, []string{"MCP-Protocol-Version", V20250618}, 400, `not supported in protocol version 2025-06-18`},
		{"batch at 2025-11-25 refused", http.MethodPost, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, []string{"MCP-Protocol-Version", V20251125}, 400, `"code":-32600`},
		{"batch at 2026-07-28 refused", http.MethodPost, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, []string{"MCP-Protocol-Version", V20260728}, 400, `"code":-32600`},
		{"body over limit 413", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", DefaultMaxBodyBytes) + `"}}`, nil, 413, `"code":-32600`},
		{"initialize without version", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, nil, 200, `must have required property 'protocolVersion'`},
		{"tools/call without name", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`, nil, 200, `must have required property 'name'`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do(t, tc.method, tc.body, tc.headers...)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.want == "" {
				if len(r.body) != 0 {
					t.Fatalf("body %q, want none", r.body)
				}
				return
			}
			if !strings.Contains(string(r.body), tc.want) {
				t.Fatalf("body %s lacks %s", r.body, tc.want)
			}
		})
	}
	t.Run("GET says Allow: POST", func(t *testing.T) {
		if r := s.do(t, http.MethodGet, ""); r.header.Get("Allow") != http.MethodPost {
			t.Fatalf("Allow %q", r.header.Get("Allow"))
		}
	})
}

// TestStateless covers 2026-07-28: discover, _meta version, headers,
// resultType, removed methods.
func TestStateless(t *testing.T) {
	s := newTestServer(t)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	tests := []struct {
		name    string
		body    string
		headers []string
		status  int
		want    string
	}{
		{"discover", `{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{` + meta + `}}`, statelessHeaders("server/discover", ""), 200, `"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"tools":{}},"ttlMs":300000,"cacheScope":"public","resultType":"complete"`},
		{"discover without _meta still answered", `{"jsonrpc":"2.0","id":"d","method":"server/discover"}`, nil, 200, `"supportedVersions"`},
		{"tools/list has resultType and cache hints", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`, statelessHeaders("tools/list", ""), 200, `"ttlMs":300000,"cacheScope":"public","resultType":"complete"`},
		{"missing Mcp-Method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`, []string{"MCP-Protocol-Version", V20260728}, 400, `"code":-32020`},
		{"Mcp-Method mismatch", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`, statelessHeaders("tools/call", ""), 400, `"code":-32020`},
		{"missing Mcp-Name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"},` + meta + `}}`, statelessHeaders("tools/call", ""), 400, `"code":-32020`},
		{"base64 Mcp-Name accepted", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"merge_pull_request","arguments":{"repo":"a/b","prNumber":1},` + meta + `}}`, statelessHeaders("tools/call", "=?base64?bWVyZ2VfcHVsbF9yZXF1ZXN0?="), 200, `"resultType":"complete"`},
		{"header without _meta", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, statelessHeaders("tools/list", ""), 400, `"code":-32020`},
		{"_meta without header", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`, nil, 400, `"code":-32020`},
		{"header and _meta disagree", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`, []string{"MCP-Protocol-Version", V20251125, "Mcp-Method", "tools/list"}, 400, `"code":-32020`},
		{"unsupported _meta version", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`, []string{"MCP-Protocol-Version", "2099-01-01", "Mcp-Method", "tools/list"}, 400, `"requested":"2099-01-01"`},
		{"initialize removed", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28",` + meta + `}}`, statelessHeaders("initialize", ""), 404, `"code":-32601`},
		{"ping removed", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + meta + `}}`, statelessHeaders("ping", ""), 404, `removed in protocol version 2026-07-28`},
		{"unknown method 404", `{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{` + meta + `}}`, statelessHeaders("resources/list", ""), 404, `"code":-32601`},
		{"session id ignored, none minted", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`, append(statelessHeaders("tools/list", ""), "Mcp-Session-Id", "garbage"), 200, `"tools":[`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := s.post(t, tc.body, tc.headers...)
			if r.status != tc.status || !strings.Contains(string(r.body), tc.want) {
				t.Fatalf("got %d %s\nwant %d containing %s", r.status, r.body, tc.status, tc.want)
			}
			if sid := r.header.Get("Mcp-Session-Id"); sid != "" {
				t.Errorf("stateless answer minted session %q", sid)
			}
		})
	}
}

// TestToolsListPagination walks the opaque cursors at every version and
// checks that the pages add up to the registry in declaration order.
func TestToolsListPagination(t *testing.T) {
	s := newTestServer(t, WithPageSize(5))
	for _, v := range []string{V20241105, V20250326, V20250618, V20251125} {
		t.Run(v, func(t *testing.T) {
			var names []string
			cursor := ""
			for pages := 0; ; pages++ {
				if pages > 5 {
					t.Fatal("too many pages")
				}
				params := `{}`
				if cursor != "" {
					params = `{"cursor":"` + cursor + `"}`
				}
				r := s.post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":`+params+`}`, "MCP-Protocol-Version", v)
				var res struct {
					Result struct {
						Tools []struct {
							Name string `json:"name"`
						} `json:"tools"`
						NextCursor string `json:"nextCursor"`
					} `json:"result"`
				}
				if err := json.Unmarshal(r.body, &res); err != nil {
					t.Fatal(err)
				}
				for _, tool := range res.Result.Tools {
					names = append(names, tool.Name)
				}
				if res.Result.NextCursor == "" {
					break
				}
				cursor = res.Result.NextCursor
			}
			var want []string
			for _, tool := range s.h.reg.Tools() {
				want = append(want, tool.Name)
			}
			if strings.Join(names, ",") != strings.Join(want, ",") {
				t.Fatalf("pages gave %v, want %v", names, want)
			}
		})
	}
	t.Run("cursor of another tool set refused", func(t *testing.T) {
		other := newTestServer(t, WithPageSize(4))
		r := other.post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		next := decode(t, r.body)["result"].(map[string]any)["nextCursor"].(string)
		r = s.post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"`+next+`"}}`)
		if !strings.Contains(string(r.body), `"code":-32602`) {
			t.Fatalf("foreign cursor accepted: %s", r.body)
		}
	})
}

// TestToolsListDeterministicAndCompact checks that tools/list is the same
// bytes every time and carries no insignificant whitespace.
func TestToolsListDeterministicAndCompact(t *testing.T) {
	a := newTestServer(t)
	b := newTestServer(t)
	for _, v := range []string{V20241105, V20250326, V20250618, V20251125} {
		t.Run(v, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
			ra, rb := a.post(t, body, "MCP-Protocol-Version", v), b.post(t, body, "MCP-Protocol-Version", v)
			if string(ra.body) != string(rb.body) {
				t.Fatal("two handlers answered tools/list differently")
			}
			var c bytes.Buffer
			if err := json.Compact(&c, ra.body); err != nil || c.String() != string(ra.body) {
				t.Fatalf("tools/list is not compact (%v)", err)
			}
			golden.Compare(t, "tools_list/"+v+".json", ra.body)
		})
	}
}
