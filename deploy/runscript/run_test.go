package runscript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
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

// TestSuggestsAPortBelowTheEphemeralRange: the port offered instead of a
// taken one is free and lies below the range the kernel hands out for
// outgoing connections, where it could be taken again at any moment.
func TestSuggestsAPortBelowTheEphemeralRange(t *testing.T) {
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			low, _ = strconv.Atoi(f[0])
		}
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0") // the kernel picks it from the ephemeral range
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	free := freeAddrs(t, 3)
	cmd := script(t.TempDir(), map[string]string{"GHOPS_GITHUB_ADDR": taken.Addr().String(),
		"GHOPS_GATEWAY_ADDR": free[0], "GHOPS_GITHUB_METRICS_ADDR": free[1], "FAKEHUB_LISTEN": free[2]})
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	m := regexp.MustCompile(`GHOPS_GITHUB_ADDR=127\.0\.0\.1:(\d+) make run`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no suggestion for GHOPS_GITHUB_ADDR:\n%s", stderr.String())
	}
	port, _ := strconv.Atoi(m[1])
	if port >= low || port < 1024 {
		t.Errorf("suggested port %d, want one in [1024, %d)", port, low)
	}
	if listening("127.0.0.1:" + m[1]) {
		t.Errorf("suggested port %d is in use", port)
	}
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds fakehub, the service and the gateway once per test run.
func binaries(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "runscript-bin")
		if buildErr != nil {
			return
		}
		build := exec.Command("go", "build", "-o", binDir+string(filepath.Separator),
			"./services/fakehub/cmd/fakehub", "./services/github/cmd/ghops-github", "./gateway/cmd/ghops-gateway")
		build.Dir = repoRoot
		build.Env = append(os.Environ(), "GOWORK=") // the workspace joins the three modules
		if out, err := build.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// TestChecksAPortAgainBeforeItsProcessStarts: a port taken after the first
// check (during the build, or while the earlier processes start) stops the
// run right before the process that needs it, naming the variable, and
// what had started is stopped.
func TestChecksAPortAgainBeforeItsProcessStarts(t *testing.T) {
	bin := binaries(t)
	a := freeAddrs(t, 4)
	cmd := script(bin, map[string]string{"GHOPS_GATEWAY_ADDR": a[0], "GHOPS_GITHUB_ADDR": a[1], "GHOPS_GITHUB_METRICS_ADDR": a[2], "FAKEHUB_LISTEN": a[3]})
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
	// Take the gateway's port as soon as fakehub is up: the gateway starts
	// only after the service is ready, well after this.
	sc := bufio.NewScanner(stdout)
	var late net.Listener
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "fakehub (demo data) on") {
			if late, err = net.Listen("tcp", a[0]); err != nil {
				t.Fatal(err)
			}
			defer late.Close()
			break
		}
	}
	if late == nil {
		t.Fatalf("fakehub never started:\n%s", stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1\n%s", err, stderr.String())
	}
	if want := a[0] + " is already in use; stop what listens there or move it, e.g. GHOPS_GATEWAY_ADDR=127.0.0.1:"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
	for _, addr := range a[1:] {
		if listening(addr) {
			t.Errorf("%s still listens after the run stopped", addr)
		}
	}
}

// TestRunsAndStops builds the three binaries and runs the script as make
// run does, on free ports: the gateway answers a tool call, and SIGTERM
// stops everything with exit 0.
func TestRunsAndStops(t *testing.T) {
	bin := binaries(t)
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
