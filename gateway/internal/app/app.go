// Package app assembles a gateway from its configuration: the tool registry
// (built once from the GitHubService descriptors), the policy file, the
// gRPC connection to the service, the tool caller (policy, quotas, audit),
// the error sink, the one request pipeline with its transports (/rpc, MCP
// over HTTP and stdio), the browser guard and authentication in front of
// them, and the HTTP server. The binary and gatewaytest both use it, so
// tests run exactly the wiring the binary runs.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os/user"
	"strings"
	"time"

	"ghops.dev/infra/redisconn"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/redact"
	"ghops.dev/telemetry"

	"ghops.dev/gateway/internal/authn"
	"ghops.dev/gateway/internal/calltrace"
	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/guard"
	"ghops.dev/gateway/internal/mcp"
	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/quota"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/server"
	"ghops.dev/gateway/internal/servicedial"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolrpc"
	"ghops.dev/gateway/internal/toolschema"
	"ghops.dev/gateway/internal/toolset"
)

// App is an assembled gateway.
type App struct {
	// Config is the configuration it was built from.
	Config config.Config
	// Registry holds the tools, built once.
	Registry *toolschema.Registry
	// Policy is the policy file's content (nil without one).
	Policy *policy.Policy
	// Auth authenticates HTTP callers.
	Auth *authn.Authenticator
	// Caller runs the tools.
	Caller *toolcall.Caller
	// Sink receives every error answer.
	Sink *rpcerror.Sink
	// Pipeline is the one request pipeline of every transport.
	Pipeline *pipeline.Pipeline
	// MCP is the MCP layer (its HTTP and stdio transports).
	MCP *mcp.Server
	// Server is the HTTP server.
	Server *server.Server
	// Logger is the structured logger.
	Logger *slog.Logger
	// Telemetry traces the calls (off unless WithTelemetry).
	Telemetry *telemetry.Provider

	redis        *redisconn.Conn // nil without -redis-url
	closeService func() error
	serviceReady func(context.Context) error // the service's gRPC health check
}

// Option adjusts how New assembles the gateway.
type Option func(*options)

type options struct {
	conn         grpc.ClientConnInterface
	closeService func() error
	tel          *telemetry.Provider
}

// WithService makes the gateway call the service over conn instead of
// dialing Config.ServiceAddr (ghops-gateway -embedded passes the in-process
// service's connection); Close calls closeService (nil: nothing to close).
func WithService(conn grpc.ClientConnInterface, closeService func() error) Option {
	return func(o *options) { o.conn, o.closeService = conn, closeService }
}

// WithTelemetry traces every call through the gateway and into the
// service (package telemetry; the binary passes telemetry.Setup's
// provider). Without it tracing is off. An embedded service gets the same
// provider from package embedded.
func WithTelemetry(p *telemetry.Provider) Option {
	return func(o *options) { o.tel = p }
}

// NewRegistry builds the tool registry from the generated descriptors.
func NewRegistry() (*toolschema.Registry, error) {
	sd := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService")
	if sd == nil {
		return nil, fmt.Errorf("ghops.v1.GitHubService not in the generated descriptors")
	}
	return toolschema.NewRegistry(sd)
}

// NewLogger returns the gateway's JSON logger writing to w; every record is
// redacted (redact.Handler), whatever its author passed.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(redact.Handler(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})))
}

// ErrNoAuth refuses a non-loopback listen address without authentication.
var ErrNoAuth = errors.New("refusing to serve a non-loopback address without authentication: " +
	"give -policy a file with API keys, or -oauth-issuer, or accept the risk with -insecure-no-auth")

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
	if cfg.ResourceURL == "" {
		cfg.ResourceURL = "http://" + cfg.Addr + "/mcp"
	}
	// From here on every failure closes what was handed in (an embedded
	// service) or opened.
	a := &App{Config: cfg, Registry: reg, Logger: logger, Telemetry: o.tel, closeService: o.closeService}
	fail := func(err error) (*App, error) {
		_ = a.Close()
		return nil, err
	}
	var names []string
	for _, t := range reg.Tools() {
		names = append(names, t.Name)
	}
	if cfg.PolicyFile != "" {
		if a.Policy, err = policy.Load(cfg.PolicyFile, names); err != nil {
			return fail(err)
		}
	}
	if err := policy.CheckTools("-confirm", cfg.Confirm, names); err != nil {
		return fail(err)
	}
	a.Sink = rpcerror.NewSink(logOut, logger)
	a.Auth, err = authn.New(context.Background(), authn.Options{
		Policy: a.Policy, Issuer: cfg.OAuthIssuer, JWKSURL: cfg.OAuthJWKSURL, Audience: cfg.OAuthAudience,
		Claim: cfg.OAuthClaim, GitHubAPIURL: cfg.GitHubURL, CacheTTL: cfg.TokenCacheTTL,
		ResourceURL: cfg.ResourceURL, JWKSMinInterval: cfg.JWKSMinInterval, Sink: a.Sink, Logger: logger,
	})
	if err != nil {
		return fail(err)
	}
	// Over stdio nothing listens: the address (perhaps set for HTTP in the
	// same environment) does not matter.
	if cfg.Command != config.CommandStdio && !cfg.Loopback() && !a.Auth.Enabled() {
		if !cfg.InsecureNoAuth {
			return fail(ErrNoAuth)
		}
		if cfg.ReachedOnLoopback() {
			logger.Info("serving all interfaces of a container without authentication (-insecure-no-auth), published on loopback only",
				"addr", cfg.Addr, "published_addr", cfg.PublishedAddr)
		} else {
			logger.Warn("serving a non-loopback address WITHOUT authentication (-insecure-no-auth): whoever reaches it acts with the service's GitHub token",
				"addr", cfg.Addr)
		}
	}
	conn, closeService := o.conn, o.closeService
	if conn == nil {
		// round_robin spreads calls over every address the name resolves
		// to (a headless Kubernetes Service gives one per pod); the default
		// pick_first would pin one service pod per gateway.
		dc := servicedial.Config{SecretFile: cfg.ServiceSecretFile, CA: cfg.ServiceTLSCA, Cert: cfg.ServiceTLSCert, Key: cfg.ServiceTLSKey}
		dial, err := servicedial.Options(dc)
		if err != nil {
			return fail(err)
		}
		dial = append(dial, grpc.WithDefaultServiceConfig(`{"loadBalancingConfig":[{"round_robin":{}}]}`))
		cc, err := grpc.NewClient(cfg.ServiceAddr, append(dial, o.tel.DialOptions()...)...)
		if err != nil {
			return fail(fmt.Errorf("dial service %s: %w", cfg.ServiceAddr, err))
		}
		conn, closeService = cc, cc.Close
	}
	a.closeService = closeService
	a.serviceReady = server.HealthCheck(conn)
	metrics := server.NewMetrics()
	var q quota.Quota = quota.NewLocal()
	if cfg.RedisURL != "" {
		rc, err := redisconn.Dial(cfg.RedisURL, redisconn.Options{
			Timeout: cfg.RedisTimeout, Logger: logger, OnError: metrics.ObserveRedisError,
			DownMessage: quota.DownMessage(cfg.QuotaFailOpen), UpMessage: quota.UpMessage,
		})
		if err != nil {
			return fail(fmt.Errorf("-redis-url: %w", err))
		}
		a.redis = rc
		q = quota.NewRedis(rc, quota.RedisOptions{FailOpen: cfg.QuotaFailOpen, Lease: cfg.CallTimeout + 30*time.Second})
	}
	a.Caller = toolcall.New(reg, conn,
		toolcall.WithTimeout(cfg.CallTimeout),
		toolcall.WithReadOnly(cfg.ReadOnly),
		toolcall.WithToolsets(cfg.Toolsets),
		toolcall.WithContentTrust(cfg.ContentTrust),
		toolcall.WithQuota(q),
		toolcall.WithMaxInFlight(cfg.MaxInFlight),
		toolcall.WithAudit(logger),
		toolcall.WithConfirm(cfg.Confirm),
		toolcall.WithGatewayInfo(toolcall.GatewayInfo{Version: cfg.Version, Warnings: Warnings(cfg, a.Auth.Enabled())}),
	)
	a.Pipeline = pipeline.New(pipeline.Options{
		MaxBody:          cfg.MaxBody,
		MaxBatch:         cfg.MaxBatch,
		BatchConcurrency: cfg.BatchConcurrency,
		Sink:             a.Sink,
		Logger:           logger,
		Observe:          metrics.ObserveCall,
		Trace:            calltrace.Tracer(o.tel),
	})
	// One dispatcher of tool calls (a.Caller) for every transport; MCP's
	// rules are package mcp's alone.
	a.MCP, err = mcp.New(reg, a.Caller,
		mcp.WithToolErrors(cfg.MCPToolErrors),
		mcp.WithSessionSecret(cfg.SessionSecret),
		mcp.WithReadOnly(cfg.ReadOnly),
		mcp.WithConfirmAny(len(cfg.Confirm) > 0),
		mcp.WithToolsets(cfg.Toolsets),
		mcp.WithServerVersion(cfg.Version),
		mcp.WithLogger(logger),
	)
	if err != nil {
		return fail(err)
	}
	g := guard.New(guard.Options{ListenAddr: cfg.Addr, AllowedHosts: cfg.AllowedHosts, AllowedOrigins: cfg.AllowedOrigins, Sink: a.Sink})
	a.Server = server.New(server.Options{
		Config:        cfg,
		Pipeline:      a.Pipeline,
		RPC:           toolrpc.New(a.Caller, cfg.HTTPStatusMapping),
		MCP:           a.MCP.HTTP(),
		Trace:         o.tel.HTTPHandler,
		Protect:       func(h http.Handler) http.Handler { return g.Handler(a.Auth.Handler(h)) },
		Metadata:      a.Auth.MetadataHandler(),
		MetadataPaths: []string{authn.MetadataPath, authn.MetadataPath + a.Auth.ResourcePath()},
		Logger:        logger,
		Ready:         a.serviceReady,
		Metrics:       metrics,
		MetricsProtect: func(h http.Handler) http.Handler {
			return a.Auth.Handler(h)
		},
		MetricsElsewhere: cfg.MetricsAddr != "",
	})
	return a, nil
}

// Serve serves HTTP on lis until ctx ends, then drains and closes the
// service connection. With -debug-addr it also serves the profiler there.
func (a *App) Serve(ctx context.Context, lis net.Listener) error {
	if a.Config.DebugAddr != "" {
		stop, err := serveDebug(a.Config.DebugAddr, a.Logger)
		if err != nil {
			return err
		}
		defer stop()
	}
	if a.Config.MetricsAddr != "" {
		stop, err := serveMetrics(a.Config.MetricsAddr, a.Server.MetricsHandler(), a.Logger)
		if err != nil {
			return err
		}
		defer stop()
	}
	offered := 0
	for _, t := range a.Registry.Tools() {
		if _, ok := a.Caller.Lookup(t.Name); ok {
			offered++
		}
	}
	toolsets := toolset.All
	if a.Config.Toolsets != nil {
		toolsets = strings.Join(a.Config.Toolsets, ",")
	}
	a.Logger.Info("gateway listening", "addr", lis.Addr().String(), "service", a.Config.ServiceAddr,
		"tools", offered, "toolsets", toolsets, "http_status_mapping", a.Config.HTTPStatusMapping,
		"mcp_tool_errors", a.Config.MCPToolErrors, "auth", a.Auth.Mode(), "read_only", a.Config.ReadOnly, "content_trust", a.Config.ContentTrust,
		"service_auth", servicedial.Mode(servicedial.Config{SecretFile: a.Config.ServiceSecretFile, CA: a.Config.ServiceTLSCA, Cert: a.Config.ServiceTLSCert, Key: a.Config.ServiceTLSKey}))
	err := a.Server.Serve(ctx, lis)
	a.Logger.Info("gateway stopped")
	return err
}

// Close ends the MCP sessions and releases the service and Redis
// connections (and stops an in-process service).
func (a *App) Close() error {
	if a.MCP != nil {
		a.MCP.Close()
	}
	if a.redis != nil {
		_ = a.redis.Close()
	}
	if a.closeService == nil {
		return nil
	}
	return a.closeService()
}

// MaxServiceCheck bounds CheckService's wait for the service.
const MaxServiceCheck = 5 * time.Second

// CheckService waits until the service answers its gRPC health check
// SERVING, for at most the call timeout and MaxServiceCheck (a service
// started alongside gets that long), and otherwise returns an error that
// says how to fix it. ghops-gateway stdio calls it before serving: a local
// MCP host shows the gateway's stderr, and a gateway that started anyway
// would answer every call "Service unavailable" with no hint (issue 23).
func (a *App) CheckService(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, min(a.Config.CallTimeout, MaxServiceCheck))
	defer cancel()
	var why error // the last failure not caused by the deadline itself
	for {
		err := a.serviceReady(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() == nil || why == nil {
			why = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the GitHub service at %s does not answer (%s): start ghops-github there, "+
				"point -service (GHOPS_SERVICE_ADDR) at where it runs, or run the service inside the gateway with -embedded "+
				"(GHOPS_EMBEDDED=true; it reads GITHUB_TOKEN)", a.Config.ServiceAddr, redact.String(status.Convert(why).Message()))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// ServeStdio speaks MCP over in/out until in ends or ctx ends. The caller
// is the local user, under the policy file when there is one. With
// -debug-addr it serves the profiler there too, as Serve does, so that the
// embedded stdio process can be profiled under load.
func (a *App) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	c, err := a.localCaller()
	if err != nil {
		return err
	}
	if a.Config.DebugAddr != "" {
		stop, err := serveDebug(a.Config.DebugAddr, a.Logger)
		if err != nil {
			return err
		}
		defer stop()
	}
	a.Logger.Info("gateway serving MCP on stdio", "service", a.Config.ServiceAddr, "tools", len(a.Registry.Tools()),
		"principal", c.Name(), "read_only", a.Config.ReadOnly)
	return a.Pipeline.ServeStream(policy.WithCaller(ctx, c), a.MCP.Stdio(), in, out)
}

// localCaller is stdio's caller: the user running the process.
func (a *App) localCaller() (*policy.Caller, error) {
	name := "local"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if a.Policy == nil {
		return &policy.Caller{Principal: &policy.Principal{Name: name}, Via: policy.KindLocal}, nil
	}
	pr := a.Policy.ForIdentity(policy.KindLocal, name)
	if pr == nil {
		return nil, fmt.Errorf("the policy file has no principal %q (the local user) and no default", name)
	}
	return &policy.Caller{Principal: pr, Via: policy.KindLocal}, nil
}

// serveMetrics serves /metrics alone on addr (-metrics-addr) until stop is
// called: a scraper reaches it without the callers' credentials, so it
// belongs on an address only the monitoring network reaches.
func serveMetrics(addr string, h http.Handler, log *slog.Logger) (stop func(), err error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(lis) }()
	log.Info("metrics listening", "addr", lis.Addr().String())
	return func() {
		// A scrape in progress finishes; a stuck one does not hold the
		// gateway's exit.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}

// serveDebug serves net/http/pprof on addr (loopback, checked by config)
// until stop is called.
func serveDebug(addr string, log *slog.Logger) (stop func(), err error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("debug listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(lis) }()
	log.Info("profiler listening", "addr", lis.Addr().String())
	return func() { _ = srv.Close() }, nil
}

// Warnings lists what an operator should know about cfg, one sentence each,
// for validate_environment: the configurations that work but are unsafe or
// surprising, and only where they matter. Over stdio the gateway listens
// nowhere and serves one session, so neither its listen address nor the
// session secret matters; a container published on loopback (-published-addr)
// is reached from this machine only, however it listens inside.
func Warnings(cfg config.Config, authenticated bool) []string {
	var w []string
	if cfg.Command != config.CommandStdio {
		if !cfg.ReachedOnLoopback() && !authenticated {
			w = append(w, "the gateway serves "+cfg.Addr+" (not loopback) without authentication (-insecure-no-auth): whoever reaches it acts with the service's GitHub token")
		}
		if !cfg.SessionSecretSet {
			w = append(w, "no -session-secret: MCP sessions are valid on this replica only; with several replicas, give them one shared secret")
		}
	}
	if cfg.ReadOnly {
		w = append(w, "read-only mode (-read-only): every write tool is refused")
	}
	return w
}
