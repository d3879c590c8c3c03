// Package config holds the ghops-gateway configuration: one struct filled
// from flags, each with an environment-variable fallback and a documented
// default. Precedence: flag, then environment, then default.
//
//	flag                  env                            default
//	-addr                 GHOPS_GATEWAY_ADDR             127.0.0.1:8788
//	-service              GHOPS_SERVICE_ADDR             127.0.0.1:50051
//	-call-timeout         GHOPS_CALL_TIMEOUT             30s
//	-max-body             GHOPS_MAX_BODY                 1048576 (bytes)
//	-max-batch            GHOPS_MAX_BATCH                50
//	-batch-concurrency    GHOPS_BATCH_CONCURRENCY        8
//	-http-status-mapping  GHOPS_HTTP_STATUS_MAPPING      false
//	-mcp-tool-errors      GHOPS_MCP_TOOL_ERRORS          jsonrpc (or result)
//	-allowed-origins      GHOPS_ALLOWED_ORIGINS          "" (comma-separated)
//	-forward-token        GHOPS_FORWARD_TOKEN            false
//	-session-secret       GHOPS_SESSION_SECRET           random at start
//	-log-level            GHOPS_LOG_LEVEL                info
//	-shutdown-timeout     GHOPS_SHUTDOWN_TIMEOUT         15s
//	-embedded             GHOPS_EMBEDDED                 false
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
	"strconv"
	"strings"
	"time"
)

// Tool-error modes of /mcp.
const (
	// ToolErrorsJSONRPC answers tool errors with a JSON-RPC error object.
	ToolErrorsJSONRPC = "jsonrpc"
	// ToolErrorsResult answers tool errors with an isError tool result.
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
	// MaxBody is the largest request body accepted, in bytes (413 above).
	MaxBody int64
	// MaxBatch is the largest JSON-RPC batch accepted on /rpc.
	MaxBatch int
	// BatchConcurrency bounds the calls of one batch run at once.
	BatchConcurrency int
	// HTTPStatusMapping maps /rpc error codes to HTTP statuses (else 200).
	HTTPStatusMapping bool
	// MCPToolErrors is ToolErrorsJSONRPC or ToolErrorsResult.
	MCPToolErrors string
	// AllowedOrigins are the Origin values /mcp accepts besides loopback.
	AllowedOrigins []string
	// ForwardToken forwards a client's Authorization: Bearer token to the
	// service as x-github-token.
	ForwardToken bool
	// SessionSecret keys the MCP session ids (shared by replicas).
	SessionSecret []byte
	// LogLevel is the slog level.
	LogLevel slog.Level
	// ShutdownTimeout bounds draining on SIGTERM.
	ShutdownTimeout time.Duration
	// Embedded runs the GitHub service in process instead of dialing
	// ServiceAddr.
	Embedded bool
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
		MaxBody:          1 << 20,
		MaxBatch:         50,
		BatchConcurrency: 8,
		MCPToolErrors:    ToolErrorsJSONRPC,
		SessionSecret:    randomSecret(),
		LogLevel:         slog.LevelInfo,
		ShutdownTimeout:  15 * time.Second,
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
variables: GITHUB_TOKEN (never a flag), GITHUB_API_URL, GHOPS_ALLOW_CALLER_TOKEN,
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
	envBool := func(name, key string) bool {
		v := getenv(key)
		if v == "" {
			return false
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			bad(name, fmt.Errorf("%s must be true or false", key))
		}
		return b
	}
	var (
		addr     = fs.String("addr", env("GHOPS_GATEWAY_ADDR", c.Addr), "HTTP listen address (GHOPS_GATEWAY_ADDR)")
		service  = fs.String("service", env("GHOPS_SERVICE_ADDR", c.ServiceAddr), "gRPC address of the GitHub service (GHOPS_SERVICE_ADDR)")
		timeout  = fs.String("call-timeout", env("GHOPS_CALL_TIMEOUT", c.CallTimeout.String()), "deadline of one service call (GHOPS_CALL_TIMEOUT)")
		maxBody  = fs.String("max-body", env("GHOPS_MAX_BODY", strconv.FormatInt(c.MaxBody, 10)), "largest request body in bytes (GHOPS_MAX_BODY)")
		maxBatch = fs.String("max-batch", env("GHOPS_MAX_BATCH", strconv.Itoa(c.MaxBatch)), "largest JSON-RPC batch on /rpc (GHOPS_MAX_BATCH)")
		conc     = fs.String("batch-concurrency", env("GHOPS_BATCH_CONCURRENCY", strconv.Itoa(c.BatchConcurrency)), "calls of one batch run at once (GHOPS_BATCH_CONCURRENCY)")
		mapping  = fs.Bool("http-status-mapping", envBool("http-status-mapping", "GHOPS_HTTP_STATUS_MAPPING"), "map /rpc error codes to HTTP statuses (GHOPS_HTTP_STATUS_MAPPING)")
		toolErrs = fs.String("mcp-tool-errors", env("GHOPS_MCP_TOOL_ERRORS", c.MCPToolErrors), "tool errors on /mcp: jsonrpc or result (GHOPS_MCP_TOOL_ERRORS)")
		origins  = fs.String("allowed-origins", env("GHOPS_ALLOWED_ORIGINS", ""), "comma-separated Origins /mcp accepts besides loopback (GHOPS_ALLOWED_ORIGINS)")
		forward  = fs.Bool("forward-token", envBool("forward-token", "GHOPS_FORWARD_TOKEN"), "forward the client's bearer token as x-github-token (GHOPS_FORWARD_TOKEN)")
		secret   = fs.String("session-secret", env("GHOPS_SESSION_SECRET", ""), "key of MCP session ids, shared by replicas; random if unset (GHOPS_SESSION_SECRET)")
		level    = fs.String("log-level", env("GHOPS_LOG_LEVEL", "info"), "debug, info, warn or error (GHOPS_LOG_LEVEL)")
		shutdown = fs.String("shutdown-timeout", env("GHOPS_SHUTDOWN_TIMEOUT", c.ShutdownTimeout.String()), "bound on draining at SIGTERM (GHOPS_SHUTDOWN_TIMEOUT)")
		embedded = fs.Bool("embedded", envBool("embedded", "GHOPS_EMBEDDED"), "run the GitHub service in process instead of dialing -service (GHOPS_EMBEDDED)")
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
	if c.ShutdownTimeout, err = positiveDuration(*shutdown); err != nil {
		bad("shutdown-timeout", err)
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
	c.HTTPStatusMapping, c.ForwardToken = *mapping, *forward
	switch *toolErrs {
	case ToolErrorsJSONRPC, ToolErrorsResult:
		c.MCPToolErrors = *toolErrs
	default:
		bad("mcp-tool-errors", errors.New(`must be "jsonrpc" or "result"`))
	}
	for _, o := range strings.Split(*origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.AllowedOrigins = append(c.AllowedOrigins, o)
		}
	}
	if *secret != "" {
		if len(*secret) < 16 {
			bad("session-secret", errors.New("must be at least 16 characters"))
		}
		c.SessionSecret = []byte(*secret)
	}
	if err := c.LogLevel.UnmarshalText([]byte(*level)); err != nil {
		bad("log-level", errors.New("must be debug, info, warn or error"))
	}
	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return c, nil
}

// positiveDuration parses a duration that must be > 0.
func positiveDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, errors.New("must be a positive duration such as 30s")
	}
	return d, nil
}
