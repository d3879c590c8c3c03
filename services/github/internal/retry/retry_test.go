package retry

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestTransport(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		failures   int
		status     int
		retryAfter string
		body       string
		timeout    time.Duration
		wantCalls  int32
		wantStatus int
		wantErr    bool
	}{
		{name: "GET 5xx retried until success", method: "GET", failures: 2, status: 502, wantCalls: 3, wantStatus: 200},
		{name: "GET 5xx gives up after retries", method: "GET", failures: 10, status: 503, wantCalls: 4, wantStatus: 503},
		{name: "POST 5xx never retried", method: "POST", failures: 10, status: 502, wantCalls: 1, wantStatus: 502},
		{name: "short secondary limit waited out", method: "GET", failures: 1, status: 429, retryAfter: "0", body: "You have exceeded a secondary rate limit", wantCalls: 2, wantStatus: 200},
		{name: "long secondary limit returned", method: "GET", failures: 1, status: 403, retryAfter: "120", body: "You have exceeded a secondary rate limit", wantCalls: 1, wantStatus: 403},
		{name: "primary limit returned", method: "GET", failures: 1, status: 403, body: "API rate limit exceeded", wantCalls: 1, wantStatus: 403},
		{name: "4xx not retried", method: "GET", failures: 1, status: 404, wantCalls: 1, wantStatus: 404},
		{name: "no wait past the deadline", method: "GET", failures: 10, status: 500, timeout: 50 * time.Millisecond, wantCalls: 1, wantStatus: 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if int(calls.Add(1)) <= tt.failures {
					if tt.retryAfter != "" {
						w.Header().Set("Retry-After", tt.retryAfter)
					}
					if tt.status == 403 && tt.retryAfter == "" {
						w.Header().Set("X-RateLimit-Remaining", "0")
					}
					w.WriteHeader(tt.status)
					_, _ = io.WriteString(w, `{"message":"`+tt.body+`"}`)
					return
				}
				_, _ = io.WriteString(w, "ok")
			}))
			t.Cleanup(ts.Close)
			tr := &Transport{Retries: 3, BaseDelay: 200 * time.Millisecond, MaxRetryAfter: 5 * time.Second}
			if tt.timeout == 0 {
				tr.BaseDelay = time.Millisecond
			}
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			req, _ := http.NewRequestWithContext(ctx, tt.method, ts.URL, nil)
			resp, err := tr.RoundTrip(req)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus || calls.Load() != tt.wantCalls {
				t.Errorf("status %d after %d calls, want %d after %d", resp.StatusCode, calls.Load(), tt.wantStatus, tt.wantCalls)
			}
			if tt.body != "" && resp.StatusCode != 200 && !strings.Contains(string(body), tt.body) {
				t.Errorf("body not handed on intact: %q", body)
			}
		})
	}
}

func TestConnectionErrorRetried(t *testing.T) {
	var calls atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			conn, _, _ := w.(http.Hijacker).Hijack()
			_ = conn.Close()
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(ts.Close)
	tr := &Transport{Base: &http.Transport{DisableKeepAlives: true}, Retries: 2, BaseDelay: time.Millisecond}
	req, _ := http.NewRequest("GET", ts.URL, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 200 || calls.Load() != 2 {
		t.Errorf("status %d after %d calls", resp.StatusCode, calls.Load())
	}
}
