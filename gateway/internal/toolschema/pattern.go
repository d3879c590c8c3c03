package toolschema

import (
	"regexp/syntax"
	"unicode/utf8"
)

// classSeq is a pattern of the common form the contract's schemas use
// (^[a-zA-Z0-9._-]+/[a-zA-Z0-9._-]+$, ^[a-f0-9]{7,40}$, ...): anchored at
// both ends, a sequence of ASCII character classes and literals, each
// repeated a bounded or unbounded number of times. It matches in one
// greedy scan, without the regexp machine: the fast check matches every
// string argument against its pattern on every call, and that match was
// the larger part of a one-pass decode (docs/benchmarks.md). compileClassSeq
// takes only patterns for which the greedy scan is exact (TestClassSeqAgrees
// and FuzzClassSeqAgrees hold it to package regexp).
type classSeq []classItem

// classItem is one class of a classSeq and how many times it repeats.
type classItem struct {
	set      [2]uint64 // the ASCII bytes it matches
	min, max int       // max -1: unbounded
}

func (c *classItem) has(b byte) bool { return b < utf8.RuneSelf && c.set[b>>6]&(1<<(b&63)) != 0 }

// compileClassSeq compiles expr (RE2 syntax, as the JSON Schema library
// reads it) to a classSeq, or reports false when it is not of that form.
func compileClassSeq(expr string) (classSeq, bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat || len(re.Sub) < 2 ||
		re.Sub[0].Op != syntax.OpBeginText || re.Sub[len(re.Sub)-1].Op != syntax.OpEndText {
		return nil, false
	}
	var seq classSeq
	for _, sub := range re.Sub[1 : len(re.Sub)-1] {
		min, max := 1, 1
		switch sub.Op {
		case syntax.OpPlus:
			min, max = 1, -1
		case syntax.OpStar:
			min, max = 0, -1
		case syntax.OpQuest:
			min, max = 0, 1
		case syntax.OpRepeat:
			min, max = sub.Min, sub.Max
		}
		if min != 1 || max != 1 || sub.Op == syntax.OpRepeat {
			if len(sub.Sub) != 1 {
				return nil, false
			}
			sub = sub.Sub[0]
			if sub.Op == syntax.OpLiteral && len(sub.Rune) != 1 {
				return nil, false
			}
		}
		switch sub.Op {
		case syntax.OpLiteral:
			if sub.Flags&syntax.FoldCase != 0 {
				return nil, false
			}
			for _, r := range sub.Rune {
				it := classItem{min: min, max: max}
				if !it.add(r, r) {
					return nil, false
				}
				seq = append(seq, it)
			}
		case syntax.OpCharClass:
			it := classItem{min: min, max: max}
			for i := 0; i+1 < len(sub.Rune); i += 2 {
				if !it.add(sub.Rune[i], sub.Rune[i+1]) {
					return nil, false
				}
			}
			seq = append(seq, it)
		default:
			return nil, false
		}
	}
	// The greedy scan is exact when no byte a repeated class takes could
	// instead start what follows it: its set is disjoint from every later
	// item up to and including the first that must match at least once.
	for i, it := range seq {
		if it.min == it.max {
			continue
		}
		for _, next := range seq[i+1:] {
			if it.set[0]&next.set[0] != 0 || it.set[1]&next.set[1] != 0 {
				return nil, false
			}
			if next.min > 0 {
				break
			}
		}
	}
	return seq, true
}

// add puts the runes lo..hi in the set; false when any is not ASCII (a
// class that takes other runes is left to package regexp).
func (c *classItem) add(lo, hi rune) bool {
	if lo < 0 || hi >= utf8.RuneSelf || lo > hi {
		return false
	}
	for r := lo; r <= hi; r++ {
		c.set[r>>6] |= 1 << (r & 63)
	}
	return true
}

// match reports whether s matches. A byte past ASCII is in no class, as
// the rune it starts (or the invalid byte, U+FFFD to package regexp) is in
// none of an ASCII-only pattern's.
func (q classSeq) match(s string) bool {
	i := 0
	for k := range q {
		it := &q[k]
		n := 0
		for i < len(s) && (it.max < 0 || n < it.max) && it.has(s[i]) {
			i++
			n++
		}
		if n < it.min {
			return false
		}
	}
	return i == len(s)
}
