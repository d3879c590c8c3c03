package merge3

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

type mergeCase struct {
	name               string
	base, ours, theirs string
	conflict           bool
}

var cases = []mergeCase{
	{name: "identical", base: "a\nb\nc\n", ours: "a\nb\nc\n", theirs: "a\nb\nc\n"},
	{name: "only ours changed", base: "a\nb\nc\n", ours: "a\nB\nc\n", theirs: "a\nb\nc\n"},
	{name: "only theirs changed", base: "a\nb\nc\n", ours: "a\nb\nc\n", theirs: "a\nb\nC\n"},
	{name: "different lines", base: "1\n2\n3\n4\n5\n6\n7\n", ours: "one\n2\n3\n4\n5\n6\n7\n", theirs: "1\n2\n3\n4\n5\n6\nseven\n"},
	{name: "same change both sides", base: "a\nb\nc\n", ours: "a\nX\nc\n", theirs: "a\nX\nc\n"},
	{name: "same line differently", base: "a\nb\nc\n", ours: "a\nX\nc\n", theirs: "a\nY\nc\n", conflict: true},
	{name: "insert at top and bottom", base: "m\n", ours: "top\nm\n", theirs: "m\nbottom\n"},
	{name: "delete vs edit elsewhere", base: "1\n2\n3\n4\n5\n6\n", ours: "1\n3\n4\n5\n6\n", theirs: "1\n2\n3\n4\n5\nsix\n"},
	{name: "delete vs edit same", base: "1\n2\n3\n", ours: "1\n3\n", theirs: "1\ntwo\n3\n", conflict: true},
	{name: "both append differently", base: "a\n", ours: "a\nb\n", theirs: "a\nc\n", conflict: true},
	{name: "empty base both add", base: "", ours: "x\n", theirs: "y\n", conflict: true},
	{name: "empty base same add", base: "", ours: "x\n", theirs: "x\n"},
	{name: "no trailing newline edit elsewhere", base: "a\nb\nc", ours: "A\nb\nc", theirs: "a\nb\nc"},
	{name: "no trailing newline both sides", base: "a\nb\nc\nd\ne", ours: "A\nb\nc\nd\ne", theirs: "a\nb\nc\nd\nE"},
	{name: "conflict with common prefix", base: "a\nb\nc\n", ours: "a\nsame\nX\nc\n", theirs: "a\nsame\nY\nc\n", conflict: true},
	{name: "multiple separate edits", base: "1\n2\n3\n4\n5\n6\n7\n8\n9\n", ours: "1\nII\n3\n4\n5\n6\n7\nVIII\n9\n", theirs: "1\n2\n3\n4\nV\n6\n7\n8\n9\n"},
	{name: "go file different functions", base: "package p\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n", ours: "package p\n\nfunc A() int {\n\treturn 10\n}\n\nfunc B() int {\n\treturn 2\n}\n", theirs: "package p\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 20\n}\n"},
	{name: "insertions at different places", base: "a\nb\nc\nd\ne\n", ours: "a\nnew1\nb\nc\nd\ne\n", theirs: "a\nb\nc\nd\nnew2\ne\n"},
	{name: "one side empties file", base: "a\nb\n", ours: "", theirs: "a\nb\nc\n", conflict: true},
}

func TestMergeTable(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Merge([]byte(c.base), []byte(c.ours), []byte(c.theirs), Labels{Ours: "ours", Base: "base", Theirs: "theirs"})
			if got := r.Conflicts > 0; got != c.conflict {
				t.Fatalf("conflict = %v (%d), want %v; content:\n%s", got, r.Conflicts, c.conflict, r.Content)
			}
		})
	}
}

// TestMergeMatchesGit checks every case against `git merge-file`: the same conflict count and, for
// clean merges and simple conflicts, byte-identical output.
func TestMergeMatchesGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("git is required to compare with git merge-file (.ci/run installs it): %v", err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, s string) string {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
					t.Fatal(err)
				}
				return p
			}
			o, b, th := write("ours", c.ours), write("base", c.base), write("theirs", c.theirs)
			cmd := exec.Command(git, "merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs", o, b, th)
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			err := cmd.Run()
			gitConflicts := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				gitConflicts = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			r := Merge([]byte(c.base), []byte(c.ours), []byte(c.theirs), Labels{Ours: "ours", Base: "base", Theirs: "theirs"})
			if r.Conflicts != gitConflicts {
				t.Fatalf("conflicts = %d, git merge-file says %d\nours:\n%s\ngit:\n%s", r.Conflicts, gitConflicts, r.Content, stdout.String())
			}
			if !strings.Contains(c.name, "no trailing newline") || r.Conflicts == 0 {
				if got, want := string(r.Content), stdout.String(); got != want {
					t.Fatalf("content differs from git merge-file\n got: %q\nwant: %q", got, want)
				}
			}
		})
	}
}
