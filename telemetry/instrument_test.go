package telemetry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"ghops.dev/telemetry"
)

func TestRedactURL(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "https://api.github.com/repos/o/r/contents/a.md", "https://api.github.com/repos/o/r/contents/a.md"},
		{"query values", "https://api.github.com/search/code?q=secret+words&per_page=5", "https://api.github.com/search/code"},
		{"user information", "https://user:pass@ghe.example/api/v3/user", "https://ghe.example/api/v3/user"},
		{"fragment", "https://api.github.com/x#frag", "https://api.github.com/x"},
		{"token in the path", "https://api.github.com/repos/o/r/contents/ghp_0123456789abcdefghijABCDEFGHIJ012345", "https://api.github.com/repos/o/r/contents/[REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := url.Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := telemetry.RedactURL(u); got != tt.want {
				t.Fatalf("RedactURL(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// TestGitHubTransport sends one request through the traced GitHub
// transport to a loopback server answering as GitHub does: the client span
// holds the status, the rate limit and GitHub's request id, the URL without
// its query values, and no trace of the Authorization header.
func TestGitHubTransport(t *testing.T) {
	const secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Ratelimit-Remaining", "4987")
		w.Header().Set("X-Ratelimit-Resource", "core")
		w.Header().Set("X-Github-Request-Id", "AB12:3456")
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	p := telemetry.New(tp)
	client := &http.Client{Transport: p.GitHubTransport(http.DefaultTransport, telemetry.GitHubContextOff)}
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/repos/o/r/contents/x?ref=main&token="+secret, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+secret)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("status %d", resp.StatusCode)
	}
	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	attrs := map[attribute.Key]attribute.Value{}
	for _, a := range spans[0].Attributes() {
		attrs[a.Key] = a.Value
		if strings.Contains(a.Value.Emit(), secret) {
			t.Errorf("attribute %s holds the token: %s", a.Key, a.Value.Emit())
		}
	}
	want := map[attribute.Key]string{
		"http.response.status_code":      "404",
		telemetry.AttrRateLimitRemaining: "4987",
		telemetry.AttrRateLimitResource:  "core",
		telemetry.AttrGitHubRequestID:    "AB12:3456",
		"url.full":                       srv.URL + "/repos/o/r/contents/x",
		"http.request.method":            "GET",
	}
	for k, v := range want {
		if got := attrs[k].Emit(); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	for _, e := range spans[0].Events() {
		for _, a := range e.Attributes {
			if strings.Contains(a.Value.Emit(), secret) {
				t.Errorf("event %s holds the token", e.Name)
			}
		}
	}
}

// TestGitHubTransportContext sends a request made in a caller's trace,
// with the caller's baggage in its context and propagation headers
// already on it, to a loopback server recording what arrives: GitHub gets
// no baggage and never the caller's trace id; with GitHubContextOff no
// trace context at all, with GitHubContextService the traceparent of a new
// root span of the service's, linked to the request's span, which itself
// stays in the caller's trace.
func TestGitHubTransportContext(t *testing.T) {
	const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	var mu sync.Mutex
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Clone()
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	callerCtx := func(t *testing.T) context.Context {
		t.Helper()
		tid, _ := trace.TraceIDFromHex(callerTrace)
		sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
		ctx := trace.ContextWithRemoteSpanContext(context.Background(),
			trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
		m, err := baggage.NewMember("user", "alice@example.com")
		if err != nil {
			t.Fatal(err)
		}
		b, err := baggage.New(m)
		if err != nil {
			t.Fatal(err)
		}
		return baggage.ContextWithBaggage(ctx, b)
	}
	tests := []struct {
		name      string
		gc        telemetry.GitHubContext
		wantTrace bool
	}{
		{name: "off", gc: telemetry.GitHubContextOff},
		{name: "service", gc: telemetry.GitHubContextService, wantTrace: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			hc := &http.Client{Transport: telemetry.New(tp).GitHubTransport(http.DefaultTransport, tt.gc)}
			req, err := http.NewRequestWithContext(callerCtx(t), http.MethodGet, srv.URL+"/repos/o/r", nil)
			if err != nil {
				t.Fatal(err)
			}
			// Headers some layer above might have copied from the caller.
			req.Header.Set("Traceparent", "00-"+callerTrace+"-00f067aa0ba902b7-01")
			req.Header.Set("Baggage", "user=alice@example.com")
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			mu.Lock()
			h := got
			mu.Unlock()
			if h.Get("Baggage") != "" {
				t.Errorf("GitHub received baggage %q", h.Get("Baggage"))
			}
			tp1 := h.Get("Traceparent")
			if strings.Contains(tp1, callerTrace) || strings.Contains(h.Get("Tracestate"), callerTrace) {
				t.Fatalf("GitHub received the caller's trace id: %q", tp1)
			}
			var client, own sdktrace.ReadOnlySpan
			for _, s := range rec.Ended() {
				if s.SpanContext().TraceID().String() == callerTrace {
					client = s
				} else {
					own = s
				}
			}
			if client == nil {
				t.Fatal("the request's span left the caller's trace")
			}
			if !tt.wantTrace {
				if tp1 != "" || h.Get("Tracestate") != "" || own != nil {
					t.Errorf("GitHub received trace context %q (own span %v)", tp1, own)
				}
				return
			}
			if own == nil {
				t.Fatal("no span of the service's own")
			}
			if want := "00-" + own.SpanContext().TraceID().String() + "-" + own.SpanContext().SpanID().String() + "-01"; tp1 != want {
				t.Errorf("traceparent %q, want the service's own %q", tp1, want)
			}
			if own.Parent().IsValid() || len(own.Links()) != 1 || own.Links()[0].SpanContext.SpanID() != client.SpanContext().SpanID() {
				t.Errorf("own span: parent %v, links %v; want a root linked to the request's span", own.Parent(), own.Links())
			}
		})
	}
}
