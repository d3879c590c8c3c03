package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// outputs are the files errgen writes, and its source, relative to the
// repository root.
var outputs = []string{
	"gateway/internal/rpcerror/table_gen.go", "client/codes_gen.go", "docs/errors.md", "proto/ghops/v1/errors.proto",
	"client/tools_gen.go", "README.md", "docs/comparison.md",
}

// copyRoot copies the committed outputs into a temporary repository root.
func copyRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, p := range outputs {
		b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func runErrgen(args []string, env map[string]string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, func(k string) string { return env[k] }, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestCheckFailsOnStaleFile is what `make check-generated` relies on: -check
// exits 1 and names the stale file, writes nothing, and passes again after a
// generate.
func TestCheckFailsOnStaleFile(t *testing.T) {
	root := copyRoot(t)
	if code, _, stderr := runErrgen([]string{"-root", root, "-check"}, nil); code != 0 {
		t.Fatalf("committed files are stale (run 'make generate'): exit %d\n%s", code, stderr)
	}
	client := filepath.Join(root, "client", "codes_gen.go")
	b, _ := os.ReadFile(client)
	stale := bytes.Replace(b, []byte("CodeNotFound = -32002"), []byte("CodeNotFound = -32020"), 1)
	if bytes.Equal(b, stale) {
		t.Fatal("the constant to edit is missing")
	}
	if err := os.WriteFile(client, stale, 0o644); err != nil {
		t.Fatal(err)
	}

	code, _, stderr := runErrgen([]string{"-check"}, map[string]string{"ERRGEN_ROOT": root})
	if code != 1 || !strings.Contains(stderr, "client/codes_gen.go is stale: run 'make generate'") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if now, _ := os.ReadFile(client); !bytes.Equal(now, stale) {
		t.Error("-check wrote the file")
	}
	code, stdout, _ := runErrgen(nil, map[string]string{"ERRGEN_ROOT": root})
	if code != 0 || !strings.Contains(stdout, "wrote client/codes_gen.go") {
		t.Fatalf("generate: exit %d, stdout %q", code, stdout)
	}
	if code, _, stderr := runErrgen([]string{"-root", root}, map[string]string{"ERRGEN_CHECK": "true"}); code != 0 {
		t.Fatalf("after generate: exit %d\n%s", code, stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"-nope"}, "flag provided but not defined"},
		{"positional argument", []string{"x"}, "unexpected arguments"},
		{"missing root", []string{"-root", "/nonexistent-errgen-root"}, "is not the repository root"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runErrgen(tc.args, nil)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
		})
	}
}
