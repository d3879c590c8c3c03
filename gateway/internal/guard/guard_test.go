package guard

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"ghops.dev/gateway/internal/logtest"
	"ghops.dev/gateway/internal/rpcerror"
)

// TestGuard checks every rule with the request a browser or an attacker
// would send; a refused request never reaches the handler behind.
func TestGuard(t *testing.T) {
	logs := &logtest.Buffer{}
	g := New(Options{
		ListenAddr:     "127.0.0.1:8788",
		AllowedHosts:   []string{"ghops.example", "*.corp.example"},
		AllowedOrigins: []string{"https://app.example"},
		Sink:           rpcerror.NewSink(logs, slog.New(slog.NewJSONHandler(logs, nil))),
	})
	var reached atomic.Int32
	h := g.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { reached.Add(1) }))
	tests := []struct {
		name, method, host, origin, ctype string
		want                              int
	}{
		{"plain client", "POST", "127.0.0.1:8788", "", "application/json", 200},
		{"charset parameter", "POST", "127.0.0.1:8788", "", "application/json; charset=utf-8", 200},
		{"localhost", "POST", "localhost:8788", "", "application/json", 200},
		{"IPv6 loopback", "POST", "[::1]:8788", "", "application/json", 200},
		{"any IP literal", "POST", "10.1.2.3:8788", "", "application/json", 200},
		{"configured host", "POST", "ghops.example", "", "application/json", 200},
		{"configured host pattern", "POST", "mcp.corp.example:443", "", "application/json", 200},
		{"same origin", "POST", "ghops.example", "https://ghops.example", "application/json", 200},
		{"configured origin", "POST", "ghops.example", "https://app.example", "application/json", 200},
		{"local inspector on loopback", "POST", "localhost:8788", "http://localhost:6274", "application/json", 200},
		{"GET passes to the endpoint's own 405", "GET", "127.0.0.1:8788", "", "", 200},
		{"DNS rebinding", "POST", "evil.example.com:8788", "", "application/json", 403},
		{"DNS rebinding with its own origin", "POST", "evil.example.com:8788", "http://evil.example.com:8788", "application/json", 403},
		{"pattern is a suffix, not a substring", "POST", "corp.example.evil.com", "", "application/json", 403},
		{"foreign origin", "POST", "127.0.0.1:8788", "https://evil.example", "application/json", 403},
		{"loopback origin to a named host", "POST", "ghops.example", "http://localhost:6274", "application/json", 403},
		{"null origin", "POST", "127.0.0.1:8788", "null", "application/json", 403},
		{"simple cross-site request", "POST", "127.0.0.1:8788", "", "text/plain", 415},
		{"form post", "POST", "127.0.0.1:8788", "", "application/x-www-form-urlencoded", 415},
		{"no content type", "POST", "127.0.0.1:8788", "", "", 415},
		{"JSON with a charset", "POST", "127.0.0.1:8788", "", "application/json; charset=utf-8", 200},
		{"JSON in upper case", "POST", "127.0.0.1:8788", "", "Application/JSON", 200},
		{"JSON as a prefix", "POST", "127.0.0.1:8788", "", "application/jsonx", 415},
		{"cross-site write in a browser", "POST", "evil.example.com", "https://evil.example.com", "text/plain", 403},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := reached.Load()
			r := httptest.NewRequest(tc.method, "/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"commit_files"}`))
			r.Host = tc.host
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			if tc.ctype != "" {
				r.Header.Set("Content-Type", tc.ctype)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.want {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.want, w.Body)
			}
			passed := reached.Load() > before
			if passed != (tc.want == 200) {
				t.Fatalf("reached the handler: %v", passed)
			}
			if tc.want != 200 && !bytes.Contains(w.Body.Bytes(), []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`)) {
				t.Errorf("refusal is not a JSON-RPC error: %s", w.Body)
			}
		})
	}
	refusals := 0
	for _, tc := range tests {
		if tc.want != 200 {
			refusals++
		}
	}
	if n := len(logs.ErrorLines()); n != refusals {
		t.Errorf("%d jsonrpc_error lines for %d refusals", n, refusals)
	}
}
