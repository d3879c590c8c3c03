// Package telemetrytest runs an OTLP/HTTP trace collector on 127.0.0.1 for
// tests of what ghops' binaries export (package telemetry): it keeps the
// spans' names, their service.name and the raw export bodies.
package telemetrytest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Collector is a running OTLP/HTTP trace receiver.
type Collector struct {
	// URL is its base URL: OTEL_EXPORTER_OTLP_ENDPOINT's value.
	URL      string
	mu       sync.Mutex
	spans    []string
	services []string
	bodies   [][]byte
}

// Start starts a collector that stops when the test ends.
func Start(t testing.TB) *Collector {
	t.Helper()
	c := &Collector{}
	srv := httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(srv.Close)
	c.URL = srv.URL
	return c
}

func (c *Collector) serve(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if err != nil || r.URL.Path != "/v1/traces" || proto.Unmarshal(b, &req) != nil {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.bodies = append(c.bodies, b)
	for _, rs := range req.GetResourceSpans() {
		for _, a := range rs.GetResource().GetAttributes() {
			if a.GetKey() == "service.name" {
				c.services = append(c.services, a.GetValue().GetStringValue())
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.spans = append(c.spans, s.GetName())
			}
		}
	}
	c.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// Spans are the names of the spans received, in order.
func (c *Collector) Spans() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.spans)
}

// Services are the service.name of each resource received.
func (c *Collector) Services() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.services)
}

// Bodies are the raw export requests (to look for what must not be there).
func (c *Collector) Bodies() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.bodies)
}
