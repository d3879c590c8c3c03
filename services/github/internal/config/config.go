// Package config holds the configuration of the ghops-github binary and fills
// it from command-line flags with environment-variable fallbacks: a flag
// given on the command line wins over its variable, which wins over the
// default.
//
//	flag                         env                               default
//	-addr                        GHOPS_GITHUB_ADDR                 127.0.0.1:50051
//	-github-url                  GITHUB_API_URL                    https://api.github.com/
//	-allow-caller-token          GHOPS_ALLOW_CALLER_TOKEN          false
//	-call-timeout                GHOPS_GITHUB_CALL_TIMEOUT         30s
//	-metrics-addr                GHOPS_GITHUB_METRICS_ADDR         127.0.0.1:9464 ("off" disables)
//	-log-level                   GHOPS_GITHUB_LOG_LEVEL            info
//	-tls-cert                    GHOPS_GITHUB_TLS_CERT             "" (plaintext gRPC; with -tls-key: TLS)
//	-tls-key                     GHOPS_GITHUB_TLS_KEY              ""
//	-tls-client-ca               GHOPS_GITHUB_TLS_CLIENT_CA        "" (callers may authenticate by a client certificate this CA signed)
//	-caller-secret-file          GHOPS_SERVICE_SECRET_FILE         "" (callers may authenticate with "authorization: Bearer <secret>")
//	-insecure-no-auth            GHOPS_GITHUB_INSECURE_NO_AUTH     false (serve a non-loopback address with no caller authentication)
//	-reflection                  GHOPS_GITHUB_REFLECTION           false (serve gRPC server reflection, behind the same authentication)
//	-github-app-id               GHOPS_GITHUB_APP_ID               0 (GitHub App instead of GITHUB_TOKEN)
//	-github-app-key-file         GHOPS_GITHUB_APP_KEY_FILE         "" (the App's PEM private key)
//	-github-app-installation-id  GHOPS_GITHUB_APP_INSTALLATION_ID  0
//	-redis-url                   GHOPS_REDIS_URL                   "" (in process; redis://host:port/db shares the cache and the GitHub budget)
//	-redis-timeout               GHOPS_REDIS_TIMEOUT               50ms (no call waits on Redis longer per operation)
//	-budget-fail-open            GHOPS_BUDGET_FAIL_OPEN            true (Redis down: each replica keeps its own budget; false: calls refused)
//	-github-concurrency          GHOPS_GITHUB_CONCURRENCY          50 (GitHub requests in flight per token across replicas; with Redis)
//	-github-writes-per-minute    GHOPS_GITHUB_WRITES_PER_MINUTE    80 (writes per token per minute across replicas; with Redis)
//	-cache-ttl                   GHOPS_CACHE_TTL                   24h (life of a cached answer in Redis)
//	-cache-entry-bytes           GHOPS_CACHE_ENTRY_BYTES           1048576 (largest answer kept in Redis)
//	-max-requests-per-call       GHOPS_MAX_REQUESTS_PER_CALL       200 (GitHub requests one call may send; -1 no cap)
//	-max-patch-files             GHOPS_MAX_PATCH_FILES             64 (files one apply_patch may change)
//	-max-patch-bytes             GHOPS_MAX_PATCH_BYTES             1048576 (bytes of one apply_patch patch)
//	-principal-share             GHOPS_PRINCIPAL_SHARE             50 (percent of the token's GitHub budget one principal may spend per window; 100 no cap)
//	-log-download-hosts          GHOPS_LOG_DOWNLOAD_HOSTS          DefaultLogDownloadHosts (hosts job logs are downloaded from, besides -github-url's)
//	-github-trace-context        GHOPS_GITHUB_TRACE_CONTEXT        off (trace context sent to GitHub: off, or service: the service's own new root)
//
// -version (print the version and exit) and -h are actions, not settings,
// and have no variable. The token comes from GITHUB_TOKEN only, never a flag, so that it never
// shows in a process list. GITHUB_TOKEN and the GitHub App settings exclude each other; with
// neither, the service calls GitHub anonymously (or with each caller's own token, when allowed).
//
// Serving a non-loopback address needs -caller-secret-file or -tls-client-ca (or
// -insecure-no-auth): whoever reaches the service acts with its GitHub credentials.
package config

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"dario.cat/mergo"

	"ghops.dev/infra/flagenv"
	"ghops.dev/infra/loopback"
	"ghops.dev/infra/redisconn"

	"ghops.dev/services/github/internal/joblog"
)

// Defaults of the configuration; Load documents each one in its flag usage.
const (
	// DefaultAddr is where the gRPC server listens.
	DefaultAddr = "127.0.0.1:50051"
	// DefaultGitHubURL is GitHub's REST API root.
	DefaultGitHubURL = "https://api.github.com/"
	// DefaultCallTimeout bounds each RPC when the caller sets no shorter deadline.
	DefaultCallTimeout = 30 * time.Second
	// DefaultMetricsAddr serves Prometheus /metrics over HTTP.
	DefaultMetricsAddr = "127.0.0.1:9464"
	// DefaultMaxFileBytes caps the content read_file and fetch return (256 KiB).
	DefaultMaxFileBytes = 256 << 10
	// DefaultMaxTreeEntries caps the entries get_tree returns.
	DefaultMaxTreeEntries = 5000
	// DefaultCacheEntries bounds the conditional-request cache (entries, LRU).
	DefaultCacheEntries = 2048
	// DefaultCacheBytes bounds the conditional-request cache (bytes of bodies).
	DefaultCacheBytes = 64 << 20
	// DefaultReadRetries is how many times a failed read is retried.
	DefaultReadRetries = 3
	// DefaultMaxRetryAfter is the longest secondary-limit retry-after a read waits out.
	DefaultMaxRetryAfter = 5 * time.Second
	// DefaultRedisTimeout bounds each Redis operation.
	DefaultRedisTimeout = 50 * time.Millisecond
	// DefaultGitHubConcurrency caps a token's GitHub requests in flight,
	// half of GitHub's 100, leaving room for the token's other users.
	DefaultGitHubConcurrency = 50
	// DefaultWritesPerMinute paces a token's writes under GitHub's
	// content-creation limit (80 a minute).
	DefaultWritesPerMinute = 80
	// DefaultCacheTTL is how long an answer lives in Redis.
	DefaultCacheTTL = 24 * time.Hour
	// DefaultCacheEntryBytes is the largest answer kept in Redis (1 MiB).
	DefaultCacheEntryBytes = 1 << 20
	// DefaultMaxRequestsPerCall caps the GitHub requests of one call:
	// above what any tool needs within its own caps (apply_patch at
	// DefaultMaxPatchFiles needs at most 6 + 2×64 + 1), far below a
	// token's hourly 5,000 (docs/security.md).
	DefaultMaxRequestsPerCall = 200
	// DefaultMaxPatchFiles caps the files one apply_patch changes.
	DefaultMaxPatchFiles = 64
	// DefaultMaxPatchBytes caps one apply_patch patch (1 MiB, the
	// contract's bound of the patch field).
	DefaultMaxPatchBytes = 1 << 20
	// DefaultPrincipalShare is the percentage of the token's GitHub budget
	// (per resource and GitHub window) one principal may spend, so that
	// one principal cannot exhaust it for every other.
	DefaultPrincipalShare = 50
	// DefaultLogDownloadHosts are the hosts GitHub sends job-log downloads
	// to (GitHub's Actions hosts and the storage accounts of its results
	// service; docs/security.md); -github-url's host is always added.
	DefaultLogDownloadHosts = "*.actions.githubusercontent.com,productionresultssa*.blob.core.windows.net"
)

// The values of -github-trace-context.
const (
	// TraceContextOff sends GitHub no trace context (and never baggage):
	// the default, since a caller's trace id says who asked.
	TraceContextOff = "off"
	// TraceContextService sends GitHub the service's own trace context, a
	// new root per GitHub request linked to the caller's trace (never the
	// caller's trace id, never baggage).
	TraceContextService = "service"
)

// CommandHealthcheck is the command that probes a running service instead
// of serving: it exits 0 when the gRPC health service at Addr answers
// SERVING (container healthchecks have no shell or curl to do it).
const CommandHealthcheck = "healthcheck"

// MetricsOff is the -metrics-addr value (flag or variable) that disables
// the metrics listener; an empty flag value does too.
const MetricsOff = "off"

// Config configures the service. The zero value of each field means its default,
// except Token, which is empty when the service has no token of its own.
type Config struct {
	// Addr is the gRPC listen address (default DefaultAddr).
	Addr string
	// GitHubURL is the API root, ending in "/" (default DefaultGitHubURL).
	GitHubURL string
	// Token is the service's own GitHub token, from GITHUB_TOKEN only.
	Token string
	// AllowCallerToken lets a call carry its own token in metadata x-github-token.
	AllowCallerToken bool
	// CallTimeout bounds each RPC (default DefaultCallTimeout).
	CallTimeout time.Duration
	// MetricsAddr serves /metrics; "" disables the listener (default DefaultMetricsAddr in Load).
	MetricsAddr string
	// LogLevel is the slog level (default info).
	LogLevel slog.Level
	// MaxFileBytes caps returned file content (default DefaultMaxFileBytes).
	MaxFileBytes int
	// MaxTreeEntries caps get_tree (default DefaultMaxTreeEntries).
	MaxTreeEntries int
	// CacheEntries and CacheBytes bound the HTTP cache (defaults above).
	CacheEntries, CacheBytes int
	// ReadRetries is the number of retries of a read (default DefaultReadRetries; -1 disables).
	ReadRetries int
	// RetryBaseDelay is the first retry backoff (default 100ms).
	RetryBaseDelay time.Duration
	// MaxRetryAfter is the longest retry-after a read waits out (default DefaultMaxRetryAfter).
	MaxRetryAfter time.Duration
	// MergeabilityAttempts bounds polling for mergeable (default 5).
	MergeabilityAttempts int
	// MergeabilityBackoff is the first polling delay, doubled each time (default 200ms).
	MergeabilityBackoff time.Duration
	// RedisURL shares the conditional cache and the GitHub budget of each
	// token with the other replicas ("" keeps both in the process, and then
	// only GitHub's reported primary limit is enforced, per replica).
	RedisURL string
	// RedisTimeout bounds each Redis operation (default DefaultRedisTimeout).
	RedisTimeout time.Duration
	// BudgetFailClosed refuses GitHub calls while Redis is down; false (the
	// default, -budget-fail-open) lets each replica keep its own budget.
	BudgetFailClosed bool
	// GitHubConcurrency caps a token's requests in flight across replicas
	// (default DefaultGitHubConcurrency; -1 no cap). Applies with Redis.
	GitHubConcurrency int
	// WritesPerMinute paces a token's writes across replicas (default
	// DefaultWritesPerMinute; -1 no pacing). Applies with Redis.
	WritesPerMinute int
	// CacheTTL is the life of an answer in Redis (default DefaultCacheTTL).
	CacheTTL time.Duration
	// CacheEntryBytes is the largest answer kept in Redis (default DefaultCacheEntryBytes).
	CacheEntryBytes int
	// MaxRequestsPerCall caps the GitHub requests of one call (default
	// DefaultMaxRequestsPerCall; -1 no cap).
	MaxRequestsPerCall int
	// MaxPatchFiles caps the files one apply_patch changes (default DefaultMaxPatchFiles).
	MaxPatchFiles int
	// MaxPatchBytes caps the bytes of one apply_patch patch (default DefaultMaxPatchBytes).
	MaxPatchBytes int
	// PrincipalShare is the percentage of the token's GitHub budget one
	// principal may spend per window (default DefaultPrincipalShare; 100
	// no cap).
	PrincipalShare int
	// LogDownloadHosts are the patterns of the hosts job logs may be
	// downloaded from (package joblog's Hosts; default
	// DefaultLogDownloadHosts); GitHubURL's host is added to them.
	LogDownloadHosts []string
	// GitHubTraceContext is TraceContextOff (default) or TraceContextService.
	GitHubTraceContext string
	// Command is "" (serve) or CommandHealthcheck, from the command line.
	Command string
	// ShowVersion asks the binary to print its version and exit (-version).
	ShowVersion bool
	// TLSCert and TLSKey are the service's certificate and key files
	// ("" for plaintext gRPC); both or neither.
	TLSCert, TLSKey string
	// TLSClientCA is the CA file client certificates are verified against
	// ("" for no mTLS); it needs TLSCert and TLSKey.
	TLSClientCA string
	// CallerSecretFile holds the shared bearer secret callers send ("" for none).
	CallerSecretFile string
	// InsecureNoAuth allows a non-loopback Addr without caller authentication.
	InsecureNoAuth bool
	// CheckRepo is the repository validate_environment checks the
	// credential's rights on when the call names none ("" for none).
	CheckRepo string
	// Version is the service's version, stamped into the binary; set by
	// main, not a flag.
	Version string
	// Reflection registers gRPC server reflection.
	Reflection bool
	// GitHubAppID, GitHubAppKeyFile and GitHubAppInstallationID select GitHub
	// App authentication instead of Token: all three or none.
	GitHubAppID             int64
	GitHubAppKeyFile        string
	GitHubAppInstallationID int64
}

// GitHubApp reports whether the service authenticates to GitHub as an App
// installation.
func (c Config) GitHubApp() bool {
	return c.GitHubAppID != 0 || c.GitHubAppKeyFile != "" || c.GitHubAppInstallationID != 0
}

// CallerAuth reports whether callers must authenticate (a secret or mTLS).
func (c Config) CallerAuth() bool { return c.CallerSecretFile != "" || c.TLSClientCA != "" }

// Loopback reports whether Addr listens on loopback only.
func (c Config) Loopback() bool { return loopback.Addr(c.Addr) }

// defaults are the values WithDefaults gives the fields left at zero.
var defaults = Config{
	Addr:                 DefaultAddr,
	GitHubURL:            DefaultGitHubURL,
	CallTimeout:          DefaultCallTimeout,
	MaxFileBytes:         DefaultMaxFileBytes,
	MaxTreeEntries:       DefaultMaxTreeEntries,
	CacheEntries:         DefaultCacheEntries,
	CacheBytes:           DefaultCacheBytes,
	ReadRetries:          DefaultReadRetries,
	RetryBaseDelay:       100 * time.Millisecond,
	MaxRetryAfter:        DefaultMaxRetryAfter,
	MergeabilityAttempts: 5,
	MergeabilityBackoff:  200 * time.Millisecond,
	RedisTimeout:         DefaultRedisTimeout,
	GitHubConcurrency:    DefaultGitHubConcurrency,
	WritesPerMinute:      DefaultWritesPerMinute,
	CacheTTL:             DefaultCacheTTL,
	CacheEntryBytes:      DefaultCacheEntryBytes,
	MaxRequestsPerCall:   DefaultMaxRequestsPerCall,
	MaxPatchFiles:        DefaultMaxPatchFiles,
	MaxPatchBytes:        DefaultMaxPatchBytes,
	PrincipalShare:       DefaultPrincipalShare,
	LogDownloadHosts:     strings.Split(DefaultLogDownloadHosts, ","),
	GitHubTraceContext:   TraceContextOff,
}

// WithDefaults returns c with every field left at its zero value set to
// its default (the zero value of a field means its default; -1, where it
// means "off", is kept). mergo fills the zero fields, so that the list of
// defaults above is the only place that names them.
func (c Config) WithDefaults() Config {
	if err := mergo.Merge(&c, defaults); err != nil {
		panic("config: defaults: " + err.Error()) // two values of one type cannot fail to merge
	}
	return c
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	u, err := url.Parse(c.GitHubURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("config: github-url must be an absolute http(s) URL")
	}
	if !strings.HasSuffix(u.Path, "/") {
		return errors.New("config: github-url must end in \"/\" (the API root)")
	}
	if u.RawQuery != "" || u.User != nil {
		return errors.New("config: github-url must not carry a query or credentials")
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return errors.New("config: -tls-cert and -tls-key go together")
	}
	if c.TLSClientCA != "" && c.TLSCert == "" {
		return errors.New("config: -tls-client-ca needs -tls-cert and -tls-key (mTLS is TLS)")
	}
	if c.GitHubApp() {
		if c.GitHubAppID <= 0 || c.GitHubAppKeyFile == "" || c.GitHubAppInstallationID <= 0 {
			return errors.New("config: a GitHub App needs all of -github-app-id, -github-app-key-file and -github-app-installation-id")
		}
		if c.Token != "" {
			return errors.New("config: GITHUB_TOKEN and the GitHub App settings exclude each other: give one")
		}
	}
	if c.PrincipalShare > 100 {
		return errors.New("config: -principal-share is a percentage: at most 100")
	}
	if c.GitHubTraceContext != TraceContextOff && c.GitHubTraceContext != TraceContextService {
		return fmt.Errorf("config: -github-trace-context is %q or %q, not %q", TraceContextOff, TraceContextService, c.GitHubTraceContext)
	}
	if _, err := joblog.ParseHosts(c.LogDownloadHosts); err != nil {
		return fmt.Errorf("config: -log-download-hosts: %w", err)
	}
	if c.RedisURL != "" {
		if err := redisconn.Validate(c.RedisURL); err != nil {
			return fmt.Errorf("config: -redis-url %w", err)
		}
	}
	return nil
}

// usage is the head of the -h text; the flags follow it.
const usage = `usage:
  ghops-github [flags]              serve the GitHub-operations gRPC service
  ghops-github [flags] healthcheck  exit 0 when the service at -addr answers SERVING, else 1

The GitHub token comes from GITHUB_TOKEN only (never a flag); a GitHub App
(-github-app-*) replaces it. On a non-loopback -addr, callers must authenticate
(-caller-secret-file or -tls-client-ca) unless -insecure-no-auth.
Flags (each falls back to the environment variable named in its text):
`

// Load fills a Config from args (without the program name), falling back to
// getenv for the variable named in each flag's usage (package flagenv: a
// flag wins over its variable, an empty variable counts as unset);
// GITHUB_TOKEN is read from the environment only, so that a token never
// shows in a process list. A command (healthcheck) may stand before,
// between or after the flags. Usage and flag errors go to output; -h
// returns flag.ErrHelp.
func Load(args []string, getenv func(string) string, output io.Writer) (Config, error) {
	s := flagenv.New("ghops-github", usage, flagenv.Getenv(getenv), output)
	var c Config
	var level, appID, instID string
	failOpen := true
	s.String(&c.Addr, "addr", "GHOPS_GITHUB_ADDR", DefaultAddr, "gRPC listen address")
	s.String(&c.GitHubURL, "github-url", "GITHUB_API_URL", DefaultGitHubURL, "GitHub API root, ending in /")
	s.Bool(&c.AllowCallerToken, "allow-caller-token", "GHOPS_ALLOW_CALLER_TOKEN", false, "use a per-call token from metadata x-github-token")
	s.Duration(&c.CallTimeout, "call-timeout", "GHOPS_GITHUB_CALL_TIMEOUT", DefaultCallTimeout, "deadline of each call")
	s.String(&c.MetricsAddr, "metrics-addr", "GHOPS_GITHUB_METRICS_ADDR", DefaultMetricsAddr, `Prometheus /metrics listen address, "off" disables`)
	s.String(&level, "log-level", "GHOPS_GITHUB_LOG_LEVEL", "info", "log level: debug, info, warn, error")
	s.String(&c.TLSCert, "tls-cert", "GHOPS_GITHUB_TLS_CERT", "", "PEM certificate of the gRPC listener; with -tls-key serves TLS")
	s.String(&c.TLSKey, "tls-key", "GHOPS_GITHUB_TLS_KEY", "", "PEM private key of -tls-cert")
	s.String(&c.TLSClientCA, "tls-client-ca", "GHOPS_GITHUB_TLS_CLIENT_CA", "", "PEM CA: callers with a client certificate it signed are authenticated (mTLS)")
	s.String(&c.CallerSecretFile, "caller-secret-file", "GHOPS_SERVICE_SECRET_FILE", "", `file holding the shared secret callers send as "authorization: Bearer <secret>"`)
	s.Bool(&c.InsecureNoAuth, "insecure-no-auth", "GHOPS_GITHUB_INSECURE_NO_AUTH", false, "serve a non-loopback -addr with no caller authentication")
	s.Bool(&c.Reflection, "reflection", "GHOPS_GITHUB_REFLECTION", false, "serve gRPC server reflection, authenticated like every call")
	s.String(&c.CheckRepo, "check-repo", "GHOPS_GITHUB_CHECK_REPO", "", "owner/repo whose rights validate_environment checks when the call names none")
	s.String(&appID, "github-app-id", "GHOPS_GITHUB_APP_ID", "", "GitHub App id, instead of GITHUB_TOKEN")
	s.String(&c.GitHubAppKeyFile, "github-app-key-file", "GHOPS_GITHUB_APP_KEY_FILE", "", "the GitHub App's PEM private key file")
	s.String(&instID, "github-app-installation-id", "GHOPS_GITHUB_APP_INSTALLATION_ID", "", "the GitHub App installation the service acts as")
	// The state shared through Redis: the cache and the GitHub budget.
	s.String(&c.RedisURL, "redis-url", "GHOPS_REDIS_URL", "", "Redis shared by the replicas for the cache and each token's GitHub budget, redis://host:port/db; in process when empty")
	s.Duration(&c.RedisTimeout, "redis-timeout", "GHOPS_REDIS_TIMEOUT", DefaultRedisTimeout, "bound on each Redis operation")
	s.Bool(&failOpen, "budget-fail-open", "GHOPS_BUDGET_FAIL_OPEN", true, "with Redis down, each replica keeps its own GitHub budget (true) or calls are refused (false)")
	s.Int(&c.GitHubConcurrency, "github-concurrency", "GHOPS_GITHUB_CONCURRENCY", DefaultGitHubConcurrency, "GitHub requests in flight per token across replicas, -1 for no cap; with -redis-url")
	s.Int(&c.WritesPerMinute, "github-writes-per-minute", "GHOPS_GITHUB_WRITES_PER_MINUTE", DefaultWritesPerMinute, "writes per token per minute across replicas, -1 for no pacing; with -redis-url")
	s.Duration(&c.CacheTTL, "cache-ttl", "GHOPS_CACHE_TTL", DefaultCacheTTL, "life of a cached GitHub answer in Redis")
	s.Positive(&c.CacheEntryBytes, "cache-entry-bytes", "GHOPS_CACHE_ENTRY_BYTES", DefaultCacheEntryBytes, "largest GitHub answer kept in Redis, in bytes")
	// The bounds of one call's cost (docs/security.md).
	s.Int(&c.MaxRequestsPerCall, "max-requests-per-call", "GHOPS_MAX_REQUESTS_PER_CALL", DefaultMaxRequestsPerCall,
		"GitHub requests one call may send; the one past it is not sent and the call fails with -32602 naming the limit; -1 for no cap")
	s.Int(&c.MaxPatchFiles, "max-patch-files", "GHOPS_MAX_PATCH_FILES", DefaultMaxPatchFiles,
		"files one apply_patch may change; a larger patch is refused with -32602 before any GitHub request")
	s.Int(&c.MaxPatchBytes, "max-patch-bytes", "GHOPS_MAX_PATCH_BYTES", DefaultMaxPatchBytes,
		"bytes of one apply_patch patch; a larger patch is refused with -32602 before any GitHub request")
	s.Int(&c.PrincipalShare, "principal-share", "GHOPS_PRINCIPAL_SHARE", DefaultPrincipalShare,
		"percent of the token's GitHub budget (per resource and window) one principal may spend; 100 for no cap")
	// What leaves for hosts other than GitHub's API (docs/security.md).
	var logHosts string
	s.String(&logHosts, "log-download-hosts", "GHOPS_LOG_DOWNLOAD_HOSTS", DefaultLogDownloadHosts,
		"comma-separated hosts job logs may be downloaded from, besides -github-url's: name, *.domain, or a glob in the first label; \"http://\" allows plain http")
	s.String(&c.GitHubTraceContext, "github-trace-context", "GHOPS_GITHUB_TRACE_CONTEXT", TraceContextOff,
		`trace context sent to GitHub: "off" (none) or "service" (with tracing on, the service's own: a new trace linked to the caller's); never the caller's, never baggage`)
	s.Action(&c.ShowVersion, "version", "print the version and exit")
	cmd, err := s.Parse(args, CommandHealthcheck)
	if err != nil && s.Err() == nil {
		return Config{}, fmt.Errorf("config: %w", err) // -h, a bad flag or command
	}
	c.Command = cmd
	c.BudgetFailClosed = !failOpen
	for _, h := range strings.Split(logHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			c.LogDownloadHosts = append(c.LogDownloadHosts, h)
		}
	}
	if c.MetricsAddr == MetricsOff {
		c.MetricsAddr = ""
	}
	for _, id := range []struct {
		flag, val string
		dst       *int64
	}{{"github-app-id", appID, &c.GitHubAppID}, {"github-app-installation-id", instID, &c.GitHubAppInstallationID}} {
		if id.val == "" {
			continue
		}
		n, err := strconv.ParseInt(id.val, 10, 64)
		if err != nil || n <= 0 {
			s.Fail(id.flag, fmt.Errorf("%q is not a positive integer", id.val))
		}
		*id.dst = n
	}
	if err := c.LogLevel.UnmarshalText([]byte(level)); err != nil {
		s.Fail("log-level", fmt.Errorf("%q is not debug, info, warn or error", level))
	}
	for _, r := range []struct {
		flag     string
		n        int
		lo, hi   int
		allowOff bool
	}{
		{"github-concurrency", c.GitHubConcurrency, 1, 1 << 30, true},
		{"github-writes-per-minute", c.WritesPerMinute, 1, 1 << 30, true},
		{"max-requests-per-call", c.MaxRequestsPerCall, 1, 1 << 20, true},
		{"max-patch-files", c.MaxPatchFiles, 1, 1 << 20, false},
		{"max-patch-bytes", c.MaxPatchBytes, 1, 1 << 30, false},
		{"principal-share", c.PrincipalShare, 1, 100, false},
	} {
		if (r.n < r.lo || r.n > r.hi) && !(r.allowOff && r.n == -1) {
			want := fmt.Sprintf("a whole number from %d to %d", r.lo, r.hi)
			if r.allowOff {
				want += " or -1"
			}
			s.Fail(r.flag, fmt.Errorf("%d is not %s", r.n, want))
		}
	}
	if err := s.Err(); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	c.Token = getenv("GITHUB_TOKEN")
	c = c.WithDefaults()
	return c, c.Validate()
}
