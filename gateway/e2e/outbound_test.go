package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/servicetest"
	"ghops.dev/telemetry"

	"ghops.dev/gateway/gatewaytest"
	"ghops.dev/gateway/internal/httpcall"
)

// TestCallerContextStaysInside sends read_file over /mcp with the caller's
// traceparent and baggage headers through the whole traced stack (gateway,
// service, and fakehub behind a recording proxy, all on 127.0.0.1): the
// caller's trace goes on inside ghops, but no request GitHub receives
// carries the baggage, the caller's trace id or any trace context at all
// (the service's default, -github-trace-context=off).
func TestCallerContextStaysInside(t *testing.T) {
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	target, err := url.Parse(hub.URL)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []http.Header
	proxy := httputil.NewSingleHostReverseProxy(target)
	rec := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(rec.Close)
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	p := telemetry.New(tp)
	svc := servicetest.Start(t, servicetest.Options{GitHubURL: rec.URL + "/", Token: fakehub.DemoToken, Telemetry: p})
	gw := gatewaytest.StartGateway(t, svc.Addr, gatewaytest.StackOptions{Telemetry: p})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"repo":"octo-org/hello-world","path":"README.md"}}}`
	resp, b := httpcall.Do(t, http.MethodPost, gw.URL+"/mcp", body, "Content-Type", "application/json",
		"Accept", "application/json, text/event-stream",
		"Traceparent", "00-"+traceID1+"-"+parentSpan+"-01", "Baggage", "user=alice%40example.com,tenant=acme")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"content"`) {
		t.Fatalf("answer %d %s", resp.StatusCode, b)
	}
	s := waitSpans(t, spans, mustTraceID(t, traceID1), "tools/call read_file", func(s traceSpans) bool {
		return s.grpcServer != nil && len(s.github) > 0
	})
	if len(s.github) == 0 {
		t.Fatal("the GitHub requests' spans left the caller's trace")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("GitHub received no request")
	}
	for i, h := range seen {
		for _, k := range []string{"Traceparent", "Tracestate", "Baggage"} {
			if v := h.Get(k); v != "" {
				t.Errorf("GitHub request %d carries %s: %q", i, k, v)
			}
		}
		for k, v := range h {
			if j := strings.Join(v, ","); strings.Contains(j, traceID1) || strings.Contains(j, "alice") || strings.Contains(j, "acme") {
				t.Errorf("GitHub request %d header %s holds the caller's context: %q", i, k, j)
			}
		}
	}
}
