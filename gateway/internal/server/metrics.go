package server

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"ghops.dev/infra/promreg"
)

// Metrics are the gateway's Prometheus metrics, on a registry of their own
// (so that several gateways in one test process do not collide).
type Metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	calls    *prometheus.CounterVec
	redis    *prometheus.CounterVec

	// ok holds the calls series of each method's successes, looked up
	// once: the label lookup hashes every value under a lock, on the
	// path of every call.
	okMu sync.RWMutex
	ok   map[callKey]prometheus.Counter
}

// NewMetrics registers the gateway's metrics on a registry of its own
// (package promreg, which adds the Go runtime and process collectors);
// promauto registers each collector as it is made.
func NewMetrics() *Metrics {
	reg := promreg.New()
	made := promauto.With(reg)
	return &Metrics{
		reg: reg,
		ok:  map[callKey]prometheus.Counter{},
		requests: made.NewCounterVec(prometheus.CounterOpts{
			Name: "ghops_gateway_http_requests_total",
			Help: "HTTP requests by endpoint and HTTP status.",
		}, []string{"endpoint", "status"}),
		latency: made.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "ghops_gateway_http_request_duration_seconds",
			Help:    "HTTP request latency by endpoint.",
			Buckets: prometheus.DefBuckets,
		}, []string{"endpoint"}),
		calls: made.NewCounterVec(prometheus.CounterOpts{
			Name: "ghops_gateway_rpc_requests_total",
			Help: "JSON-RPC requests by endpoint, method and JSON-RPC code (0 for success).",
		}, []string{"endpoint", "method", "code"}),
		redis: made.NewCounterVec(prometheus.CounterOpts{
			Name: "ghops_gateway_redis_errors_total",
			Help: "Failed or timed-out Redis operations of the shared quota, by operation.",
		}, []string{"op"}),
	}
}

// ObserveCall counts one JSON-RPC request on endpoint ("rpc", "mcp", "stdio")
// answered with code (0 for success). method must come from a bounded set
// (a tool or protocol method name, else "unknown").
func (m *Metrics) ObserveCall(endpoint, method string, code int) {
	if m == nil {
		return
	}
	if code != 0 {
		m.calls.WithLabelValues(endpoint, method, strconv.Itoa(code)).Inc()
		return
	}
	k := callKey{endpoint, method}
	m.okMu.RLock()
	c := m.ok[k]
	m.okMu.RUnlock()
	if c == nil {
		// First success of this method: its series is looked up once and
		// kept (the methods are a bounded set, see above).
		c = m.calls.WithLabelValues(endpoint, method, "0")
		m.okMu.Lock()
		m.ok[k] = c
		m.okMu.Unlock()
	}
	c.Inc()
}

// callKey names the success series of one method on one endpoint.
type callKey struct{ endpoint, method string }

// ObserveRedisError counts one failed Redis operation.
func (m *Metrics) ObserveRedisError(op string) {
	if m != nil {
		m.redis.WithLabelValues(op).Inc()
	}
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promreg.Handler(m.reg)
}

// instrument counts and times the requests of one endpoint. The series of
// a 200 and the endpoint's latency are looked up once, on first use, not
// per request: the label lookup hashes every value under a lock, on the
// path of every call.
func (m *Metrics) instrument(endpoint string, h http.Handler) http.Handler {
	ok := sync.OnceValue(func() prometheus.Counter { return m.requests.WithLabelValues(endpoint, "200") })
	latency := sync.OnceValue(func() prometheus.Observer { return m.latency.WithLabelValues(endpoint) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		if sw.status == http.StatusOK {
			ok().Inc()
		} else {
			m.requests.WithLabelValues(endpoint, strconv.Itoa(sw.status)).Inc()
		}
		latency().Observe(time.Since(start).Seconds())
	})
}

// statusWriter records the status written.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

// WriteHeader records the status.
func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write marks the implicit 200.
func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Flush passes flushes through for streaming responses.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap exposes the underlying writer to http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
