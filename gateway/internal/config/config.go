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
//	-toolsets             GHOPS_TOOLSETS                 all (comma-separated groups: repos, pulls, issues, actions, search, meta)
//	-insecure-no-auth     GHOPS_INSECURE_NO_AUTH         false (allow a non-loopback address without auth)
//	-session-secret       GHOPS_SESSION_SECRET           random at start
//	-log-level            GHOPS_LOG_LEVEL                info
//	-redis-url            GHOPS_REDIS_URL                "" (in process; redis://host:port/db shares quotas across replicas)
//	-redis-timeout        GHOPS_REDIS_TIMEOUT            50ms (no call waits on Redis longer)
//	-quota-fail-open      GHOPS_QUOTA_FAIL_OPEN          true (Redis down: count per replica; false: refuse calls)
//	-debug-addr           GHOPS_DEBUG_ADDR               "" (off; net/http/pprof on this address, loopback only)
//	-embedded             GHOPS_EMBEDDED                 false
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
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"ghops.dev/gateway/internal/toolset"
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

// Load parses args (without the program name) with getenv as the
// environment; output receives usage text. -h returns flag.ErrHelp.
func Load(args []string, getenv func(string) string, output io.Writer) (Config, error) {
	c := Default()
	fs := flag.NewFlagSet("ghops-gateway", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	env := func(key, def string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return def
	}
	var errs []error
	bad := func(name string, err error) { errs = append(errs, fmt.Errorf("-%s: %w", name, err)) }
	envBoolDef := func(name, key string, def bool) bool {
		v := getenv(key)
		if v == "" {
			return def
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			bad(name, fmt.Errorf("%s must be true or false", key))
		}
		return b
	}
	envBool := func(name, key string) bool { return envBoolDef(name, key, false) }
	var (
		addr     = fs.String("addr", env("GHOPS_GATEWAY_ADDR", c.Addr), "HTTP listen address (GHOPS_GATEWAY_ADDR)")
		service  = fs.String("service", env("GHOPS_SERVICE_ADDR", c.ServiceAddr), "gRPC address of the GitHub service (GHOPS_SERVICE_ADDR)")
		timeout  = fs.String("call-timeout", env("GHOPS_CALL_TIMEOUT", c.CallTimeout.String()), "deadline of one service call (GHOPS_CALL_TIMEOUT)")
		shutdown = fs.String("shutdown-timeout", env("GHOPS_SHUTDOWN_TIMEOUT", ""), "bound on draining at SIGTERM; default call timeout + 5s, never less than the call timeout (GHOPS_SHUTDOWN_TIMEOUT)")
		maxBody  = fs.String("max-body", env("GHOPS_MAX_BODY", strconv.FormatInt(c.MaxBody, 10)), "largest request body in bytes (GHOPS_MAX_BODY)")
		maxBatch = fs.String("max-batch", env("GHOPS_MAX_BATCH", strconv.Itoa(c.MaxBatch)), "largest JSON-RPC batch, on /rpc and MCP (GHOPS_MAX_BATCH)")
		conc     = fs.String("batch-concurrency", env("GHOPS_BATCH_CONCURRENCY", strconv.Itoa(c.BatchConcurrency)), "calls of one batch run at once (GHOPS_BATCH_CONCURRENCY)")
		inFlight = fs.String("max-in-flight", env("GHOPS_MAX_IN_FLIGHT", strconv.Itoa(c.MaxInFlight)), "service calls in flight at once, all callers (GHOPS_MAX_IN_FLIGHT)")
		mapping  = fs.Bool("http-status-mapping", envBool("http-status-mapping", "GHOPS_HTTP_STATUS_MAPPING"), "map /rpc error codes to HTTP statuses (GHOPS_HTTP_STATUS_MAPPING)")
		toolErrs = fs.String("mcp-tool-errors", env("GHOPS_MCP_TOOL_ERRORS", c.MCPToolErrors), "MCP tool failures: auto, jsonrpc or result (GHOPS_MCP_TOOL_ERRORS)")
		origins  = fs.String("allowed-origins", env("GHOPS_ALLOWED_ORIGINS", ""), "comma-separated Origins /rpc and /mcp accept besides their own and loopback ones; * for any (GHOPS_ALLOWED_ORIGINS)")
		hosts    = fs.String("allowed-hosts", env("GHOPS_ALLOWED_HOSTS", ""), "comma-separated Host names accepted besides IP literals and localhost; *.suffix allowed (GHOPS_ALLOWED_HOSTS)")
		pol      = fs.String("policy", env("GHOPS_POLICY", ""), "policy file: principals, API key hashes, tools, repositories, limits (GHOPS_POLICY)")
		issuer   = fs.String("oauth-issuer", env("GHOPS_OAUTH_ISSUER", ""), `OAuth issuer: "github" or an OIDC issuer URL (GHOPS_OAUTH_ISSUER)`)
		jwks     = fs.String("oauth-jwks-url", env("GHOPS_OAUTH_JWKS_URL", ""), "OIDC issuer's JWKS URL (GHOPS_OAUTH_JWKS_URL)")
		aud      = fs.String("oauth-audience", env("GHOPS_OAUTH_AUDIENCE", ""), "aud an OIDC token must carry; default the resource URL (GHOPS_OAUTH_AUDIENCE)")
		claim    = fs.String("oauth-claim", env("GHOPS_OAUTH_CLAIM", c.OAuthClaim), "OIDC claim naming the principal (GHOPS_OAUTH_CLAIM)")
		ghURL    = fs.String("github-url", env("GITHUB_API_URL", c.GitHubURL), "GitHub's REST root, for verifying callers' GitHub tokens (GITHUB_API_URL)")
		cacheTTL = fs.String("token-cache-ttl", env("GHOPS_TOKEN_CACHE_TTL", c.TokenCacheTTL.String()), "how long a verified GitHub token is trusted (GHOPS_TOKEN_CACHE_TTL)")
		resource = fs.String("resource-url", env("GHOPS_RESOURCE_URL", ""), "canonical URL of the MCP endpoint, for OAuth metadata; default http://<addr>/mcp (GHOPS_RESOURCE_URL)")
		jwksMin  = fs.String("oauth-jwks-min-interval", env("GHOPS_OAUTH_JWKS_MIN_INTERVAL", c.JWKSMinInterval.String()), "least time between two fetches of the OIDC issuer's JWKS (GHOPS_OAUTH_JWKS_MIN_INTERVAL)")
		metrics  = fs.String("metrics-addr", env("GHOPS_METRICS_ADDR", ""), "serve /metrics on this address only; on the main listener, behind its authentication, when empty (GHOPS_METRICS_ADDR)")
		readOnly = fs.Bool("read-only", envBool("read-only", "GHOPS_READ_ONLY"), "refuse every tool that writes, whoever calls (GHOPS_READ_ONLY)")
		toolsets = fs.String("toolsets", env("GHOPS_TOOLSETS", toolset.All), "comma-separated groups of tools offered: "+strings.Join(toolset.Names(), ", ")+", or all (GHOPS_TOOLSETS)")
		insecure = fs.Bool("insecure-no-auth", envBool("insecure-no-auth", "GHOPS_INSECURE_NO_AUTH"), "serve a non-loopback address without authentication (GHOPS_INSECURE_NO_AUTH)")
		publish  = fs.String("published-addr", env("GHOPS_PUBLISHED_ADDR", ""), "host:port the container runtime publishes -addr on (docker -p, compose ports); a loopback one silences the not-loopback warning (GHOPS_PUBLISHED_ADDR)")
		secret   = fs.String("session-secret", env("GHOPS_SESSION_SECRET", ""), "key of MCP session ids, shared by replicas; random if unset (GHOPS_SESSION_SECRET)")
		level    = fs.String("log-level", env("GHOPS_LOG_LEVEL", "info"), "debug, info, warn or error (GHOPS_LOG_LEVEL)")
		redisURL = fs.String("redis-url", env("GHOPS_REDIS_URL", ""), "Redis for quotas shared by replicas, redis://host:port/db; in process when empty (GHOPS_REDIS_URL)")
		redisTO  = fs.String("redis-timeout", env("GHOPS_REDIS_TIMEOUT", c.RedisTimeout.String()), "bound on each Redis operation (GHOPS_REDIS_TIMEOUT)")
		failOpen = fs.Bool("quota-fail-open", envBoolDef("quota-fail-open", "GHOPS_QUOTA_FAIL_OPEN", true), "with Redis down, count quotas per replica (true) or refuse calls (false) (GHOPS_QUOTA_FAIL_OPEN)")
		debug    = fs.String("debug-addr", env("GHOPS_DEBUG_ADDR", ""), "serve net/http/pprof on this loopback address; off when empty (GHOPS_DEBUG_ADDR)")
		embedded = fs.Bool("embedded", envBool("embedded", "GHOPS_EMBEDDED"), "run the GitHub service in process instead of dialing -service (GHOPS_EMBEDDED)")
		svcSec   = fs.String("service-secret-file", env("GHOPS_SERVICE_SECRET_FILE", ""), `file holding the shared secret sent to the service as "authorization: Bearer <secret>" (GHOPS_SERVICE_SECRET_FILE)`)
		svcCA    = fs.String("service-tls-ca", env("GHOPS_SERVICE_TLS_CA", ""), "PEM CA the service's TLS certificate is verified against; turns on TLS to the service (GHOPS_SERVICE_TLS_CA)")
		svcCert  = fs.String("service-tls-cert", env("GHOPS_SERVICE_TLS_CERT", ""), "PEM client certificate presented to the service (mTLS) (GHOPS_SERVICE_TLS_CERT)")
		svcKey   = fs.String("service-tls-key", env("GHOPS_SERVICE_TLS_KEY", ""), "PEM key of -service-tls-cert (GHOPS_SERVICE_TLS_KEY)")
		showVer  = fs.Bool("version", false, "print the version and exit")
	)
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if rest := fs.Args(); len(rest) > 0 {
		if rest[0] != CommandStdio && rest[0] != CommandHealthcheck {
			return Config{}, fmt.Errorf("unexpected arguments: %q (commands: %s, %s)", rest, CommandStdio, CommandHealthcheck)
		}
		c.Command = rest[0]
		if err := fs.Parse(rest[1:]); err != nil {
			return Config{}, err
		}
		if fs.NArg() > 0 {
			return Config{}, fmt.Errorf("unexpected arguments: %q", fs.Args())
		}
	}
	c.Embedded, c.ShowVersion = *embedded, *showVer
	c.Addr, c.ServiceAddr = *addr, *service
	var err error
	if c.CallTimeout, err = positiveDuration(*timeout); err != nil {
		bad("call-timeout", err)
	}
	c.ShutdownTimeout = c.CallTimeout + 5*time.Second
	if *shutdown != "" {
		if c.ShutdownTimeout, err = positiveDuration(*shutdown); err != nil {
			bad("shutdown-timeout", err)
		} else if c.ShutdownTimeout < c.CallTimeout {
			bad("shutdown-timeout", fmt.Errorf("%s is shorter than the call timeout %s: a call in flight at SIGTERM would be cut with no answer", c.ShutdownTimeout, c.CallTimeout))
		}
	}
	if c.MaxBody, err = strconv.ParseInt(*maxBody, 10, 64); err != nil || c.MaxBody <= 0 {
		bad("max-body", errors.New("must be a positive number of bytes"))
	}
	if c.MaxBatch, err = strconv.Atoi(*maxBatch); err != nil || c.MaxBatch <= 0 {
		bad("max-batch", errors.New("must be a positive integer"))
	}
	if c.BatchConcurrency, err = strconv.Atoi(*conc); err != nil || c.BatchConcurrency <= 0 {
		bad("batch-concurrency", errors.New("must be a positive integer"))
	}
	if c.MaxInFlight, err = strconv.Atoi(*inFlight); err != nil || c.MaxInFlight <= 0 {
		bad("max-in-flight", errors.New("must be a positive integer"))
	}
	c.HTTPStatusMapping, c.ReadOnly, c.InsecureNoAuth = *mapping, *readOnly, *insecure
	if c.Toolsets, err = toolset.Parse(*toolsets); err != nil {
		bad("toolsets", err)
	}
	c.PublishedAddr = *publish
	if _, _, err := net.SplitHostPort(c.PublishedAddr); c.PublishedAddr != "" && err != nil {
		bad("published-addr", errors.New("must be host:port"))
	}
	switch *toolErrs {
	case ToolErrorsAuto, ToolErrorsJSONRPC, ToolErrorsResult:
		c.MCPToolErrors = *toolErrs
	default:
		bad("mcp-tool-errors", errors.New(`must be "auto", "jsonrpc" or "result"`))
	}
	c.AllowedOrigins = splitList(*origins)
	c.AllowedHosts = splitList(*hosts)
	c.PolicyFile, c.OAuthIssuer, c.OAuthJWKSURL, c.OAuthAudience, c.OAuthClaim = *pol, *issuer, *jwks, *aud, *claim
	switch {
	case c.OAuthIssuer == "" || c.OAuthIssuer == "github":
	case !isHTTPURL(c.OAuthIssuer):
		bad("oauth-issuer", errors.New(`must be "github" or an OIDC issuer URL`))
	case c.OAuthJWKSURL == "":
		bad("oauth-jwks-url", errors.New("an OIDC issuer needs its JWKS URL"))
	}
	if c.OAuthJWKSURL != "" && !isHTTPURL(c.OAuthJWKSURL) {
		bad("oauth-jwks-url", errors.New("must be an http(s) URL"))
	}
	if c.OAuthClaim == "" {
		bad("oauth-claim", errors.New("must name a claim"))
	}
	c.GitHubURL = *ghURL
	if !isHTTPURL(c.GitHubURL) {
		bad("github-url", errors.New("must be an http(s) URL"))
	}
	if c.TokenCacheTTL, err = positiveDuration(*cacheTTL); err != nil {
		bad("token-cache-ttl", err)
	}
	c.ResourceURL = *resource
	if c.ResourceURL == "" {
		c.ResourceURL = "http://" + c.Addr + "/mcp"
	} else if !isHTTPURL(c.ResourceURL) {
		bad("resource-url", errors.New("must be an http(s) URL"))
	}
	if c.JWKSMinInterval, err = positiveDuration(*jwksMin); err != nil {
		bad("oauth-jwks-min-interval", err)
	}
	c.MetricsAddr = *metrics
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			bad("metrics-addr", errors.New("must be host:port"))
		}
	}
	if *secret != "" {
		if len(*secret) < 16 {
			bad("session-secret", errors.New("must be at least 16 characters"))
		}
		c.SessionSecret = []byte(*secret)
		c.SessionSecretSet = true
	}
	c.RedisURL = *redisURL
	if c.RedisURL != "" {
		if u, err := url.Parse(c.RedisURL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
			bad("redis-url", errors.New("must be redis://host:port[/db] or rediss://..."))
		}
	}
	if c.RedisTimeout, err = positiveDuration(*redisTO); err != nil {
		bad("redis-timeout", err)
	}
	c.QuotaFailOpen = *failOpen
	c.ServiceSecretFile, c.ServiceTLSCA, c.ServiceTLSCert, c.ServiceTLSKey = *svcSec, *svcCA, *svcCert, *svcKey
	if (c.ServiceTLSCert == "") != (c.ServiceTLSKey == "") {
		bad("service-tls-cert", errors.New("-service-tls-cert and -service-tls-key go together"))
	}
	c.DebugAddr = *debug
	if c.DebugAddr != "" && !loopback.Addr(c.DebugAddr) {
		bad("debug-addr", errors.New("must be a loopback address (the profiler is not for the network)"))
	}
	if err := c.LogLevel.UnmarshalText([]byte(*level)); err != nil {
		bad("log-level", errors.New("must be debug, info, warn or error"))
	}
	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
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

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// isHTTPURL reports whether s is an absolute http(s) URL with a host.
func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// positiveDuration parses a duration that must be > 0.
func positiveDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, errors.New("must be a positive duration such as 30s")
	}
	return d, nil
}
