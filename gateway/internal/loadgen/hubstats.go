package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// hubStats is the part of fakehub's GET /_fakehub/stats the report uses.
type hubStats struct {
	Total     int            `json:"total"`
	ByRoute   map[string]int `json:"by_route"`
	ByStatus  map[string]int `json:"by_status"`
	RateUnits map[string]int `json:"rate_units"`
}

// errStats is returned when fakehub's stats cannot be read; it never includes the admin token.
var errStats = errors.New("loadgen: reading fakehub stats failed")

func (d *driver) fetchStats(ctx context.Context) (*hubStats, error) {
	u := strings.TrimSuffix(d.cfg.FakehubAdminURL, "/") + "/_fakehub/stats"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, errStats
	}
	req.Header.Set("Authorization", "Bearer "+d.cfg.FakehubAdminToken)
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errStats, redact(err, d.cfg.FakehubAdminToken))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: HTTP %d", errStats, resp.StatusCode)
	}
	var s hubStats
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %v", errStats, err)
	}
	return &s, nil
}
