package treepatch

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// file is one file of a tree: its content and whether it is executable.
type file struct {
	content string
	exec    bool
}

// tree maps a path to its file.
type tree map[string]file

// gitRun runs git in dir with a fixed, isolated configuration.
func gitRun(t *testing.T, dir string, stdin []byte, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "LC_ALL=C")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// write puts tr into a fresh directory.
func write(t *testing.T, tr tree) string {
	t.Helper()
	dir := t.TempDir()
	for p, f := range tr {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if f.exec {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(f.content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	return dir
}

// read reads a directory back into a tree (.git left out).
func read(t *testing.T, dir string) tree {
	t.Helper()
	out := tree{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = file{content: string(b), exec: info.Mode().Perm()&0o100 != 0}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// diff is the patch `git diff` writes from before to after, renames and
// copies detected.
func diff(t *testing.T, before, after tree) string {
	t.Helper()
	dir := write(t, before)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "--allow-empty", "-m", "base"}} {
		if out, err := gitRun(t, dir, nil, args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for p := range before {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			t.Fatal(err)
		}
	}
	next := write(t, after)
	if err := os.CopyFS(dir, os.DirFS(next)); err != nil {
		t.Fatal(err)
	}
	for p, f := range after {
		if f.exec {
			if err := os.Chmod(filepath.Join(dir, filepath.FromSlash(p)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	if out, err := gitRun(t, dir, nil, "add", "-A"); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	out, err := gitRun(t, dir, nil, "diff", "--cached", "-M", "-C", "--find-copies-harder")
	if err != nil {
		t.Fatalf("git diff: %v\n%s", err, out)
	}
	return out
}

// gitApply is the oracle: whether `git apply --check` accepts patch on tr,
// whether it had to move a hunk (an offset, which treepatch never does),
// and the tree `git apply` then leaves.
func gitApply(t *testing.T, tr tree, patch string) (ok, offset bool, result tree) {
	t.Helper()
	dir := write(t, tr)
	out, err := gitRun(t, dir, []byte(patch), "apply", "--check", "-v", "-")
	if err != nil {
		return false, false, nil
	}
	offset = strings.Contains(out, "(offset ")
	if out, err := gitRun(t, dir, []byte(patch), "apply", "-"); err != nil {
		t.Fatalf("git apply refused what --check accepted: %v\n%s", err, out)
	}
	return true, offset, read(t, dir)
}

// treeApply applies patch to tr as ApplyPatch does (ops/patch.go): Parse,
// CheckTree, then each change from its source file; deletions are held to
// DeletedContent when it describes the file, else to Apply.
func treeApply(tr tree, patch string) (tree, error) {
	changes, err := Parse(patch)
	if err != nil {
		return nil, err
	}
	if err := CheckTree(changes, func(p string) bool { _, ok := tr[p]; return ok }); err != nil {
		return nil, err
	}
	out := maps.Clone(tr)
	for _, ch := range changes {
		src, hasSrc := tr[ch.Source()]
		if ch.Kind == KindRenamed {
			delete(out, ch.OldPath)
		}
		exec := src.exec
		if ch.Mode != "" {
			exec = ch.Mode == "100755"
		}
		switch {
		case ch.Kind == KindDeleted:
			if want, ok := ch.DeletedContent(); !ok || string(want) != src.content {
				if _, err := ch.Apply([]byte(src.content)); err != nil {
					return nil, err
				}
			}
			delete(out, ch.Path)
		case hasSrc && !ch.HasHunks():
			out[ch.Path] = file{content: src.content, exec: exec}
		default:
			var old []byte
			if hasSrc {
				old = []byte(src.content)
			}
			b, err := ch.Apply(old)
			if err != nil {
				return nil, err
			}
			out[ch.Path] = file{content: string(b), exec: exec}
		}
	}
	return out, nil
}

// lines makes n numbered lines of a file.
func lines(name string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s line %d\n", name, i)
	}
	return b.String()
}

// edit returns tr with fn applied to a copy.
func edit(tr tree, fn func(tree)) tree {
	out := maps.Clone(tr)
	fn(out)
	return out
}

// setContent replaces the content of p, keeping its mode.
func setContent(tr tree, p, content string) {
	f := tr[p]
	f.content = content
	tr[p] = f
}

// TestMatchesGitApply is the differential test of issue 19 (point 6):
// patches written by `git diff` in temporary repositories, applied to the
// tree they were made on and to mutated trees (a context line changed, a
// line dropped, the target of a rename or copy present, a deleted file
// changed, the patch applied a second time, ...) and mutated themselves
// (a hunk line dropped or changed). treepatch must accept exactly when
// `git apply --check` accepts and then produce git's tree. The one
// difference allowed is by design (docs/errors.md: hunks apply exactly):
// git may move a hunk to another line (an offset), treepatch refuses.
func TestMatchesGitApply(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		// A checkout of this repository comes with git; without it this
		// test would prove nothing, so it fails rather than skip.
		t.Fatal("git is not installed: the oracle of this test is git apply")
	}
	base, edits, targets, patchMutations := gitCorpus()
	var agreed, offsets int
	for _, e := range edits {
		patch := diff(t, base, e.after)
		if patch == "" {
			t.Fatalf("%s: git diff wrote nothing", e.name)
		}
		touched := touchedBy(base, e.after, patch)
		for _, tg := range targets {
			target := tg.make(base, e.after, touched)
			for _, pm := range patchMutations {
				text := pm.fn(patch)
				t.Run(e.name+"/"+tg.name+"/"+pm.name, func(t *testing.T) {
					if compare(t, target, text) {
						offsets++
					} else {
						agreed++
					}
				})
			}
		}
	}
	t.Logf("%d cases agree with git apply; %d refused where git applied with an offset", agreed, offsets)
	if agreed == 0 {
		t.Fatal("no case agreed")
	}
}

// corpusEdit is a change made in a temporary repository: git diff writes
// the patch from the base to after.
type corpusEdit struct {
	name  string
	after tree
}

// corpusTarget mutates the tree a patch is applied to.
type corpusTarget struct {
	name string
	make func(before, after tree, touched []string) tree
}

// corpusMutation mutates a patch's text.
type corpusMutation struct {
	name string
	fn   func(string) string
}

// gitCorpus is the differential test's base tree, edits, target trees and
// patch mutations.
func gitCorpus() (tree, []corpusEdit, []corpusTarget, []corpusMutation) {
	base := tree{
		"a.txt":       {content: lines("a", 12)},
		"b.txt":       {content: lines("b", 5)},
		"c.txt":       {content: lines("c", 8)},
		"dir/d.txt":   {content: lines("d", 20)},
		"empty.txt":   {content: ""},
		"noeol.txt":   {content: "x\ny\nz"},
		"run.sh":      {content: "#!/bin/sh\necho hi\n"},
		"dir/big.txt": {content: lines("big", 40)},
	}
	edits := []corpusEdit{
		{name: "modify middle", after: edit(base, func(tr tree) {
			setContent(tr, "a.txt", strings.Replace(lines("a", 12), "a line 6\n", "a line six\n", 1))
		})},
		{name: "append at end", after: edit(base, func(tr tree) { setContent(tr, "b.txt", lines("b", 5)+"b appended\n") })},
		{name: "remove last lines", after: edit(base, func(tr tree) { setContent(tr, "c.txt", lines("c", 6)) })},
		{name: "insert at start", after: edit(base, func(tr tree) { setContent(tr, "b.txt", "first\n"+lines("b", 5)) })},
		{name: "two hunks", after: edit(base, func(tr tree) {
			setContent(tr, "dir/d.txt", strings.Replace(strings.Replace(lines("d", 20), "d line 2\n", "two\n", 1), "d line 18\n", "eighteen\n", 1))
		})},
		{name: "delete file", after: edit(base, func(tr tree) { delete(tr, "c.txt") })},
		{name: "delete empty file", after: edit(base, func(tr tree) { delete(tr, "empty.txt") })},
		{name: "add file", after: edit(base, func(tr tree) { tr["new/n.txt"] = file{content: "new\nfile\n"} })},
		{name: "rename", after: edit(base, func(tr tree) { tr["dir/big2.txt"] = tr["dir/big.txt"]; delete(tr, "dir/big.txt") })},
		{name: "rename with edit", after: edit(base, func(tr tree) {
			tr["moved.txt"] = file{content: strings.Replace(lines("big", 40), "big line 20\n", "twenty\n", 1)}
			delete(tr, "dir/big.txt")
		})},
		{name: "copy", after: edit(base, func(tr tree) { tr["dir/d-copy.txt"] = tr["dir/d.txt"] })},
		{name: "mode change", after: edit(base, func(tr tree) { f := tr["run.sh"]; f.exec = true; tr["run.sh"] = f })},
		{name: "no newline at end", after: edit(base, func(tr tree) { setContent(tr, "noeol.txt", "x\ny\nzz") })},
		{name: "add newline at end", after: edit(base, func(tr tree) { setContent(tr, "noeol.txt", "x\ny\nz\n") })},
	}
	// targets mutate the tree the patch is applied to.
	targets := []corpusTarget{
		{name: "as made", make: func(before, _ tree, _ []string) tree { return before }},
		{name: "applied twice", make: func(_, after tree, _ []string) tree { return after }},
		{name: "context line changed", make: func(before, _ tree, touched []string) tree {
			return edit(before, func(tr tree) {
				for _, p := range touched {
					if f, ok := tr[p]; ok && f.content != "" {
						setContent(tr, p, strings.Replace(f.content, " line 4\n", " line FOUR\n", 1))
					}
				}
			})
		}},
		{name: "first line dropped", make: func(before, _ tree, touched []string) tree {
			return edit(before, func(tr tree) {
				for _, p := range touched {
					if f, ok := tr[p]; ok && f.content != "" {
						_, rest, _ := strings.Cut(f.content, "\n")
						setContent(tr, p, rest)
					}
				}
			})
		}},
		{name: "line appended", make: func(before, _ tree, touched []string) tree {
			return edit(before, func(tr tree) {
				for _, p := range touched {
					if f, ok := tr[p]; ok {
						setContent(tr, p, f.content+"one more\n")
					}
				}
			})
		}},
		{name: "every new path exists", make: func(before, after tree, _ []string) tree {
			return edit(before, func(tr tree) {
				for p := range after {
					if _, ok := before[p]; !ok {
						tr[p] = file{content: "in the way\n"}
					}
				}
			})
		}},
		{name: "touched files missing", make: func(before, _ tree, touched []string) tree {
			return edit(before, func(tr tree) {
				for _, p := range touched {
					delete(tr, p)
				}
			})
		}},
	}
	// patchMutations mutate the patch text.
	patchMutations := []corpusMutation{
		{name: "as written", fn: func(p string) string { return p }},
		{name: "last hunk line dropped", fn: func(p string) string {
			ls := strings.SplitAfter(p, "\n")
			if len(ls) < 3 {
				return p
			}
			return strings.Join(append(ls[:len(ls)-2:len(ls)-2], ls[len(ls)-1]), "")
		}},
		{name: "a context line changed", fn: func(p string) string {
			ls := strings.SplitAfter(p, "\n")
			for i, l := range ls {
				if strings.HasPrefix(l, " ") && strings.Contains(l, " line ") {
					ls[i] = strings.Replace(l, " line ", " LINE ", 1)
					break
				}
			}
			return strings.Join(ls, "")
		}},
	}
	return base, edits, targets, patchMutations
}

// touchedBy lists the base's paths an edit changes or copies from.
func touchedBy(base, after tree, patch string) []string {
	var touched []string
	for _, p := range slices.Sorted(maps.Keys(base)) {
		if a, ok := after[p]; !ok || a != base[p] {
			touched = append(touched, p)
		}
	}
	if strings.Contains(patch, "copy from ") {
		touched = append(touched, "dir/d.txt")
	}
	return touched
}

// compare applies text to target with git apply and with treepatch and
// fails t unless both accept (with the same tree) or both refuse; it
// reports true for the one difference allowed by design, a hunk git
// applied with an offset and treepatch refused.
func compare(t *testing.T, target tree, text string) (offsetOnly bool) {
	t.Helper()
	gitOK, offset, want := gitApply(t, target, text)
	got, err := treeApply(target, text)
	var pe *Error
	var pathErr *PathError
	if err != nil && !errors.As(err, &pe) && !errors.As(err, &pathErr) {
		t.Fatalf("untyped error %T: %v", err, err)
	}
	switch {
	case gitOK && offset && err != nil:
		return true // by design: no offsets
	case gitOK != (err == nil):
		t.Fatalf("git apply accepts: %v (offset %v); treepatch: %v\npatch:\n%s", gitOK, offset, err, text)
	case gitOK && !maps.Equal(got, want):
		t.Fatalf("trees differ\ngit:       %v\ntreepatch: %v\npatch:\n%s", want, got, text)
	}
	return false
}

// FuzzMatchesGitApply goes further than TestMatchesGitApply: it takes one
// of the corpus's patches and target trees and mutates a line of its hunks
// (dropped, duplicated or replaced by the fuzzer's text), and holds
// treepatch to git apply as the test does. Its seeds run in go test.
func FuzzMatchesGitApply(f *testing.F) {
	if _, err := exec.LookPath("git"); err != nil {
		f.Skip("git is not installed: the oracle of this test is git apply") // the CI image has git
	}
	f.Add(uint8(0), uint8(0), uint8(2), uint16(6), " a line 5")
	f.Add(uint8(1), uint8(1), uint8(0), uint16(0), "")
	f.Add(uint8(5), uint8(4), uint8(1), uint16(5), "")
	f.Add(uint8(9), uint8(0), uint8(2), uint16(7), "+an added line")
	f.Add(uint8(10), uint8(5), uint8(3), uint16(3), "")
	base, edits, targets, _ := gitCorpus()
	var mu sync.Mutex
	patches := map[int]string{} // git diff is the slow part: once per edit
	f.Fuzz(func(t *testing.T, edit, target, op uint8, line uint16, text string) {
		if strings.ContainsAny(text, "\r\n") || !utf8.ValidString(text) {
			return // one line of text; the patch's lines are cut at newlines
		}
		e := edits[int(edit)%len(edits)]
		mu.Lock()
		patch, ok := patches[int(edit)%len(edits)]
		if !ok {
			patch = diff(t, base, e.after)
			patches[int(edit)%len(edits)] = patch
		}
		mu.Unlock()
		tg := targets[int(target)%len(targets)].make(base, e.after, touchedBy(base, e.after, patch))
		ls := strings.SplitAfter(patch, "\n")
		k := int(line) % len(ls)
		if !isHunkLine(ls[k]) {
			// Headers are go-gitdiff's to read, and git's reader differs
			// from it on broken ones (it skips a repeated "diff --git"
			// line): the fuzzer holds the application to git, not that.
			return
		}
		switch op % 4 {
		case 1:
			ls = slices.Delete(ls, k, k+1)
		case 2:
			ls[k] = text + "\n"
		case 3:
			ls = slices.Insert(ls, k, ls[k])
		}
		compare(t, tg, strings.Join(ls, ""))
	})
}

// isHunkLine tells a line of a hunk (its header, context, removed, added or
// "\ No newline" line) from a file header line.
func isHunkLine(l string) bool {
	if strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") {
		return false
	}
	return l != "" && strings.ContainsRune(" +-\\@", rune(l[0]))
}
