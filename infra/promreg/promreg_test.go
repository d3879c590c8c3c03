package promreg_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"ghops.dev/infra/promreg"
)

func TestRegistryServesRuntimeAndOwnMetrics(t *testing.T) {
	reg := promreg.New()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "ghops_test_total", Help: "A test counter."})
	reg.MustRegister(c)
	c.Add(3)
	srv := httptest.NewServer(promreg.Handler(reg))
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		want string
	}{
		{name: "the binary's own collector", want: "ghops_test_total 3"},
		{name: "Go runtime collector", want: "go_goroutines "},
		{name: "process collector", want: "process_start_time_seconds "},
		{name: "scrape errors counted on the registry", want: "promhttp_metric_handler_errors_total"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(string(body), tc.want) {
				t.Errorf("/metrics lacks %q:\n%.2000s", tc.want, body)
			}
		})
	}
	t.Run("registries are independent", func(t *testing.T) {
		other := promreg.New()
		// The same name again must not collide: each binary, and each test
		// server, owns its registry.
		if err := other.Register(prometheus.NewCounter(prometheus.CounterOpts{Name: "ghops_test_total", Help: "A test counter."})); err != nil {
			t.Errorf("a second registry refused the same name: %v", err)
		}
	})
}
