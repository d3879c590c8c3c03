// Package config holds the configuration of the ghops-github binary and fills
// it from command-line flags with environment-variable fallbacks: a flag
// given on the command line wins over its variable, which wins over the
// default.
//
//	flag                 env                          default
//	-addr                GHOPS_GITHUB_ADDR            127.0.0.1:50051
//	-github-url          GITHUB_API_URL               https://api.github.com/
//	-allow-caller-token  GHOPS_ALLOW_CALLER_TOKEN     false
//	-call-timeout        GHOPS_GITHUB_CALL_TIMEOUT    30s
//	-metrics-addr        GHOPS_GITHUB_METRICS_ADDR    127.0.0.1:9464 ("off" disables)
//	-log-level           GHOPS_GITHUB_LOG_LEVEL       info
//
// -version (print the version and exit) and -h are actions, not settings,
// and have no variable. The token comes from GITHUB_TOKEN only, never a flag, so that it never
// shows in a process list.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"
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
	// Command is "" (serve) or CommandHealthcheck, from the command line.
	Command string
	// ShowVersion asks the binary to print its version and exit (-version).
	ShowVersion bool
}

// WithDefaults returns c with every unset field set to its default.
func (c Config) WithDefaults() Config {
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.GitHubURL == "" {
		c.GitHubURL = DefaultGitHubURL
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = DefaultCallTimeout
	}
	if c.MaxFileBytes <= 0 {
		c.MaxFileBytes = DefaultMaxFileBytes
	}
	if c.MaxTreeEntries <= 0 {
		c.MaxTreeEntries = DefaultMaxTreeEntries
	}
	if c.CacheEntries <= 0 {
		c.CacheEntries = DefaultCacheEntries
	}
	if c.CacheBytes <= 0 {
		c.CacheBytes = DefaultCacheBytes
	}
	if c.ReadRetries == 0 {
		c.ReadRetries = DefaultReadRetries
	}
	if c.RetryBaseDelay <= 0 {
		c.RetryBaseDelay = 100 * time.Millisecond
	}
	if c.MaxRetryAfter <= 0 {
		c.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if c.MergeabilityAttempts <= 0 {
		c.MergeabilityAttempts = 5
	}
	if c.MergeabilityBackoff <= 0 {
		c.MergeabilityBackoff = 200 * time.Millisecond
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
	return nil
}

// usage is the head of the -h text; the flags follow it.
const usage = `usage:
  ghops-github [flags]              serve the GitHub-operations gRPC service
  ghops-github [flags] healthcheck  exit 0 when the service at -addr answers SERVING, else 1

The GitHub token comes from GITHUB_TOKEN only (never a flag).
Flags (each falls back to the environment variable named in its text):
`

// Load fills a Config from args (without the program name), falling back to
// getenv for the variables named in each flag's usage; GITHUB_TOKEN is read
// from the environment only, so that a token never shows in a process list.
// A command (healthcheck) may stand before, between or after the flags.
// Usage and flag errors go to output; -h returns flag.ErrHelp.
func Load(args []string, getenv func(string) string, output io.Writer) (Config, error) {
	env := func(k, def string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return def
	}
	var errs []error
	envBool := func(k string) bool {
		v := getenv(k)
		if v == "" {
			return false
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("config: %s: %q is not true or false", k, v))
		}
		return b
	}
	fs := flag.NewFlagSet("ghops-github", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	var c Config
	var level, timeout string
	fs.StringVar(&c.Addr, "addr", env("GHOPS_GITHUB_ADDR", DefaultAddr), "gRPC listen address (env GHOPS_GITHUB_ADDR)")
	fs.StringVar(&c.GitHubURL, "github-url", env("GITHUB_API_URL", DefaultGitHubURL), "GitHub API root, ending in / (env GITHUB_API_URL)")
	fs.BoolVar(&c.AllowCallerToken, "allow-caller-token", envBool("GHOPS_ALLOW_CALLER_TOKEN"), "use a per-call token from metadata x-github-token (env GHOPS_ALLOW_CALLER_TOKEN)")
	fs.StringVar(&timeout, "call-timeout", env("GHOPS_GITHUB_CALL_TIMEOUT", DefaultCallTimeout.String()), "deadline of each call (env GHOPS_GITHUB_CALL_TIMEOUT)")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", env("GHOPS_GITHUB_METRICS_ADDR", DefaultMetricsAddr), `Prometheus /metrics listen address, "off" disables (env GHOPS_GITHUB_METRICS_ADDR)`)
	fs.StringVar(&level, "log-level", env("GHOPS_GITHUB_LOG_LEVEL", "info"), "log level: debug, info, warn, error (env GHOPS_GITHUB_LOG_LEVEL)")
	fs.BoolVar(&c.ShowVersion, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if rest := fs.Args(); len(rest) > 0 {
		if rest[0] != CommandHealthcheck {
			return Config{}, fmt.Errorf("config: unknown command %q (want %q or none)", rest[0], CommandHealthcheck)
		}
		c.Command = rest[0]
		if err := fs.Parse(rest[1:]); err != nil {
			return Config{}, err
		}
		if fs.NArg() > 0 {
			return Config{}, fmt.Errorf("config: unexpected argument %q", fs.Arg(0))
		}
	}
	if c.MetricsAddr == MetricsOff {
		c.MetricsAddr = ""
	}
	d, err := time.ParseDuration(timeout)
	if err != nil || d <= 0 {
		errs = append(errs, fmt.Errorf("config: -call-timeout: %q is not a positive duration such as 30s", timeout))
	}
	c.CallTimeout = d
	if err := c.LogLevel.UnmarshalText([]byte(level)); err != nil {
		errs = append(errs, fmt.Errorf("config: -log-level: %q is not debug, info, warn or error", level))
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	c.Token = getenv("GITHUB_TOKEN")
	c = c.WithDefaults()
	return c, c.Validate()
}
