package mcp

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"ghops.dev/gateway/internal/fakeservicetest"
	"ghops.dev/gateway/internal/logtest"
	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
)

// TestUnknownToolSpendsTheRate: an unknown tool on /mcp, refused by the
// call path once its rate is spent, is charged to the caller's rate like
// any call, and once the rate is spent it is answered -32004 with
// Retry-After.
func TestUnknownToolSpendsTheRate(t *testing.T) {
	reg := newRegistry(t)
	caller := toolcall.New(reg, fakeservicetest.Serve(t, fakeService{}), toolcall.WithTimeout(5*time.Second))
	log := &logtest.Buffer{}
	logger := slog.New(slog.NewJSONHandler(log, nil))
	s, err := New(reg, caller, WithSessionSecret([]byte("test-secret")), WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	p := pipeline.New(pipeline.Options{MaxBody: 1 << 16, MaxBatch: 10, Sink: rpcerror.NewSink(log, logger), Logger: logger})
	// A principal allowed two calls a minute (authentication in front, as
	// package authn puts the caller in the context).
	pr := &policy.Caller{Principal: &policy.Principal{Name: "two", Rules: policy.Rules{RatePerMinute: 2}}, Via: policy.KindAPIKey}
	h := p.Handler(s.HTTP())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(policy.WithCaller(r.Context(), pr)))
	}))
	t.Cleanup(srv.Close)
	ts := &testServer{s: s, p: p, srv: srv, log: log}
	unknown := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`
	for i, want := range []int{rpcerror.InvalidParamsCode, rpcerror.InvalidParamsCode, rpcerror.RateLimited} {
		r := ts.post(t, unknown)
		m := decode(t, r.body)
		e, _ := m["error"].(map[string]any)
		if code, _ := e["code"].(float64); int(code) != want {
			t.Fatalf("call %d: %s, want code %d", i+1, r.body, want)
		}
		if want == rpcerror.RateLimited {
			if secs, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || secs < 1 {
				t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
			}
		}
	}
}
