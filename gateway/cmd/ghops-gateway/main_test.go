package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestMain lets the test binary act as ghops-gateway when asked to, so the
// signal handling of the real main can be tested in a child process.
func TestMain(m *testing.M) {
	if args := os.Getenv("GHOPS_GATEWAY_TEST_ARGS"); args != "" {
		var a []string
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			os.Exit(3)
		}
		os.Exit(run(a))
	}
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// child is a ghops-gateway running as a child process.
type child struct {
	cmd  *exec.Cmd
	addr string
	logs *bufio.Scanner
	// procs is the GOMAXPROCS its starting log line reports.
	procs int
}

// startChild runs the real main in a child process with args and waits until
// it listens; the process is killed at cleanup if still running.
func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	js, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GHOPS_GATEWAY_TEST_ARGS="+string(js))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	var addr string
	procs := -1
	for addr == "" && sc.Scan() {
		var rec struct {
			Msg, Addr string
			Procs     int
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		switch rec.Msg {
		case "ghops-gateway starting":
			procs = rec.Procs
		case "gateway listening":
			addr = rec.Addr
		}
	}
	if addr == "" {
		t.Fatal("gateway never said it was listening")
	}
	// Keep draining the child's log so it never blocks on a full pipe.
	return &child{cmd: cmd, addr: addr, logs: sc, procs: procs}
}

func TestSIGTERMShutsDownGracefully(t *testing.T) {
	c := startChild(t, "-addr", "127.0.0.1:0", "-service", "127.0.0.1:1")
	cmd, addr, sc := c.cmd, c.addr, c.logs
	checks := []struct {
		path string
		want int
	}{{"/healthz", 200}, {"/readyz", 503}} // no service behind 127.0.0.1:1
	for _, c := range checks {
		resp, err := http.Get("http://" + addr + c.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s = %d want %d", c.path, resp.StatusCode, c.want)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var rest strings.Builder
	for sc.Scan() {
		rest.WriteString(sc.Text() + "\n")
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) || err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, rest.String())
	}
	if !strings.Contains(rest.String(), `"msg":"gateway stopped"`) {
		t.Errorf("no orderly stop in the log:\n%s", rest.String())
	}
}

// TestProcs: the process runs on the threads -procs asks for, one by
// default in front of a service, and says so in its starting log line.
// Each row sets the child's GOMAXPROCS ("" is unset), which "auto" defers
// to and which makes Go's own choice known whatever the machine.
func TestProcs(t *testing.T) {
	tests := []struct {
		name       string
		gomaxprocs string
		args       []string
		procs      int
	}{
		{name: "default", procs: 1},
		{name: "asked", args: []string{"-procs", "2"}, procs: 2},
		{name: "asked beats GOMAXPROCS", gomaxprocs: "3", args: []string{"-procs", "2"}, procs: 2},
		{name: "auto defers to GOMAXPROCS", gomaxprocs: "3", procs: 3},
		{name: "go's choice", gomaxprocs: "3", args: []string{"-procs", "0"}, procs: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOMAXPROCS", tt.gomaxprocs)
			c := startChild(t, append([]string{"-addr", "127.0.0.1:0", "-service", "127.0.0.1:1"}, tt.args...)...)
			if c.procs != tt.procs {
				t.Errorf("procs %d, want %d", c.procs, tt.procs)
			}
		})
	}
}

func TestBadFlagsExit2(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"bad mode", []string{"-mcp-tool-errors", "text"}},
		{"unknown flag", []string{"-nope"}},
		{"stdio with bad flag", []string{"stdio", "-max-body", "0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := run(tc.args); got != 2 {
				t.Errorf("run(%q) = %d want 2", tc.args, got)
			}
		})
	}
}
