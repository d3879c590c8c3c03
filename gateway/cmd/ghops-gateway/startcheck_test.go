package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/servicetest"
)

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// TestStdioChecksService: `ghops-gateway stdio` without -embedded checks
// the service before serving. Unreachable, it exits 1 at once with a log
// line on stderr naming the address, the flag and variable to fix it and
// -embedded; reachable, it serves (issue 23).
func TestStdioChecksService(t *testing.T) {
	bin := gatewayBinary(t)
	t.Run("unreachable", func(t *testing.T) {
		addr := freeAddr(t)
		cmd := exec.Command(bin, "stdio")
		cmd.Env = cleanEnv(map[string]string{"GHOPS_SERVICE_ADDR": addr, "GHOPS_CALL_TIMEOUT": "1s"})
		cmd.Stdin = strings.NewReader("") // a host that never writes would not be reached
		var stdout, stderr syncBuffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("exit %v, want 1\n%s", err, stderr.String())
		}
		if stdout.String() != "" {
			t.Errorf("wrote to stdout (the MCP channel): %q", stdout.String())
		}
		var found bool
		for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
			var rec struct{ Level, Msg, Service string }
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("stderr line is not JSON: %q", line)
			}
			if rec.Level != "ERROR" {
				continue
			}
			found = true
			t.Logf("the error: %s", rec.Msg)
			for _, want := range []string{"the GitHub service at " + addr + " does not answer", "-service (GHOPS_SERVICE_ADDR)", "-embedded", "GHOPS_EMBEDDED=true"} {
				if !strings.Contains(rec.Msg, want) {
					t.Errorf("the error lacks %q: %s", want, rec.Msg)
				}
			}
		}
		if !found {
			t.Fatalf("no error record:\n%s", stderr.String())
		}
	})
	t.Run("reachable", func(t *testing.T) {
		hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
		svc := servicetest.Start(t, servicetest.Options{GitHubURL: hub.URL, Token: fakehub.DemoToken})
		s, cmd, stderr := stdioSession(t, bin, []string{"stdio"}, map[string]string{"GHOPS_SERVICE_ADDR": svc.Addr})
		checkSession(t, s)
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
			t.Errorf("the gateway did not exit 0: %v\n%s", cmd.ProcessState, stderr.String())
		}
	})
}

// TestEmbeddedDiagnosis: validate_environment over `-embedded stdio`
// reports the service's real version (the binary's, stamped), and none of
// the warnings that do not apply to stdio (session secret, listen address),
// even with an all-interfaces address in the environment (issue 23).
func TestEmbeddedDiagnosis(t *testing.T) {
	bin := gatewayBinary(t)
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	env := demoEnv(hub)
	env["GHOPS_GATEWAY_ADDR"] = "0.0.0.0:8788"
	s, _, stderr := stdioSession(t, bin, []string{"-embedded", "stdio"}, env)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "validate_environment", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("validate_environment: %v %+v\n%s", err, res, stderr.String())
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var diag struct {
		Checks []struct{ Name, Level, Message string }
	}
	if err := json.Unmarshal(raw, &diag); err != nil || len(diag.Checks) == 0 {
		t.Fatalf("structured content %s: %v", raw, err)
	}
	got := map[string][]string{}
	for _, c := range diag.Checks {
		got[c.Name] = append(got[c.Name], c.Level+": "+c.Message)
	}
	if want := []string{"ok: ghops-github " + stampedVersion}; strings.Join(got["service.version"], "|") != want[0] {
		t.Errorf("service.version %q, want %q", got["service.version"], want)
	}
	if want := "ok: ghops-gateway " + stampedVersion; strings.Join(got["gateway.version"], "|") != want {
		t.Errorf("gateway.version %q, want %q", got["gateway.version"], want)
	}
	if w := got["gateway.config"]; len(w) != 0 {
		t.Errorf("gateway warnings over stdio: %q", w)
	}
	_ = s.Close()
}
