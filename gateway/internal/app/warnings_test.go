package app

import (
	"io"
	"slices"
	"strings"
	"testing"

	"ghops.dev/gateway/internal/config"
)

// TestWarnings: validate_environment's gateway warnings appear only where
// they matter (issue 23): not over stdio, and no not-loopback warning for
// a container published on loopback (GHOPS_PUBLISHED_ADDR, as
// docker-compose.yml sets it).
func TestWarnings(t *testing.T) {
	const (
		notLoopback = "(not loopback) without authentication"
		noSecret    = "no -session-secret"
		readOnly    = "read-only mode"
	)
	tests := []struct {
		name          string
		args          []string
		env           map[string]string
		authenticated bool
		want          []string // substrings, one per warning, in order
	}{
		{name: "loopback HTTP, no secret", want: []string{noSecret}},
		{name: "loopback HTTP with a secret", env: map[string]string{"GHOPS_SESSION_SECRET": "0123456789abcdef"}},
		{name: "all interfaces, no auth", env: map[string]string{"GHOPS_GATEWAY_ADDR": "0.0.0.0:8788", "GHOPS_INSECURE_NO_AUTH": "true"}, want: []string{notLoopback, noSecret}},
		{name: "all interfaces, authenticated", env: map[string]string{"GHOPS_GATEWAY_ADDR": "0.0.0.0:8788"}, authenticated: true, want: []string{noSecret}},
		{name: "container published on loopback (compose)", env: map[string]string{"GHOPS_GATEWAY_ADDR": "0.0.0.0:8788", "GHOPS_INSECURE_NO_AUTH": "true", "GHOPS_PUBLISHED_ADDR": "127.0.0.1:8788"}, want: []string{noSecret}},
		{name: "container published on loopback, flag", args: []string{"-addr", "0.0.0.0:8788", "-published-addr", "[::1]:9000", "-session-secret", "0123456789abcdef"}},
		{name: "container published on all host interfaces", env: map[string]string{"GHOPS_GATEWAY_ADDR": "0.0.0.0:8788", "GHOPS_PUBLISHED_ADDR": "0.0.0.0:8788"}, want: []string{notLoopback, noSecret}},
		{name: "stdio, no secret", args: []string{"stdio"}},
		{name: "stdio with an all-interfaces address set for HTTP", args: []string{"stdio"}, env: map[string]string{"GHOPS_GATEWAY_ADDR": "0.0.0.0:8788"}},
		{name: "stdio, read-only still matters", args: []string{"-read-only", "stdio"}, want: []string{readOnly}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Load(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			got := Warnings(cfg, tc.authenticated)
			ok := len(got) == len(tc.want)
			for i := range got {
				ok = ok && strings.Contains(got[i], tc.want[i])
			}
			if !ok {
				t.Fatalf("Warnings = %q\nwant ones containing %q", got, tc.want)
			}
			if !slices.ContainsFunc(tc.want, func(s string) bool { return s == notLoopback }) && cfg.ReachedOnLoopback() == false && !tc.authenticated && cfg.Command != config.CommandStdio {
				t.Fatal("not reached on loopback, unauthenticated, and no warning")
			}
		})
	}
}

// TestPublishedAddrMustBeHostPort: a published address that is not
// host:port is refused at start, naming the flag.
func TestPublishedAddrMustBeHostPort(t *testing.T) {
	_, err := config.Load([]string{"-published-addr", "8788"}, func(string) string { return "" }, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-published-addr: must be host:port") {
		t.Fatalf("err = %v", err)
	}
}
