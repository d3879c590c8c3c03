package fakehub_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"

	"ghops.dev/services/fakehub"
)

// TestRateLimitStatus pins what go-github v66 makes of each forced rate limit: the 403 forms are
// typed, a 429 is a plain *github.ErrorResponse that callers must classify themselves.
func TestRateLimitStatus(t *testing.T) {
	tests := []struct {
		name       string
		fault      fakehub.Fault
		wantStatus int
		check      func(t *testing.T, err error)
	}{
		{"primary 403 by default", fakehub.Fault{RateLimit: "primary"}, 403, func(t *testing.T, err error) {
			var rl *github.RateLimitError
			if !errors.As(err, &rl) || rl.Rate.Remaining != 0 {
				t.Fatalf("want *github.RateLimitError, got %v (%T)", err, err)
			}
		}},
		{"primary 429", fakehub.Fault{RateLimit: "primary", RateLimitStatus: 429}, 429, func(t *testing.T, err error) {
			var rl *github.RateLimitError
			var ab *github.AbuseRateLimitError
			var er *github.ErrorResponse
			if errors.As(err, &rl) || errors.As(err, &ab) || !errors.As(err, &er) {
				t.Fatalf("want a plain *github.ErrorResponse, got %v (%T)", err, err)
			}
			if !strings.HasPrefix(er.Message, "API rate limit exceeded") || er.Response.Header.Get("X-RateLimit-Remaining") != "0" {
				t.Fatalf("message %q remaining %q", er.Message, er.Response.Header.Get("X-RateLimit-Remaining"))
			}
		}},
		{"secondary 403", fakehub.Fault{RateLimit: "secondary", RetryAfter: 7}, 403, func(t *testing.T, err error) {
			var ab *github.AbuseRateLimitError
			if !errors.As(err, &ab) || ab.RetryAfter == nil || ab.RetryAfter.Seconds() != 7 {
				t.Fatalf("want *github.AbuseRateLimitError, got %v (%T)", err, err)
			}
		}},
		{"secondary 429", fakehub.Fault{RateLimit: "secondary", RateLimitStatus: 429, RetryAfter: 7}, 429, func(t *testing.T, err error) {
			var ab *github.AbuseRateLimitError
			var er *github.ErrorResponse
			if errors.As(err, &ab) || !errors.As(err, &er) {
				t.Fatalf("want a plain *github.ErrorResponse, got %v (%T)", err, err)
			}
			if er.Response.Header.Get("Retry-After") != "7" || !strings.Contains(er.Message, "secondary rate limit") {
				t.Fatalf("retry-after %q message %q", er.Response.Header.Get("Retry-After"), er.Message)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.fault
			f.Method, f.Route, f.Count = "GET", "/repos/{owner}/{repo}", 1
			s := startHub(t, fakehub.Config{Faults: []fakehub.Fault{f}})
			_, resp, err := client(t, s, writer, "").Repositories.Get(context.Background(), "octo-org", "hello-world")
			if err == nil || resp == nil || resp.StatusCode != tc.wantStatus {
				t.Fatalf("resp %v err %v, want status %d", resp, err, tc.wantStatus)
			}
			tc.check(t, err)
			if st := s.Hub.Stats(); st.ByStatus[tc.wantStatus] != 1 {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

// TestRateLimitStatusAdmin sets a 429 fault over the admin API and reads it back.
func TestRateLimitStatusAdmin(t *testing.T) {
	s := startHub(t, fakehub.Config{AdminToken: "adm"})
	do := func(method, path, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer adm")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	if resp := do("PUT", "_fakehub/faults", `[{"route":"/search/code","rate_limit":"primary","rate_limit_status":429,"count":1}]`); resp.StatusCode != 204 {
		t.Fatalf("put faults: %d", resp.StatusCode)
	}
	var got []map[string]any
	if err := json.NewDecoder(do("GET", "_fakehub/faults", "").Body).Decode(&got); err != nil || len(got) != 1 || got[0]["rate_limit_status"] != float64(429) {
		t.Fatalf("faults %v err %v", got, err)
	}
	req, _ := http.NewRequest("GET", s.URL+"search/code?q=hello", nil)
	req.Header.Set("Authorization", "token "+writer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("X-RateLimit-Resource") != "code_search" || resp.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("status %d headers %v", resp.StatusCode, resp.Header)
	}
}

func TestParseFaults(t *testing.T) {
	tests := []struct {
		name, in string
		want     []fakehub.Fault
		wantErr  bool
	}{
		{"empty list", `[]`, []fakehub.Fault{}, false},
		{"429 primary", `[{"rate_limit":"primary","rate_limit_status":429}]`, []fakehub.Fault{{RateLimit: "primary", RateLimitStatus: 429}}, false},
		{"403 explicit", `[{"rate_limit":"secondary","rate_limit_status":403,"retry_after":5}]`, []fakehub.Fault{{RateLimit: "secondary", RateLimitStatus: 403, RetryAfter: 5}}, false},
		{"latency", `[{"method":"GET","route":"/rate_limit","latency":"250ms"}]`, []fakehub.Fault{{Method: "GET", Route: "/rate_limit", Latency: 250e6}}, false},
		{"bad rate limit status", `[{"rate_limit":"primary","rate_limit_status":500}]`, nil, true},
		{"bad rate limit kind", `[{"rate_limit":"tertiary"}]`, nil, true},
		{"bad error rate", `[{"error_rate":1.5}]`, nil, true},
		{"bad error status", `[{"error_rate":1,"error_status":42}]`, nil, true},
		{"negative latency", `[{"latency":"-1s"}]`, nil, true},
		{"bad latency", `[{"latency":"soon"}]`, nil, true},
		{"not a list", `{}`, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fakehub.ParseFaults([]byte(tc.in))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("fault %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}
