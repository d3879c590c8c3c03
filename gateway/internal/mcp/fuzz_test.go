package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
)

// echoCaller answers every call with its arguments, or -32002 when the
// arguments hold "missing".
type echoCaller struct{}

func (echoCaller) Call(_ context.Context, name string, args json.RawMessage, _ toolcall.CallInfo) (json.RawMessage, *rpcerror.Error) {
	if strings.Contains(string(args), "missing") {
		return nil, rpcerror.New(rpcerror.NotFound, name)
	}
	return json.RawMessage(`{"ok":true}`), nil
}

// checkWellFormed fails unless b is one JSON-RPC response or an array of them,
// each with jsonrpc "2.0", an id member and exactly one of result and error.
func checkWellFormed(t *testing.T, b []byte) {
	t.Helper()
	var one map[string]json.RawMessage
	var many []map[string]json.RawMessage
	switch {
	case json.Unmarshal(b, &one) == nil:
		many = []map[string]json.RawMessage{one}
	case json.Unmarshal(b, &many) == nil:
		if len(many) == 0 {
			t.Fatalf("empty batch answer")
		}
	default:
		t.Fatalf("answer is not JSON: %q", b)
	}
	for _, m := range many {
		_, hasRes := m["result"]
		_, hasErr := m["error"]
		_, hasID := m["id"]
		if string(m["jsonrpc"]) != `"2.0"` || !hasID || hasRes == hasErr {
			t.Fatalf("malformed response %q", b)
		}
	}
}

// FuzzMCPMessage feeds arbitrary bodies and protocol headers to the HTTP
// handler: it never panics, and every answer is either empty or well-formed
// JSON-RPC.
func FuzzMCPMessage(f *testing.F) {
	seeds := []struct{ body, version, method, name string }{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`, "", "", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"dDE6"}}`, V20250618, "", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"x","_meta":{}}}}`, V20251125, "", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"missing"}}}`, "", "", ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"},{"id":2,"result":{}},1]`, V20250326, "", ""},
		{`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"search","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, V20260728, "tools/call", "=?base64?c2VhcmNo?="},
		{`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}}`, V20260728, "server/discover", ""},
		{`[]`, "", "", ""},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}`, "", "", ""},
		{`nul`, "bogus", "", ""},
	}
	for _, s := range seeds {
		f.Add(s.body, s.version, s.method, s.name)
	}
	h := NewHandler(newRegistry(f), nil, withCaller(echoCaller{}), WithSink(rpcerror.NewSink(io.Discard, nil)), WithPageSize(3))
	f.Fuzz(func(t *testing.T, body, version, method, name string) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		for k, v := range map[string]string{"MCP-Protocol-Version": version, "Mcp-Method": method, "Mcp-Name": name} {
			if v != "" {
				req.Header.Set(k, v)
			}
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("status %d for %q", w.Code, body)
		}
		if w.Body.Len() > 0 {
			checkWellFormed(t, w.Body.Bytes())
		}
	})
}
