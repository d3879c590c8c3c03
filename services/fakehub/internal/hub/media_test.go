package hub

import (
	"path"
	"strings"
	"testing"
)

func TestMediaParam(t *testing.T) {
	tests := []struct{ name, accept, want string }{
		{"none", "", ""},
		{"default JSON", "application/vnd.github+json", ""},
		{"plain JSON", "application/json", ""},
		{"raw", "application/vnd.github.raw", "raw"},
		{"raw+json", "application/vnd.github.raw+json", "raw"},
		{"v3 raw", "application/vnd.github.v3.raw", "raw"},
		{"object", "application/vnd.github.object", "object"},
		{"object+json", "application/vnd.github.object+json", "object"},
		{"among others", "text/html, application/vnd.github.raw; q=0.9", "raw"},
		{"first wins", "application/vnd.github.object, application/vnd.github.raw", "object"},
		{"v3 without a parameter", "application/vnd.github.v3+json", ""},
		{"malformed", "application/vnd.github.raw;;=", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := MediaParam(tc.accept); got != tc.want {
				t.Fatalf("mediaParam(%q) = %q, want %q", tc.accept, got, tc.want)
			}
		})
	}
}

func TestSymlinkTarget(t *testing.T) {
	tests := []struct {
		name, link, text, want string
		ok                     bool
	}{
		{"sibling", "a/l", "f", "a/f", true},
		{"from the root", "l", "docs/a.md", "docs/a.md", true},
		{"up one", "docs/l", "../go.mod", "go.mod", true},
		{"out of the repository", "l", "../x", "", false},
		{"far out", "a/b/l", "../../../x", "", false},
		{"absolute", "l", "/etc/passwd", "", false},
		{"the root itself", "a/l", "..", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := SymlinkTarget(tc.link, tc.text)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("symlinkTarget(%q, %q) = %q, %v; want %q, %v", tc.link, tc.text, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// FuzzMediaParam: any Accept header gives a parameter without separators, never a panic.
func FuzzMediaParam(f *testing.F) {
	for _, s := range []string{"", "application/vnd.github.raw", "application/vnd.github.v3.object+json, */*", "a/b;c=\"d", "application/vnd.github."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, accept string) {
		if p := MediaParam(accept); strings.ContainsAny(p, ",; ") {
			t.Fatalf("mediaParam(%q) = %q", accept, p)
		}
	})
}

// FuzzSymlinkTarget: a symlink's text (repository data) never resolves outside the repository.
func FuzzSymlinkTarget(f *testing.F) {
	for _, s := range [][2]string{{"a/l", "../b"}, {"l", "../../x"}, {"l", "/abs"}, {"a/b/l", "./c/../d"}, {"l", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, link, text string) {
		p, ok := SymlinkTarget(link, text)
		if !ok {
			return
		}
		if p != path.Clean(p) || strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") {
			t.Fatalf("symlinkTarget(%q, %q) = %q outside the repository", link, text, p)
		}
	})
}
