// Package server wires the gateway's HTTP endpoints:
//
//	POST /rpc      plain JSON-RPC 2.0 whose methods are the tool names (rpc.go)
//	POST /mcp      the MCP Streamable HTTP handler given in Options.MCP
//	GET  /healthz  200 while the process runs
//	GET  /readyz   200 only when the service's health check answers SERVING, else 503
//	GET  /metrics  Prometheus metrics
//
// and serves them with a graceful shutdown (Serve drains in-flight requests
// when its context ends). Everything derived from the descriptors lives in
// the toolcall.Caller, built once at start-up.
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
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
)

// Options are the server's dependencies.
type Options struct {
	// Config is the gateway configuration (limits, status mapping, timeouts).
	Config config.Config
	// Caller runs the tools.
	Caller *toolcall.Caller
	// Sink receives every error answer (one jsonrpc_error line each).
	Sink *rpcerror.Sink
	// Logger is the structured logger (nil: slog.Default()).
	Logger *slog.Logger
	// Ready reports whether the service is ready (nil: always ready).
	Ready func(context.Context) error
	// MCP is mounted at /mcp (nil: /mcp answers 404).
	MCP http.Handler
	// Metrics are the metrics to record into (nil: new ones).
	Metrics *Metrics
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
	mux := http.NewServeMux()
	mux.Handle("/rpc", s.metrics.instrument("rpc", recoverer(s.log, http.HandlerFunc(s.serveRPC))))
	if o.MCP != nil {
		mux.Handle("/mcp", s.metrics.instrument("mcp", recoverer(s.log, o.MCP)))
	}
	mux.Handle("GET /healthz", s.metrics.instrument("healthz", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})))
	mux.Handle("GET /readyz", s.metrics.instrument("readyz", http.HandlerFunc(s.serveReady)))
	mux.Handle("GET /metrics", s.metrics.Handler())
	s.handler = mux
	return s
}

// Handler returns the routes.
func (s *Server) Handler() http.Handler { return s.handler }

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

// recoverer turns a panic in a handler into a 500 with the fixed JSON-RPC
// internal error body; the panic value goes to the log.
func recoverer(log *slog.Logger, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				log.Error("panic in handler", "path", r.URL.Path, "panic", redact.String(fmtPanic(p)))
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write(fallbackBody)
			}
		}()
		h.ServeHTTP(w, r)
	})
}

// Serve serves on lis until ctx ends, then shuts down gracefully: it stops
// accepting, lets in-flight requests finish within the configured shutdown
// timeout, and returns nil after a clean drain.
func (s *Server) Serve(ctx context.Context, lis net.Listener) error {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
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
	timeout := s.opts.Config.ShutdownTimeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
