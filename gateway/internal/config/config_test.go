package config

import (
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(t *testing.T, c Config)
		wantErr string
	}{
		{name: "defaults", check: func(t *testing.T, c Config) {
			if c.Addr != "127.0.0.1:8788" || c.ServiceAddr != "127.0.0.1:50051" || c.CallTimeout != 30*time.Second ||
				c.MaxBody != 1<<20 || c.MaxBatch != 50 || c.HTTPStatusMapping || c.ReadOnly || c.InsecureNoAuth ||
				c.MCPToolErrors != "auto" || len(c.SessionSecret) != 32 || c.SessionSecretSet || c.LogLevel != slog.LevelInfo ||
				c.ShutdownTimeout != 35*time.Second || c.MaxInFlight != 64 || c.ResourceURL != "http://127.0.0.1:8788/mcp" ||
				c.GitHubURL != "https://api.github.com/" || c.OAuthClaim != "sub" || !c.Loopback() {
				t.Errorf("defaults: %+v", c)
			}
		}},
		{name: "env fallback", env: map[string]string{"GHOPS_GATEWAY_ADDR": "127.0.0.1:9", "GHOPS_SERVICE_ADDR": "127.0.0.1:10",
			"GHOPS_SESSION_SECRET": "0123456789abcdef0123", "GHOPS_HTTP_STATUS_MAPPING": "true"},
			check: func(t *testing.T, c Config) {
				if c.Addr != "127.0.0.1:9" || c.ServiceAddr != "127.0.0.1:10" || string(c.SessionSecret) != "0123456789abcdef0123" || !c.SessionSecretSet || !c.HTTPStatusMapping {
					t.Errorf("env: %+v", c)
				}
			}},
		{name: "flag beats env", args: []string{"-addr", "127.0.0.1:1", "-mcp-tool-errors", "result", "-allowed-origins", "https://a.example, https://b.example",
			"-read-only", "-call-timeout", "5s", "-max-body", "10", "-log-level", "debug"},
			env: map[string]string{"GHOPS_GATEWAY_ADDR": "127.0.0.1:9"},
			check: func(t *testing.T, c Config) {
				if c.Addr != "127.0.0.1:1" || c.MCPToolErrors != "result" || len(c.AllowedOrigins) != 2 || c.AllowedOrigins[1] != "https://b.example" ||
					!c.ReadOnly || c.CallTimeout != 5*time.Second || c.ShutdownTimeout != 10*time.Second || c.MaxBody != 10 || c.LogLevel != slog.LevelDebug {
					t.Errorf("flags: %+v", c)
				}
			}},
		{name: "procs default in front of a service", check: wantProcs(1)},
		{name: "procs default embedded", args: []string{"-embedded"}, check: wantProcs(0)},
		{name: "procs default under GOMAXPROCS", env: map[string]string{"GOMAXPROCS": "4"}, check: wantProcs(0)},
		{name: "procs flag beats GOMAXPROCS", args: []string{"-procs", "3"}, env: map[string]string{"GOMAXPROCS": "4"}, check: wantProcs(3)},
		{name: "procs from env", env: map[string]string{"GHOPS_PROCS": "0"}, check: wantProcs(0)},
		{name: "procs auto spelled out", args: []string{"-procs", "auto", "-embedded=false"}, check: wantProcs(1)},
		{name: "bad procs", args: []string{"-procs", "many"}, wantErr: "procs"},
		{name: "negative procs", env: map[string]string{"GHOPS_PROCS": "-1"}, wantErr: "procs"},
		{name: "bad mode", args: []string{"-mcp-tool-errors", "text"}, wantErr: "mcp-tool-errors"},
		{name: "bad timeout", args: []string{"-call-timeout", "-1s"}, wantErr: "call-timeout"},
		{name: "bad env bool", env: map[string]string{"GHOPS_READ_ONLY": "maybe"}, wantErr: "read-only"},
		{name: "drain shorter than a call", args: []string{"-call-timeout", "30s", "-shutdown-timeout", "10s"}, wantErr: "shorter than the call timeout"},
		{name: "oauth", env: map[string]string{"GHOPS_OAUTH_ISSUER": "https://idp.example", "GHOPS_OAUTH_JWKS_URL": "https://idp.example/jwks",
			"GHOPS_POLICY": "/etc/ghops/policy.yaml", "GHOPS_ALLOWED_HOSTS": "ghops.example, *.corp.example", "GHOPS_GATEWAY_ADDR": "0.0.0.0:8788"},
			check: func(t *testing.T, c Config) {
				if c.OAuthIssuer != "https://idp.example" || c.OAuthJWKSURL != "https://idp.example/jwks" || c.PolicyFile != "/etc/ghops/policy.yaml" ||
					len(c.AllowedHosts) != 2 || c.AllowedHosts[1] != "*.corp.example" || c.Loopback() {
					t.Errorf("oauth: %+v", c)
				}
			}},
		{name: "oidc without jwks", args: []string{"-oauth-issuer", "https://idp.example"}, wantErr: "oauth-jwks-url"},
		{name: "jwks interval and metrics address defaults", check: func(t *testing.T, c Config) {
			if c.JWKSMinInterval != 30*time.Second || c.MetricsAddr != "" {
				t.Errorf("defaults: %v %q", c.JWKSMinInterval, c.MetricsAddr)
			}
		}},
		{name: "jwks interval and metrics address from env", env: map[string]string{"GHOPS_OAUTH_JWKS_MIN_INTERVAL": "5m", "GHOPS_METRICS_ADDR": "0.0.0.0:9090"},
			check: func(t *testing.T, c Config) {
				if c.JWKSMinInterval != 5*time.Minute || c.MetricsAddr != "0.0.0.0:9090" {
					t.Errorf("env: %v %q", c.JWKSMinInterval, c.MetricsAddr)
				}
			}},
		{name: "jwks interval flag beats env", args: []string{"-oauth-jwks-min-interval", "1s"}, env: map[string]string{"GHOPS_OAUTH_JWKS_MIN_INTERVAL": "5m"},
			check: func(t *testing.T, c Config) {
				if c.JWKSMinInterval != time.Second {
					t.Errorf("flag: %v", c.JWKSMinInterval)
				}
			}},
		{name: "bad jwks interval", args: []string{"-oauth-jwks-min-interval", "0s"}, wantErr: "oauth-jwks-min-interval"},
		{name: "bad metrics address", args: []string{"-metrics-addr", "9090"}, wantErr: "metrics-addr"},
		{name: "bad issuer", args: []string{"-oauth-issuer", "gitlab"}, wantErr: "oauth-issuer"},
		{name: "bad in-flight", args: []string{"-max-in-flight", "0"}, wantErr: "max-in-flight"},
		{name: "profiler off loopback", args: []string{"-debug-addr", "0.0.0.0:6060"}, wantErr: "debug-addr"},
		{name: "short secret", args: []string{"-session-secret", "short"}, wantErr: "session-secret"},
		{name: "stray argument", args: []string{"extra"}, wantErr: `unexpected argument "extra"`},
		{name: "service credentials from env", env: map[string]string{"GHOPS_SERVICE_SECRET_FILE": "/run/secrets/s", "GHOPS_SERVICE_TLS_CA": "/ca.pem",
			"GHOPS_SERVICE_TLS_CERT": "/c.pem", "GHOPS_SERVICE_TLS_KEY": "/k.pem"},
			check: func(t *testing.T, c Config) {
				if c.ServiceSecretFile != "/run/secrets/s" || c.ServiceTLSCA != "/ca.pem" || c.ServiceTLSCert != "/c.pem" || c.ServiceTLSKey != "/k.pem" {
					t.Errorf("service credentials: %+v", c)
				}
			}},
		{name: "service cert without key", args: []string{"-service-tls-cert", "/c.pem"}, wantErr: "go together"},
		{name: "toolsets default to every group", check: func(t *testing.T, c Config) {
			if c.Toolsets != nil {
				t.Errorf("toolsets: %q", c.Toolsets)
			}
		}},
		{name: "toolsets from env", env: map[string]string{"GHOPS_TOOLSETS": "issues, search"},
			check: func(t *testing.T, c Config) {
				if !slices.Equal(c.Toolsets, []string{"issues", "search"}) {
					t.Errorf("toolsets: %q", c.Toolsets)
				}
			}},
		{name: "toolsets flag beats env", args: []string{"-toolsets", "repos,pulls,actions"}, env: map[string]string{"GHOPS_TOOLSETS": "issues"},
			check: func(t *testing.T, c Config) {
				if !slices.Equal(c.Toolsets, []string{"repos", "pulls", "actions"}) {
					t.Errorf("toolsets: %q", c.Toolsets)
				}
			}},
		{name: "toolsets all from the flag over env", args: []string{"-toolsets", "all"}, env: map[string]string{"GHOPS_TOOLSETS": "meta"},
			check: func(t *testing.T, c Config) {
				if c.Toolsets != nil {
					t.Errorf("toolsets: %q", c.Toolsets)
				}
			}},
		{name: "toolsets with read-only", args: []string{"-toolsets", "issues", "-read-only"},
			check: func(t *testing.T, c Config) {
				if !slices.Equal(c.Toolsets, []string{"issues"}) || !c.ReadOnly {
					t.Errorf("toolsets %q read-only %v", c.Toolsets, c.ReadOnly)
				}
			}},
		{name: "unknown toolset in the flag", args: []string{"-toolsets", "repos,wiki"}, wantErr: `-toolsets: unknown toolset "wiki" (toolsets: repos, pulls, issues, actions, search, meta, projects)`},
		{name: "unknown toolset in env", env: map[string]string{"GHOPS_TOOLSETS": "Issues"}, wantErr: `GHOPS_TOOLSETS (-toolsets): unknown toolset "Issues"`},
		{name: "content trust defaults to all", check: func(t *testing.T, c Config) {
			if c.ContentTrust != "all" {
				t.Errorf("content trust: %q", c.ContentTrust)
			}
		}},
		{name: "content trust from env", env: map[string]string{"GHOPS_CONTENT_TRUST": "collaborators"}, check: func(t *testing.T, c Config) {
			if c.ContentTrust != "collaborators" {
				t.Errorf("content trust: %q", c.ContentTrust)
			}
		}},
		{name: "content trust flag beats env", args: []string{"-content-trust", "all"}, env: map[string]string{"GHOPS_CONTENT_TRUST": "collaborators"},
			check: func(t *testing.T, c Config) {
				if c.ContentTrust != "all" {
					t.Errorf("content trust: %q", c.ContentTrust)
				}
			}},
		{name: "unknown content trust in the flag", args: []string{"-content-trust", "maintainers"}, wantErr: `-content-trust: "maintainers" must be "all" or "collaborators"`},
		{name: "content trust is case-sensitive", env: map[string]string{"GHOPS_CONTENT_TRUST": "Collaborators"}, wantErr: `GHOPS_CONTENT_TRUST (-content-trust): "Collaborators" must be "all" or "collaborators"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

// wantProcs checks Config.Procs.
func wantProcs(n int) func(*testing.T, Config) {
	return func(t *testing.T, c Config) {
		t.Helper()
		if c.Procs != n {
			t.Errorf("Procs = %d, want %d", c.Procs, n)
		}
	}
}
