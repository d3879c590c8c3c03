package kubernetes

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestDocumentedCommand runs the test command README.md documents, as
// written, from the repository root (where go.work would otherwise hide this
// module), with -list so that it compiles and lists every test of the
// module without running them (running them would run this test again).
func TestDocumentedCommand(t *testing.T) {
	doc, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## Test\n.*?```sh\n([^\n]+)\n```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("README.md has no command in its Test section")
	}
	line := string(m[1])
	if !strings.HasSuffix(line, "go test ./...") {
		t.Fatalf("documented command %q does not end in go test ./...", line)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh, "-c", line+" -list .")
	cmd.Dir = "../.."
	// The caller's GOWORK and GOFLAGS would decide for the command; an
	// operator's shell has neither.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "GOWORK" && k != "GOFLAGS" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	for _, want := range []string{"TestKustomization", "TestDocumentedCommand", "TestSharedState", "ok  \tghops.dev/deploy/kubernetes"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the documented command did not list %q:\n%s", want, out)
		}
	}
}
