// Package config holds the ghops-gateway configuration: one struct filled
// from flags, each with an environment-variable fallback and a documented
// default. Precedence: flag, then environment, then default.
//
//	flag                  env                            default
//	-addr                 GHOPS_GATEWAY_ADDR             127.0.0.1:8788
//	-service              GHOPS_SERVICE_ADDR             127.0.0.1:50051
//	-call-timeout         GHOPS_CALL_TIMEOUT             30s
//	-shutdown-timeout     GHOPS_SHUTDOWN_TIMEOUT         call timeout + 5s (never less than the call timeout)
//	-max-body             GHOPS_MAX_BODY                 1048576 (bytes)
//	-max-batch            GHOPS_MAX_BATCH                50
//	-batch-concurrency    GHOPS_BATCH_CONCURRENCY        8
//	-max-in-flight        GHOPS_MAX_IN_FLIGHT            64 (service calls at once, all callers)
//	-http-status-mapping  GHOPS_HTTP_STATUS_MAPPING      false
//	-mcp-tool-errors      GHOPS_MCP_TOOL_ERRORS          auto (or jsonrpc, result)
//	-allowed-origins      GHOPS_ALLOWED_ORIGINS          "" (comma-separated; "*" for any)
//	-allowed-hosts        GHOPS_ALLOWED_HOSTS            "" (comma-separated names, "*.suffix")
//	-policy               GHOPS_POLICY                   "" (policy file: principals, keys, rules)
//	-oauth-issuer         GHOPS_OAUTH_ISSUER             "" ("github" or an OIDC issuer URL)
//	-oauth-jwks-url       GHOPS_OAUTH_JWKS_URL           "" (OIDC)
//	-oauth-audience       GHOPS_OAUTH_AUDIENCE           the resource URL (OIDC)
//	-oauth-claim          GHOPS_OAUTH_CLAIM              sub (OIDC claim naming the principal)
//	-github-url           GITHUB_API_URL                 https://api.github.com/ (verifying GitHub tokens)
//	-token-cache-ttl      GHOPS_TOKEN_CACHE_TTL          60s (a verified GitHub token is trusted this long)
//	-resource-url         GHOPS_RESOURCE_URL             http://<addr>/mcp (RFC 9728 resource; required with OAuth on a wildcard address)
//	-oauth-jwks-min-interval GHOPS_OAUTH_JWKS_MIN_INTERVAL 30s (least time between two JWKS fetches)
//	-metrics-addr         GHOPS_METRICS_ADDR             "" (/metrics on the main listener, behind its authentication; else only on this address)
//	-read-only            GHOPS_READ_ONLY                false (refuse every writing tool)
//	-toolsets             GHOPS_TOOLSETS                 all (comma-separated groups: repos, pulls, issues, actions, search, meta, projects)
//	-confirm              GHOPS_CONFIRM                  "" (comma-separated tools, names or globs, a person must confirm for every caller)
//	-content-trust        GHOPS_CONTENT_TRUST            all (or collaborators: withhold text by authors without write access on public repositories)
//	-insecure-no-auth     GHOPS_INSECURE_NO_AUTH         false (allow a non-loopback address without auth)
//	-session-secret       GHOPS_SESSION_SECRET           random at start
//	-log-level            GHOPS_LOG_LEVEL                info
//	-redis-url            GHOPS_REDIS_URL                "" (in process; redis://host:port/db shares quotas across replicas)
//	-redis-timeout        GHOPS_REDIS_TIMEOUT            50ms (no call waits on Redis longer)
//	-quota-fail-open      GHOPS_QUOTA_FAIL_OPEN          true (Redis down: count per replica; false: refuse calls)
//	-debug-addr           GHOPS_DEBUG_ADDR               "" (off; net/http/pprof on this address, loopback only)
//	-embedded             GHOPS_EMBEDDED                 false
//	-procs                GHOPS_PROCS                    auto (1 in front of a -service; Go's choice with -embedded or when GOMAXPROCS is set; 0: Go's choice)
//	-service-secret-file  GHOPS_SERVICE_SECRET_FILE      "" (shared secret sent to the service as "authorization: Bearer")
//	-service-tls-ca       GHOPS_SERVICE_TLS_CA           "" (TLS to the service, verified against this CA; system roots when only a client certificate is set)
//	-service-tls-cert     GHOPS_SERVICE_TLS_CERT         "" (client certificate for mTLS to the service)
//	-service-tls-key      GHOPS_SERVICE_TLS_KEY          "" (its key)
//
// The -service-* credentials are how the gateway authenticates to the
// GitHub service (see ghops.dev/gateway/internal/servicedial); -embedded
// needs none, its service is in process.
//
// -embedded runs the GitHub service inside the gateway (no -service): it
// then reads the service's own variables, GITHUB_TOKEN and GITHUB_API_URL
// among them (see ghops.dev/services/github/inprocess). -version and -h are
// actions, not settings, and have no variable. A command, "stdio" or
// "healthcheck", may stand before, between or after the flags.
package config

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"ghops.dev/gateway/internal/toolset"
	"ghops.dev/infra/callmeta"
	"ghops.dev/infra/flagenv"
	"ghops.dev/infra/loopback"
)

// Tool-error modes of MCP (docs/errors.md has the rule).
const (
	// ToolErrorsAuto answers a tool failure with an isError tool result when
	// the request named an MCP protocol version, else with a JSON-RPC error.
	ToolErrorsAuto = "auto"
	// ToolErrorsJSONRPC always answers tool failures with a JSON-RPC error.
	ToolErrorsJSONRPC = "jsonrpc"
	// ToolErrorsResult always answers tool failures with an isError result.
	ToolErrorsResult = "result"
)

// Commands of ghops-gateway besides serving HTTP.
const (
	// CommandStdio speaks MCP over stdin and stdout.
	CommandStdio = "stdio"
	// CommandHealthcheck probes a running gateway's /readyz at Addr and
	// exits 0 when ready (container healthchecks have no shell or curl).
	CommandHealthcheck = "healthcheck"
)

// Config is the gateway's configuration.
type Config struct {
	// Addr is the HTTP listen address.
	Addr string
	// ServiceAddr is the gRPC address of services/github.
	ServiceAddr string
	// CallTimeout is the deadline of one service call.
	CallTimeout time.Duration
	// ShutdownTimeout bounds draining on SIGTERM; never below CallTimeout,
	// so that a call in flight at SIGTERM still gets its answer.
	ShutdownTimeout time.Duration
	// MaxBody is the largest request body accepted, in bytes (413 above).
	MaxBody int64
	// MaxBatch is the largest JSON-RPC batch accepted (on /rpc, and on MCP
	// where the protocol version allows batches).
	MaxBatch int
	// BatchConcurrency bounds the calls of one batch run at once.
	BatchConcurrency int
	// MaxInFlight caps the service calls in flight at once, all callers.
	MaxInFlight int
	// Procs is how many threads may run the gateway's Go code at once
	// (runtime.GOMAXPROCS); 0 leaves Go's choice, every CPU the process
	// may use. -procs auto, the default, is 1 when the gateway only
	// relays to a -service: a call is then mostly waiting, and with a
	// second processor idle the runtime hands each wake-up between
	// threads, which cost the gateway about a fifth of its CPU per call
	// for no more calls a second (docs/benchmarks.md, "Fourth pass").
	// -embedded runs the service's work in process and keeps Go's choice,
	// as does a GOMAXPROCS the operator set.
	Procs int
	// HTTPStatusMapping maps /rpc error codes to HTTP statuses (else 200).
	HTTPStatusMapping bool
	// MCPToolErrors is ToolErrorsAuto, ToolErrorsJSONRPC or ToolErrorsResult.
	MCPToolErrors string
	// AllowedOrigins are the Origins accepted besides the gateway's own and
	// loopback ones.
	AllowedOrigins []string
	// AllowedHosts are the Host names accepted besides IP literals,
	// localhost and the listen address's name.
	AllowedHosts []string
	// PolicyFile is the policy file ("" for none).
	PolicyFile string
	// OAuthIssuer is "" (no OAuth), "github", or an OIDC issuer URL.
	OAuthIssuer string
	// OAuthJWKSURL is the OIDC issuer's key set.
	OAuthJWKSURL string
	// OAuthAudience is the aud OIDC tokens must carry ("" for ResourceURL).
	OAuthAudience string
	// OAuthClaim names the principal in OIDC tokens.
	OAuthClaim string
	// GitHubURL is GitHub's REST root, for verifying GitHub tokens.
	GitHubURL string
	// TokenCacheTTL is how long a verified GitHub token is trusted.
	TokenCacheTTL time.Duration
	// ResourceURL is the MCP endpoint's canonical URL (RFC 9728).
	ResourceURL string
	// JWKSMinInterval is the least time between two fetches of the OIDC
	// issuer's JWKS (a forged token must not cause a fetch each time).
	JWKSMinInterval time.Duration
	// MetricsAddr serves /metrics on its own listener ("": on the main
	// one, which then asks for the same credentials as /rpc and /mcp).
	MetricsAddr string
	// ReadOnly refuses every tool that is not read-only.
	ReadOnly bool
	// Toolsets are the groups of tools the gateway offers (package
	// toolset); nil offers every group. A tool of another group does not
	// exist for any caller; ReadOnly still removes the writing ones.
	Toolsets []string
	// Confirm are tool names or globs whose every call a person must
	// confirm through the MCP client, whoever calls (on top of each
	// principal's confirm in the policy file).
	Confirm []string
	// ContentTrust is whose GitHub text the model reads, for principals
	// without their own content_trust: "all" (the default: the gateway
	// passes what GitHub answers, as before the setting existed) or
	// "collaborators" (the service withholds text written on public
	// repositories by authors without write access). Not an authorization
	// boundary (docs/security.md).
	ContentTrust string
	// InsecureNoAuth allows serving a non-loopback address without
	// authentication.
	InsecureNoAuth bool
	// PublishedAddr is the host address a container runtime publishes Addr
	// on (docker run -p, compose ports), "" when Addr is reached directly.
	// A container must listen on all its interfaces to be reachable at all,
	// so only the published address says who can reach the gateway: on
	// loopback, only this machine (docker-compose.yml sets it).
	PublishedAddr string
	// SessionSecret keys the MCP session ids (shared by replicas).
	SessionSecret []byte
	// SessionSecretSet says the secret was configured, not drawn at start.
	SessionSecretSet bool
	// LogLevel is the slog level.
	LogLevel slog.Level
	// DebugAddr serves net/http/pprof ("" for off); it must be loopback.
	DebugAddr string
	// RedisURL is the shared quota store ("" for in-process quotas).
	RedisURL string
	// RedisTimeout bounds each Redis operation.
	RedisTimeout time.Duration
	// QuotaFailOpen counts quotas per replica while Redis is down, instead
	// of refusing calls.
	QuotaFailOpen bool
	// Embedded runs the GitHub service in process instead of dialing
	// ServiceAddr.
	Embedded bool
	// ServiceSecretFile holds the shared secret sent to the service.
	ServiceSecretFile string
	// ServiceTLSCA, ServiceTLSCert and ServiceTLSKey are the PEM files of
	// TLS to the service: the CA its certificate is verified against, and
	// the gateway's client certificate and key (mTLS).
	ServiceTLSCA, ServiceTLSCert, ServiceTLSKey string
	// Version is the gateway's version (serverInfo.version): "dev" unless
	// the binary was stamped at build time; main sets it.
	Version string
	// ShowVersion asks the binary to print Version and exit (-version).
	ShowVersion bool
	// Command is "" (serve HTTP), CommandStdio or CommandHealthcheck.
	Command string
}

// Default returns the defaults (with a fresh random session secret).
func Default() Config {
	return Config{
		Addr:             "127.0.0.1:8788",
		ServiceAddr:      "127.0.0.1:50051",
		CallTimeout:      30 * time.Second,
		ShutdownTimeout:  35 * time.Second,
		MaxBody:          1 << 20,
		MaxBatch:         50,
		BatchConcurrency: 8,
		MaxInFlight:      64,
		MCPToolErrors:    ToolErrorsAuto,
		OAuthClaim:       "sub",
		GitHubURL:        "https://api.github.com/",
		TokenCacheTTL:    time.Minute,
		JWKSMinInterval:  30 * time.Second,
		RedisTimeout:     50 * time.Millisecond,
		QuotaFailOpen:    true,
		ContentTrust:     callmeta.ContentTrustAll,
		SessionSecret:    randomSecret(),
		LogLevel:         slog.LevelInfo,
		Version:          "dev",
	}
}

// randomSecret returns 32 random bytes.
func randomSecret() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return b
}

// usage is the head of the -h text; the flags follow it.
const usage = `usage:
  ghops-gateway [flags]              serve MCP (/mcp) and JSON-RPC (/rpc) over HTTP on -addr
  ghops-gateway [flags] stdio        speak MCP over stdin/stdout (for local MCP hosts)
  ghops-gateway [flags] healthcheck  exit 0 when the gateway on -addr is ready (/readyz), else 1

With -embedded the GitHub service runs inside the gateway and reads its own
variables: GITHUB_TOKEN (never a flag) or GHOPS_GITHUB_APP_ID, GHOPS_GITHUB_APP_KEY_FILE
and GHOPS_GITHUB_APP_INSTALLATION_ID, GITHUB_API_URL, GHOPS_ALLOW_CALLER_TOKEN,
GHOPS_GITHUB_CALL_TIMEOUT.
Flags (each falls back to the environment variable in parentheses):
`

// ProcsAuto is -procs' default: see Config.Procs.
const ProcsAuto = "auto"

// parseProcs reads -procs: "auto" (ProcsAuto) or a count, 0 meaning Go's
// choice. auto is 1 unless the service runs in process (embedded) or the
// operator set GOMAXPROCS (gomaxprocs), whose choice the runtime already
// applied.
func parseProcs(v string, embedded bool, gomaxprocs string) (int, error) {
	if v == ProcsAuto {
		if embedded || gomaxprocs != "" {
			return 0, nil
		}
		return 1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, errors.New(`must be "auto" or a count of 0 or more (0: Go's choice)`)
	}
	return n, nil
}

// Load parses args (without the program name) with getenv as the
// environment (package flagenv: a flag wins over its variable, an empty
// variable counts as unset); output receives usage text. -h returns
// flag.ErrHelp.
func Load(args []string, getenv func(string) string, output io.Writer) (Config, error) {
	c := Default()
	s := flagenv.New("ghops-gateway", usage, flagenv.Getenv(getenv), output)
	var shutdown, toolErrs, toolsets, secret, level, procs string
	maxBody := int(c.MaxBody)
	s.String(&c.Addr, "addr", "GHOPS_GATEWAY_ADDR", c.Addr, "HTTP listen address")
	s.String(&c.ServiceAddr, "service", "GHOPS_SERVICE_ADDR", c.ServiceAddr, "gRPC address of the GitHub service")
	s.Duration(&c.CallTimeout, "call-timeout", "GHOPS_CALL_TIMEOUT", c.CallTimeout, "deadline of one service call")
	s.String(&shutdown, "shutdown-timeout", "GHOPS_SHUTDOWN_TIMEOUT", "", "bound on draining at SIGTERM; default call timeout + 5s, never less than the call timeout")
	s.Positive(&maxBody, "max-body", "GHOPS_MAX_BODY", maxBody, "largest request body in bytes")
	s.Positive(&c.MaxBatch, "max-batch", "GHOPS_MAX_BATCH", c.MaxBatch, "largest JSON-RPC batch, on /rpc and MCP")
	s.Positive(&c.BatchConcurrency, "batch-concurrency", "GHOPS_BATCH_CONCURRENCY", c.BatchConcurrency, "calls of one batch run at once")
	s.Positive(&c.MaxInFlight, "max-in-flight", "GHOPS_MAX_IN_FLIGHT", c.MaxInFlight, "service calls in flight at once, all callers")
	s.Bool(&c.HTTPStatusMapping, "http-status-mapping", "GHOPS_HTTP_STATUS_MAPPING", false, "map /rpc error codes to HTTP statuses")
	s.String(&toolErrs, "mcp-tool-errors", "GHOPS_MCP_TOOL_ERRORS", c.MCPToolErrors, "MCP tool failures: auto, jsonrpc or result")
	s.List(&c.AllowedOrigins, "allowed-origins", "GHOPS_ALLOWED_ORIGINS", nil, "comma-separated Origins /rpc and /mcp accept besides their own and loopback ones; * for any")
	s.List(&c.AllowedHosts, "allowed-hosts", "GHOPS_ALLOWED_HOSTS", nil, "comma-separated Host names accepted besides IP literals and localhost; *.suffix allowed")
	s.String(&c.PolicyFile, "policy", "GHOPS_POLICY", "", "policy file: principals, API key hashes, tools, repositories, limits")
	s.String(&c.OAuthIssuer, "oauth-issuer", "GHOPS_OAUTH_ISSUER", "", `OAuth issuer: "github" or an OIDC issuer URL`)
	s.String(&c.OAuthJWKSURL, "oauth-jwks-url", "GHOPS_OAUTH_JWKS_URL", "", "OIDC issuer's JWKS URL")
	s.String(&c.OAuthAudience, "oauth-audience", "GHOPS_OAUTH_AUDIENCE", "", "aud an OIDC token must carry; default the resource URL")
	s.String(&c.OAuthClaim, "oauth-claim", "GHOPS_OAUTH_CLAIM", c.OAuthClaim, "OIDC claim naming the principal")
	s.String(&c.GitHubURL, "github-url", "GITHUB_API_URL", c.GitHubURL, "GitHub's REST root, for verifying callers' GitHub tokens")
	s.Duration(&c.TokenCacheTTL, "token-cache-ttl", "GHOPS_TOKEN_CACHE_TTL", c.TokenCacheTTL, "how long a verified GitHub token is trusted")
	s.String(&c.ResourceURL, "resource-url", "GHOPS_RESOURCE_URL", "", "canonical URL of the MCP endpoint, for OAuth metadata; default http://<addr>/mcp")
	s.Duration(&c.JWKSMinInterval, "oauth-jwks-min-interval", "GHOPS_OAUTH_JWKS_MIN_INTERVAL", c.JWKSMinInterval, "least time between two fetches of the OIDC issuer's JWKS")
	s.String(&c.MetricsAddr, "metrics-addr", "GHOPS_METRICS_ADDR", "", "serve /metrics on this address only; on the main listener, behind its authentication, when empty")
	s.Bool(&c.ReadOnly, "read-only", "GHOPS_READ_ONLY", false, "refuse every tool that writes, whoever calls")
	s.String(&toolsets, "toolsets", "GHOPS_TOOLSETS", toolset.All, "comma-separated groups of tools offered: "+strings.Join(toolset.Names(), ", ")+", or all")
	s.List(&c.Confirm, "confirm", "GHOPS_CONFIRM", nil, "comma-separated tools (names or globs) whose every call a person must confirm through the MCP client")
	s.String(&c.ContentTrust, "content-trust", "GHOPS_CONTENT_TRUST", c.ContentTrust, `whose GitHub text the model reads: "all", or "collaborators" to replace text written on public repositories by authors without write access (author_association not OWNER, MEMBER or COLLABORATOR) with a marker naming the author; a principal's content_trust overrides it. It keeps steering text from the model and is not an authorization boundary: the text stays on GitHub, readable by any token with access`)
	s.Bool(&c.InsecureNoAuth, "insecure-no-auth", "GHOPS_INSECURE_NO_AUTH", false, "serve a non-loopback address without authentication")
	s.String(&c.PublishedAddr, "published-addr", "GHOPS_PUBLISHED_ADDR", "", "host:port the container runtime publishes -addr on (docker -p, compose ports); a loopback one silences the not-loopback warning")
	s.String(&secret, "session-secret", "GHOPS_SESSION_SECRET", "", "key of MCP session ids, shared by replicas; random if unset")
	s.String(&level, "log-level", "GHOPS_LOG_LEVEL", "info", "debug, info, warn or error")
	s.String(&c.RedisURL, "redis-url", "GHOPS_REDIS_URL", "", "Redis for quotas shared by replicas, redis://host:port/db; in process when empty")
	s.Duration(&c.RedisTimeout, "redis-timeout", "GHOPS_REDIS_TIMEOUT", c.RedisTimeout, "bound on each Redis operation")
	s.Bool(&c.QuotaFailOpen, "quota-fail-open", "GHOPS_QUOTA_FAIL_OPEN", c.QuotaFailOpen, "with Redis down, count quotas per replica (true) or refuse calls (false)")
	s.String(&c.DebugAddr, "debug-addr", "GHOPS_DEBUG_ADDR", "", "serve net/http/pprof on this loopback address; off when empty")
	s.Bool(&c.Embedded, "embedded", "GHOPS_EMBEDDED", false, "run the GitHub service in process instead of dialing -service")
	s.String(&procs, "procs", "GHOPS_PROCS", ProcsAuto, `threads running Go code at once (GOMAXPROCS): "auto" is 1 in front of a -service, Go's choice with -embedded or when GOMAXPROCS is set; 0 is Go's choice`)
	s.String(&c.ServiceSecretFile, "service-secret-file", "GHOPS_SERVICE_SECRET_FILE", "", `file holding the shared secret sent to the service as "authorization: Bearer <secret>"`)
	s.String(&c.ServiceTLSCA, "service-tls-ca", "GHOPS_SERVICE_TLS_CA", "", "PEM CA the service's TLS certificate is verified against; turns on TLS to the service")
	s.String(&c.ServiceTLSCert, "service-tls-cert", "GHOPS_SERVICE_TLS_CERT", "", "PEM client certificate presented to the service (mTLS)")
	s.String(&c.ServiceTLSKey, "service-tls-key", "GHOPS_SERVICE_TLS_KEY", "", "PEM key of -service-tls-cert")
	s.Action(&c.ShowVersion, "version", "print the version and exit")
	cmd, err := s.Parse(args, CommandStdio, CommandHealthcheck)
	if err != nil && s.Err() == nil {
		return Config{}, err // -h, a bad flag or command: nothing more to check
	}
	c.Command = cmd
	c.MaxBody = int64(maxBody)
	c.ShutdownTimeout = c.CallTimeout + 5*time.Second
	if shutdown != "" {
		d, err := time.ParseDuration(shutdown)
		switch {
		case err != nil || d <= 0:
			s.Fail("shutdown-timeout", errors.New("must be a positive duration such as 30s"))
		case d < c.CallTimeout:
			s.Fail("shutdown-timeout", fmt.Errorf("%s is shorter than the call timeout %s: a call in flight at SIGTERM would be cut with no answer", d, c.CallTimeout))
		default:
			c.ShutdownTimeout = d
		}
	}
	if c.Toolsets, err = toolset.Parse(toolsets); err != nil {
		s.Fail("toolsets", err)
	}
	if c.ContentTrust != callmeta.ContentTrustAll && c.ContentTrust != callmeta.ContentTrustCollaborators {
		s.Fail("content-trust", fmt.Errorf("%q must be %q or %q", c.ContentTrust, callmeta.ContentTrustAll, callmeta.ContentTrustCollaborators))
	}
	if _, _, err := net.SplitHostPort(c.PublishedAddr); c.PublishedAddr != "" && err != nil {
		s.Fail("published-addr", errors.New("must be host:port"))
	}
	if c.Procs, err = parseProcs(procs, c.Embedded, getenv("GOMAXPROCS")); err != nil {
		s.Fail("procs", err)
	}
	switch toolErrs {
	case ToolErrorsAuto, ToolErrorsJSONRPC, ToolErrorsResult:
		c.MCPToolErrors = toolErrs
	default:
		s.Fail("mcp-tool-errors", errors.New(`must be "auto", "jsonrpc" or "result"`))
	}
	switch {
	case c.OAuthIssuer == "" || c.OAuthIssuer == "github":
	case !isHTTPURL(c.OAuthIssuer):
		s.Fail("oauth-issuer", errors.New(`must be "github" or an OIDC issuer URL`))
	case c.OAuthJWKSURL == "":
		s.Fail("oauth-jwks-url", errors.New("an OIDC issuer needs its JWKS URL"))
	}
	if c.OAuthJWKSURL != "" && !isHTTPURL(c.OAuthJWKSURL) {
		s.Fail("oauth-jwks-url", errors.New("must be an http(s) URL"))
	}
	if c.OAuthClaim == "" {
		s.Fail("oauth-claim", errors.New("must name a claim"))
	}
	if !isHTTPURL(c.GitHubURL) {
		s.Fail("github-url", errors.New("must be an http(s) URL"))
	}
	if c.ResourceURL == "" {
		c.ResourceURL = "http://" + c.Addr + "/mcp"
	} else if !isHTTPURL(c.ResourceURL) {
		s.Fail("resource-url", errors.New("must be an http(s) URL"))
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			s.Fail("metrics-addr", errors.New("must be host:port"))
		}
	}
	if secret != "" {
		if len(secret) < 16 {
			s.Fail("session-secret", errors.New("must be at least 16 characters"))
		}
		c.SessionSecret = []byte(secret)
		c.SessionSecretSet = true
	}
	if c.RedisURL != "" {
		if u, err := url.Parse(c.RedisURL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
			s.Fail("redis-url", errors.New("must be redis://host:port[/db] or rediss://..."))
		}
	}
	if (c.ServiceTLSCert == "") != (c.ServiceTLSKey == "") {
		s.Fail("service-tls-cert", errors.New("-service-tls-cert and -service-tls-key go together"))
	}
	if c.DebugAddr != "" && !loopback.Addr(c.DebugAddr) {
		s.Fail("debug-addr", errors.New("must be a loopback address (the profiler is not for the network)"))
	}
	if err := c.LogLevel.UnmarshalText([]byte(level)); err != nil {
		s.Fail("log-level", errors.New("must be debug, info, warn or error"))
	}
	if err := s.Err(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// ReachedOnLoopback reports whether only this machine reaches the gateway:
// it listens on loopback, or a container runtime publishes it on a loopback
// address (PublishedAddr).
func (c Config) ReachedOnLoopback() bool {
	return c.Loopback() || (loopback.Addr(c.PublishedAddr))
}

// Loopback reports whether Addr listens on loopback only.
func (c Config) Loopback() bool { return loopback.Addr(c.Addr) }

// isHTTPURL reports whether s is an absolute http(s) URL with a host.
func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
