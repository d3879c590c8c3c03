// Package app assembles a gateway from its configuration: the tool registry
// (built once from the GitHubService descriptors), the gRPC connection to the
// service, the tool caller, the error sink, the MCP handler and the HTTP
// server. The binary and gatewaytest both use it, so tests run exactly the
// wiring the binary runs.
package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	ghopsv1 "ghops.dev/gen/ghops/v1"

	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/mcp"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/server"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolschema"
)

// App is an assembled gateway.
type App struct {
	// Config is the configuration it was built from.
	Config config.Config
	// Registry holds the tools, built once.
	Registry *toolschema.Registry
	// Caller runs the tools.
	Caller *toolcall.Caller
	// Sink receives every error answer.
	Sink *rpcerror.Sink
	// MCP is the MCP Streamable HTTP handler.
	MCP *mcp.Handler
	// Server is the HTTP server.
	Server *server.Server
	// Logger is the structured logger.
	Logger *slog.Logger

	closeService func() error
}

// Option adjusts how New assembles the gateway.
type Option func(*options)

type options struct {
	conn         grpc.ClientConnInterface
	closeService func() error
}

// WithService makes the gateway call the service over conn instead of
// dialing Config.ServiceAddr (ghops-gateway -embedded passes the in-process
// service's connection); Close calls closeService (nil: nothing to close).
func WithService(conn grpc.ClientConnInterface, closeService func() error) Option {
	return func(o *options) { o.conn, o.closeService = conn, closeService }
}

// NewRegistry builds the tool registry from the generated descriptors.
func NewRegistry() (*toolschema.Registry, error) {
	sd := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService")
	if sd == nil {
		return nil, fmt.Errorf("ghops.v1.GitHubService not in the generated descriptors")
	}
	return toolschema.NewRegistry(sd)
}

// NewLogger returns the gateway's JSON logger writing to w.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// New assembles a gateway. logOut receives the structured logs and the
// jsonrpc_error lines (the binary passes os.Stderr). It dials the service
// lazily: New succeeds while the service is still starting, and /readyz
// tells when it answers.
func New(cfg config.Config, logOut io.Writer, opts ...Option) (*App, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	logger := NewLogger(logOut, cfg.LogLevel)
	reg, err := NewRegistry()
	if err != nil {
		return nil, fmt.Errorf("tool registry: %w", err)
	}
	conn, closeService := o.conn, o.closeService
	if conn == nil {
		// round_robin spreads calls over every address the name resolves
		// to (a headless Kubernetes Service gives one per pod); the default
		// pick_first would pin one service pod per gateway.
		cc, err := grpc.NewClient(cfg.ServiceAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultServiceConfig(`{"loadBalancingConfig":[{"round_robin":{}}]}`))
		if err != nil {
			return nil, fmt.Errorf("dial service %s: %w", cfg.ServiceAddr, err)
		}
		conn, closeService = cc, cc.Close
	}
	a := &App{Config: cfg, Registry: reg, Logger: logger, closeService: closeService}
	a.Sink = rpcerror.NewSink(logOut, logger)
	a.Caller = toolcall.New(reg, conn, toolcall.WithTimeout(cfg.CallTimeout), toolcall.WithForwardToken(cfg.ForwardToken))
	metrics := server.NewMetrics()
	a.MCP = mcp.NewHandler(reg, a.Caller,
		mcp.WithToolErrorMode(cfg.MCPToolErrors),
		mcp.WithAllowedOrigins(cfg.AllowedOrigins),
		mcp.WithSessionSecret(cfg.SessionSecret),
		mcp.WithLogger(logger),
		mcp.WithSink(a.Sink),
		mcp.WithMaxBodyBytes(cfg.MaxBody),
		mcp.WithCallObserver(metrics.ObserveCall),
		mcp.WithServerVersion(cfg.Version),
	)
	a.Server = server.New(server.Options{
		Config:  cfg,
		Caller:  a.Caller,
		Sink:    a.Sink,
		Logger:  logger,
		Ready:   server.HealthCheck(conn),
		MCP:     a.MCP,
		Metrics: metrics,
	})
	return a, nil
}

// Serve serves HTTP on lis until ctx ends, then drains and closes the
// service connection.
func (a *App) Serve(ctx context.Context, lis net.Listener) error {
	a.Logger.Info("gateway listening", "addr", lis.Addr().String(), "service", a.Config.ServiceAddr,
		"tools", len(a.Registry.Tools()), "http_status_mapping", a.Config.HTTPStatusMapping,
		"mcp_tool_errors", a.Config.MCPToolErrors, "forward_token", a.Config.ForwardToken)
	err := a.Server.Serve(ctx, lis)
	a.Logger.Info("gateway stopped")
	return err
}

// Close releases the service connection (and stops an in-process service).
func (a *App) Close() error {
	if a.closeService == nil {
		return nil
	}
	return a.closeService()
}

// ServeStdio speaks MCP over in/out until in ends or ctx ends.
func (a *App) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	a.Logger.Info("gateway serving MCP on stdio", "service", a.Config.ServiceAddr, "tools", len(a.Registry.Tools()))
	return a.MCP.ServeStdio(ctx, in, out)
}
