package pipeline

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"ghops.dev/gateway/internal/httpcall"
)

// trail records which middleware saw which call, in order.
type trail struct {
	mu    sync.Mutex
	steps []string
}

func (tr *trail) add(s string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.steps = append(tr.steps, s)
}

func (tr *trail) take() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	s := strings.Join(tr.steps, " ")
	tr.steps = nil
	return s
}

// tracer records the transport, method and answer code of every call it
// observes.
func tracer(tr *trail) Tracer {
	return func(ctx context.Context, x *Body, c *Call) (context.Context, func(Answer)) {
		method := ""
		if c.Request != nil {
			method = c.Request.Method
		}
		tr.add("start>" + x.Transport + ":" + method)
		return ctx, func(a Answer) {
			code := 0
			if a.Err != nil {
				code = a.Err.Code
			}
			tr.add("<end:" + strconv.Itoa(code))
		}
	}
}

// TestTracer: Options.Trace observes every call of every transport (HTTP
// and stdio alike), each batch element on its own, and sees the answer of
// a call that panicked: the -32603 of the one recover (serveCall).
func TestTracer(t *testing.T) {
	tr := &trail{}
	r := newRig(t, Options{Trace: tracer(tr)})
	cases := []struct {
		name, body, want string
	}{
		{"single", req("1", "ok"), "start>echo:ok <end:0"},
		{"notification", req("", "ok"), "start>echo:ok <end:0"},
		{"invalid element", `{"jsonrpc":"1.0","id":1,"method":"ok"}`, "start>echo: <end:-32600"},
		{"panic", req("1", "panic"), "start>echo:panic <end:-32603"},
	}
	for _, tc := range cases {
		t.Run("http/"+tc.name, func(t *testing.T) {
			httpcall.Do(t, http.MethodPost, r.url, tc.body)
			if got := tr.take(); got != tc.want {
				t.Errorf("trail %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("http/batch", func(t *testing.T) {
		httpcall.Do(t, http.MethodPost, r.url, "["+req("1", "ok")+","+req("2", "ok")+"]")
		if got := tr.take(); strings.Count(got, "start>echo:ok") != 2 || strings.Count(got, "<end:0") != 2 {
			t.Errorf("trail %q", got)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		s := startStream(t, r, context.Background())
		s.roundTrip(t, req("1", "ok"))
		if got, want := tr.take(), "start>echo:ok <end:0"; got != want {
			t.Errorf("trail %q, want %q", got, want)
		}
	})
}
