package callcap_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"ghops.dev/services/github/internal/callcap"
)

// TestTransport sends requests under calls with caps and counts what
// reached a loopback server: never more than the cap per call, the one
// past it refused with *Exceeded naming the limit, and calls without a
// cap, or other calls, unaffected.
func TestTransport(t *testing.T) {
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { got.Add(1) }))
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: callcap.Transport{}}
	tests := []struct {
		name       string
		limit      int
		requests   int
		concurrent bool
		wantSent   int
	}{
		{name: "under the cap", limit: 5, requests: 3, wantSent: 3},
		{name: "at the cap", limit: 5, requests: 5, wantSent: 5},
		{name: "past the cap", limit: 5, requests: 9, wantSent: 5},
		{name: "past the cap, concurrently", limit: 7, requests: 40, concurrent: true, wantSent: 7},
		{name: "no cap", limit: 0, requests: 12, wantSent: 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got.Store(0)
			ctx, counter := callcap.With(context.Background(), tt.limit)
			var mu sync.Mutex
			var refused []error
			send := func() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
				resp, err := client.Do(req)
				if err != nil {
					mu.Lock()
					refused = append(refused, err)
					mu.Unlock()
					return
				}
				_ = resp.Body.Close()
			}
			var wg sync.WaitGroup
			for range tt.requests {
				if tt.concurrent {
					wg.Go(send)
				} else {
					send()
				}
			}
			wg.Wait()
			if int(got.Load()) != tt.wantSent {
				t.Fatalf("server saw %d requests, want %d", got.Load(), tt.wantSent)
			}
			if len(refused) != tt.requests-tt.wantSent {
				t.Fatalf("%d refused, want %d", len(refused), tt.requests-tt.wantSent)
			}
			for _, err := range refused {
				var ex *callcap.Exceeded
				if !errors.As(err, &ex) || ex.Limit != tt.limit {
					t.Fatalf("refusal %v, want *Exceeded with limit %d", err, tt.limit)
				}
			}
			if counter != nil && counter.Sent() != tt.wantSent {
				t.Errorf("Sent() = %d, want %d", counter.Sent(), tt.wantSent)
			}
		})
	}
}

func ExampleExceeded() {
	fmt.Println((&callcap.Exceeded{Limit: 200}).Error())
	// Output: the call needs more than 200 GitHub requests (the per-call limit, -max-requests-per-call); the request was not sent to GitHub
}
