package progress

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"
)

// step is one thing a call does in a throttle test: after advancing the
// clock by wait, count requests GitHub requests, or expect more, or report
// an explicit step.
type step struct {
	wait     time.Duration
	requests int
	expect   int
	report   *Event
}

func TestReporterThrottle(t *testing.T) {
	tests := []struct {
		name   string
		steps  []step
		ok     bool
		failAt int // the send that fails (1-based; 0: none)
		want   []Event
	}{
		{
			name:  "unknown total: the first at once, the rest held back, the last completed at Finish",
			steps: []step{{requests: 1}, {wait: 10 * time.Millisecond, requests: 1}, {wait: 10 * time.Millisecond, requests: 1}},
			ok:    true,
			want: []Event{
				{Done: 1, Message: "1 GitHub request"},
				{Done: 3, Total: 3, Message: "3 of 3 GitHub requests"},
			},
		},
		{
			name:  "unknown total: one event per interval",
			steps: []step{{requests: 1}, {wait: 150 * time.Millisecond, requests: 1}, {wait: 10 * time.Millisecond, requests: 1}},
			want: []Event{
				{Done: 1, Message: "1 GitHub request"},
				{Done: 2, Message: "2 GitHub requests"},
				{Done: 3, Message: "3 GitHub requests"}, // held back, sent by Finish; the call failed: no completion
			},
		},
		{
			name:  "known total: every 10% step, and the last",
			steps: []step{{expect: 20}, {requests: 1}, {requests: 1}, {requests: 1}, {requests: 1}, {requests: 15}, {requests: 1}},
			ok:    true,
			want: []Event{
				{Done: 1, Total: 20, Message: "1 of 20 GitHub requests"},
				{Done: 3, Total: 20, Message: "3 of 20 GitHub requests"},
				{Done: 5, Total: 20, Message: "5 of 20 GitHub requests"},
				{Done: 7, Total: 20, Message: "7 of 20 GitHub requests"},
				{Done: 9, Total: 20, Message: "9 of 20 GitHub requests"},
				{Done: 11, Total: 20, Message: "11 of 20 GitHub requests"},
				{Done: 13, Total: 20, Message: "13 of 20 GitHub requests"},
				{Done: 15, Total: 20, Message: "15 of 20 GitHub requests"},
				{Done: 17, Total: 20, Message: "17 of 20 GitHub requests"},
				{Done: 19, Total: 20, Message: "19 of 20 GitHub requests"},
				{Done: 20, Total: 20, Message: "20 of 20 GitHub requests"},
			},
		},
		{
			name:  "more requests than expected raise the total",
			steps: []step{{expect: 2}, {requests: 1}, {requests: 1}, {requests: 1}},
			ok:    true,
			want: []Event{
				{Done: 1, Total: 2, Message: "1 of 2 GitHub requests"},
				{Done: 2, Total: 2, Message: "2 of 2 GitHub requests"},
				{Done: 3, Total: 3, Message: "3 of 3 GitHub requests"},
			},
		},
		{
			name:  "fewer requests than expected end at what was done",
			steps: []step{{expect: 40}, {requests: 1}, {requests: 1}, {wait: 10 * time.Millisecond, requests: 1}},
			ok:    true,
			want: []Event{
				{Done: 1, Total: 40, Message: "1 of 40 GitHub requests"},
				{Done: 3, Total: 3, Message: "3 of 3 GitHub requests"},
			},
		},
		{
			name:  "an event already sent is not sent again to complete it",
			steps: []step{{requests: 1}, {wait: time.Second, requests: 1}},
			ok:    true,
			want:  []Event{{Done: 1, Message: "1 GitHub request"}, {Done: 2, Message: "2 GitHub requests"}},
		},
		{
			name:  "an explicit step that goes back is dropped",
			steps: []step{{report: &Event{Done: 5, Total: 10, Message: "five"}}, {wait: time.Second, report: &Event{Done: 4, Total: 10}}, {wait: time.Second, report: &Event{Done: 10, Total: 10, Message: "all"}}},
			ok:    true,
			want:  []Event{{Done: 5, Total: 10, Message: "five"}, {Done: 10, Total: 10, Message: "all"}},
		},
		{
			name:   "a failed send stops the events",
			steps:  []step{{requests: 1}, {wait: time.Second, requests: 1}, {wait: time.Second, requests: 1}},
			ok:     true,
			failAt: 2,
			want:   []Event{{Done: 1, Message: "1 GitHub request"}, {Done: 2, Message: "2 GitHub requests"}},
		},
		{
			name: "no request, no event",
			ok:   true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Event
			clock := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
			r := New(func(e Event) error {
				got = append(got, e)
				if len(got) == tt.failAt {
					return errors.New("stream closed")
				}
				return nil
			})
			r.now = func() time.Time { return clock }
			ctx := With(context.Background(), r)
			for _, s := range tt.steps {
				clock = clock.Add(s.wait)
				if s.expect > 0 {
					Expect(ctx, s.expect)
				}
				for range s.requests {
					Request(ctx)
				}
				if s.report != nil {
					Report(ctx, s.report.Done, s.report.Total, s.report.Message)
				}
			}
			r.Finish(tt.ok)
			Request(ctx) // after Finish: never sent
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("events:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestTransport(t *testing.T) {
	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("{}"))
	}))
	t.Cleanup(gh.Close)
	tests := []struct {
		name     string
		paths    []string
		reporter bool
		want     int
	}{
		{name: "each answered request counts, an error status too", paths: []string{"/a", "/missing", "/b"}, reporter: true, want: 3},
		{name: "a request that gets no answer does not count", paths: []string{"/a", "unreachable"}, reporter: true, want: 1},
		{name: "without a reporter requests pass uncounted", paths: []string{"/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Event
			r := New(func(e Event) error { got = append(got, e); return nil })
			r.now = time.Now
			ctx := context.Background()
			if tt.reporter {
				ctx = With(ctx, r)
			}
			c := &http.Client{Transport: Transport{}}
			for _, p := range tt.paths {
				url := gh.URL + p
				if p == "unreachable" {
					url = "http://127.0.0.1:1/"
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
				resp, err := c.Do(req)
				if err == nil {
					_ = resp.Body.Close()
				} else if p != "unreachable" {
					t.Fatal(err)
				}
			}
			r.Finish(true)
			if r.requests != tt.want {
				t.Fatalf("counted %d requests, want %d", r.requests, tt.want)
			}
			if tt.want > 0 && (len(got) == 0 || got[len(got)-1].Done != float64(tt.want)) {
				t.Fatalf("events %+v: want the last at %d", got, tt.want)
			}
			if !tt.reporter && len(got) != 0 {
				t.Fatalf("events %+v without a reporter", got)
			}
		})
	}
}
