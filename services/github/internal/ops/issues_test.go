package ops

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCapText(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		limit int
		want  string
		cut   bool
	}{
		{name: "short", in: "abc", limit: 5, want: "abc"},
		{name: "exact", in: "abcde", limit: 5, want: "abcde"},
		{name: "ascii cut", in: "abcdef", limit: 5, want: "abcde", cut: true},
		{name: "never splits a character", in: "aé", limit: 2, want: "a", cut: true},
		{name: "four-byte character", in: "😀😀", limit: 7, want: "😀", cut: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, cut := capText(tc.in, tc.limit)
			if got != tc.want || cut != tc.cut {
				t.Errorf("capText(%q, %d) = %q, %v; want %q, %v", tc.in, tc.limit, got, cut, tc.want, tc.cut)
			}
		})
	}
}

// TestCapText and FuzzCapText check capText (branchpulls.go), which list_issue_comments uses
// for its comment cap.
//
// FuzzCapText: the cut is a prefix within the limit, valid UTF-8 whenever the input is, and
// marked exactly when something was dropped.
func FuzzCapText(f *testing.F) {
	for _, s := range []string{"", "abc", "aé", "😀😀", strings.Repeat("é", 10), "\xff\xfe"} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, limit int) {
		// The caps are thousands of bytes; below utf8.UTFMax a cut can fall inside the only
		// character, which trimPartialRune (read_file's) does not handle.
		if limit < utf8.UTFMax || limit > 1<<16 {
			return
		}
		got, cut := capText(s, limit)
		if len(got) > limit || !strings.HasPrefix(s, got) || cut != (got != s) {
			t.Fatalf("capText(%q, %d) = %q, %v", s, limit, got, cut)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("capText(%q, %d) = %q splits a character", s, limit, got)
		}
	})
}

func TestRepoOfURL(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"api.github.com", "https://api.github.com/repos/octo-org/hello-world", "octo-org/hello-world"},
		{"enterprise", "https://ghe.example/api/v3/repos/o/r", "o/r"},
		{"trailing slash", "http://127.0.0.1:1/repos/o/r/", "o/r"},
		{"not a repository", "https://api.github.com/users/octocat", ""},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := repoOfURL(tc.in); got != tc.want {
				t.Errorf("repoOfURL(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
