package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"ghops.dev/infra/outcome"
)

// TestLostAnswerOfAWrite: when the client loses the gateway's answer after
// the request reached it (the connection dropped while waiting), a write's
// error says the outcome is unknown and what to check; a read's, or a
// failure to connect at all, does not.
func TestLostAnswerOfAWrite(t *testing.T) {
	var received atomic.Int32
	drop := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		received.Add(1)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close() // the answer is lost
		}
	})
	dropURL := serve(t, drop)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + l.Addr().String()
	_ = l.Close() // nothing listens there: the dial fails
	const write = `{"repo":"o/r","branch":"main","message":"m","files":[{"path":"a","content":"b"}]}`
	tests := []struct {
		name, url, tool, args string
		wantReceived          int32
		unknown               bool
	}{
		{"write, answer lost", dropURL, "commit_files", write, 1, true},
		{"read, answer lost", dropURL, "fetch", `{"repo":"o/r"}`, 1, false},
		{"write, gateway unreachable", closedURL, "commit_files", write, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := received.Load()
			c := newTestClient(t, tc.url)
			_, err := c.CallRaw(context.Background(), tc.tool, json.RawMessage(tc.args))
			if got := received.Load() - before; got != tc.wantReceived {
				t.Fatalf("the gateway received %d requests, want %d", got, tc.wantReceived)
			}
			if !errors.Is(err, ErrTransport) {
				t.Fatalf("got %v, want a transport error", err)
			}
			if got := errors.Is(err, ErrOutcomeUnknown); got != tc.unknown {
				t.Fatalf("errors.Is(ErrOutcomeUnknown) = %v, want %v: %v", got, tc.unknown, err)
			}
			if said := strings.Contains(err.Error(), outcome.Check); said != tc.unknown {
				t.Errorf("the text names the check: %v, want %v: %v", said, tc.unknown, err)
			}
		})
	}
}
