package config

import (
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{name: "defaults", check: func(t *testing.T, c Config) {
			if c.Addr != DefaultAddr || c.GitHubURL != DefaultGitHubURL || c.AllowCallerToken || c.CallTimeout != 30*time.Second || c.MetricsAddr != DefaultMetricsAddr || c.MaxFileBytes != 256<<10 || c.Command != "" || c.ShowVersion {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "env fallbacks", env: map[string]string{
			"GHOPS_GITHUB_ADDR": "127.0.0.1:1", "GITHUB_API_URL": "http://127.0.0.1:2/", "GHOPS_ALLOW_CALLER_TOKEN": "true", "GITHUB_TOKEN": "tok",
			"GHOPS_GITHUB_CALL_TIMEOUT": "7s", "GHOPS_GITHUB_METRICS_ADDR": "0.0.0.0:9999", "GHOPS_GITHUB_LOG_LEVEL": "warn",
		},
			check: func(t *testing.T, c Config) {
				if c.Addr != "127.0.0.1:1" || c.GitHubURL != "http://127.0.0.1:2/" || !c.AllowCallerToken || c.Token != "tok" ||
					c.CallTimeout != 7*time.Second || c.MetricsAddr != "0.0.0.0:9999" || c.LogLevel != slog.LevelWarn {
					t.Errorf("got %+v", c)
				}
			}},
		{name: "flags win", args: []string{"-addr", "127.0.0.1:3", "-call-timeout", "5s", "-log-level", "debug", "-metrics-addr", "127.0.0.1:4"},
			env: map[string]string{"GHOPS_GITHUB_ADDR": "127.0.0.1:1", "GHOPS_GITHUB_CALL_TIMEOUT": "7s", "GHOPS_GITHUB_METRICS_ADDR": "0.0.0.0:9999"},
			check: func(t *testing.T, c Config) {
				if c.Addr != "127.0.0.1:3" || c.CallTimeout != 5*time.Second || c.LogLevel.String() != "DEBUG" || c.MetricsAddr != "127.0.0.1:4" {
					t.Errorf("got %+v", c)
				}
			}},
		{name: "limit defaults", check: func(t *testing.T, c Config) {
			if c.MaxRequestsPerCall != 200 || c.MaxPatchFiles != 64 || c.MaxPatchBytes != 1<<20 || c.PrincipalShare != 50 {
				t.Errorf("limits %d %d %d %d", c.MaxRequestsPerCall, c.MaxPatchFiles, c.MaxPatchBytes, c.PrincipalShare)
			}
		}},
		{name: "limits by env and flag", args: []string{"-max-patch-files", "9"},
			env: map[string]string{"GHOPS_MAX_REQUESTS_PER_CALL": "-1", "GHOPS_MAX_PATCH_FILES": "3", "GHOPS_MAX_PATCH_BYTES": "1000", "GHOPS_PRINCIPAL_SHARE": "100"},
			check: func(t *testing.T, c Config) {
				if c.MaxRequestsPerCall != -1 || c.MaxPatchFiles != 9 || c.MaxPatchBytes != 1000 || c.PrincipalShare != 100 {
					t.Errorf("limits %d %d %d %d", c.MaxRequestsPerCall, c.MaxPatchFiles, c.MaxPatchBytes, c.PrincipalShare)
				}
			}},
		{name: "share over 100", args: []string{"-principal-share", "101"}, wantErr: "-principal-share"},
		{name: "zero requests per call", env: map[string]string{"GHOPS_MAX_REQUESTS_PER_CALL": "0"}, wantErr: "-max-requests-per-call"},
		{name: "patch files not a number", args: []string{"-max-patch-files", "many"}, wantErr: "-max-patch-files"},
		{name: "metrics off by env", env: map[string]string{"GHOPS_GITHUB_METRICS_ADDR": "off"}, check: func(t *testing.T, c Config) {
			if c.MetricsAddr != "" {
				t.Errorf("metrics addr %q", c.MetricsAddr)
			}
		}},
		{name: "metrics off by empty flag", args: []string{"-metrics-addr="}, check: func(t *testing.T, c Config) {
			if c.MetricsAddr != "" {
				t.Errorf("metrics addr %q", c.MetricsAddr)
			}
		}},
		{name: "healthcheck first", args: []string{"healthcheck", "-addr", "0.0.0.0:5"}, check: func(t *testing.T, c Config) {
			if c.Command != CommandHealthcheck || c.Addr != "0.0.0.0:5" {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "version", args: []string{"-version"}, check: func(t *testing.T, c Config) {
			if !c.ShowVersion {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "unknown command", args: []string{"serve"}, wantErr: `unexpected argument "serve" (commands: "healthcheck")`},
		{name: "bad timeout env", env: map[string]string{"GHOPS_GITHUB_CALL_TIMEOUT": "soon"}, wantErr: "-call-timeout"},
		{name: "zero timeout", args: []string{"-call-timeout", "0s"}, wantErr: "-call-timeout"},
		{name: "bad level env", env: map[string]string{"GHOPS_GITHUB_LOG_LEVEL": "loud"}, wantErr: "-log-level"},
		{name: "url without slash", args: []string{"-github-url", "https://api.github.com"}, wantErr: "must end in"},
		{name: "url with query", args: []string{"-github-url", "https://x/?a=b"}, wantErr: "query"},
		{name: "no token flag", args: []string{"-token", "x"}, wantErr: "not defined: -token"},
		{name: "caller auth and app from env", env: map[string]string{
			"GHOPS_GITHUB_TLS_CERT": "/c.pem", "GHOPS_GITHUB_TLS_KEY": "/k.pem", "GHOPS_GITHUB_TLS_CLIENT_CA": "/ca.pem",
			"GHOPS_SERVICE_SECRET_FILE": "/run/secrets/s", "GHOPS_GITHUB_INSECURE_NO_AUTH": "true", "GHOPS_GITHUB_REFLECTION": "1",
			"GHOPS_GITHUB_APP_ID": "42", "GHOPS_GITHUB_APP_KEY_FILE": "/app.pem", "GHOPS_GITHUB_APP_INSTALLATION_ID": "7",
		}, check: func(t *testing.T, c Config) {
			if c.TLSCert != "/c.pem" || c.TLSKey != "/k.pem" || c.TLSClientCA != "/ca.pem" || c.CallerSecretFile != "/run/secrets/s" ||
				!c.InsecureNoAuth || !c.Reflection || c.GitHubAppID != 42 || c.GitHubAppKeyFile != "/app.pem" || c.GitHubAppInstallationID != 7 ||
				!c.GitHubApp() || !c.CallerAuth() {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "auth defaults off", check: func(t *testing.T, c Config) {
			if c.Reflection || c.InsecureNoAuth || c.CallerAuth() || c.GitHubApp() || !c.Loopback() {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "app and token", args: []string{"-github-app-id", "1", "-github-app-key-file", "/k", "-github-app-installation-id", "2"},
			env: map[string]string{"GITHUB_TOKEN": "tok"}, wantErr: "exclude each other"},
		{name: "app without installation", args: []string{"-github-app-id", "1", "-github-app-key-file", "/k"}, wantErr: "needs all of"},
		{name: "bad app id", args: []string{"-github-app-id", "abc"}, wantErr: "-github-app-id"},
		{name: "negative installation id", env: map[string]string{"GHOPS_GITHUB_APP_INSTALLATION_ID": "-3"}, wantErr: "-github-app-installation-id"},
		{name: "tls cert without key", args: []string{"-tls-cert", "/c"}, wantErr: "go together"},
		{name: "client ca without tls", args: []string{"-tls-client-ca", "/ca"}, wantErr: "needs -tls-cert"},
		{name: "outbound defaults", check: func(t *testing.T, c Config) {
			if c.GitHubTraceContext != TraceContextOff || strings.Join(c.LogDownloadHosts, ",") != DefaultLogDownloadHosts {
				t.Errorf("trace context %q, log hosts %v", c.GitHubTraceContext, c.LogDownloadHosts)
			}
		}},
		{name: "outbound by env", env: map[string]string{"GHOPS_GITHUB_TRACE_CONTEXT": "service", "GHOPS_LOG_DOWNLOAD_HOSTS": "logs.ghe.example, *.blob.core.windows.net"},
			check: func(t *testing.T, c Config) {
				if c.GitHubTraceContext != TraceContextService || strings.Join(c.LogDownloadHosts, ",") != "logs.ghe.example,*.blob.core.windows.net" {
					t.Errorf("trace context %q, log hosts %v", c.GitHubTraceContext, c.LogDownloadHosts)
				}
			}},
		{name: "outbound flags win", args: []string{"-github-trace-context", "off", "-log-download-hosts", "a.example"},
			env: map[string]string{"GHOPS_GITHUB_TRACE_CONTEXT": "service", "GHOPS_LOG_DOWNLOAD_HOSTS": "b.example"},
			check: func(t *testing.T, c Config) {
				if c.GitHubTraceContext != TraceContextOff || strings.Join(c.LogDownloadHosts, ",") != "a.example" {
					t.Errorf("trace context %q, log hosts %v", c.GitHubTraceContext, c.LogDownloadHosts)
				}
			}},
		{name: "unknown trace context", args: []string{"-github-trace-context", "caller"}, wantErr: "-github-trace-context"},
		{name: "bad log host", env: map[string]string{"GHOPS_LOG_DOWNLOAD_HOSTS": "a.*.example"}, wantErr: "-log-download-hosts"},
		{name: "bad reflection env", env: map[string]string{"GHOPS_GITHUB_REFLECTION": "sometimes"}, wantErr: "GHOPS_GITHUB_REFLECTION"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}
