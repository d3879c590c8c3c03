// Package server assembles the GitHub-operations gRPC server: the go-github
// client over the retry, cache, GitHub App and metrics transports, the
// handlers, the interceptors (request id and logging, panic recovery,
// metrics, caller authentication, per-call timeout, validation, repository
// scope, content trust), TLS,
// health and (when switched on) reflection. The binary and servicetest both
// run exactly this code.
package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/fullstorydev/grpchan/inprocgrpc"
	"github.com/google/go-github/v66/github"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	ghopsv1 "ghops.dev/gen/ghops/v1"

	"ghops.dev/infra/callmeta"
	"ghops.dev/infra/redisconn"
	"ghops.dev/services/github/internal/appauth"
	"ghops.dev/services/github/internal/budget"
	"ghops.dev/services/github/internal/cachestore"
	"ghops.dev/services/github/internal/callcap"
	"ghops.dev/services/github/internal/callerauth"
	"ghops.dev/services/github/internal/config"
	"ghops.dev/services/github/internal/contentclean"
	"ghops.dev/services/github/internal/contenttrust"
	"ghops.dev/services/github/internal/ghstatus"
	"ghops.dev/services/github/internal/httpcache"
	"ghops.dev/services/github/internal/joblog"
	"ghops.dev/services/github/internal/jsonmemo"
	"ghops.dev/services/github/internal/metrics"
	"ghops.dev/services/github/internal/ops"
	"ghops.dev/services/github/internal/progress"
	"ghops.dev/services/github/internal/reposcope"
	"ghops.dev/services/github/internal/retry"
	"ghops.dev/services/github/internal/validation"
	"ghops.dev/telemetry"
)

// Server is one gRPC server with its GitHub client.
type Server struct {
	cfg     config.Config
	log     *slog.Logger
	grpc    *grpc.Server
	health  *health.Server
	metrics *metrics.Metrics
	cache   *httpcache.Transport
	memo    *jsonmemo.Memo
	auth    *callerauth.Authenticator
	redis   *redisconn.Conn // nil without -redis-url
	tel     *telemetry.Provider
	// The services and chains register serves, on the network server
	// and on an in-process channel alike.
	svc     ghopsv1.GitHubServiceServer
	invoker *progress.Invoker
	unary   grpc.UnaryServerInterceptor
	stream  grpc.StreamServerInterceptor
	// workers run the in-process channel's unary calls (ServeInProcess).
	workers *callWorkers
}

// Option adjusts a Server.
type Option func(*Server)

// WithLogger sets the structured logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.log = l } }

// WithTelemetry traces the calls and their GitHub requests (default: off).
func WithTelemetry(p *telemetry.Provider) Option { return func(s *Server) { s.tel = p } }

// New builds a Server from cfg (defaults applied).
func New(cfg config.Config, opts ...Option) (*Server, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: slog.New(slog.DiscardHandler), metrics: metrics.New()}
	for _, o := range opts {
		o(s)
	}
	if w := credentialWarning(cfg); w != "" {
		s.log.Warn(w, "github_url", ghstatus.Sanitize(cfg.GitHubURL))
	}
	base, _ := url.Parse(cfg.GitHubURL)
	var rt http.RoundTripper = http.DefaultTransport.(*http.Transport).Clone()
	// Tracing (package telemetry), nearest the wire: a client span per
	// request actually sent to GitHub, retries and the App's token
	// requests included; off, rt itself. GitHub receives no trace context
	// of the caller's, only, with -github-trace-context=service, the
	// service's own.
	gc := telemetry.GitHubContextOff
	if cfg.GitHubTraceContext == config.TraceContextService {
		gc = telemetry.GitHubContextService
	}
	rt = s.tel.GitHubTransport(rt, gc)
	// End of tracing.
	rt = s.metrics.Transport(rt, base.Path)
	var app *appauth.Transport
	known := []string{cfg.Token} // the service's own credentials, redacted from answers (package contentclean)
	if cfg.GitHubApp() {
		key, err := os.ReadFile(cfg.GitHubAppKeyFile)
		if err != nil {
			return nil, fmt.Errorf("-github-app-key-file: %w", err)
		}
		if app, err = appauth.New(rt, cfg.GitHubURL, cfg.GitHubAppID, cfg.GitHubAppInstallationID, key); err != nil {
			return nil, err
		}
		known = append(known, contentclean.KeyLines(key)...)
		// Below the cache: the cache keys on the installation, not on
		// tokens that change every hour.
		rt = app
	}
	// Above the App's transport: the budget, like the cache, keys on the
	// installation's stable identity.
	bud, cacheOpts, err := s.shared(cfg)
	if err != nil {
		return nil, err
	}
	rt = &budget.Transport{Base: rt, Budget: bud, SharePercent: cfg.PrincipalShare}
	// Above the budget, below the cache: every request that would leave
	// for GitHub counts against its call's cap (retries included, cache
	// hits not), and one past the cap takes no budget slot.
	rt = callcap.Transport{Base: rt}
	// Decoded answers take about as much room as the bodies the cache
	// keeps; a quarter of its bytes holds the hot ones.
	s.memo = jsonmemo.New(cfg.CacheBytes / 4)
	cacheOpts = append(cacheOpts, httpcache.WithMemo(s.memo))
	s.cache = httpcache.New(rt, cfg.CacheEntries, cfg.CacheBytes, cacheOpts...)
	rt = &retry.Transport{Base: s.cache, Retries: max(cfg.ReadRetries, 0), BaseDelay: cfg.RetryBaseDelay, MaxRetryAfter: cfg.MaxRetryAfter}
	rt = budget.Sole{Base: rt}
	// Above the cache and the retries: a call's progress counts each of
	// its requests once, however it was answered (package progress).
	rt = progress.Transport{Base: rt}
	// Outermost, so that a request outside the call's repository is neither
	// sent, retried, cached nor counted (package reposcope).
	rt = &reposcope.Transport{Base: rt, API: base, Allow: reposcope.Endpoints(base, ops.GraphQLURL(base))}
	newClient := func(rt http.RoundTripper) *github.Client {
		c := github.NewClient(&http.Client{Transport: rt})
		c.BaseURL, c.UploadURL, c.UserAgent = base, base, "ghops-github"
		return c
	}
	anon := newClient(rt)
	service := anon
	switch {
	case cfg.Token != "":
		service = anon.WithAuthToken(cfg.Token)
	case app != nil:
		service = newClient(app.Mark(rt))
	}
	var secrets [][]byte
	if cfg.CallerSecretFile != "" {
		var err error
		if secrets, err = callerauth.LoadSecrets(cfg.CallerSecretFile); err != nil {
			return nil, fmt.Errorf("-caller-secret-file: %w", err)
		}
	}
	s.auth = callerauth.New(secrets, cfg.TLSClientCA != "")
	for _, sec := range secrets {
		known = append(known, string(sec))
	}
	// Job logs come from GitHub's log storage, or from the GitHub host
	// itself (GitHub Enterprise Server, fakehub).
	ghHost := base.Host
	if base.Scheme == "http" {
		ghHost = "http://" + ghHost
	}
	logHosts, err := joblog.ParseHosts(append(append([]string(nil), cfg.LogDownloadHosts...), ghHost))
	if err != nil {
		return nil, err
	}
	val, err := validation.New()
	if err != nil {
		return nil, err
	}
	clientFor := func(ctx context.Context) *github.Client {
		if cfg.AllowCallerToken {
			if v := metadata.ValueFromIncomingContext(ctx, callmeta.GitHubToken); len(v) > 0 && v[0] != "" {
				return anon.WithAuthToken(v[0])
			}
		}
		return service
	}
	trust := &contenttrust.Guard{Visibility: visibility(clientFor), OnWithheld: s.metrics.ContentWithheld}
	// Authentication follows metrics (refusals are counted) and precedes
	// validation: an unauthenticated caller learns nothing of the rules.
	// Innermost, content trust withholds untrusted authors' text (its one
	// visibility lookup is in the scope reposcope gives the call), then
	// contentclean cleans each answer's user text and logs; both count
	// into the answer's one content report (docs/security.md), inside the
	// recovery and for Invoke too.
	unary := []grpc.UnaryServerInterceptor{s.unaryLog, s.unaryRecover, s.metrics.UnaryInterceptor, s.auth.Unary, s.unaryCallerToken, s.unaryTimeout, val.Unary, reposcope.Unary,
		contentclean.New(known, s.metrics.ContentRemoved).Unary, trust.Unary}
	if s.tel.Enabled() {
		// After unaryLog, which settles the request id the span carries.
		unary = append([]grpc.UnaryServerInterceptor{unary[0], s.unaryTrace}, unary[1:]...)
	}
	// One chain value serves the unary calls, CallService/Invoke and the
	// in-process channel (ServeInProcess), so that no way in passes by an
	// interceptor.
	chain := chainUnary(unary)
	s.unary = chain
	s.stream = chainStream([]grpc.StreamServerInterceptor{s.streamLog, s.streamRecover, s.metrics.StreamInterceptor, s.auth.Stream, val.Stream})
	serverOpts := []grpc.ServerOption{
		grpc.UnaryInterceptor(chain),
		grpc.StreamInterceptor(s.stream),
		// Calls run on long-lived workers whose stacks have already grown:
		// a goroutine per call spent a tenth of the service's CPU growing
		// its stack through the handler chain (docs/benchmarks.md).
		grpc.NumStreamWorkers(streamWorkers),
		// Fixed flow-control windows turn off gRPC's bandwidth estimator,
		// which answered data with a PING, a frame each way on most calls;
		// the windows are those the estimator grows to on a fast link.
		grpc.InitialWindowSize(4 << 20),
		grpc.InitialConnWindowSize(16 << 20),
	}
	serverOpts = append(serverOpts, s.tel.ServerOptions()...)
	if cfg.TLSCert != "" {
		tc, err := callerauth.ServerTLS(cfg.TLSCert, cfg.TLSKey, cfg.TLSClientCA)
		if err != nil {
			return nil, err
		}
		serverOpts = append(serverOpts, grpc.Creds(credentials.NewTLS(tc)))
	}
	s.grpc = grpc.NewServer(serverOpts...)
	svc := ops.New(clientFor, ops.Limits{
		MaxFileBytes: cfg.MaxFileBytes, MaxTreeEntries: cfg.MaxTreeEntries,
		MergeabilityAttempts: cfg.MergeabilityAttempts, MergeabilityBackoff: cfg.MergeabilityBackoff,
		MaxPatchFiles: cfg.MaxPatchFiles, MaxPatchBytes: cfg.MaxPatchBytes,
	}, s.log).WithEnvironment(environment(cfg, app != nil)).WithMemo(s.memo).WithLogHosts(logHosts)
	s.svc = svc
	s.invoker = progress.NewInvoker(&ghopsv1.GitHubService_ServiceDesc,
		ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService"), svc, chain)
	s.health = health.NewServer()
	s.register(s.grpc)
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	s.health.SetServingStatus(ghopsv1.GitHubService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	s.health.SetServingStatus(ghopsv1.CallService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	if cfg.Reflection {
		reflection.Register(s.grpc)
	}
	return s, nil
}

// register registers the service's gRPC services on reg: the same set on
// the network server and on an in-process channel.
func (s *Server) register(reg grpc.ServiceRegistrar) {
	ghopsv1.RegisterGitHubServiceServer(reg, s.svc)
	ghopsv1.RegisterCallServiceServer(reg, s.invoker)
	healthpb.RegisterHealthServer(reg, s.health)
}

// ServeInProcess serves the service on ch, an in-process channel
// (package inprocess: ghops-gateway -embedded), through the same
// services, interceptor chains and tracing as the network server, without
// HTTP/2 framing or protobuf encoding: ch hands the messages over.
func (s *Server) ServeInProcess(ch *inprocgrpc.Channel) {
	s.register(ch)
	s.workers = newCallWorkers(streamWorkers)
	ch.WithServerUnaryInterceptor(s.workers.unary(s.unary)).WithServerStreamInterceptor(s.stream)
	if h := s.tel.ServerStatsHandler(); h != nil {
		ch.WithServerStatsHandler(h)
	}
}

// visibility reads whether a repository is private with the call's GitHub
// client (GET /repos/{owner}/{repo}, conditional through the cache), for
// content trust: only a public repository ("visibility": "public", or no
// visibility and not "private") lets anyone write; an internal one counts
// as private.
func visibility(clientFor func(context.Context) *github.Client) contenttrust.Visibility {
	return func(ctx context.Context, repo string) (bool, error) {
		owner, name, _ := strings.Cut(repo, "/")
		r, _, err := clientFor(ctx).Repositories.Get(ctx, owner, name)
		if err != nil {
			return false, err
		}
		switch r.GetVisibility() {
		case "public":
			return false, nil
		case "":
			return r.GetPrivate(), nil
		}
		return true, nil
	}
}

// streamWorkers is the number of gRPC stream workers: more than the
// calls in flight at the concurrency the benchmarks measure (a call that
// finds every worker busy gets its own goroutine, as without workers).
const streamWorkers = 64

// shared returns the GitHub budget and the cache's options: in the process,
// or shared through Redis when cfg.RedisURL is set (package budget,
// cachestore). In the process only GitHub's reported primary limit is kept
// (so a refusal is honest and lifts at the reset); the concurrency cap and
// the write pace are the replicas' common budget and come with Redis.
func (s *Server) shared(cfg config.Config) (budget.Budget, []httpcache.Option, error) {
	hooks := budget.Hooks{Wait: s.metrics.BudgetWait, Refuse: s.metrics.BudgetRefusal}
	opts := []httpcache.Option{httpcache.WithLookupHook(s.metrics.CacheLookup)}
	if cfg.RedisURL == "" {
		return budget.NewLocal(budget.Limits{}, hooks), opts, nil
	}
	conn, err := redisconn.Dial(cfg.RedisURL, redisconn.Options{Timeout: cfg.RedisTimeout, Logger: s.log, OnError: s.metrics.RedisError})
	if err != nil {
		return nil, nil, err
	}
	s.redis = conn
	limits := budget.Limits{Concurrency: max(cfg.GitHubConcurrency, 0), WritesPerMinute: max(cfg.WritesPerMinute, 0)}
	bud := budget.NewRedis(conn, limits, hooks, budget.RedisOptions{FailOpen: !cfg.BudgetFailClosed, Lease: cfg.CallTimeout + 30*time.Second})
	opts = append(opts, httpcache.WithShared(cachestore.NewRedis(conn, cachestore.RedisOptions{TTL: cfg.CacheTTL, MaxEntryBytes: cfg.CacheEntryBytes})))
	return bud, opts, nil
}

// Serve serves gRPC on lis until Shutdown.
func (s *Server) Serve(lis net.Listener) error {
	err := s.grpc.Serve(lis)
	if errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

// Shutdown marks the server NOT_SERVING, stops accepting calls and drains
// the in-flight ones; when ctx ends first, the remaining calls are cut.
func (s *Server) Shutdown(ctx context.Context) {
	s.health.Shutdown()
	if s.workers != nil {
		defer s.workers.close()
	}
	done := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		s.grpc.Stop()
		<-done
	}
	if s.redis != nil {
		_ = s.redis.Close()
	}
}

// MetricsHandler serves Prometheus /metrics.
func (s *Server) MetricsHandler() http.Handler { return s.metrics.Handler() }

// CacheLen reports the number of cached GitHub answers.
func (s *Server) CacheLen() int { return s.cache.Len() }

// ErrNoAuth refuses a non-loopback listen address without caller
// authentication.
var ErrNoAuth = errors.New("refusing to serve a non-loopback address without caller authentication: " +
	"give -caller-secret-file or -tls-client-ca, or accept the risk with -insecure-no-auth")

// Run serves gRPC on cfg.Addr and metrics on cfg.MetricsAddr until ctx
// ends, then shuts down gracefully within grace. It refuses (ErrNoAuth) a
// non-loopback address whose callers would not authenticate, unless
// cfg.InsecureNoAuth, and then warns.
//
// opts adjust the server (WithTelemetry); the logger is log.
func Run(ctx context.Context, cfg config.Config, log *slog.Logger, grace time.Duration, opts ...Option) error {
	cfg = cfg.WithDefaults()
	if err := CheckExposure(cfg, log); err != nil {
		return err
	}
	s, err := New(cfg, append([]Option{WithLogger(log)}, opts...)...)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	var mh *http.Server
	errc := make(chan error, 2)
	if cfg.MetricsAddr != "" {
		mlis, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			_ = lis.Close()
			return err
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", s.MetricsHandler())
		mh = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := mh.Serve(mlis); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
		log.Info("metrics listening", "addr", mlis.Addr().String())
	}
	go func() { errc <- s.Serve(lis) }()
	log.Info("ghops-github listening", "addr", lis.Addr().String(), "github_url", ghstatus.Sanitize(s.cfg.GitHubURL),
		"service_token", s.cfg.Token != "", "github_app", s.cfg.GitHubApp(), "allow_caller_token", s.cfg.AllowCallerToken,
		"caller_auth", s.auth.Mode(), "tls", s.cfg.TLSCert != "", "reflection", s.cfg.Reflection, "shared_state", s.redis != nil,
		"tracing", s.tel.Enabled())
	select {
	case <-ctx.Done():
	case err := <-errc:
		if err != nil {
			return err
		}
	}
	log.Info("shutting down: draining in-flight calls")
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	s.Shutdown(sctx)
	if mh != nil {
		_ = mh.Shutdown(sctx)
	}
	return nil
}

// CheckExposure is the start-up rule of the listen address: a
// non-loopback cfg.Addr needs caller authentication (a secret or mTLS), or
// cfg.InsecureNoAuth, which it then warns about on log.
func CheckExposure(cfg config.Config, log *slog.Logger) error {
	if cfg.Loopback() || cfg.CallerAuth() {
		return nil
	}
	if !cfg.InsecureNoAuth {
		return ErrNoAuth
	}
	log.Warn("serving a non-loopback address WITHOUT caller authentication (-insecure-no-auth): whoever reaches it acts with the service's GitHub credentials",
		"addr", cfg.Addr)
	return nil
}

func requestID(ctx context.Context) string {
	if v := metadata.ValueFromIncomingContext(ctx, callmeta.RequestID); len(v) > 0 && v[0] != "" && len(v[0]) <= 128 {
		return v[0]
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

type ridKey struct{}

func (s *Server) begin(ctx context.Context) (context.Context, string) {
	if id, ok := ctx.Value(ridKey{}).(string); ok {
		// A call through CallService/Invoke: its stream settled the id
		// and sent the header already.
		return ctx, id
	}
	id := requestID(ctx)
	_ = grpc.SetHeader(ctx, metadata.Pairs(callmeta.RequestID, id))
	return context.WithValue(ctx, ridKey{}, id), id
}

func (s *Server) logCall(ctx context.Context, method, id string, start time.Time, err error) {
	st := status.Convert(err)
	level := slog.LevelInfo
	if st.Code() == codes.Internal || st.Code() == codes.Unknown {
		level = slog.LevelError
	}
	attrs := []slog.Attr{
		slog.String("request_id", id), slog.String("method", method), slog.String("tool", validation.ToolOf(method)),
		slog.String("code", st.Code().String()), slog.Int64("duration_ms", time.Since(start).Milliseconds()),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", ghstatus.Sanitize(st.Message())))
	}
	s.log.LogAttrs(ctx, level, "rpc", attrs...)
}

func (s *Server) unaryLog(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	start := time.Now()
	ctx, id := s.begin(ctx)
	resp, err := handler(ctx, req)
	s.logCall(ctx, info.FullMethod, id, start, err)
	if l, ok := ctx.Value(streamLogKey{}).(*streamLogged); ok {
		l.inner = true
	}
	return resp, err
}

func (s *Server) streamLog(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	start := time.Now()
	ctx, id := s.begin(ss.Context())
	l := &streamLogged{}
	ctx = context.WithValue(ctx, streamLogKey{}, l)
	err := handler(srv, &ctxStream{ServerStream: ss, ctx: ctx})
	if !l.inner {
		s.logCall(ctx, info.FullMethod, id, start, err)
	}
	return err
}

// streamLogged tells streamLog that the stream's call was logged inside
// it: a tool run through CallService/Invoke is logged once, by unaryLog,
// under its own method (README: each failure is logged once). It is set
// and read on the stream's goroutine.
type streamLogged struct{ inner bool }

type streamLogKey struct{}

type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (c *ctxStream) Context() context.Context { return c.ctx }

func (s *Server) recovered(ctx context.Context, method string, p any) error {
	s.log.ErrorContext(ctx, "handler panic", "method", method, "panic", ghstatus.Sanitize(fmtAny(p)), "stack", string(debug.Stack()))
	return ghstatus.Internal(ghstatus.Context{Tool: validation.ToolOf(method)})
}

func (s *Server) unaryRecover(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if p := recover(); p != nil {
			resp, err = nil, s.recovered(ctx, info.FullMethod, p)
		}
	}()
	return handler(ctx, req)
}

func (s *Server) streamRecover(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = s.recovered(ss.Context(), info.FullMethod, p)
		}
	}()
	return handler(srv, ss)
}

// unaryCallerToken refuses a call that carries a caller's own GitHub token
// (x-github-token: a gateway with -oauth-issuer github forwards its
// signed-in user's) when the service was started without
// -allow-caller-token: serving it with the service's own token would give
// that user whatever the service's token may do (docs/security.md).
func (s *Server) unaryCallerToken(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if s.cfg.AllowCallerToken {
		return handler(ctx, req)
	}
	if len(metadata.ValueFromIncomingContext(ctx, callmeta.GitHubToken)) > 0 {
		return nil, errCallerToken
	}
	return handler(ctx, req)
}

// errCallerToken is unaryCallerToken's refusal: -32001 at the gateway, with
// this message, which names the flag that is missing.
var errCallerToken = func() error {
	st := status.New(codes.PermissionDenied, "Permission denied: the call carries the caller's own GitHub token, "+
		"but the GitHub service was started without -allow-caller-token (GHOPS_ALLOW_CALLER_TOKEN) and never serves "+
		"a caller's call with its own token; start it with -allow-caller-token, or the gateway without -oauth-issuer github")
	if d, err := st.WithDetails(&errdetails.ErrorInfo{
		Reason: ghopsv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED.String(), Domain: ghstatus.Domain,
	}); err == nil {
		st = d
	}
	return st.Err()
}()

// unaryTimeout bounds each call's time and, through package callcap, its
// GitHub requests (-call-timeout, -max-requests-per-call): every RPC, with
// no code in the handlers.
func (s *Server) unaryTimeout(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.CallTimeout)
	defer cancel()
	ctx, _ = callcap.With(ctx, s.cfg.MaxRequestsPerCall)
	ctx = budget.WithPrincipal(ctx, s.principal(ctx))
	return handler(ctx, req)
}

// credentialWarning is the start-up warning of a service without a GitHub
// credential ("" when it has one): GitHub serves anonymous callers 60
// requests an hour, public repositories only, which a first run would
// otherwise discover as rate-limit errors (issue 23).
func credentialWarning(cfg config.Config) string {
	if cfg.Token != "" || cfg.GitHubApp() {
		return ""
	}
	w := "no GitHub credential (GITHUB_TOKEN, or a GitHub App: -github-app-id): calls are anonymous, 60 requests an hour, public repositories only"
	if cfg.AllowCallerToken {
		w += ", except those that bring their own token (-allow-caller-token)"
	}
	return w
}

// Anonymous is the principal every call is charged to whose caller the
// service does not trust to name one, or that names a malformed one:
// together they get one share of the token's budget, never more.
const Anonymous = "anonymous"

// maxPrincipalBytes bounds the principal a caller may name.
const maxPrincipalBytes = 256

// principal is who the call is charged to (package budget's share): the
// gateway's x-ghops-principal ("kind:name"), believed only from a caller
// the service trusts with its GitHub credentials at all: one that
// authenticated (-caller-secret-file, -tls-client-ca) or, with neither, one
// on a loopback-only listener (the same trust CheckExposure extends to it).
// A trusted caller that names no principal is charged to nobody ("").
//
// A call made with the caller's own GitHub token (-allow-caller-token) is
// charged to nobody (""): that token is its caller's alone, and GitHub's
// own limit is its budget.
func (s *Server) principal(ctx context.Context) string {
	// The values are read one key at a time: FromIncomingContext copies
	// the whole metadata map, on every call, for each reader.
	if tok := metadata.ValueFromIncomingContext(ctx, callmeta.GitHubToken); s.cfg.AllowCallerToken && len(tok) > 0 && tok[0] != "" {
		return ""
	}
	if !s.cfg.CallerAuth() && !s.cfg.Loopback() {
		return Anonymous
	}
	v := metadata.ValueFromIncomingContext(ctx, callmeta.Principal)
	if len(v) == 0 {
		// A trusted caller that names nobody has no principals to share
		// the budget among (a gateway without a policy): nothing to charge.
		return ""
	}
	if len(v) != 1 || len(v[0]) > maxPrincipalBytes || !strings.Contains(v[0], ":") || !utf8.ValidString(v[0]) ||
		strings.ContainsFunc(v[0], unicode.IsControl) {
		return Anonymous
	}
	return v[0]
}

// environment is what validate_environment says of this service: its
// version, the kind of each call's credential (never the credential) and
// its configuration warnings.
func environment(cfg config.Config, app bool) ops.Environment {
	own := "none"
	switch {
	case cfg.Token != "":
		own = ops.CredentialKind(cfg.Token)
	case app:
		own = fmt.Sprintf("GitHub App installation %d", cfg.GitHubAppInstallationID)
	}
	env := ops.Environment{Version: cfg.Version, CheckRepo: cfg.CheckRepo}
	env.Credential = func(ctx context.Context) string {
		if cfg.AllowCallerToken {
			if v := metadata.ValueFromIncomingContext(ctx, callmeta.GitHubToken); len(v) > 0 && v[0] != "" {
				return ops.CredentialKind(v[0]) + " (the caller's own)"
			}
		}
		return own
	}
	if !cfg.Loopback() && cfg.InsecureNoAuth {
		env.Warnings = append(env.Warnings, "the service serves "+cfg.Addr+" (not loopback) without caller authentication (-insecure-no-auth)")
	}
	if cfg.AllowCallerToken {
		env.Warnings = append(env.Warnings, "callers may bring their own GitHub token (-allow-caller-token)")
	}
	return env
}

// chainUnary runs interceptors in order around a handler, as
// grpc.ChainUnaryInterceptor does; grpc keeps its chaining unexported, and
// CallService/Invoke needs the chain as a value to run a call through it.
func chainUnary(interceptors []grpc.UnaryServerInterceptor) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		return interceptors[0](ctx, req, info, chained(interceptors, 0, info, handler))
	}
}

// chainStream is interceptors as one stream interceptor, the first
// outermost, as grpc.ChainStreamInterceptor would make them; a value of
// its own so that the in-process channel runs the very same chain.
func chainStream(interceptors []grpc.StreamServerInterceptor) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		return interceptors[0](srv, ss, info, chainedStream(interceptors, 0, info, handler))
	}
}

// chainedStream is the handler stream interceptor i passes the call on to.
func chainedStream(interceptors []grpc.StreamServerInterceptor, i int, info *grpc.StreamServerInfo, final grpc.StreamHandler) grpc.StreamHandler {
	if i == len(interceptors)-1 {
		return final
	}
	return func(srv any, ss grpc.ServerStream) error {
		return interceptors[i+1](srv, ss, info, chainedStream(interceptors, i+1, info, final))
	}
}

// chained is the handler interceptor i passes the call on to.
func chained(interceptors []grpc.UnaryServerInterceptor, i int, info *grpc.UnaryServerInfo, final grpc.UnaryHandler) grpc.UnaryHandler {
	if i == len(interceptors)-1 {
		return final
	}
	return func(ctx context.Context, req any) (any, error) {
		return interceptors[i+1](ctx, req, info, chained(interceptors, i+1, info, final))
	}
}
