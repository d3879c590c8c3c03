// Package textclean removes from text what a reader cannot see but a model
// or a terminal acts on: invisible characters that can spell instructions a
// person reviewing the text never sees (Unicode tag characters, bidi
// controls, zero-width and other format characters), and terminal control
// sequences that can rewrite what a terminal shows (hyperlinks, window
// titles, cursor moves, erasures). The service applies it to every answer
// field that carries text written by GitHub's users or printed by their
// builds (package contentclean; docs/security.md).
//
// What Clean removes, and why each decision:
//
//   - Invisible characters, from Go's unicode tables (never a hand list):
//     general category Cf (zero-width space, joiners, bidi embeddings,
//     overrides and isolates, the byte-order mark, soft hyphen, invisible
//     operators, tag characters), the Other_Default_Ignorable_Code_Point
//     property (Hangul fillers, which render as blanks, the combining
//     grapheme joiner), and the whole tag block U+E0000–U+E007F, assigned or
//     not. Two exceptions keep emoji intact: a zero-width joiner (U+200D)
//     between two emoji (a symbol, its modifier or U+FE0F before it, a
//     symbol after it) stays, so 👨‍👩‍👧 is still one family, since one joiner
//     carries no hidden text; and the Prepended_Concatenation_Mark
//     characters (Cf, but visible: the Arabic number sign) stay. Tag
//     characters go even inside flag emoji (🏴 plus tags becomes 🏴): they are
//     the known way of hiding text in plain sight.
//   - Variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF, Mongolian's):
//     one stays after a character that has variants (anything beyond ASCII,
//     and the keycap bases 0–9, # and *); the others go, because runs of
//     selectors can encode arbitrary bytes behind a single character.
//   - Terminal control sequences, each as a whole: ESC followed by '[' (CSI:
//     parameters, intermediates, final byte), by ']' (OSC, e.g. OSC 8
//     hyperlinks and window titles), by 'P', 'X', '^' or '_' (DCS, SOS, PM,
//     APC) up to the string terminator (ESC \, BEL or U+009C; an
//     unterminated string runs to the end of the text, as it would in a
//     terminal), or by intermediates and a final byte (ESC ( B, ESC 7, ESC
//     c). The C1 forms (U+009B CSI, U+009D OSC, U+0090 DCS, U+0098, U+009E,
//     U+009F) are treated as their ESC forms.
//   - Control characters: C0 except tab and newline (a carriage return stays
//     only before a newline, so CRLF text written on GitHub's web forms is
//     left alone, while a lone CR, which lets a terminal overwrite a line,
//     goes), DEL, and C1 (U+0080–U+009F), bells and backspaces among them.
//   - Bytes that are not UTF-8 are removed (protobuf strings must be UTF-8).
//     A stray byte 0x80–0x9F is what an 8-bit terminal reads as a C1
//     control, so it is handled as one: a raw 0x9B starts a CSI sequence
//     that is removed whole.
//
// Clean never adds anything, so its output is never longer than its input;
// it is idempotent; and clean text (the common case) costs one pass over it
// without allocating. All three are fuzzed, and a test checks every code
// point against the unicode tables.
package textclean

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Removed counts what Clean removed.
type Removed struct {
	// Invisible counts invisible characters.
	Invisible int
	// Controls counts terminal control sequences (one each), control
	// characters and bytes that were not UTF-8.
	Controls int
}

// Any reports whether anything was removed.
func (r Removed) Any() bool { return r.Invisible != 0 || r.Controls != 0 }

// Add adds o's counts to r.
func (r *Removed) Add(o Removed) {
	r.Invisible += o.Invisible
	r.Controls += o.Controls
}

const (
	esc = 0x1b
	bel = 0x07
	zwj = 0x200D
	// The C1 controls that open a sequence (ECMA-48), and the string
	// terminator.
	c1DCS = 0x90
	c1SOS = 0x98
	c1ST  = 0x9C
	c1CSI = 0x9B
	c1OSC = 0x9D
	c1PM  = 0x9E
	c1APC = 0x9F
)

// Clean returns s without the invisible characters and terminal controls
// the package comment lists, and what it removed. When nothing is removed
// it returns s itself.
func Clean(s string) (string, Removed) {
	var (
		rem   Removed
		b     strings.Builder
		dirty bool // b holds the output so far (something was removed)
		prev  rune // the last rune kept; -1 at the start
	)
	prev = -1
	drop := func(i int) {
		if !dirty {
			dirty = true
			b.Grow(len(s))
			b.WriteString(s[:i])
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 0x20 && c != 0x7f, c == '\t', c == '\n', c == '\r' && i+1 < len(s) && s[i+1] == '\n':
				if dirty {
					b.WriteByte(c)
				}
				prev = rune(c)
				i++
			case c == esc:
				drop(i)
				rem.Controls++
				i = escEnd(s, i+1)
			default:
				drop(i)
				rem.Controls++
				i++
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			drop(i)
			rem.Controls++
			i = c1End(s, rune(c), i+1) // a raw 0x80–0x9F is a C1 control; anything else ends at once
			continue
		}
		if r <= 0x9F { // C1
			drop(i)
			rem.Controls++
			i = c1End(s, r, i+size)
			continue
		}
		if keep(r, prev, s[i+size:]) {
			if dirty {
				b.WriteString(s[i : i+size])
			}
			prev = r
		} else {
			drop(i)
			rem.Invisible++
		}
		i += size
	}
	if !dirty {
		return s, rem
	}
	return b.String(), rem
}

// keep decides on a rune from U+00A0 up, given the last rune kept (-1 for
// none) and the text after it.
func keep(r, prev rune, rest string) bool {
	switch {
	case unicode.Is(unicode.Variation_Selector, r):
		return prev >= 0 && !unicode.Is(unicode.Variation_Selector, prev) && prev != zwj &&
			(prev >= utf8.RuneSelf || '0' <= prev && prev <= '9' || prev == '#' || prev == '*')
	case r == zwj:
		next, size := utf8.DecodeRuneInString(rest)
		valid := next != utf8.RuneError || size > 1 // invalid bytes are removed
		return emojiBefore(prev) && valid && unicode.Is(unicode.So, next)
	}
	return !Invisible(r)
}

// emojiBefore reports whether a zero-width joiner after r can continue an
// emoji sequence: r is a symbol, an emoji modifier (Sk) or the emoji
// presentation selector.
func emojiBefore(r rune) bool {
	return r >= utf8.RuneSelf && (unicode.Is(unicode.So, r) || unicode.Is(unicode.Sk, r) || r == 0xFE0F)
}

// Invisible reports whether r is an invisible character Clean removes
// wherever it stands (the zero-width joiner and variation selectors, which
// stay in some places, are decided by Clean).
func Invisible(r rune) bool {
	if 0xE0000 <= r && r <= 0xE007F { // the tag block, assigned or not
		return true
	}
	if unicode.Is(unicode.Cf, r) {
		return !unicode.Is(unicode.Prepended_Concatenation_Mark, r)
	}
	return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// escEnd returns where the escape sequence whose ESC ends just before i
// ends.
func escEnd(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch c := s[i]; {
	case c == '[':
		return csiEnd(s, i+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return stringEnd(s, i+1)
	case 0x20 <= c && c <= 0x2f: // intermediates, then a final byte
		for i < len(s) && 0x20 <= s[i] && s[i] <= 0x2f {
			i++
		}
		if i < len(s) && 0x30 <= s[i] && s[i] <= 0x7e {
			i++
		}
		return i
	case 0x30 <= c && c <= 0x7e: // a two-character sequence
		return i + 1
	}
	return i // a lone ESC: what follows is judged on its own
}

// c1End returns where the sequence a C1 control c opens ends, c ending just
// before i.
func c1End(s string, c rune, i int) int {
	switch c {
	case c1CSI:
		return csiEnd(s, i)
	case c1OSC, c1DCS, c1SOS, c1PM, c1APC:
		return stringEnd(s, i)
	}
	return i
}

// csiEnd returns the end of a control sequence whose introducer ends just
// before i: parameter bytes, intermediate bytes, a final byte. A malformed
// sequence ends before the first byte that does not fit.
func csiEnd(s string, i int) int {
	for i < len(s) && 0x30 <= s[i] && s[i] <= 0x3f {
		i++
	}
	for i < len(s) && 0x20 <= s[i] && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && 0x40 <= s[i] && s[i] <= 0x7e {
		i++
	}
	return i
}

// stringEnd returns the end of a control string (OSC, DCS, SOS, PM, APC)
// whose introducer ends just before i: after its terminator (BEL, ESC \ or
// ST), before an ESC that starts something else, or the end of s.
func stringEnd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c == bel:
			return i + 1
		case c == esc:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == c1ST || r == utf8.RuneError && size == 1 && c == c1ST {
				return i + size
			}
			i += size
		}
	}
	return i
}
