// Package inprocess runs the GitHub-operations service inside the calling
// process and hands out a gRPC client connection to it, so that one binary
// (ghops-gateway -embedded) needs no second process and no port. It runs
// exactly the server the ghops-github binary runs (server.New: the same
// handlers, interceptor chains, validation, health, tracing and the same
// contract); only the transport differs: an in-process channel
// (grpchan's inprocgrpc) hands each message to the handler's goroutine as
// a copy, with no HTTP/2 framing and no protobuf encoding
// (docs/benchmarks.md measures the difference).
package inprocess

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/fullstorydev/grpchan"
	"github.com/fullstorydev/grpchan/inprocgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"ghops.dev/redact"
	"ghops.dev/services/github/internal/config"
	"ghops.dev/services/github/internal/server"
	"ghops.dev/telemetry"
)

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
	srv   *server.Server
	conn  grpc.ClientConnInterface
	drain drain
	once  sync.Once
}

// Start starts the service on an in-process channel.
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
	s := &Service{srv: srv}
	ch := new(inprocgrpc.Channel)
	srv.ServeInProcess(ch)
	if h := o.Telemetry.ClientStatsHandler(); h != nil {
		ch.WithClientStatsHandler(h)
	}
	// The drain, outermost on the caller's side, is what a network
	// server's GracefulStop does: Shutdown refuses new calls and waits for
	// the ones in flight. The telemetry interceptor names the repository
	// on the caller's span, as DialOptions does for a network connection.
	unary := []grpc.UnaryClientInterceptor{s.drain.unary}
	if o.Telemetry.Enabled() {
		unary = append(unary, telemetry.AnnotateClient)
	}
	s.conn = grpchan.InterceptClientConnStream(grpchan.InterceptClientConnUnary(ch, unary...), s.drain.stream)
	log.Info("ghops-github running in process", "github_url", redact.String(cfg.GitHubURL),
		"service_token", cfg.Token != "", "github_app", cfg.GitHubApp(), "allow_caller_token", cfg.AllowCallerToken)
	return s, nil
}

// Conn is the client connection to the service; Shutdown ends it.
func (s *Service) Conn() grpc.ClientConnInterface { return s.conn }

// Shutdown refuses new calls (codes.Unavailable, as a stopped server's
// connection does), waits for the in-flight ones (cut when ctx ends first:
// their contexts are cancelled) and stops the service. Later calls return
// nil at once.
func (s *Service) Shutdown(ctx context.Context) error {
	s.once.Do(func() {
		s.drain.close(ctx)
		s.srv.Shutdown(ctx)
	})
	return nil
}

// Close is Shutdown bounded by DefaultShutdownTimeout.
func (s *Service) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultShutdownTimeout)
	defer cancel()
	return s.Shutdown(ctx)
}

// drain counts the calls in flight so that Shutdown can wait for them,
// and refuses calls once closed.
type drain struct {
	mu       sync.Mutex
	closed   bool
	inflight sync.WaitGroup
	// cancel ends the in-flight calls' contexts when the wait is cut.
	cancel context.Context
	stop   context.CancelFunc
}

// enter admits a call, or refuses it after close.
func (d *drain) enter(ctx context.Context) (context.Context, func(), error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, nil, status.Error(codes.Unavailable, "the in-process service is shut down")
	}
	if d.cancel == nil {
		d.cancel, d.stop = context.WithCancel(context.Background())
	}
	d.inflight.Add(1)
	ctx, stop := context.WithCancel(ctx)
	unregister := context.AfterFunc(d.cancel, stop)
	return ctx, func() { unregister(); stop(); d.inflight.Done() }, nil
}

// close refuses new calls and waits for the in-flight ones until ctx ends,
// then cancels those left.
func (d *drain) close(ctx context.Context) {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	done := make(chan struct{})
	go func() { d.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		d.mu.Lock()
		if d.stop != nil {
			d.stop()
		}
		d.mu.Unlock()
		<-done
	}
}

// unary is the drain of unary calls.
func (d *drain) unary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	ctx, leave, err := d.enter(ctx)
	if err != nil {
		return err
	}
	defer leave()
	return invoker(ctx, method, req, reply, cc, opts...)
}

// stream is the drain of streaming calls (CallService/Invoke): a call
// leaves when the caller has read its stream to the end (or to its
// error), or when the call's context ends.
func (d *drain) stream(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	ctx, leave, err := d.enter(ctx)
	if err != nil {
		return nil, err
	}
	once := sync.OnceFunc(leave)
	cs, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil {
		once()
		return nil, err
	}
	context.AfterFunc(ctx, once)
	return &leavingStream{ClientStream: cs, leave: once}, nil
}

// leavingStream leaves the drain when its last message has been read.
type leavingStream struct {
	grpc.ClientStream
	leave func()
}

// RecvMsg implements grpc.ClientStream.
func (s *leavingStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if err != nil {
		s.leave()
	}
	return err
}
