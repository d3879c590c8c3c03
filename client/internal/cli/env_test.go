package cli

import (
	"bytes"
	"context"
	"net"
	"regexp"
	"strings"
	"testing"
)

// TestEnvironmentAndVersion checks the variables behind the flags (a flag
// wins over its variable; a bad value is a usage error naming it) and
// --version.
func TestEnvironmentAndVersion(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	_ = ln.Close()
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		wantExit int
		wantOut  string
	}{
		{"version", []string{"--version"}, nil, ExitOK, "ghops dev\n"},
		{"version after a command", []string{"tools", "-version"}, nil, ExitOK, "ghops dev\n"},
		{"GHOPS_JSON prints JSON", []string{"tools"}, map[string]string{"GHOPS_JSON": "true"}, ExitOK, `[{"name":"search"`},
		{"--json=false beats GHOPS_JSON", []string{"tools", "--json=false"}, map[string]string{"GHOPS_JSON": "true"}, ExitOK, "TOOL "},
		{"GHOPS_REMOTE asks the gateway", []string{"tools"}, map[string]string{"GHOPS_REMOTE": "1", "GHOPS_ENDPOINT": refused}, ExitFailure, "connection refused"},
		{"--remote=false beats GHOPS_REMOTE", []string{"tools", "--remote=false"}, map[string]string{"GHOPS_REMOTE": "1", "GHOPS_ENDPOINT": refused}, ExitOK, "TOOL "},
		{"bad GHOPS_TIMEOUT", []string{"tools"}, map[string]string{"GHOPS_TIMEOUT": "soon"}, ExitUsage, "GHOPS_TIMEOUT"},
		{"zero GHOPS_TIMEOUT", []string{"tools"}, map[string]string{"GHOPS_TIMEOUT": "0s"}, ExitUsage, `GHOPS_TIMEOUT (-timeout): "0s" is not a positive duration`},
		{"bad GHOPS_RETRIES", []string{"tools"}, map[string]string{"GHOPS_RETRIES": "many"}, ExitUsage, "GHOPS_RETRIES"},
		{"bad GHOPS_JSON", []string{"tools"}, map[string]string{"GHOPS_JSON": "sure"}, ExitUsage, "GHOPS_JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), tc.args, nil, &stdout, &stderr, func(k string) string { return tc.env[k] })
			if code != tc.wantExit {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantExit, stdout.String(), stderr.String())
			}
			if out := stdout.String() + stderr.String(); !strings.Contains(out, tc.wantOut) {
				t.Errorf("output lacks %q:\n%s", tc.wantOut, out)
			}
		})
	}
}

// TestUsageNamesTheVariables checks the hand-written help against the
// bindings: every flag it lists but --args (the call's input) and the
// --version action names the variable flags binds it to, and no binding
// is missing from it.
func TestUsageNamesTheVariables(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), []string{"-h"}, nil, &stdout, &stderr, func(string) string { return "" }); code != ExitOK {
		t.Fatalf("-h exit %d", code)
	}
	for _, cmd := range []string{"ghops [flags] tools", "ghops [flags] call TOOL", "ghops help", "ghops --version"} {
		if !strings.Contains(stdout.String(), cmd) {
			t.Errorf("-h does not list %q", cmd)
		}
	}
	bound := flags(&Config{}, func(string) string { return "" }).Variables()
	lines := regexp.MustCompile(`(?m)^  --([a-z]+) .*$`).FindAllStringSubmatch(stdout.String(), -1)
	if len(lines) < 8 {
		t.Fatalf("found %d flags in:\n%s", len(lines), stdout.String())
	}
	listed := map[string]bool{}
	for _, l := range lines {
		listed[l[1]] = true
		if l[1] == "args" || l[1] == "version" {
			continue
		}
		t.Run(l[1], func(t *testing.T) {
			m := regexp.MustCompile(`env (GHOPS_[A-Z]+)`).FindStringSubmatch(l[0])
			if m == nil {
				t.Fatalf("no variable in %q", l[0])
			}
			if bound[l[1]] != m[1] {
				t.Errorf("help names %s, the flag is bound to %q", m[1], bound[l[1]])
			}
		})
	}
	for name := range bound {
		if !listed[name] {
			t.Errorf("--%s is bound but missing from the help", name)
		}
	}
}
