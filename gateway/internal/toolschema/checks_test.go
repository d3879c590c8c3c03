package toolschema

import (
	"regexp"
	"testing"
)

// checkPatterns are the regular expressions the string checks were first
// written as; the functions must decide every input as they do.
var checkPatterns = map[string]*regexp.Regexp{
	"ref_name.lock_suffix":  regexp.MustCompile(`[.]lock(/|$)`),
	"ref_name.control":      regexp.MustCompile(`[[:cntrl:]]`),
	"repo_name.dot_segment": regexp.MustCompile(`^[.]{1,2}/|/[.]{1,2}$`),
}

var checkInputs = []string{
	"", ".", "..", "...", "./", "../", ".../", "/.", "/..", "/...", "a/.", "a/..", "./a", "../a", ".a/", "a/.b",
	"x.lock", "x.lock/", "x.lock/y", "x.locky", "x.lock.lock", ".lock", "lock", "x.LOCK",
	"a\x00b", "a\tb", "\x1f", "\x7f", "\x20", "é", "\xc2\x80", "\xff", "\xe2\x80\xa8", "ok/name",
}

func TestCheckFuncsAgreeWithPatterns(t *testing.T) {
	for id, re := range checkPatterns {
		f := checkFuncs[id]
		if f == nil {
			t.Fatalf("no check func %q", id)
		}
		for _, in := range checkInputs {
			t.Run(id+"/"+in, func(t *testing.T) {
				if got, want := f(in), re.MatchString(in); got != want {
					t.Errorf("%s(%q) = %v, pattern %v", id, in, got, want)
				}
			})
		}
	}
}

func FuzzCheckFuncsAgreeWithPatterns(f *testing.F) {
	for _, in := range checkInputs {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for id, re := range checkPatterns {
			if got, want := checkFuncs[id](in), re.MatchString(in); got != want {
				t.Errorf("%s(%q) = %v, pattern %v", id, in, got, want)
			}
		}
	})
}
