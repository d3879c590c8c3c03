package pipeline

import (
	"bytes"
	"context"
	"net/http"
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

// named is a middleware that records its name, the transport and the
// method before and after the call; on the method "mw-panic" it panics.
func named(tr *trail, name string) Middleware {
	return func(next Handler) Handler {
		return func(ctx context.Context, x *Body, c *Call) Answer {
			method := ""
			if c.Request != nil {
				method = c.Request.Method
			}
			if name == "inner" && method == "mw-panic" {
				panic("middleware panic with ghp_abcdefghijklmnopqrstuvwxyz0123456789")
			}
			tr.add(name + ">" + x.Transport + ":" + method)
			a := next(ctx, x, c)
			tr.add(name + "<")
			return a
		}
	}
}

// TestMiddlewareChain: Options.Middleware wraps every call of every
// transport (HTTP and stdio alike), the first outermost, each batch
// element on its own; a nil middleware is skipped; a panic in a middleware
// is contained by Recover like one in a transport.
func TestMiddlewareChain(t *testing.T) {
	tr := &trail{}
	r := newRig(t, Options{Middleware: []Middleware{named(tr, "outer"), nil, named(tr, "inner")}})
	cases := []struct {
		name, body, want string
	}{
		{"single", req("1", "ok"), "outer>echo:ok inner>echo:ok inner< outer<"},
		{"notification", req("", "ok"), "outer>echo:ok inner>echo:ok inner< outer<"},
		{"invalid element", `{"jsonrpc":"1.0","id":1,"method":"ok"}`, "outer>echo: inner>echo: inner< outer<"},
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
		if got := tr.take(); strings.Count(got, "outer>echo:ok") != 2 || strings.Count(got, "inner<") != 2 {
			t.Errorf("trail %q", got)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		s := startStream(t, r, context.Background())
		s.roundTrip(t, req("1", "ok"))
		if got, want := tr.take(), "outer>echo:ok inner>echo:ok inner< outer<"; got != want {
			t.Errorf("trail %q, want %q", got, want)
		}
	})
	t.Run("panic in middleware", func(t *testing.T) {
		resp, body := httpcall.Do(t, http.MethodPost, r.url, req("1", "mw-panic"))
		if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"code":-32603`)) || bytes.Contains(body, []byte("ghp_")) {
			t.Fatalf("HTTP %d %s", resp.StatusCode, body)
		}
		if logs := r.logs.String(); strings.Contains(logs, "ghp_abcdef") || !strings.Contains(logs, "panic serving a call (echo)") {
			t.Errorf("logs: %s", logs)
		}
		if got, want := tr.take(), "outer>echo:mw-panic"; got != want { // the panic unwinds outer too
			t.Errorf("trail %q, want %q", got, want)
		}
	})
}
