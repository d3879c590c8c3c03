package textclean

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/bidi"
)

// explicitBidi are the bidi classes of the explicit formatting characters
// (UAX #9): embeddings, overrides, isolates and their terminators.
var explicitBidi = map[bidi.Class]bool{bidi.LRE: true, bidi.RLE: true, bidi.LRO: true, bidi.RLO: true, bidi.PDF: true,
	bidi.LRI: true, bidi.RLI: true, bidi.FSI: true, bidi.PDI: true}

func TestClean(t *testing.T) {
	tests := []struct {
		name, in, want string
		invisible      int
		controls       int
	}{
		{"clean ascii", "fix the build\n\tnow", "fix the build\n\tnow", 0, 0},
		{"clean unicode", "Grüße, 世界 ≠ مرحبا", "Grüße, 世界 ≠ مرحبا", 0, 0},
		{"crlf kept", "line one\r\nline two\r\n", "line one\r\nline two\r\n", 0, 0},
		{"lone cr", "progress 10%\rprogress 100%\r", "progress 10%progress 100%", 0, 2},
		{"tag characters", "hello\U000E0001\U000E0069\U000E0067\U000E006E\U000E006F\U000E0072\U000E0065\U000E007F world", "hello world", 8, 0},
		{"unassigned tag", "a\U000E0000\U000E0002b", "ab", 2, 0},
		{"bidi override", "access \u202Eadmin\u202C granted", "access admin granted", 2, 0},
		{"bidi isolates and marks", "\u2066a\u2069\u200E\u200F\u061C", "a", 5, 0},
		{"zero width", "ig\u200Bnore\u200Cprev\uFEFFious\u2060", "ignoreprevious", 4, 0},
		{"soft hyphen", "in\u00ADvisible", "invisible", 1, 0},
		{"hangul filler", "a\u3164b\u115Fc", "abc", 2, 0},
		{"prepended concatenation mark kept", "\u0600123", "\u0600123", 0, 0},
		{"emoji zwj sequence kept", "👨\u200D👩\u200D👧", "👨\u200D👩\u200D👧", 0, 0},
		{"emoji zwj with modifier and selector", "🧑🏽\u200D💻 ❤\uFE0F\u200D🔥", "🧑🏽\u200D💻 ❤\uFE0F\u200D🔥", 0, 0},
		{"zwj between letters", "a\u200Db", "ab", 1, 0},
		{"double zwj", "👨\u200D\u200D👩", "👨\u200D👩", 1, 0},
		{"flag tags removed", "🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F", "🏴", 6, 0},
		{"emoji selector kept", "☺\uFE0F and 1\uFE0F\u20E3", "☺\uFE0F and 1\uFE0F\u20E3", 0, 0},
		{"selector after ascii letter", "a\uFE0Fb", "ab", 1, 0},
		{"selector run", "😀\uFE0F\U000E0100\U000E0101\U000E01EF", "😀\uFE0F", 3, 0},
		{"ideographic variation", "葛\U000E0100", "葛\U000E0100", 0, 0},
		{"colour", "\x1b[31mFAIL\x1b[0m", "FAIL", 0, 2},
		{"csi private", "\x1b[?25lhidden cursor\x1b[2J\x1b[H", "hidden cursor", 0, 3},
		{"osc 8 hyperlink", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "click", 0, 2},
		{"osc title bel", "\x1b]0;pwned\x07after", "after", 0, 1},
		{"osc unterminated", "before\x1b]2;title to the end", "before", 0, 1},
		{"dcs", "\x1bP1$r0m\x1b\\x", "x", 0, 1},
		{"sos pm apc", "\x1bXs\x1b\\\x1b^p\x1b\\\x1b_a\x1b\\.", ".", 0, 3},
		{"two char escapes", "\x1b7\x1bc\x1b(B\x1b=ok", "ok", 0, 4},
		{"lone esc", "a\x1b", "a", 0, 1},
		{"esc before control", "a\x1b\x00b", "ab", 0, 2},
		{"c1 csi rune", "a\u009B31mb", "ab", 0, 1},
		{"c1 osc rune", "a\u009D0;t\u009Cb", "ab", 0, 1},
		{"raw 0x9b", "a\x9b31mb", "ab", 0, 1},
		{"raw osc st", "a\x9d0;t\x9cb", "ab", 0, 1},
		{"invalid utf8", "a\xff\xc3b", "ab", 0, 2},
		{"bell backspace", "ding\x07\x08\x08x", "dingx", 0, 3},
		{"del and nul", "a\x7fb\x00c", "abc", 0, 2},
		{"string ended by esc", "\x1b]0;t\x1b[31mred", "red", 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rem := Clean(tt.in)
			if got != tt.want {
				t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if rem.Invisible != tt.invisible || rem.Controls != tt.controls {
				t.Errorf("Clean(%q) removed %+v, want invisible %d controls %d", tt.in, rem, tt.invisible, tt.controls)
			}
			if rem.Any() != (got != tt.in) {
				t.Errorf("Any() = %v for %q -> %q", rem.Any(), tt.in, got)
			}
		})
	}
}

// TestCleanKeepsCleanText checks that text needing nothing is returned as
// is, without allocating.
func TestCleanKeepsCleanText(t *testing.T) {
	s := strings.Repeat("a build log line with ünïcödé, 中文 and emoji 👍\r\n", 20)
	if allocs := testing.AllocsPerRun(100, func() { Clean(s) }); allocs != 0 {
		t.Errorf("Clean of clean text allocates %v times", allocs)
	}
}

// removedAlone is what Clean must do with r after an ASCII letter,
// decided from Go's unicode tables alone (the conformance reference).
func removedAlone(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case unicode.Is(unicode.Cc, r): // C0, DEL, C1 (and a CR not before LF)
		return true
	case 0xE0000 <= r && r <= 0xE007F: // the tag block
		return true
	case unicode.Is(unicode.Cf, r):
		return !unicode.Is(unicode.Prepended_Concatenation_Mark, r)
	case unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r), unicode.Is(unicode.Variation_Selector, r):
		return true
	}
	return false
}

// TestConformance runs every code point through Clean and checks its
// decision against the unicode tables: the Cf category, the bidi controls,
// the default-ignorable and variation-selector properties, the control
// characters.
func TestConformance(t *testing.T) {
	explicit := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue // surrogates are not runes of UTF-8 text
		}
		in := "a" + string(r)
		got, rem := Clean(in)
		if removedAlone(r) {
			if got != "a" || !rem.Any() {
				t.Errorf("U+%04X: Clean(%q) = %q, %+v; want it removed", r, in, got, rem)
			}
		} else if got != in || rem.Any() {
			t.Errorf("U+%04X: Clean(%q) = %q, %+v; want it kept", r, in, got, rem)
		}
		if unicode.Is(unicode.Bidi_Control, r) && got != "a" {
			t.Errorf("U+%04X: a bidi control is kept", r)
		}
		// golang.org/x/text's bidi tables, a second maintained source: no
		// explicit embedding, override or isolate survives.
		if p, _ := bidi.LookupRune(r); explicitBidi[p.Class()] {
			explicit++
			if got != "a" {
				t.Errorf("U+%04X: bidi class %v is kept", r, p.Class())
			}
		}
		if unicode.Is(unicode.Join_Control, r) && got != "a" {
			t.Errorf("U+%04X: a join control is kept after a letter", r)
		}
	}
	if explicit != 9 {
		t.Errorf("x/text names %d explicit bidi formatting characters, want the 9 of UAX #9", explicit)
	}
}

// check reports what in out Clean should have removed.
func check(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Clean(%q) = %q: not UTF-8", in, out)
	}
	var prev rune = -1
	for i, r := range out {
		switch {
		case r == 0x1b || (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || (0x7f <= r && r <= 0x9f):
			t.Fatalf("Clean(%q) = %q keeps control U+%04X", in, out, r)
		case r == '\r' && !strings.HasPrefix(out[i+1:], "\n"):
			t.Fatalf("Clean(%q) = %q keeps a lone CR", in, out)
		case r == zwj:
			if !emojiBefore(prev) {
				t.Fatalf("Clean(%q) = %q keeps a ZWJ after U+%04X", in, out, prev)
			}
		case unicode.Is(unicode.Variation_Selector, r):
			if prev < 0 || unicode.Is(unicode.Variation_Selector, prev) {
				t.Fatalf("Clean(%q) = %q keeps a run of variation selectors", in, out)
			}
		case Invisible(r):
			t.Fatalf("Clean(%q) = %q keeps invisible U+%04X", in, out, r)
		}
		prev = r
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{
		"", "plain", "\x1b[31mred\x1b[0m", "\x1b]8;;http://x\x1b\\l\x1b]8;;\x07", "\x9b31m\x9d0;t\x9c",
		"\u009B2J\u0090q\u009C", "a\u202Eb\u2066c", "\U000E0041\U000E0042", "👨\u200D👩\u200D👧", "😀\uFE0F\U000E0100",
		"\r\n\r\x07\x08", "\x1bP\x1b[", "\xff\xfe\xc3", "1\uFE0F\u20E3", "\u200D👩", "👩\u200D\u200B👩",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, rem := Clean(in)
		if len(out) > len(in) {
			t.Fatalf("Clean(%q) = %q grew", in, out)
		}
		if rem.Any() != (out != in) {
			t.Fatalf("Clean(%q) = %q reports %+v", in, out, rem)
		}
		check(t, in, out)
		if again, rem2 := Clean(out); again != out || rem2.Any() {
			t.Fatalf("Clean is not idempotent: %q -> %q -> %q", in, out, again)
		}
	})
}

func BenchmarkCleanText(b *testing.B) {
	s := strings.Repeat("An issue body with some ünïcödé text and a link https://example.com/x.\r\n", 50)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Clean(s)
	}
}
