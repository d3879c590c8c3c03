package toolschema

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// schemaPatterns are the distinct patterns of every tool's validation
// schema, in a stable order.
func schemaPatterns(t *testing.T) []string {
	seen := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if p, ok := x["pattern"].(string); ok {
				seen[p] = true
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, tl := range registry(t).Tools() {
		walk(schemaDoc(t, tl.ValidationSchema))
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// classSeqProbes are strings for the agreement tests: the decode corpus's
// string values, the edges of each pattern's classes and lengths, and
// bytes past ASCII, invalid UTF-8 and newlines.
func classSeqProbes() []string {
	probes := []string{"", "a", "o/r", "octo-org/hello-world", "a/b/c", "/", "a/", "/b", "a//b", "a\nb", "o/r\n", "\no/r",
		"ü/r", "o/\xff", "\xff", "abcdef1", "abcdef", "ABCDEF1", strings.Repeat("a", 40), strings.Repeat("a", 41),
		"2026-01-02", "2026-1-02", "2026-01-02T03:04:05Z", "2026-01-02T03:04:05.123456789+01:00", "#a1b2c3", "a1b2c3", "#a1b2c",
		"o_r/x-1", "x/123", "x/12a", "x-y/0", "none", "*", "12345678901234567890", "1", "01", "ci.yml", "ci.yaml", "a.ym",
		"aGk=", "aGk==", "aGk===", "a+b", "a b", "a\tb", "a\x00b", "docs/guide.md", "README.md", ".git", "a/.git/b", "..",
		strings.Repeat("x", 39), strings.Repeat("x", 101), "a-" + strings.Repeat("b", 38), "-a", "a_b=c-d"}
	for _, args := range decodeCorpus() {
		for _, f := range strings.Split(args, `"`) {
			if len(f) < 200 {
				probes = append(probes, f)
			}
		}
	}
	return probes
}

// TestClassSeqAgrees holds every schema pattern that compiles to a classSeq
// to package regexp on the probes, and requires the common patterns to
// compile.
func TestClassSeqAgrees(t *testing.T) {
	probes := classSeqProbes()
	compiled := map[string]bool{}
	for _, p := range schemaPatterns(t) {
		seq, ok := compileClassSeq(p)
		if !ok {
			continue
		}
		compiled[p] = true
		re := regexp.MustCompile(p)
		for _, s := range probes {
			if got, want := seq.match(s), re.MatchString(s); got != want {
				t.Errorf("%s on %q: %v, regexp says %v", p, s, got, want)
			}
		}
	}
	for _, p := range []string{`^[a-zA-Z0-9._-]+/[a-zA-Z0-9._-]+$`, `^[a-zA-Z0-9._/-]+$`, `^[\w-]+/\d+$`, `^[a-f0-9]{7,40}$`} {
		if !compiled[p] {
			t.Errorf("%s is not in the schemas or does not compile to a classSeq", p)
		}
	}
	t.Logf("%d of %d patterns match without the regexp machine", len(compiled), len(schemaPatterns(t)))
}

// TestClassSeqForms: patterns the greedy scan would get wrong, or that are
// not of the form, are left to package regexp; the ones it takes agree.
func TestClassSeqForms(t *testing.T) {
	tests := []struct {
		name, expr string
		takes      bool
	}{
		{"class then the same class", `^[a-z]+[a-z]$`, false},
		{"optional class then an overlapping one", `^a?[ab]$`, false},
		{"overlap past an optional item", `^[a-z]+-?[a-z0-9]$`, false},
		{"unanchored", `[a-z]+`, false},
		{"anchored at one end", `^[a-z]+`, false},
		{"alternation", `^(a|b)$`, false},
		{"group", `^(?:ab)+$`, false},
		{"any character", `^.+$`, false},
		{"negated class", `^[^/]+$`, false},
		{"non-ASCII class", `^[a-zé]+$`, false},
		{"case folding", `(?i)^[a-z]+$`, false},
		{"repeat with a bound", `^[a-f0-9]{7,40}$`, true},
		{"fixed repeats back to back", `^[0-9]{4}-[0-9]{2}$`, true},
		{"literal text", `^none$`, true},
		{"disjoint classes", `^[a-z]+/[0-9]+$`, true},
		{"optional disjoint suffix", `^[a-z]+[0-9]?$`, true},
		{"empty", `^$`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seq, ok := compileClassSeq(tc.expr)
			if ok != tc.takes {
				t.Fatalf("compileClassSeq(%s) = %v, want %v", tc.expr, ok, tc.takes)
			}
			if !ok {
				return
			}
			re := regexp.MustCompile(tc.expr)
			for _, s := range classSeqProbes() {
				if got, want := seq.match(s), re.MatchString(s); got != want {
					t.Errorf("%q: %v, regexp says %v", s, got, want)
				}
			}
		})
	}
}

// FuzzClassSeqAgrees: on arbitrary strings every compiled schema pattern
// agrees with package regexp.
func FuzzClassSeqAgrees(f *testing.F) {
	for i, s := range classSeqProbes() {
		f.Add(uint8(i), s)
	}
	var pats []string
	f.Fuzz(func(t *testing.T, which uint8, s string) {
		if pats == nil {
			for _, p := range schemaPatterns(t) {
				if _, ok := compileClassSeq(p); ok {
					pats = append(pats, p)
				}
			}
		}
		p := pats[int(which)%len(pats)]
		seq, _ := compileClassSeq(p)
		if got, want := seq.match(s), regexp.MustCompile(p).MatchString(s); got != want {
			t.Errorf("%s on %q: %v, regexp says %v", p, s, got, want)
		}
	})
}
