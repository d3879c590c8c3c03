package faults

import (
	"testing"
	"time"
)

func TestDecide(t *testing.T) {
	s := NewSet()
	s.Replace([]Rule{
		{Method: "GET", Route: "/repos/{owner}/{repo}", ErrorRate: 1, ErrorStatus: 503, Count: 2},
		{Route: "/repos/*/*/pulls/*", Latency: time.Millisecond},
		{Method: "POST", Route: "/repos/{owner}/{repo}/git/blobs", ErrorRate: 0, ErrorStatus: 500},
		{Method: "GET", Route: "/search/*", RateLimit: "primary", RateLimitStatus: 429, RetryAfter: 9, Count: 1},
	})
	tests := []struct {
		name, method, tmpl, path string
		want                     Action
	}{
		{"first error", "GET", "/repos/{owner}/{repo}", "/repos/o/r", Action{Status: 503}},
		{"second error", "GET", "/repos/{owner}/{repo}", "/repos/o/r", Action{Status: 503}},
		{"count exhausted", "GET", "/repos/{owner}/{repo}", "/repos/o/r", Action{}},
		{"other method", "POST", "/repos/{owner}/{repo}", "/repos/o/r", Action{}},
		{"glob on path", "GET", "/repos/{owner}/{repo}/pulls/{pull_number}", "/repos/o/r/pulls/1", Action{Latency: time.Millisecond}},
		{"rate zero never fires", "POST", "/repos/{owner}/{repo}/git/blobs", "/repos/o/r/git/blobs", Action{}},
		{"rate limit with 429", "GET", "/search/code", "/search/code", Action{RateLimit: "primary", RateLimitStatus: 429, RetryAfter: 9}},
		{"rate limit used up", "GET", "/search/code", "/search/code", Action{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := s.Decide(tc.method, tc.tmpl, tc.path); got != tc.want {
				t.Fatalf("Decide = %+v, want %+v", got, tc.want)
			}
		})
	}
}
