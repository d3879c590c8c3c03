package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"sync"
	"testing"
	"time"
)

// fakeSleeper records the waits instead of sleeping.
type fakeSleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (f *fakeSleeper) sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits = append(f.waits, d)
	return ctx.Err()
}

// TestRetries checks which tools are retried, after how long and how often.
func TestRetries(t *testing.T) {
	rateLimited := reply{body: `{"jsonrpc":"2.0","id":ID,"error":{"code":-32004,"message":"rate limited","data":{"tool":"x","retryAfter":7}}}`}
	rateLimitedNoWait := reply{body: `{"jsonrpc":"2.0","id":ID,"error":{"code":-32004,"message":"rate limited"}}`}
	rateLimitedLong := reply{body: `{"jsonrpc":"2.0","id":ID,"error":{"code":-32004,"message":"rate limited","data":{"retryAfter":3600}}}`}
	unavailable := reply{status: http.StatusServiceUnavailable, contentType: "text/html", header: map[string]string{"Retry-After": "3"}, body: "<h1>down</h1>"}
	unavailableNoHeader := reply{status: http.StatusServiceUnavailable, contentType: "text/html", body: "<h1>down</h1>"}
	notFound := errorReply(CodeNotFound, "Not Found", "")
	ok := reply{body: `{"jsonrpc":"2.0","id":ID,"result":{"ok":true}}`}
	tests := []struct {
		name      string
		tool      string
		retries   int
		replies   []reply
		wantCalls int
		wantWaits []time.Duration
		wantErr   error
	}{
		{"read-only tool retried after Retry-After then succeeds", "search", 3, []reply{rateLimited, rateLimited, ok}, 3, []time.Duration{7 * time.Second, 7 * time.Second}, nil},
		{"attempts are bounded", "read_file", 2, []reply{rateLimited}, 3, []time.Duration{7 * time.Second, 7 * time.Second}, ErrRateLimited},
		{"no retries by default", "search", 0, []reply{rateLimited, ok}, 1, nil, ErrRateLimited},
		{"mutating create_pull_request never retried", "create_pull_request", 5, []reply{rateLimited, ok}, 1, nil, ErrRateLimited},
		{"destructive merge_pull_request never retried", "merge_pull_request", 5, []reply{rateLimited, ok}, 1, nil, ErrRateLimited},
		{"destructive commit_files never retried", "commit_files", 5, []reply{rateLimited, ok}, 1, nil, ErrRateLimited},
		{"idempotent update_pull_request retried as tool.proto allows", "update_pull_request", 1, []reply{rateLimited, ok}, 2, []time.Duration{7 * time.Second}, nil},
		{"unknown tool never retried", "no_such_tool", 5, []reply{rateLimited, ok}, 1, nil, ErrRateLimited},
		{"rate limit without a wait waits one second", "fetch", 1, []reply{rateLimitedNoWait, ok}, 2, []time.Duration{time.Second}, nil},
		{"a wait over the bound is not waited", "fetch", 3, []reply{rateLimitedLong, ok}, 1, nil, ErrRateLimited},
		{"503 with Retry-After retried", "get_tree", 1, []reply{unavailable, ok}, 2, []time.Duration{3 * time.Second}, nil},
		{"503 without Retry-After not retried", "get_tree", 3, []reply{unavailableNoHeader, ok}, 1, nil, ErrHTTPStatus},
		{"other errors not retried", "fetch", 3, []reply{notFound, ok}, 1, nil, ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{replies: tc.replies}
			sl := &fakeSleeper{}
			c := newTestClient(t, serve(t, rec), WithRetries(tc.retries), WithSleep(sl.sleep), WithMaxRetryWait(time.Minute))
			res, err := c.CallRaw(context.Background(), tc.tool, json.RawMessage(`{}`))
			if tc.wantErr == nil && (err != nil || string(res) != `{"ok":true}`) {
				t.Errorf("CallRaw = %s, %v; want the result", res, err)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			if got := rec.count(); got != tc.wantCalls {
				t.Errorf("calls = %d, want %d", got, tc.wantCalls)
			}
			if !reflect.DeepEqual(sl.waits, tc.wantWaits) {
				t.Errorf("waits = %v, want %v", sl.waits, tc.wantWaits)
			}
		})
	}
}

// TestRetryStopsWhenContextEnds checks that a cancelled wait ends the call.
func TestRetryStopsWhenContextEnds(t *testing.T) {
	rec := &recorder{replies: []reply{{body: `{"jsonrpc":"2.0","id":ID,"error":{"code":-32004,"message":"rl","data":{"retryAfter":1}}}`}}}
	ctx, cancel := context.WithCancel(context.Background())
	c := newTestClient(t, serve(t, rec), WithRetries(5), WithSleep(func(ctx context.Context, d time.Duration) error {
		cancel()
		return ctx.Err()
	}))
	_, err := c.CallRaw(ctx, "search", nil)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrRateLimited) {
		t.Errorf("err = %v, want canceled and rate limited", err)
	}
	if rec.count() != 1 {
		t.Errorf("calls = %d, want 1", rec.count())
	}
}
