package treepatch

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/proto"
)

const readme = "# hello\n\nline 3\nline 4\nline 5\n"

const modifyReadme = `diff --git a/README.md b/README.md
index 1111111..2222222 100644
--- a/README.md
+++ b/README.md
@@ -2,3 +2,3 @@
 
-line 3
+line three
 line 4
`

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		patch    string
		want     []Change // Path, OldPath, Kind, Added, Removed, Mode
		wantCode string
		wantPath bool
	}{
		{name: "modify", patch: modifyReadme, want: []Change{{Path: "README.md", Kind: KindModified, Added: 1, Removed: 1}}},
		{name: "add delete rename", patch: "diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n" +
			"diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n" +
			"diff --git a/a.go b/b.go\nsimilarity index 100%\nrename from a.go\nrename to b.go\n",
			want: []Change{{Path: "new.txt", Kind: KindAdded, Added: 2, Mode: "100644"}, {Path: "old.txt", Kind: KindDeleted, Removed: 1}, {Path: "b.go", OldPath: "a.go", Kind: KindRenamed}}},
		{name: "removed line that reads like a header", patch: "diff --git a/sig.txt b/sig.txt\n--- a/sig.txt\n+++ b/sig.txt\n@@ -1,2 +1,1 @@\n name\n--- \n", want: []Change{{Path: "sig.txt", Kind: KindModified, Removed: 1}}},
		{name: "mode only", patch: "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n", want: []Change{{Path: "run.sh", Kind: KindMode, Mode: "100755"}}},
		{name: "empty", patch: "just some words\n", wantCode: CodeEmpty},
		{name: "whitespace", patch: "\n\n", wantCode: CodeEmpty},
		{name: "malformed hunk", patch: "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n", wantCode: CodeMalformed},
		{name: "binary", patch: "diff --git a/img.png b/img.png\nindex 1111111..2222222 100644\nBinary files a/img.png and b/img.png differ\n", wantCode: CodeMalformed},
		{name: "same path twice", patch: modifyReadme + modifyReadme, wantCode: CodeMalformed},
		{name: "dot git", patch: strings.ReplaceAll(modifyReadme, "README.md", ".git/config"), wantPath: true},
		{name: "empty segment", patch: strings.ReplaceAll(modifyReadme, "README.md", "docs//x.txt"), wantPath: true},
		{name: "dot dot", patch: strings.ReplaceAll(modifyReadme, "README.md", "../x.txt"), wantPath: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.patch)
			var pe *Error
			var pathErr *PathError
			switch {
			case tt.wantPath:
				if !errors.As(err, &pathErr) {
					t.Fatalf("err = %v, want a *PathError", err)
				}
				return
			case tt.wantCode != "":
				if !errors.As(err, &pe) || pe.Code != tt.wantCode {
					t.Fatalf("err = %v, want %s", err, tt.wantCode)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d changes, want %d", len(got), len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Path != w.Path || g.OldPath != w.OldPath || g.Kind != w.Kind || g.Added != w.Added || g.Removed != w.Removed || g.Mode != w.Mode {
					t.Errorf("change %d = %+v, want %+v", i, *g, w)
				}
			}
		})
	}
}

// appendReadme adds a line at the end of readme: its hunk has no
// trailing context.
const appendReadme = `diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -3,3 +3,4 @@
 line 3
 line 4
 line 5
+line 6
`

func TestApply(t *testing.T) {
	tests := []struct {
		name       string
		patch      string
		old        string
		want       string
		wantLine   int
		wantDetail string
	}{
		{name: "applies", patch: modifyReadme, old: readme, want: "# hello\n\nline three\nline 4\nline 5\n"},
		{name: "context differs", patch: modifyReadme, old: "# hello\n\nline 3\nline FOUR\nline 5\n", wantLine: 4, wantDetail: `expected "line 4", found "line FOUR"`},
		{name: "removed line differs", patch: modifyReadme, old: "# hello\n\nline 33\nline 4\n", wantLine: 3, wantDetail: `expected "line 3", found "line 33"`},
		{name: "file too short", patch: modifyReadme, old: "# hello\n", wantLine: 2, wantDetail: "found the end of the file"},
		{name: "no fuzz: shifted by one line", patch: modifyReadme, old: "extra\n" + readme, wantLine: 2},
		{name: "end-of-file append at the end", patch: appendReadme, old: readme, want: readme + "line 6\n"},
		{name: "end-of-file append applied twice", patch: appendReadme, old: readme + "line 6\n", wantLine: 6, wantDetail: "applies only at the end of the file"},
		{name: "end-of-file append on a longer file", patch: appendReadme, old: readme + "more\n", wantLine: 6, wantDetail: "applies only at the end of the file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := Parse(tt.patch)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cs[0].Apply([]byte(tt.old))
			if tt.wantLine == 0 {
				if err != nil || string(got) != tt.want {
					t.Fatalf("Apply = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			var pe *Error
			if !errors.As(err, &pe) || pe.Code != CodeDoesNotApply || pe.File != "README.md" || pe.Hunk != 1 || pe.Line != tt.wantLine || !strings.Contains(pe.Detail, tt.wantDetail) {
				t.Fatalf("err = %#v, want %s hunk 1 line %d %q", err, CodeDoesNotApply, tt.wantLine, tt.wantDetail)
			}
		})
	}
}

// TestDelete holds a deletion to the whole file: its content must match,
// and a hunkless deletion removes only an empty file.
func TestDelete(t *testing.T) {
	const del = "diff --git a/x.txt b/x.txt\ndeleted file mode 100644\n--- a/x.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n"
	const hunkless = "diff --git a/x.txt b/x.txt\ndeleted file mode 100644\nindex e69de29..0000000\n"
	tests := []struct {
		name       string
		patch, old string
		wantErr    string // "" when it applies
		whole      bool   // DeletedContent describes the file
	}{
		{name: "matches", patch: del, old: "a\nb\n", whole: true},
		{name: "file has more", patch: del, old: "a\nb\nc\n", wantErr: "after full delete", whole: true},
		{name: "file differs", patch: del, old: "a\nB\n", wantErr: `expected "b", found "B"`, whole: true},
		{name: "hunkless on an empty file", patch: hunkless, old: "", whole: true},
		{name: "hunkless on a non-empty file", patch: hunkless, old: "a\n", wantErr: "does not remove the whole file", whole: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := Parse(tt.patch)
			if err != nil {
				t.Fatal(err)
			}
			_, err = cs[0].Apply([]byte(tt.old))
			var pe *Error
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Apply: %v", err)
			case tt.wantErr != "" && (!errors.As(err, &pe) || pe.Code != CodeDoesNotApply || !strings.Contains(pe.Detail, tt.wantErr)):
				t.Fatalf("Apply err = %v, want %s ~%q", err, CodeDoesNotApply, tt.wantErr)
			}
			content, whole := cs[0].DeletedContent()
			if whole != tt.whole || (whole && (string(content) == tt.old) != (tt.wantErr == "")) {
				t.Errorf("DeletedContent = %q, %v; want whole %v, equal to the file exactly when it applies", content, whole, tt.whole)
			}
		})
	}
}

// TestCheckTree: the path rules git apply checks before content.
func TestCheckTree(t *testing.T) {
	head := map[string]bool{"a.txt": true, "b.txt": true}
	tests := []struct {
		name, patch string
		wantCode    string // "" when accepted
	}{
		{name: "rename to a new path", patch: "diff --git a/a.txt b/c.txt\nsimilarity index 100%\nrename from a.txt\nrename to c.txt\n"},
		{name: "rename onto an existing path", patch: "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n", wantCode: CodeDoesNotApply},
		{name: "copy onto an existing path", patch: "diff --git a/a.txt b/b.txt\nsimilarity index 100%\ncopy from a.txt\ncopy to b.txt\n", wantCode: CodeDoesNotApply},
		{name: "rename of a missing file", patch: "diff --git a/z.txt b/c.txt\nsimilarity index 100%\nrename from z.txt\nrename to c.txt\n", wantCode: CodeFileNotFound},
		{name: "add an existing path", patch: "diff --git a/a.txt b/a.txt\nnew file mode 100644\n--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+x\n", wantCode: CodeDoesNotApply},
		{name: "delete a missing file", patch: "diff --git a/z.txt b/z.txt\ndeleted file mode 100644\n--- a/z.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n", wantCode: CodeFileNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := Parse(tt.patch)
			if err != nil {
				t.Fatal(err)
			}
			err = CheckTree(cs, func(p string) bool { return head[p] })
			var pe *Error
			if tt.wantCode == "" && err != nil || tt.wantCode != "" && (!errors.As(err, &pe) || pe.Code != tt.wantCode) {
				t.Fatalf("CheckTree = %v, want %q", err, tt.wantCode)
			}
		})
	}
}

// TestCheckPathMatchesProto holds CheckPath (patch paths) and the pattern
// of commit_files' paths (what the JSON Schema publishes) to one rule.
func TestCheckPathMatchesProto(t *testing.T) {
	fd := (&ghopsv1.FileChange{}).ProtoReflect().Descriptor().Fields().ByName("path")
	rules, _ := proto.GetExtension(fd.Options(), validate.E_Field).(*validate.FieldRules)
	re := regexp.MustCompile(rules.GetString().GetPattern())
	paths := []string{"a", "README.md", "docs/x.txt", ".github/workflows/ci.yml", ".gitignore", ".g", ".gi", ".gitx", "x.git", "...", "..a", ".a", "a/b/c",
		"", "/a", "a/", "a//b", ".", "..", "./x", "a/./b", "a/../b", ".git", ".git/config", "a/.git", "a/.git/b", "a\nb", "a\x00b", "a\x7fb", "tab\there", "é/ü", "a b"}
	for _, p := range paths {
		safe := CheckPath(p) == ""
		if re.MatchString(p) != safe {
			t.Errorf("%q: pattern says %v, CheckPath says %v", p, re.MatchString(p), safe)
		}
	}
}

// FuzzParseApply: no input panics, and every failure is one of the
// package's typed errors.
func FuzzParseApply(f *testing.F) {
	f.Add(modifyReadme, readme)
	f.Add("diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+a\n", "")
	f.Add("diff --git a/x b/y\nsimilarity index 90%\nrename from x\nrename to y\n@@ -1 +1 @@\n-a\n+b\n", "a\n")
	f.Add("@@ -1 +1 @@\n-a\n+b\n", "a")
	f.Add("--- a/x\n+++ b/x\n@@ -1,0 +1,1 @@\n+\\ No newline at end of file\n", "")
	f.Fuzz(func(t *testing.T, patch, old string) {
		cs, err := Parse(patch)
		if err != nil {
			var pe *Error
			var pathErr *PathError
			if !errors.As(err, &pe) && !errors.As(err, &pathErr) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		for _, c := range cs {
			if CheckPath(c.Path) != "" {
				t.Fatalf("unsafe path %q accepted", c.Path)
			}
			if _, err := c.Apply([]byte(old)); err != nil {
				var pe *Error
				if !errors.As(err, &pe) || pe.Code != CodeDoesNotApply {
					t.Fatalf("Apply error %T: %v", err, err)
				}
			}
		}
	})
}
