package gitstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestSHAsMatchGit checks that trees and commits get the ids git itself computes.
func TestSHAsMatchGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("git is required to compare ids with git (.ci/run installs it): %v", err)
	}
	files := map[string]string{"README.md": "hi\n", "a/b.txt": "x\n", "a.txt": "y\n", "a/c/d.go": "package d\n"}
	r := New()
	entries, err := r.WriteFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := r.WriteTree(entries)
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sig := Signature{Name: "Octo Cat", Email: "octo@example.com", When: when}
	commit, err := r.WriteCommit(tree, nil, "initial\n", sig, sig)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := func(env []string, args ...string) string {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run(nil, "init", "-q")
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(nil, "add", "-A")
	gitTree := run(nil, "write-tree")
	env := []string{"GIT_AUTHOR_NAME=Octo Cat", "GIT_AUTHOR_EMAIL=octo@example.com", "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z",
		"GIT_COMMITTER_NAME=Octo Cat", "GIT_COMMITTER_EMAIL=octo@example.com", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z"}
	gitCommit := run(env, "commit-tree", gitTree, "-m", "initial")
	tests := []struct{ name, got, want string }{
		{"tree", tree.String(), gitTree},
		{"commit", commit.String(), gitCommit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Fatalf("id %s, git says %s", tc.got, tc.want)
			}
		})
	}
}

func TestMergeTrees(t *testing.T) {
	r := New()
	tree := func(files map[string]string) plumbing.Hash {
		e, err := r.WriteFiles(files)
		if err != nil {
			t.Fatal(err)
		}
		h, err := r.WriteTree(e)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	base := tree(map[string]string{"f": "1\n2\n3\n4\n5\n", "g": "g\n"})
	tests := []struct {
		name         string
		ours, theirs map[string]string
		conflict     bool
		wantF        string
	}{
		{"different lines", map[string]string{"f": "one\n2\n3\n4\n5\n", "g": "g\n"}, map[string]string{"f": "1\n2\n3\n4\nfive\n", "g": "g\n"}, false, "one\n2\n3\n4\nfive\n"},
		{"same line", map[string]string{"f": "x\n2\n3\n4\n5\n", "g": "g\n"}, map[string]string{"f": "y\n2\n3\n4\n5\n", "g": "g\n"}, true, ""},
		{"modify delete", map[string]string{"f": "x\n2\n3\n4\n5\n", "g": "g\n"}, map[string]string{"g": "g\n"}, true, ""},
		{"add different files", map[string]string{"f": "1\n2\n3\n4\n5\n", "g": "g\n", "h": "h\n"}, map[string]string{"f": "1\n2\n3\n4\n5\n", "g": "g\n", "i": "i\n"}, false, "1\n2\n3\n4\n5\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, conflicts, err := r.MergeTrees(base, tree(tc.ours), tree(tc.theirs))
			if err != nil {
				t.Fatal(err)
			}
			if (len(conflicts) > 0) != tc.conflict {
				t.Fatalf("conflicts %v, want conflict=%v", conflicts, tc.conflict)
			}
			if tc.conflict {
				return
			}
			files, err := r.Flatten(h)
			if err != nil {
				t.Fatal(err)
			}
			b, err := r.Blob(files["f"].Hash)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.wantF {
				t.Fatalf("f = %q, want %q", b, tc.wantF)
			}
		})
	}
}
