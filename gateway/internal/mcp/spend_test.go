package mcp

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"ghops.dev/gateway/internal/dispatch"
	"ghops.dev/gateway/internal/fakeservicetest"
	"ghops.dev/gateway/internal/logtest"
	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
)

// rateOfTwo is the real call path whose Spend allows two calls, then
// answers -32004 as a spent rate does.
type rateOfTwo struct {
	*toolcall.Caller
	spent atomic.Int32
}

func (r *rateOfTwo) Spend(_ context.Context, name string) *rpcerror.Error {
	if r.spent.Add(1) <= 2 {
		return nil
	}
	e := rpcerror.New(rpcerror.RateLimited, "", rpcerror.Tool(name))
	e.RetryAfter = 20
	return e
}

// TestUnknownToolSpendsTheRate: an unknown tool on /mcp, refused before the
// call path runs, is still charged to the caller's rate, and once the rate
// is spent it is answered -32004 with Retry-After.
func TestUnknownToolSpendsTheRate(t *testing.T) {
	reg := newRegistry(t)
	caller := &rateOfTwo{Caller: toolcall.New(reg, fakeservicetest.Serve(t, fakeService{}), toolcall.WithTimeout(5*time.Second))}
	log := &logtest.Buffer{}
	logger := slog.New(slog.NewJSONHandler(log, nil))
	s, err := New(reg, dispatch.New(caller), WithSessionSecret([]byte("test-secret")), WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	p := pipeline.New(pipeline.Options{MaxBody: 1 << 16, MaxBatch: 10, Sink: rpcerror.NewSink(log, logger), Logger: logger})
	srv := httptest.NewServer(p.Handler(s.HTTP()))
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
		if want == rpcerror.RateLimited && r.header.Get("Retry-After") != "20" {
			t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
		}
	}
	if n := caller.spent.Load(); n != 3 {
		t.Errorf("Spend called %d times for 3 calls", n)
	}
}
