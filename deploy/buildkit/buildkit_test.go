package buildkit

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeDocker is a docker CLI stand-in: `docker info` succeeds unless
// FAKE_NO_ENGINE is set, `docker buildx version` only with FAKE_BUILDX, and
// `docker build` (with DOCKER_BUILDKIT=1) only with FAKE_BUILDKIT. Every
// build but the script's probe is recorded in $FAKE_LOG.
const fakeDocker = `#!/bin/sh
case "$1" in
info) [ -z "$FAKE_NO_ENGINE" ] ;;
buildx)
	[ -n "$FAKE_BUILDX" ] || exit 1
	[ "$2" = version ] && exit 0
	echo "buildx $*" >>"$FAKE_LOG" ;;
build)
	[ -n "$FAKE_BUILDKIT" ] && [ "$DOCKER_BUILDKIT" = 1 ] || exit 1
	# The script's probe (a Dockerfile on stdin) is not a build to record.
	if [ "$2 $3" = "-q -" ]; then cat >/dev/null; exit 0; fi
	echo "DOCKER_BUILDKIT=$DOCKER_BUILDKIT $*" >>"$FAKE_LOG" ;;
*) exit 1 ;;
esac
`

func TestBuildkitScript(t *testing.T) {
	script, err := filepath.Abs("../../scripts/buildkit.sh")
	if err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		env        []string
		noDocker   bool
		args       []string
		wantCode   int
		wantStderr []string
		wantLog    string // the last recorded build
	}{
		{name: "buildx plugin", env: []string{"FAKE_BUILDX=1"}, args: []string{"build", "-t", "ghops:dev", "."},
			wantLog: "buildx buildx build --load -t ghops:dev ."},
		{name: "CLI with BuildKit built in", env: []string{"FAKE_BUILDKIT=1"}, args: []string{"build", "-t", "ghops:dev", "."},
			wantLog: "DOCKER_BUILDKIT=1 build -t ghops:dev ."},
		{name: "no BuildKit", args: []string{"build", "-t", "ghops:dev", "."}, wantCode: 3,
			wantStderr: []string{"no BuildKit builder found", "docker-buildx", "DOCKER_BUILDKIT=1"}},
		{name: "check without BuildKit", args: []string{"check"}, wantCode: 3, wantStderr: []string{"no BuildKit builder found"}},
		{name: "no engine", env: []string{"FAKE_NO_ENGINE=1", "FAKE_BUILDX=1"}, args: []string{"build", "."}, wantCode: 3,
			wantStderr: []string{"no Docker engine answers"}},
		{name: "no docker at all", noDocker: true, args: []string{"build", "."}, wantCode: 3, wantStderr: []string{"no docker command"}},
		{name: "no verb", env: []string{"FAKE_BUILDX=1"}, wantCode: 2, wantStderr: []string{"usage:"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin")
			if err := os.Mkdir(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			if !tc.noDocker {
				if err := os.WriteFile(filepath.Join(bin, "docker"), []byte(fakeDocker), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// PATH holds the stand-in and the few tools the script needs.
			for _, tool := range []string{"cat", "echo"} {
				if p, err := exec.LookPath(tool); err == nil {
					_ = os.Symlink(p, filepath.Join(bin, tool))
				}
			}
			log := filepath.Join(dir, "log")
			cmd := exec.Command(sh, append([]string{script}, tc.args...)...)
			cmd.Env = append([]string{"PATH=" + bin, "FAKE_LOG=" + log, "BUILDKIT_DOCKER_CLIS=docker"}, tc.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\n%s", code, tc.wantCode, stderr.String())
			}
			for _, want := range tc.wantStderr {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
			got, _ := os.ReadFile(log)
			if last := strings.TrimSpace(string(got)); last != tc.wantLog {
				t.Errorf("builds %q, want %q", last, tc.wantLog)
			}
		})
	}
}

// TestStandinsScript: scripts/standins.sh (make standins, and the first step
// of make compose-test) builds both stand-in base images through
// buildkit.sh, each from its Dockerfile in deploy/standin, with the tags
// README.md tells make image to use.
func TestStandinsScript(t *testing.T) {
	script, err := filepath.Abs("../../scripts/standins.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "docker"), []byte(fakeDocker), 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "log")
	cmd := exec.Command("bash", script)
	// The stand-in docker first on PATH; the rest (go, cp, mktemp) real.
	// TMPDIR keeps the toolchain's copy (hard links) under the test's dir.
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"FAKE_LOG="+log, "FAKE_BUILDX=1", "BUILDKIT_DOCKER_CLIS=docker", "TMPDIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("standins.sh: %v\n%s", err, out)
	}
	got, _ := os.ReadFile(log)
	builds := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(builds) != 2 {
		t.Fatalf("builds %q, want two", builds)
	}
	for i, want := range []string{"-t ghops-standin/go:local -f deploy/standin/builder.Dockerfile ", "-t ghops-standin/runtime:local -f deploy/standin/runtime.Dockerfile "} {
		if !strings.HasPrefix(builds[i], "buildx buildx build --load -q "+want) {
			t.Errorf("build %d: %q, want %q", i, builds[i], want)
		}
	}
}
