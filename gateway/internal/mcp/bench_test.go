package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolschema"
)

// echoCaller answers every call with a small result at once, so that the
// benchmarks below measure the MCP layer and the pipeline alone.
type echoCaller struct{ reg *toolschema.Registry }

// newEchoCaller returns an echoCaller offering the test registry's tools.
func newEchoCaller(t testing.TB) echoCaller { return echoCaller{reg: newRegistry(t)} }

func (c echoCaller) Call(_ context.Context, r toolcall.Request) (json.RawMessage, *toolschema.Tool, *rpcerror.Error) {
	tool, ok := c.reg.Lookup(r.Name)
	if !ok {
		return nil, nil, rpcerror.New(rpcerror.InvalidParamsCode, "", rpcerror.Tool(r.Name))
	}
	return json.RawMessage(`{"ok":true}`), tool, nil
}

// benchHandler is the /mcp handler over an instant call path.
func benchHandler(b *testing.B) (http.Handler, *Server) {
	s, err := New(newRegistry(b), newEchoCaller(b), WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	p := pipeline.New(pipeline.Options{Sink: rpcerror.NewSink(io.Discard, slog.New(slog.DiscardHandler)), Logger: slog.New(slog.DiscardHandler)})
	return p.Handler(s.HTTP()), s
}

// benchPost serves body through h and fails on a non-200 answer.
func benchPost(b *testing.B, h http.Handler, body string, hdr ...string) {
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK || bytes.Contains(w.Body.Bytes(), []byte(`"error"`)) {
		b.Fatalf("status %d: %s", w.Code, w.Body)
	}
}

// BenchmarkToolsList measures tools/list at 2025-11-25.
func BenchmarkToolsList(b *testing.B) {
	h, _ := benchHandler(b)
	b.ReportAllocs()
	for b.Loop() {
		benchPost(b, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "MCP-Protocol-Version", V20251125)
	}
}

// BenchmarkToolsCallStateless measures a 2026-07-28 tools/call, header
// checks included, with an instant call path.
func BenchmarkToolsCallStateless(b *testing.B) {
	h, _ := benchHandler(b)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	b.ReportAllocs()
	for b.Loop() {
		benchPost(b, h, body, "MCP-Protocol-Version", V20260728, "Mcp-Method", "tools/call", "Mcp-Name", "search")
	}
}

// BenchmarkToolsCallSession measures a 2025-06-18 tools/call with a
// session (the shape of ghops-load's /mcp runs), with an instant call path.
func BenchmarkToolsCallSession(b *testing.B) {
	h, s := benchHandler(b)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"}}}`
	sid := s.sess.mint(V20250618, "")
	b.ReportAllocs()
	for b.Loop() {
		benchPost(b, h, body, "MCP-Protocol-Version", V20250618, "Mcp-Session-Id", sid)
	}
}

// BenchmarkToolsCall measures one tools/call through the pipeline, the MCP
// transport and the call path, to the fake service over loopback gRPC, at
// 2025-06-18 with a session.
func BenchmarkToolsCall(b *testing.B) {
	s := newTestServer(b)
	sid := s.post(b, strings.Replace(initialize1125, "2025-11-25", V20250618, 1)).header.Get("Mcp-Session-Id")
	h := s.p.Handler(s.s.HTTP())
	body := []byte(mergeCall(1, false))
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", V20250618)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`merged`)) {
			b.Fatalf("%d %s", rec.Code, rec.Body.Bytes())
		}
	}
}
