package fakehub

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

// faultJSON is the admin API's wire form of a Fault; latency is a Go duration string ("250ms").
type faultJSON struct {
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

// serveAdmin serves /_fakehub/: GET stats, GET requests, POST reset, POST reset-rate-limits,
// GET and PUT faults. It needs "Authorization: Bearer <AdminToken>" and is off without an AdminToken.
func (h *Hub) serveAdmin(w http.ResponseWriter, r *http.Request, p string) {
	if h.cfg.AdminToken == "" {
		writeJSON(w, 404, obj{"message": "Not Found", "documentation_url": docRest, "status": "404"})
		return
	}
	scheme, val, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "bearer") || strings.TrimSpace(val) != h.cfg.AdminToken {
		writeJSON(w, 401, obj{"message": "Bad credentials", "documentation_url": docRest, "status": "401"})
		return
	}
	switch r.Method + " " + strings.TrimSuffix(p, "/") {
	case "GET /stats":
		writeJSON(w, 200, h.Stats())
	case "GET /requests":
		reqs := h.Requests()
		if reqs == nil {
			reqs = []RequestRecord{}
		}
		writeJSON(w, 200, reqs)
	case "POST /reset":
		h.ResetStats()
		w.WriteHeader(204)
	case "POST /reset-rate-limits":
		h.ResetRateLimits()
		w.WriteHeader(204)
	case "GET /faults":
		out := []faultJSON{}
		for _, f := range h.Faults() {
			fj := faultJSON{Method: f.Method, Route: f.Route, ErrorRate: f.ErrorRate, ErrorStatus: f.ErrorStatus,
				RateLimit: f.RateLimit, RateLimitStatus: f.RateLimitStatus, RetryAfter: f.RetryAfter, Drop: f.Drop, Count: f.Count}
			if f.Latency > 0 {
				fj.Latency = f.Latency.String()
			}
			out = append(out, fj)
		}
		writeJSON(w, 200, out)
	case "PUT /faults":
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			writeJSON(w, 400, obj{"message": "Problems parsing JSON", "status": "400"})
			return
		}
		fs, err := ParseFaults(body)
		if err != nil {
			writeJSON(w, 422, obj{"message": err.Error(), "status": "422"})
			return
		}
		h.SetFaults(fs)
		w.WriteHeader(204)
	default:
		writeJSON(w, 404, obj{"message": "Not Found", "documentation_url": docRest, "status": "404"})
	}
}

// ParseFaults decodes the admin API's JSON list of faults (also used for the binary's --faults flag).
func ParseFaults(data []byte) ([]Fault, error) {
	var in []faultJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, err
	}
	out := make([]Fault, 0, len(in))
	for _, f := range in {
		var lat time.Duration
		if f.Latency != "" {
			d, err := time.ParseDuration(f.Latency)
			if err != nil {
				return nil, err
			}
			lat = d
		}
		if f.RateLimit != "" && f.RateLimit != "primary" && f.RateLimit != "secondary" {
			return nil, errBadRateLimit
		}
		if f.RateLimitStatus != 0 && f.RateLimitStatus != 403 && f.RateLimitStatus != 429 {
			return nil, errBadRateLimitStatus
		}
		if f.ErrorRate < 0 || f.ErrorRate > 1 || f.ErrorRate != f.ErrorRate {
			return nil, errBadRate
		}
		if f.ErrorStatus != 0 && (f.ErrorStatus < 400 || f.ErrorStatus > 599) {
			return nil, errBadStatus
		}
		if f.Latency != "" && lat < 0 {
			return nil, errBadLatency
		}
		out = append(out, Fault{Method: f.Method, Route: f.Route, Latency: lat, ErrorRate: f.ErrorRate, ErrorStatus: f.ErrorStatus,
			RateLimit: f.RateLimit, RateLimitStatus: f.RateLimitStatus, RetryAfter: f.RetryAfter, Drop: f.Drop, Count: f.Count})
	}
	return out, nil
}

var (
	errBadRateLimit       = jsonErr("rate_limit must be \"\", \"primary\" or \"secondary\"")
	errBadRate            = jsonErr("error_rate must be between 0 and 1")
	errBadRateLimitStatus = jsonErr("rate_limit_status must be 403 or 429")
	errBadStatus          = jsonErr("error_status must be an HTTP error status between 400 and 599")
	errBadLatency         = jsonErr("latency must not be negative")
)

type jsonErr string

func (e jsonErr) Error() string { return string(e) }
