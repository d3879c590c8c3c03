// Package faults matches requests against configured fault rules (latency, error statuses, forced
// rate limits, dropped connections), each limited to an optional number of firings.
package faults

import (
	"math/rand/v2"
	"path"
	"strings"
	"sync"
	"time"
)

// Rule is one fault. Route is an OpenAPI route template ("/repos/{owner}/{repo}"), a glob over the
// request path or the template ("/repos/*/*/pulls/*"), or empty for every route. RateLimitStatus is
// the HTTP status a forced rate limit is answered with (0 lets the server pick, 403).
type Rule struct {
	Method, Route   string
	Latency         time.Duration
	ErrorRate       float64
	ErrorStatus     int
	RateLimit       string
	RateLimitStatus int
	RetryAfter      int
	Drop            bool
	Count           int
}

// Action is what to do to one request: the sum of the rules that fired.
type Action struct {
	Latency         time.Duration
	Status          int
	RateLimit       string
	RateLimitStatus int
	RetryAfter      int
	Drop            bool
}

// Set is a mutable list of rules. It is safe for concurrent use.
type Set struct {
	mu    sync.Mutex
	rules []rule
	rand  func() float64
}

type rule struct {
	Rule
	left int // remaining firings; <0 means unlimited
}

// NewSet returns an empty set.
func NewSet() *Set { return &Set{rand: rand.Float64} }

// Replace swaps in new rules.
func (s *Set) Replace(rules []Rule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = s.rules[:0:0]
	for _, r := range rules {
		left := r.Count
		if left <= 0 {
			left = -1
		}
		s.rules = append(s.rules, rule{Rule: r, left: left})
	}
}

// Rules returns the current rules with Count set to the firings left (0 = unlimited).
func (s *Set) Rules() []Rule {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Rule, 0, len(s.rules))
	for _, r := range s.rules {
		x := r.Rule
		if r.left >= 0 {
			x.Count = r.left
		}
		if r.left == 0 {
			continue
		}
		out = append(out, x)
	}
	return out
}

// Matches reports whether a rule applies to a method, template and path.
func Matches(r Rule, method, template, reqPath string) bool {
	if r.Method != "" && r.Method != "*" && !strings.EqualFold(r.Method, method) {
		return false
	}
	if r.Route == "" || r.Route == "*" || r.Route == template {
		return true
	}
	if ok, _ := path.Match(r.Route, reqPath); ok {
		return true
	}
	ok, _ := path.Match(r.Route, template)
	return ok
}

// Decide applies every matching rule: latency, drops and forced rate limits always fire; an error
// status fires with probability ErrorRate (so 0 never and 1 always). A rule stops after Count firings.
func (s *Set) Decide(method, template, reqPath string) Action {
	s.mu.Lock()
	defer s.mu.Unlock()
	var a Action
	for i := range s.rules {
		r := &s.rules[i]
		if r.left == 0 || !Matches(r.Rule, method, template, reqPath) {
			continue
		}
		fired := false
		if r.Latency > 0 {
			a.Latency += r.Latency
			fired = true
		}
		if r.Drop {
			a.Drop = true
			fired = true
		}
		if r.RateLimit != "" {
			a.RateLimit = r.RateLimit
			a.RateLimitStatus = r.RateLimitStatus
			a.RetryAfter = r.RetryAfter
			fired = true
		}
		if r.ErrorRate > 0 && (r.ErrorRate >= 1 || s.rand() < r.ErrorRate) {
			st := r.ErrorStatus
			if st == 0 {
				st = 500
			}
			a.Status = st
			fired = true
		}
		if fired && r.left > 0 {
			r.left--
		}
	}
	return a
}
