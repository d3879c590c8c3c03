package hub

import (
	"net/http"

	"ghops.dev/services/fakehub/internal/admin"
)

// serveAdmin serves /_fakehub/ (package admin) over this hub: GET stats, GET requests, POST
// reset, POST reset-rate-limits, GET and PUT faults. It needs "Authorization: Bearer
// <AdminToken>" and is off without an AdminToken.
func (h *Hub) serveAdmin(w http.ResponseWriter, r *http.Request, p string) {
	admin.Serve(w, r, p, admin.Ops{
		Token: h.cfg.AdminToken,
		Stats: func() any { return h.Stats() },
		Requests: func() any {
			if reqs := h.Requests(); reqs != nil {
				return reqs
			}
			return []RequestRecord{}
		},
		ResetStats:      h.ResetStats,
		ResetRateLimits: h.ResetRateLimits,
		Faults:          h.faults.Rules,
		SetFaults:       h.faults.Replace,
	})
}

// ParseFaults decodes the admin API's JSON list of faults (also used for the binary's --faults flag).
func ParseFaults(data []byte) ([]Fault, error) {
	rules, err := admin.ParseRules(data)
	if err != nil {
		return nil, err
	}
	out := make([]Fault, len(rules))
	for i, x := range rules {
		out[i] = Fault(x)
	}
	return out, nil
}
