package runscript

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const repoRoot = "../.."

// freeAddrs returns n loopback addresses nothing listens on.
func freeAddrs(t *testing.T, n int) []string {
	t.Helper()
	var addrs []string
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		addrs = append(addrs, l.Addr().String())
	}
	for _, l := range ls {
		l.Close()
	}
	return addrs
}

// listening reports whether something accepts connections on addr.
func listening(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// script is scripts/run.sh with the four addresses in its environment.
func script(bin string, addrs map[string]string) *exec.Cmd {
	cmd := exec.Command("bash", "scripts/run.sh")
	cmd.Dir = repoRoot
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "GHOPS_") && !strings.HasPrefix(k, "GITHUB_") && !strings.HasPrefix(k, "FAKEHUB_") {
			env = append(env, kv)
		}
	}
	env = append(env, "BIN="+bin)
	for k, v := range addrs {
		env = append(env, k+"="+v)
	}
	cmd.Env = env
	return cmd
}

func TestRefusesATakenPortBeforeStartingAnything(t *testing.T) {
	free := freeAddrs(t, 3)
	for _, variable := range []string{"GHOPS_GATEWAY_ADDR", "GHOPS_GITHUB_ADDR", "GHOPS_GITHUB_METRICS_ADDR", "FAKEHUB_LISTEN"} {
		t.Run(variable, func(t *testing.T) {
			taken, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer taken.Close()
			addrs := map[string]string{}
			i := 0
			for _, v := range []string{"GHOPS_GATEWAY_ADDR", "GHOPS_GITHUB_ADDR", "GHOPS_GITHUB_METRICS_ADDR", "FAKEHUB_LISTEN"} {
				if v == variable {
					addrs[v] = taken.Addr().String()
				} else {
					addrs[v] = free[i]
					i++
				}
			}
			// No binaries at all: the check must come first.
			cmd := script(t.TempDir(), addrs)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err = cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("exit %v, want 1\n%s", err, stderr.String())
			}
			for _, want := range []string{taken.Addr().String() + " is already in use", variable + "=127.0.0.1:", "nothing was started"} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
			for _, a := range free {
				if listening(a) {
					t.Errorf("something listens on %s", a)
				}
			}
		})
	}
}

// TestRunsAndStops builds the three binaries and runs the script as make
// run does, on free ports: the gateway answers a tool call, and SIGTERM
// stops everything with exit 0.
func TestRunsAndStops(t *testing.T) {
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator),
		"./services/fakehub/cmd/fakehub", "./services/github/cmd/ghops-github", "./gateway/cmd/ghops-gateway")
	build.Dir = repoRoot
	build.Env = append(os.Environ(), "GOWORK=") // the workspace joins the three modules
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	a := freeAddrs(t, 4)
	addrs := map[string]string{"GHOPS_GATEWAY_ADDR": a[0], "GHOPS_GITHUB_ADDR": a[1], "GHOPS_GITHUB_METRICS_ADDR": a[2], "FAKEHUB_LISTEN": a[3]}
	cmd := script(bin, addrs)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	running := make(chan bool, 1)
	var out strings.Builder
	go func() {
		sc := bufio.NewScanner(stdout)
		said := false
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if !said && strings.HasPrefix(sc.Text(), "ghops is running") {
				said = true
				running <- true
			}
		}
		if !said {
			running <- false
		}
	}()
	select {
	case ok := <-running:
		if !ok {
			t.Fatalf("the script ended without running:\n%s", stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("not running after 60s:\n%s", stderr.String())
	}
	resp, err := http.Post("http://"+a[0]+"/rpc", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"get_branches","params":{"repo":"octo-org/hello-world"}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"name":"main"`) {
		t.Errorf("get_branches: %s", body)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, stderr.String())
	}
	for _, addr := range a {
		if listening(addr) {
			t.Errorf("%s still listens after the script stopped", addr)
		}
	}
	// The gateway reached the service with the secret drawn for the run:
	// the service required it, the gateway sent it (the call above worked).
	for _, want := range []string{`"msg":"gateway stopped"`, `"msg":"ghops-github stopped"`, `"msg":"fakehub stopped"`,
		`"caller_auth":"secret"`, `"service_auth":"secret"`} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("no %s in the logs", want)
		}
	}
}
