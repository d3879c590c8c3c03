package mcp

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkToolsCall measures one tools/call through the pipeline, the MCP
// envelope and the SDK session, to the fake service over loopback gRPC, at
// 2025-06-18 with a session (the shape of ghops-load's /mcp runs).
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
