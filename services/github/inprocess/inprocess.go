// Package inprocess runs the GitHub-operations service inside the calling
// process and hands out a gRPC client connection to it over an in-memory
// listener, so that one binary (ghops-gateway -embedded) needs no second
// process and no port. It runs exactly the server the ghops-github binary
// runs (server.New: the same handlers, interceptors, validation, health and
// the same contract); only the transport differs.
package inprocess

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"ghops.dev/redact"
	"ghops.dev/services/github/internal/config"
	"ghops.dev/services/github/internal/server"
	"ghops.dev/telemetry"
)

// bufSize is the in-memory pipe's buffer; a larger message just flows
// through it in pieces.
const bufSize = 1 << 20

// DefaultShutdownTimeout bounds Close's drain of in-flight calls.
const DefaultShutdownTimeout = 10 * time.Second

// Options configures the embedded service; zero values mean the defaults of
// ghops-github.
type Options struct {
	// GitHubURL is the API root, ending in "/" (default https://api.github.com/).
	GitHubURL string
	// Token is the service's own GitHub token (never logged).
	Token string
	// AllowCallerToken honours a per-call token in metadata x-github-token.
	AllowCallerToken bool
	// CallTimeout bounds each call (default 30s).
	CallTimeout time.Duration
	// Logger receives the service's logs (default: discarded).
	Logger *slog.Logger
	// GitHubAppID, GitHubAppKeyFile and GitHubAppInstallationID make the
	// service act as a GitHub App installation instead of with Token.
	GitHubAppID             int64
	GitHubAppKeyFile        string
	GitHubAppInstallationID int64
	// RedisURL shares the cache and each token's GitHub budget with the
	// other replicas ("" keeps them in the process); it and the fields
	// below are ghops-github's -redis-url, -redis-timeout,
	// -budget-fail-open (inverted), -github-concurrency,
	// -github-writes-per-minute, -cache-ttl and -cache-entry-bytes.
	RedisURL                           string
	RedisTimeout, CacheTTL             time.Duration
	BudgetFailClosed                   bool
	GitHubConcurrency, WritesPerMinute int
	CacheEntryBytes                    int
	// Version is what validate_environment reports as the service's
	// version: the embedding binary's, since the service is built into it
	// ("" reads as dev).
	Version string
	// Telemetry traces the calls and their GitHub requests (nil: off);
	// the gateway passes its own, so that one trace holds both.
	Telemetry *telemetry.Provider
	// MaxRequestsPerCall, MaxPatchFiles, MaxPatchBytes and PrincipalShare
	// are ghops-github's -max-requests-per-call, -max-patch-files,
	// -max-patch-bytes and -principal-share (0: their defaults).
	MaxRequestsPerCall, MaxPatchFiles, MaxPatchBytes, PrincipalShare int
}

// OptionsFromEnv reads the options from the environment variables the
// ghops-github binary reads, with its defaults and checks: GITHUB_TOKEN,
// GITHUB_API_URL, GHOPS_ALLOW_CALLER_TOKEN, GHOPS_GITHUB_CALL_TIMEOUT,
// the GitHub App's GHOPS_GITHUB_APP_*, the cost limits'
// (GHOPS_MAX_REQUESTS_PER_CALL, GHOPS_MAX_PATCH_FILES,
// GHOPS_MAX_PATCH_BYTES, GHOPS_PRINCIPAL_SHARE), and the shared state's
// (GHOPS_REDIS_URL and the variables after it in package config). The
// listen and metrics addresses and caller authentication do not apply:
// nothing listens on a port, and the only caller is the process itself.
func OptionsFromEnv(getenv func(string) string) (Options, error) {
	c, err := config.Load(nil, getenv, io.Discard)
	if err != nil {
		return Options{}, err
	}
	return Options{GitHubURL: c.GitHubURL, Token: c.Token, AllowCallerToken: c.AllowCallerToken, CallTimeout: c.CallTimeout,
		RedisURL: c.RedisURL, RedisTimeout: c.RedisTimeout, CacheTTL: c.CacheTTL, BudgetFailClosed: c.BudgetFailClosed,
		GitHubConcurrency: c.GitHubConcurrency, WritesPerMinute: c.WritesPerMinute, CacheEntryBytes: c.CacheEntryBytes,
		GitHubAppID: c.GitHubAppID, GitHubAppKeyFile: c.GitHubAppKeyFile, GitHubAppInstallationID: c.GitHubAppInstallationID,
		MaxRequestsPerCall: c.MaxRequestsPerCall, MaxPatchFiles: c.MaxPatchFiles, MaxPatchBytes: c.MaxPatchBytes, PrincipalShare: c.PrincipalShare}, nil
}

// Service is the service running in this process.
type Service struct {
	srv  *server.Server
	conn *grpc.ClientConn
	done chan error
	once sync.Once
	err  error
}

// Start starts the service on an in-memory listener and connects to it.
func Start(o Options) (*Service, error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg := config.Config{GitHubURL: o.GitHubURL, Token: o.Token, AllowCallerToken: o.AllowCallerToken, CallTimeout: o.CallTimeout,
		RedisURL: o.RedisURL, RedisTimeout: o.RedisTimeout, CacheTTL: o.CacheTTL, BudgetFailClosed: o.BudgetFailClosed,
		GitHubConcurrency: o.GitHubConcurrency, WritesPerMinute: o.WritesPerMinute, CacheEntryBytes: o.CacheEntryBytes,
		GitHubAppID: o.GitHubAppID, GitHubAppKeyFile: o.GitHubAppKeyFile, GitHubAppInstallationID: o.GitHubAppInstallationID,
		Version: o.Version, MaxRequestsPerCall: o.MaxRequestsPerCall, MaxPatchFiles: o.MaxPatchFiles, MaxPatchBytes: o.MaxPatchBytes, PrincipalShare: o.PrincipalShare}.WithDefaults()
	srv, err := server.New(cfg, server.WithLogger(log), server.WithTelemetry(o.Telemetry))
	if err != nil {
		return nil, err
	}
	lis := bufconn.Listen(bufSize)
	dial := append([]grpc.DialOption{
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
	}, o.Telemetry.DialOptions()...)
	conn, err := grpc.NewClient("passthrough:///ghops-github-inprocess", dial...)
	if err != nil {
		_ = lis.Close()
		return nil, err
	}
	s := &Service{srv: srv, conn: conn, done: make(chan error, 1)}
	go func() { s.done <- srv.Serve(lis) }()
	log.Info("ghops-github running in process", "github_url", redact.String(cfg.GitHubURL),
		"service_token", cfg.Token != "", "github_app", cfg.GitHubApp(), "allow_caller_token", cfg.AllowCallerToken)
	return s, nil
}

// Conn is the client connection to the service; it is closed by Shutdown.
func (s *Service) Conn() *grpc.ClientConn { return s.conn }

// Shutdown closes the client connection, drains the in-flight calls (cut
// when ctx ends first) and stops the service. Later calls return the first
// call's result.
func (s *Service) Shutdown(ctx context.Context) error {
	s.once.Do(func() {
		cerr := s.conn.Close()
		s.srv.Shutdown(ctx)
		s.err = errors.Join(cerr, <-s.done)
	})
	return s.err
}

// Close is Shutdown bounded by DefaultShutdownTimeout.
func (s *Service) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultShutdownTimeout)
	defer cancel()
	return s.Shutdown(ctx)
}
