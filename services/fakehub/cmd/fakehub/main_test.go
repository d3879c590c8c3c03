package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestMain lets the test binary act as fakehub when asked to, so that the
// signal handling of the real main can be tested in a child process.
func TestMain(m *testing.M) {
	if args := os.Getenv("FAKEHUB_TEST_ARGS"); args != "" {
		var a []string
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			os.Exit(3)
		}
		os.Args = append([]string{os.Args[0]}, a...)
		main()
	}
	os.Exit(m.Run())
}

// noEnv is an empty environment.
func noEnv(string) (string, bool) { return "", false }

// waitListening reads JSON log lines from sc until "fakehub listening" and
// returns the address logged there.
func waitListening(t *testing.T, sc *bufio.Scanner) string {
	t.Helper()
	for sc.Scan() {
		var rec struct{ Msg, Addr string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", sc.Text())
		}
		if rec.Msg == "fakehub listening" {
			return rec.Addr
		}
	}
	t.Fatal("fakehub never said it was listening")
	return ""
}

// getRepo checks that the hub at addr serves the demo data's public repository.
func getRepo(t *testing.T, addr string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/repos/octo-org/hello-world")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /repos/octo-org/hello-world = %d", resp.StatusCode)
	}
}

func TestRunStopsOnContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0"}, noEnv, io.Discard, pw)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	getRepo(t, waitListening(t, sc))
	cancel()
	var rest strings.Builder
	for sc.Scan() {
		rest.WriteString(sc.Text() + "\n")
	}
	if code := <-done; code != 0 {
		t.Errorf("run = %d want 0\n%s", code, rest.String())
	}
	if !strings.Contains(rest.String(), `"msg":"fakehub shutting down"`) {
		t.Errorf("no orderly stop in the log:\n%s", rest.String())
	}
}

func TestSIGTERMShutsDownGracefully(t *testing.T) {
	js, _ := json.Marshal([]string{"-listen", "127.0.0.1:0", "-seed", "demo"})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FAKEHUB_TEST_ARGS="+string(js))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	getRepo(t, waitListening(t, sc))
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var rest strings.Builder
	for sc.Scan() {
		rest.WriteString(sc.Text() + "\n")
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) || err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, rest.String())
	}
	if !strings.Contains(rest.String(), `"msg":"fakehub shutting down"`) {
		t.Errorf("no orderly stop in the log:\n%s", rest.String())
	}
}

func TestBadConfigExits2(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"bad core limit env", nil, map[string]string{"FAKEHUB_CORE_LIMIT": "abc"}, "FAKEHUB_CORE_LIMIT"},
		{"negative search limit", []string{"-search-limit", "-1"}, nil, "-search-limit"},
		{"unknown flag", []string{"-nope"}, nil, "-nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			if got := run(context.Background(), tc.args, lookup, io.Discard, &out); got != 2 {
				t.Errorf("run = %d want 2", got)
			}
			if !strings.Contains(out.String(), tc.want) {
				t.Errorf("stderr %q does not name %q", out.String(), tc.want)
			}
		})
	}
}
