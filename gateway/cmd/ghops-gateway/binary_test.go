package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"

	"ghops.dev/gateway/gatewaytest"
)

// stampedVersion, stampedCommit and stampedDate are what the test binary
// is stamped with, as make build and the Dockerfile stamp theirs (package
// ghops.dev/probe/buildinfo).
const (
	stampedVersion = "v9.9.9-binary-test"
	stampedCommit  = "0123456789abcdef0123456789abcdef01234567"
	stampedDate    = "2026-11-24T18:00:00Z"
)

// stampFlags are make build's -ldflags with the stamps above.
const stampFlags = "-X ghops.dev/probe/buildinfo.version=" + stampedVersion +
	" -X ghops.dev/probe/buildinfo.commit=" + stampedCommit + " -X ghops.dev/probe/buildinfo.date=" + stampedDate

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

// gatewayBinary builds the real ghops-gateway once, stamped with
// stampFlags; TestMain removes it.
func gatewayBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "ghops-gateway-test-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "ghops-gateway")
		out, err := exec.Command("go", "build", "-ldflags", stampFlags, "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// syncBuffer collects a child's stderr for concurrent readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// cleanEnv is the test's environment without any variable the gateway or
// the service reads, plus extra.
func cleanEnv(extra map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GHOPS_") || strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "OTEL_") {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}

// demoEnv points the embedded service at the fakehub hub.
func demoEnv(hub *fakehubtest.Server) map[string]string {
	return map[string]string{"GITHUB_API_URL": hub.URL, "GITHUB_TOKEN": fakehub.DemoToken}
}

// checkSession checks what a host does first: initialize (serverInfo
// carries the stamped version), tools/list, one successful and one failing
// tools/call.
func checkSession(t *testing.T, s *sdk.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if info := s.InitializeResult().ServerInfo; info == nil || info.Version != stampedVersion {
		t.Errorf("serverInfo %+v, want version %s", info, stampedVersion)
	}
	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if want := gatewaytest.DeclaredTools(false); !slices.Equal(names, want) {
		t.Errorf("tools/list gave %v, want the tools proto declares %v", names, want)
	}
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"repo": "octo-org/hello-world", "path": "go.mod"}})
	if err != nil || res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "module example.com/hello-world") {
		t.Fatalf("read_file: %v %+v", err, res)
	}
	// A host names its protocol version, so the failure is a result the
	// model reads.
	res, err = s.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{}})
	if err != nil || !res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "must have required property 'query'") {
		t.Fatalf("search {}: %v %+v", err, res)
	}
}

// stdioSession starts the binary with args and env as an MCP host does and
// connects to it over its stdin and stdout.
func stdioSession(t *testing.T, command string, args []string, env map[string]string) (*sdk.ClientSession, *exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(command, args...)
	cmd.Env = cleanEnv(env)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "binary-test", Version: "1"}, nil)
	s, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatalf("connect to %s %q: %v\nstderr:\n%s", command, args, err, stderr.String())
	}
	return s, cmd, stderr
}

func TestBinaryCommandLine(t *testing.T) {
	bin := gatewayBinary(t)
	tests := []struct {
		name       string
		args       []string
		want       int
		wantStdout []string
		wantStderr string
	}{
		{"-h lists the commands", []string{"-h"}, 0, []string{"ghops-gateway [flags] stdio", "ghops-gateway [flags] healthcheck", "-embedded", "GHOPS_EMBEDDED"}, ""},
		{"stdio -h", []string{"stdio", "-h"}, 0, []string{"ghops-gateway [flags] stdio"}, ""},
		{"-version", []string{"-version"}, 0, []string{"ghops-gateway " + stampedVersion + " (commit " + stampedCommit + ", built " + stampedDate + ", " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"}, ""},
		{"unknown flag", []string{"-nope"}, 2, nil, "-nope"},
		{"unknown command", []string{"serve"}, 2, nil, `unexpected argument "serve"`},
		{"bad embedded environment", []string{"-embedded", "stdio"}, 2, nil, "github-url must end in"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			env := map[string]string{}
			if tc.name == "bad embedded environment" {
				env["GITHUB_API_URL"] = "http://127.0.0.1:1"
				env["GITHUB_TOKEN"] = "secret-token-xyz"
			}
			cmd.Env = cleanEnv(env)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.want {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.want, stdout.String(), stderr.String())
			}
			for _, w := range tc.wantStdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) || strings.Contains(stderr.String(), "secret-token-xyz") {
				t.Errorf("stderr lacks %q or shows the token:\n%s", tc.wantStderr, stderr.String())
			}
		})
	}
}

// TestEmbeddedStdio runs the real binary as a local MCP host would, with
// nothing else running but fakehub (reached through GITHUB_API_URL): the
// command before or after the flag, or the flag from the environment.
func TestEmbeddedStdio(t *testing.T) {
	bin := gatewayBinary(t)
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	tests := []struct {
		name string
		args []string
		env  map[string]string
	}{
		{"stdio -embedded", []string{"stdio", "-embedded"}, nil},
		{"-embedded stdio", []string{"-embedded", "stdio"}, nil},
		{"GHOPS_EMBEDDED=true stdio", []string{"stdio"}, map[string]string{"GHOPS_EMBEDDED": "true"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := demoEnv(hub)
			for k, v := range tc.env {
				env[k] = v
			}
			s, cmd, stderr := stdioSession(t, bin, tc.args, env)
			checkSession(t, s)
			if err := s.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
				t.Errorf("the gateway did not exit 0 at the end of stdin: %v\n%s", cmd.ProcessState, stderr.String())
			}
			logs := stderr.String()
			if !strings.Contains(logs, `"msg":"ghops-github running in process"`) || !strings.Contains(logs, `"embedded":true`) {
				t.Errorf("logs do not show the embedded service:\n%s", logs)
			}
			if strings.Contains(logs, fakehub.DemoToken) {
				t.Error("the token reached the logs")
			}
		})
	}
}

// httpGateway is a real ghops-gateway -embedded serving HTTP.
type httpGateway struct {
	addr   string
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan struct{}
}

// startHTTP starts the binary with -embedded on a random loopback port and
// waits until it listens; it is killed at cleanup if still running.
func startHTTP(t *testing.T, hub *fakehubtest.Server, extraEnv map[string]string) *httpGateway {
	t.Helper()
	cmd := exec.Command(gatewayBinary(t), "-embedded", "-addr", "127.0.0.1:0")
	env := demoEnv(hub)
	for k, v := range extraEnv {
		env[k] = v
	}
	cmd.Env = cleanEnv(env)
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g := &httpGateway{cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-g.done; _ = cmd.Wait() })
	addrc := make(chan string, 1)
	go func() {
		defer close(g.done)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			_, _ = g.stderr.Write(append(sc.Bytes(), '\n'))
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "gateway listening" {
				addrc <- rec.Addr
			}
		}
	}()
	select {
	case g.addr = <-addrc:
	case <-time.After(30 * time.Second):
		t.Fatalf("the gateway never listened:\n%s", g.stderr.String())
	}
	return g
}

// httpSession connects to the MCP endpoint url.
func httpSession(t *testing.T, url string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "binary-test", Version: "1"}, nil)
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestEmbeddedHTTP serves HTTP from the real binary with the service
// inside: MCP works, the healthcheck command sees it ready, and SIGTERM
// stops it in order with exit 0.
func TestEmbeddedHTTP(t *testing.T) {
	bin := gatewayBinary(t)
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	g := startHTTP(t, hub, nil)
	checkSession(t, httpSession(t, "http://"+g.addr+"/mcp"))

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nothing := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(g.addr)
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want int
	}{
		{"healthcheck of the running gateway", []string{"healthcheck", "-addr", g.addr}, nil, 0},
		{"healthcheck through a wildcard address from the environment", []string{"healthcheck"}, map[string]string{"GHOPS_GATEWAY_ADDR": "0.0.0.0:" + port}, 0},
		{"healthcheck of nothing", []string{"-addr", nothing, "healthcheck"}, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Env = cleanEnv(tc.env)
			out, err := cmd.CombinedOutput()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			}
			if code != tc.want {
				t.Errorf("exit %d, want %d: %s", code, tc.want, out)
			}
		})
	}

	if err := g.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-g.done
	if err := g.cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, g.stderr.String())
	}
	logs := g.stderr.String()
	if !strings.Contains(logs, `"msg":"gateway stopped"`) || !strings.Contains(logs, `"version":"`+stampedVersion+`"`) {
		t.Errorf("no orderly stop or no version in the log:\n%s", logs)
	}
	// No OTEL_ variable (cleanEnv): tracing off, nothing exported.
	if !strings.Contains(logs, `"tracing":false`) {
		t.Errorf("the start-up line does not say tracing is off:\n%s", logs)
	}
	if strings.Contains(logs, fakehub.DemoToken) {
		t.Error("the token reached the logs")
	}
}
