package telemetry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

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
		if r.Header.Get("Traceparent") == "" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
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
	client := &http.Client{Transport: p.GitHubTransport(http.DefaultTransport)}
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
		t.Fatalf("status %d: the traceparent header was not sent", resp.StatusCode)
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
