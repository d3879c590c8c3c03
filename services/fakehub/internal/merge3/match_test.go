package merge3

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// lcsLen is the textbook O(n·m) LCS length, the oracle for myers.
func lcsLen(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkMatch fails unless m pairs lines of o with equal lines of x, in increasing order on both
// sides, and pairs as many as a longest common subsequence has.
func checkMatch(t *testing.T, o, x []string, m []int) {
	t.Helper()
	last, n := -1, 0
	for i, j := range m {
		if j < 0 {
			continue
		}
		if j <= last || j >= len(x) || o[i] != x[j] {
			t.Fatalf("bad pair o[%d] -> x[%d] (after x[%d]) in %v for %q / %q", i, j, last, m, o, x)
		}
		last = j
		n++
	}
	if want := lcsLen(o, x); n != want {
		t.Fatalf("matched %d lines, longest common subsequence has %d: %q / %q", n, want, o, x)
	}
}

func TestMatchIsLongest(t *testing.T) {
	tests := []struct{ name, o, x string }{
		{"empty both", "", ""},
		{"empty o", "", "a\n"},
		{"empty x", "a\n", ""},
		{"identical", "a\nb\n", "a\nb\n"},
		{"disjoint", "a\nb\n", "c\nd\n"},
		{"insert middle", "a\nc\n", "a\nb\nc\n"},
		{"delete middle", "a\nb\nc\n", "a\nc\n"},
		{"swap", "a\nb\n", "b\na\n"},
		{"repeated lines", "x\nx\ny\nx\n", "x\ny\nx\nx\nx\n"},
		{"classic abcabba/cbabac", "a\nb\nc\na\nb\nb\na\n", "c\nb\na\nb\na\nc\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, x := splitLines([]byte(tc.o)), splitLines([]byte(tc.x))
			checkMatch(t, o, x, match(o, x))
		})
	}
	for _, size := range []int{5, 30, 200} {
		t.Run(fmt.Sprintf("random up to %d lines", size), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(size), 7))
			for iter := 0; iter < 60; iter++ {
				gen := func() []string {
					n := r.IntN(size + 1)
					out := make([]string, n)
					for i := range out {
						out[i] = string(rune('a'+r.IntN(4))) + "\n"
					}
					return out
				}
				o, x := gen(), gen()
				checkMatch(t, o, x, match(o, x))
			}
		})
	}
}

// TestMatchTooManyEdits checks the degradation: when the edit distance is beyond maxCells the middle
// stays unmatched instead of exhausting memory, and the common prefix and suffix still match.
func TestMatchTooManyEdits(t *testing.T) {
	const n = 6000 // 2n edits > sqrt(maxCells)
	o, x := []string{"head\n"}, []string{"head\n"}
	for i := 0; i < n; i++ {
		o = append(o, "o"+strings.Repeat("-", i%7)+"\n")
		x = append(x, "x"+strings.Repeat("-", i%7)+"\n")
	}
	o, x = append(o, "tail\n"), append(x, "tail\n")
	m := match(o, x)
	if m[0] != 0 || m[len(o)-1] != len(x)-1 {
		t.Fatalf("prefix/suffix not matched: %d %d", m[0], m[len(o)-1])
	}
	for i := 1; i < len(o)-1; i++ {
		if m[i] != -1 {
			t.Fatalf("o[%d] matched to %d", i, m[i])
		}
	}
}

// FuzzMatch checks on arbitrary texts that match finds a valid longest common subsequence and that
// Merge never panics and keeps a clean merge's content equal to a side when the other is unchanged.
func FuzzMatch(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\n", "b\na\nc\n")
	f.Add("", "x\n", "y\n")
	f.Add("1\n2\n3\n4\n", "1\nII\n3\n4\n", "1\n2\n3\nIV\n")
	f.Add("x\nx\nx\n", "x\n", "x\nx\nx\nx\n")
	f.Fuzz(func(t *testing.T, base, ours, theirs string) {
		if len(base)+len(ours)+len(theirs) > 4000 {
			return
		}
		o, a := splitLines([]byte(base)), splitLines([]byte(ours))
		checkMatch(t, o, a, match(o, a))
		r := Merge([]byte(base), []byte(ours), []byte(theirs), Labels{})
		if base == theirs && string(r.Content) != ours || r.Conflicts < 0 {
			t.Fatalf("merge with theirs unchanged gave %q, want ours %q", r.Content, ours)
		}
	})
}
