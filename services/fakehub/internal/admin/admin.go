// Package admin serves fakehub's admin API under /_fakehub/ (statistics, the request log,
// resets, and the fault-injection rules) and reads and writes the rules' JSON wire form, which
// the binary's --faults flag shares. It knows the hub only through Ops, so the API's rules
// (a bearer admin token, 404 when none is configured) live in one place.
package admin

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"ghops.dev/services/fakehub/internal/faults"
)

// docRest is the documentation link of GitHub-shaped errors.
const docRest = "https://docs.github.com/rest"

// Ops are the hub operations the admin API exposes.
type Ops struct {
	// Token is the bearer token the API requires; empty disables the API (404).
	Token string
	// Stats and Requests answer GET stats and GET requests with JSON-encodable values.
	Stats, Requests func() any
	// ResetStats and ResetRateLimits serve POST reset and POST reset-rate-limits.
	ResetStats, ResetRateLimits func()
	// Faults and SetFaults read and replace the fault rules.
	Faults    func() []faults.Rule
	SetFaults func([]faults.Rule)
}

// rule is the wire form of a faults.Rule; latency is a Go duration string ("250ms").
type rule struct {
	Method          string  `json:"method,omitempty"`
	Route           string  `json:"route,omitempty"`
	Latency         string  `json:"latency,omitempty"`
	ErrorRate       float64 `json:"error_rate,omitempty"`
	ErrorStatus     int     `json:"error_status,omitempty"`
	RateLimit       string  `json:"rate_limit,omitempty"`
	RateLimitStatus int     `json:"rate_limit_status,omitempty"`
	RetryAfter      int     `json:"retry_after,omitempty"`
	Drop            bool    `json:"drop,omitempty"`
	Count           int     `json:"count,omitempty"`
}

// Serve answers one admin request; p is the path below /_fakehub.
func Serve(w http.ResponseWriter, r *http.Request, p string, ops Ops) {
	if ops.Token == "" {
		writeJSON(w, 404, map[string]any{"message": "Not Found", "documentation_url": docRest, "status": "404"})
		return
	}
	scheme, val, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "bearer") || strings.TrimSpace(val) != ops.Token {
		writeJSON(w, 401, map[string]any{"message": "Bad credentials", "documentation_url": docRest, "status": "401"})
		return
	}
	switch r.Method + " " + strings.TrimSuffix(p, "/") {
	case "GET /stats":
		writeJSON(w, 200, ops.Stats())
	case "GET /requests":
		writeJSON(w, 200, ops.Requests())
	case "POST /reset":
		ops.ResetStats()
		w.WriteHeader(204)
	case "POST /reset-rate-limits":
		ops.ResetRateLimits()
		w.WriteHeader(204)
	case "GET /faults":
		writeJSON(w, 200, wire(ops.Faults()))
	case "PUT /faults":
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			writeJSON(w, 400, map[string]any{"message": "Problems parsing JSON", "status": "400"})
			return
		}
		fs, err := ParseRules(body)
		if err != nil {
			writeJSON(w, 422, map[string]any{"message": err.Error(), "status": "422"})
			return
		}
		ops.SetFaults(fs)
		w.WriteHeader(204)
	default:
		writeJSON(w, 404, map[string]any{"message": "Not Found", "documentation_url": docRest, "status": "404"})
	}
}

// wire is the rules' JSON form, an empty list rather than null.
func wire(rules []faults.Rule) []rule {
	out := []rule{}
	for _, f := range rules {
		fj := rule{Method: f.Method, Route: f.Route, ErrorRate: f.ErrorRate, ErrorStatus: f.ErrorStatus,
			RateLimit: f.RateLimit, RateLimitStatus: f.RateLimitStatus, RetryAfter: f.RetryAfter, Drop: f.Drop, Count: f.Count}
		if f.Latency > 0 {
			fj.Latency = f.Latency.String()
		}
		out = append(out, fj)
	}
	return out
}

// ParseRules decodes a JSON list of fault rules and refuses any value outside its documented
// range, so that no rule can make the server answer a malformed status.
func ParseRules(data []byte) ([]faults.Rule, error) {
	var in []rule
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, err
	}
	out := make([]faults.Rule, 0, len(in))
	for _, f := range in {
		var lat time.Duration
		if f.Latency != "" {
			d, err := time.ParseDuration(f.Latency)
			if err != nil {
				return nil, err
			}
			lat = d
		}
		if err := f.check(lat); err != nil {
			return nil, err
		}
		out = append(out, faults.Rule{Method: f.Method, Route: f.Route, Latency: lat, ErrorRate: f.ErrorRate, ErrorStatus: f.ErrorStatus,
			RateLimit: f.RateLimit, RateLimitStatus: f.RateLimitStatus, RetryAfter: f.RetryAfter, Drop: f.Drop, Count: f.Count})
	}
	return out, nil
}

// check refuses a rule's out-of-range values.
func (f rule) check(lat time.Duration) error {
	switch {
	case f.RateLimit != "" && f.RateLimit != "primary" && f.RateLimit != "secondary":
		return errors.New("rate_limit must be \"\", \"primary\" or \"secondary\"")
	case f.RateLimitStatus != 0 && f.RateLimitStatus != 403 && f.RateLimitStatus != 429:
		return errors.New("rate_limit_status must be 403 or 429")
	case f.ErrorRate < 0 || f.ErrorRate > 1 || f.ErrorRate != f.ErrorRate:
		return errors.New("error_rate must be between 0 and 1")
	case f.ErrorStatus != 0 && (f.ErrorStatus < 400 || f.ErrorStatus > 599):
		return errors.New("error_status must be an HTTP error status between 400 and 599")
	case f.Latency != "" && lat < 0:
		return errors.New("latency must not be negative")
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
