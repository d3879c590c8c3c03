package ghpath

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestJoin(t *testing.T) {
	tests := []struct {
		name     string
		parts    []Part
		want     string
		wantRule string
	}{
		{"literal and values", []Part{Lit("repos"), One("repo", "o"), One("repo", "r"), Lit("git/ref"), Segments("branch", "heads/feature/x")}, "repos/o/r/git/ref/heads/feature/x", ""},
		{"each segment escaped", []Part{Lit("c"), Segments("path", "a b/%2e%2e/?x=1/#f/a\\b")}, "c/a%20b/%252e%252e/%3Fx=1/%23f/a%5Cb", ""},
		{"unicode look-alike dots stay a name", []Part{Lit("c"), Segments("path", "\u2024\u2024/\uff0e\uff0e")}, "c/%E2%80%A4%E2%80%A4/%EF%BC%8E%EF%BC%8E", ""},
		{"empty value adds nothing", []Part{Lit("contents"), Segments("path", "")}, "contents", ""},
		{"dot-dot segment", []Part{Lit("x"), Segments("branch", "a/../../../../octo-org/secret/git/ref/heads/main")}, "", RuleDotSegment},
		{"dot-dot alone", []Part{Segments("branch", "..")}, "", RuleDotSegment},
		{"dot segment", []Part{Segments("path", "a/./b")}, "", RuleDotSegment},
		{"leading dot segment", []Part{Segments("path", "./a")}, "", RuleDotSegment},
		{"empty segment", []Part{Segments("path", "a//b")}, "", RuleEmptySegment},
		{"trailing slash", []Part{Segments("ref", "a/")}, "", RuleEmptySegment},
		{"one segment with a slash", []Part{One("sha", "a/b")}, "", RuleOneSegment},
		{"one segment ..", []Part{One("repo", "..")}, "", RuleDotSegment},
		{"one segment empty", []Part{One("repo", "")}, "", RuleEmptySegment},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Join(tc.parts...)
			if tc.wantRule == "" {
				if err != nil || got != tc.want {
					t.Fatalf("Join = %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			var pe *Error
			if !errors.As(err, &pe) || pe.Rule != tc.wantRule || pe.Field != tc.parts[len(tc.parts)-1].field {
				t.Fatalf("Join = %q, %v; want rule %s", got, err, tc.wantRule)
			}
			if strings.Contains(err.Error(), tc.parts[len(tc.parts)-1].value) && len(tc.parts[len(tc.parts)-1].value) > 2 {
				t.Errorf("error %q echoes the value", err)
			}
		})
	}
}

func TestRepo(t *testing.T) {
	tests := []struct {
		name, repo string
		rest       []Part
		want       string
		wantErr    bool
	}{
		{"plain", "octo-org/hello-world", []Part{Lit("branches")}, "repos/octo-org/hello-world/branches", false},
		{"no slash", "nope", nil, "", true},
		{"dot-dot owner and name", "../..", nil, "", true},
		{"dot name", "o/.", nil, "", true},
		{"extra segment", "o/r/../x", nil, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Repo("repo", tc.repo, tc.rest...)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("Repo = %q, %v; want %q, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name, value string
		ok          bool
	}{
		{"branch", "feature/x", true},
		{"escapes left to go-github", "%2e%2e", true},
		{"dot-dot", "a/../b", false},
		{"dot", "./a", false},
		{"empty", "a//b", false},
		{"empty value", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := Check("branch", tc.value); (err == nil) != tc.ok {
				t.Fatalf("Check(%q) = %v, want ok %v", tc.value, err, tc.ok)
			}
		})
	}
}

// FuzzJoin checks the builder's promise: whatever the value, the joined
// path, once resolved against an API root as go-github resolves it, stays
// under the prefix it was put in, or the value is refused.
func FuzzJoin(f *testing.F) {
	for _, s := range []string{"..", "a/../../x", "./a", "a/./b", "%2e%2e", "%2F", "?x=1", "#frag", "a\\b", "@{", "a.lock", "\x00", "\u2024\u2024", strings.Repeat("a/", 300)} {
		f.Add(s)
	}
	base, _ := url.Parse("https://api.example.test/api/v3/")
	f.Fuzz(func(t *testing.T, value string) {
		p, err := Join(Lit("repos/o/r/contents"), Segments("path", value))
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Field != "path" {
				t.Fatalf("error %v is not a field error", err)
			}
			return
		}
		u, err := base.Parse(p)
		if err != nil {
			t.Fatalf("%q: built %q does not parse: %v", value, p, err)
		}
		if !strings.HasPrefix(u.EscapedPath(), "/api/v3/repos/o/r/contents") || u.RawQuery != "" || u.Fragment != "" || u.Host != base.Host {
			t.Fatalf("%q: built %q resolves to %s", value, p, u)
		}
	})
}
