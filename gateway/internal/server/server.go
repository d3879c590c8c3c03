// Package server wires the gateway's HTTP endpoints:
//
//	POST /rpc      plain JSON-RPC 2.0 whose methods are the tool names (Options.RPC)
//	POST /mcp      MCP Streamable HTTP (Options.MCP)
//	GET  /healthz  200 while the process runs
//	GET  /readyz   200 only when the service's health check answers SERVING, else 503
//	GET  /metrics  Prometheus metrics, behind the same authentication as /rpc and
//	               /mcp (Options.MetricsProtect), or on -metrics-addr only
//
// and serves them with a graceful shutdown (Serve drains in-flight requests
// when its context ends). /rpc and /mcp are the same pipeline (package pipeline)
// with two transports.
package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"ghops.dev/redact"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/pipeline"
)

// Options are the server's dependencies.
type Options struct {
	// Config is the gateway configuration (timeouts).
	Config config.Config
	// Pipeline runs /rpc and /mcp.
	Pipeline *pipeline.Pipeline
	// RPC is the /rpc transport (nil: /rpc answers 404).
	RPC pipeline.Transport
	// MCP is the /mcp transport (nil: /mcp answers 404).
	MCP pipeline.Transport
	// Protect wraps /rpc and /mcp (the browser guard and authentication);
	// nil: no protection.
	Protect func(http.Handler) http.Handler
	// Metadata serves the OAuth protected-resource metadata at each of
	// MetadataPaths (nil: not served).
	Metadata http.Handler
	// MetadataPaths are the metadata's paths.
	MetadataPaths []string
	// Logger is the structured logger (nil: slog.Default()).
	Logger *slog.Logger
	// Ready reports whether the service is ready (nil: always ready).
	Ready func(context.Context) error
	// Metrics are the metrics to record into (nil: new ones).
	Metrics *Metrics
	// MetricsProtect wraps /metrics on this listener (authentication:
	// the figures name principals and tools, and an authenticated
	// listener must not tell them to anyone); nil: not wrapped.
	MetricsProtect func(http.Handler) http.Handler
	// MetricsElsewhere leaves /metrics off this listener (-metrics-addr
	// serves MetricsHandler on its own address).
	MetricsElsewhere bool
	// Trace wraps /rpc and /mcp, outside Protect, in a span per HTTP
	// request (telemetry.Provider.HTTPHandler); nil: not traced.
	Trace func(http.Handler) http.Handler
}

// Server is the gateway's HTTP server.
type Server struct {
	opts    Options
	log     *slog.Logger
	metrics *Metrics
	handler http.Handler
}

// New builds the server and its routes.
func New(o Options) *Server {
	s := &Server{opts: o, log: o.Logger, metrics: o.Metrics}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.metrics == nil {
		s.metrics = NewMetrics()
	}
	protect := o.Protect
	if protect == nil {
		protect = func(h http.Handler) http.Handler { return h }
	}
	traced := o.Trace
	if traced == nil {
		traced = func(h http.Handler) http.Handler { return h }
	}
	mux := http.NewServeMux()
	if o.RPC != nil {
		mux.Handle("/rpc", s.metrics.instrument("rpc", traced(protect(o.Pipeline.Handler(o.RPC)))))
	}
	if o.MCP != nil {
		mux.Handle("/mcp", s.metrics.instrument("mcp", traced(protect(o.Pipeline.Handler(o.MCP)))))
	}
	if o.Metadata != nil {
		for _, p := range o.MetadataPaths {
			mux.Handle(p, s.metrics.instrument("oauth_metadata", o.Metadata))
		}
	}
	mux.Handle("GET /healthz", s.metrics.instrument("healthz", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})))
	mux.Handle("GET /readyz", s.metrics.instrument("readyz", http.HandlerFunc(s.serveReady)))
	if !o.MetricsElsewhere {
		h := s.metrics.Handler()
		if o.MetricsProtect != nil {
			h = o.MetricsProtect(h)
		}
		mux.Handle("GET /metrics", h)
	}
	s.handler = mux
	return s
}

// Handler returns the routes.
func (s *Server) Handler() http.Handler { return s.handler }

// MetricsHandler serves the Prometheus metrics, unprotected (for
// -metrics-addr).
func (s *Server) MetricsHandler() http.Handler { return s.metrics.Handler() }

// Metrics returns the server's metrics (for the MCP layer to record into).
func (s *Server) Metrics() *Metrics { return s.metrics }

// readyTimeout bounds one readiness probe of the service.
const readyTimeout = 2 * time.Second

// serveReady answers 200 when Ready succeeds, 503 otherwise.
func (s *Server) serveReady(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if s.opts.Ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		if err := s.opts.Ready(ctx); err != nil {
			s.log.Warn("not ready", "error", redact.String(err.Error()))
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready\n"))
			return
		}
	}
	_, _ = w.Write([]byte("ready\n"))
}

// HealthCheck returns a readiness probe asking the service's
// grpc.health.v1 Health service about the whole server ("").
func HealthCheck(conn grpc.ClientConnInterface) func(context.Context) error {
	client := healthpb.NewHealthClient(conn)
	return func(ctx context.Context) error {
		resp, err := client.Check(ctx, &healthpb.HealthCheckRequest{})
		if err != nil {
			return err
		}
		if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			return errors.New("service health: " + resp.GetStatus().String())
		}
		return nil
	}
}

// Timeouts of the HTTP server: a client gets ReadHeaderTimeout for its
// headers and readTimeout for the whole request; the write deadline covers
// reading the body, the call and writing the answer. Both are sized to the
// call timeout, so that no slow client holds a connection much longer than
// a call may take.
const (
	// ReadHeaderTimeout bounds reading a request's headers.
	ReadHeaderTimeout = 10 * time.Second
	// minReadTimeout and maxReadTimeout bound the time given for a whole
	// request (headers and body): half the call timeout, within them.
	minReadTimeout = 2 * time.Second
	maxReadTimeout = 30 * time.Second
)

// timeouts returns the read and write timeouts for a call timeout.
func timeouts(call time.Duration) (read, write time.Duration) {
	read = min(max(minReadTimeout, call/2), maxReadTimeout)
	return read, read + call + 5*time.Second
}

// Serve serves on lis until ctx ends, then shuts down gracefully: it stops
// accepting, lets in-flight requests finish within the configured shutdown
// timeout (never shorter than the call timeout), and returns nil after a
// clean drain.
func (s *Server) Serve(ctx context.Context, lis net.Listener) error {
	call := s.opts.Config.CallTimeout
	if call <= 0 {
		call = 30 * time.Second
	}
	read, write := timeouts(call)
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       read,
		WriteTimeout:      write,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lis) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	timeout := max(s.opts.Config.ShutdownTimeout, call)
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
