package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestSharedStateMetrics(t *testing.T) {
	m := New()
	m.CacheLookup("redis", "hit")
	m.RedisError("cache_get")
	m.BudgetWait("pace", 750*time.Millisecond)
	m.BudgetRefusal("exhausted")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	tests := []struct{ name, want string }{
		{name: "cache lookups per tier", want: `ghops_cache_lookups_total{outcome="hit",tier="redis"} 1`},
		{name: "Redis errors", want: `ghops_redis_errors_total{op="cache_get"} 1`},
		{name: "budget waits", want: `ghops_budget_wait_seconds_sum{kind="pace"} 0.75`},
		{name: "budget refusals", want: `ghops_budget_refusals_total{reason="exhausted"} 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(string(body), tt.want) {
				t.Errorf("no %q in the metrics", tt.want)
			}
		})
	}
}
