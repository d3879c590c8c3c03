package mcp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"ghops.dev/gateway/internal/rpcerror"
)

// benchHandler is a handler whose tool calls answer at once.
func benchHandler(b *testing.B) *Handler {
	return NewHandler(newRegistry(b), nil, withCaller(echoCaller{}), WithSink(rpcerror.NewSink(io.Discard, nil)))
}

// benchPost serves body through h and fails on a non-200 answer.
func benchPost(b *testing.B, h *Handler, body string, hdr ...string) {
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Fatalf("status %d: %s", w.Code, w.Body)
	}
}

// BenchmarkToolsList measures serving the pre-encoded tools/list.
func BenchmarkToolsList(b *testing.B) {
	h := benchHandler(b)
	for b.Loop() {
		benchPost(b, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "MCP-Protocol-Version", V20251125)
	}
}

// BenchmarkToolsCallStateless measures a 2026-07-28 tools/call, header
// checks included, with an instant call path.
func BenchmarkToolsCallStateless(b *testing.B) {
	h := benchHandler(b)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	for b.Loop() {
		benchPost(b, h, body, "MCP-Protocol-Version", V20260728, "Mcp-Method", "tools/call", "Mcp-Name", "search")
	}
}

// BenchmarkNewHandler measures the start-up encoding of every answer.
func BenchmarkNewHandler(b *testing.B) {
	reg := newRegistry(b)
	for b.Loop() {
		NewHandler(reg, nil, WithSink(rpcerror.NewSink(io.Discard, nil)), WithPageSize(5))
	}
}
