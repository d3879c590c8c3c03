// Package config holds the configuration of the ghops-github binary and fills
// it from command-line flags with environment-variable fallbacks.
package config

import (
	"errors"
	"flag"
	"fmt"
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

// Load fills a Config from args (without the program name), falling back to
// getenv for the variables named in each flag's usage; GITHUB_TOKEN is read
// from the environment only, so that a token never shows in a process list.
func Load(args []string, getenv func(string) string) (Config, error) {
	env := func(k, def string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return def
	}
	allow, err := strconv.ParseBool(env("GHOPS_ALLOW_CALLER_TOKEN", "false"))
	if err != nil {
		return Config{}, fmt.Errorf("config: GHOPS_ALLOW_CALLER_TOKEN: %w", err)
	}
	fs := flag.NewFlagSet("ghops-github", flag.ContinueOnError)
	var c Config
	var level string
	fs.StringVar(&c.Addr, "addr", env("GHOPS_GITHUB_ADDR", DefaultAddr), "gRPC listen address (env GHOPS_GITHUB_ADDR)")
	fs.StringVar(&c.GitHubURL, "github-url", env("GITHUB_API_URL", DefaultGitHubURL), "GitHub API root, ending in / (env GITHUB_API_URL)")
	fs.BoolVar(&c.AllowCallerToken, "allow-caller-token", allow, "use a per-call token from metadata x-github-token (env GHOPS_ALLOW_CALLER_TOKEN)")
	fs.DurationVar(&c.CallTimeout, "call-timeout", DefaultCallTimeout, "deadline of each call")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", DefaultMetricsAddr, "Prometheus /metrics listen address (empty disables)")
	fs.StringVar(&level, "log-level", "info", "log level: debug, info, warn, error")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if err := c.LogLevel.UnmarshalText([]byte(level)); err != nil {
		return Config{}, fmt.Errorf("config: -log-level: %w", err)
	}
	c.Token = getenv("GITHUB_TOKEN")
	c = c.WithDefaults()
	return c, c.Validate()
}
