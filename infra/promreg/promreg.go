// Package promreg is how every ghops binary sets up Prometheus: a registry
// of its own (never the global one, so that several gateways and services
// can run in one test process without colliding) that always carries the
// Go runtime and process collectors, served in the text format with the
// registry's own count of failed scrapes. Each binary registers its own
// collectors on it.
package promreg

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// New returns a fresh registry holding the Go runtime and process
// collectors.
func New() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// Handler serves reg in the Prometheus text format; a failed scrape is
// counted on reg itself (promhttp_metric_handler_errors_total).
func Handler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
}
