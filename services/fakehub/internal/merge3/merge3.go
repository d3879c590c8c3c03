// Package merge3 provides a line-level three-way merge (diff3) of text files, the piece of git's merge
// machinery that go-git lacks.
package merge3

import (
	"bytes"
)

// Labels names the sides of a merge in conflict markers.
type Labels struct {
	Ours, Base, Theirs string
}

// Result is the outcome of a three-way merge.
type Result struct {
	// Content is the merged text, with conflict markers where the sides disagree.
	Content []byte
	// Conflicts counts conflicting hunks; zero means the merge is clean.
	Conflicts int
}

// maxCells bounds the diagonal endpoints the diff keeps (about D² for D edits, 4 bytes each) so that
// a huge rewrite degrades to a whole-file change instead of exhausting memory; a merge of such files
// then conflicts unless one side is unchanged. Files of any length with fewer than ~4,000 changed
// lines are diffed exactly.
const maxCells = 16 << 20

// Merge merges the changes from base to ours and from base to theirs, line by line, the way
// `git merge-file` does: changes to different lines combine, overlapping or adjacent changes conflict
// unless both sides made the same change.
func Merge(base, ours, theirs []byte, l Labels) Result {
	if bytes.Equal(ours, theirs) || bytes.Equal(base, theirs) {
		return Result{Content: clone(ours)}
	}
	if bytes.Equal(base, ours) {
		return Result{Content: clone(theirs)}
	}
	if isBinary(base) || isBinary(ours) || isBinary(theirs) {
		return Result{Content: clone(ours), Conflicts: 1}
	}
	o, a, b := splitLines(base), splitLines(ours), splitLines(theirs)
	ma := match(o, a)
	mb := match(o, b)
	var out bytes.Buffer
	conflicts := 0
	i, j, k := 0, 0, 0
	for i < len(o) || j < len(a) || k < len(b) {
		// Stable region: the base line is matched to the current line on both sides.
		if i < len(o) && ma[i] == j && mb[i] == k {
			out.WriteString(o[i])
			i, j, k = i+1, j+1, k+1
			continue
		}
		// Unstable chunk: runs to the next base line matched on both sides (after the current points).
		oe := i
		for oe < len(o) && !(ma[oe] >= j && mb[oe] >= k) {
			oe++
		}
		ae, be := len(a), len(b)
		if oe < len(o) {
			ae, be = ma[oe], mb[oe]
		}
		co, ca, cb := o[i:oe], a[j:ae], b[k:be]
		switch {
		case equalLines(ca, cb), equalLines(co, cb):
			writeLines(&out, ca)
		case equalLines(co, ca):
			writeLines(&out, cb)
		default:
			conflicts++
			writeConflict(&out, ca, cb, l)
		}
		i, j, k = oe, ae, be
	}
	return Result{Content: out.Bytes(), Conflicts: conflicts}
}

// writeConflict writes a conflict hunk, first moving lines common to the start and end of both sides
// out of it, as git's zealous merge level does.
func writeConflict(out *bytes.Buffer, a, b []string, l Labels) {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	writeLines(out, a[:p])
	a, b = a[p:], b[p:]
	s := 0
	for s < len(a) && s < len(b) && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	suffix := a[len(a)-s:]
	a, b = a[:len(a)-s], b[:len(b)-s]
	marker(out, "<<<<<<<", l.Ours)
	writeLinesNL(out, a)
	out.WriteString("=======\n")
	writeLinesNL(out, b)
	marker(out, ">>>>>>>", l.Theirs)
	writeLines(out, suffix)
}

func marker(out *bytes.Buffer, m, label string) {
	out.WriteString(m)
	if label != "" {
		out.WriteString(" ")
		out.WriteString(label)
	}
	out.WriteString("\n")
}

func writeLines(out *bytes.Buffer, ls []string) {
	for _, s := range ls {
		out.WriteString(s)
	}
}

// writeLinesNL writes lines inside a conflict, ending an unterminated last line so that the marker
// after it starts on its own line.
func writeLinesNL(out *bytes.Buffer, ls []string) {
	for _, s := range ls {
		out.WriteString(s)
		if len(s) == 0 || s[len(s)-1] != '\n' {
			out.WriteString("\n")
		}
	}
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

func isBinary(b []byte) bool {
	n := len(b)
	if n > 8000 {
		n = 8000
	}
	return bytes.IndexByte(b[:n], 0) >= 0
}

// splitLines splits text into lines that keep their terminating newline; a last line without one is
// kept as is, so that "x" and "x\n" differ as they do for git.
func splitLines(b []byte) []string {
	var ls []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			ls = append(ls, string(b))
			break
		}
		ls = append(ls, string(b[:i+1]))
		b = b[i+1:]
	}
	return ls
}

// match returns, for each line of o, the index of the line of x it is paired with in a longest common
// subsequence, or -1. It trims the common prefix and suffix, then runs Myers' O((N+M)·D) diff on the
// rest, so that files with few changes merge fast whatever their size.
func match(o, x []string) []int {
	m := make([]int, len(o))
	for i := range m {
		m[i] = -1
	}
	p := 0
	for p < len(o) && p < len(x) && o[p] == x[p] {
		m[p] = p
		p++
	}
	s := 0
	for s < len(o)-p && s < len(x)-p && o[len(o)-1-s] == x[len(x)-1-s] {
		m[len(o)-1-s] = len(x) - 1 - s
		s++
	}
	oo, xx := o[p:len(o)-s], x[p:len(x)-s]
	if len(oo) == 0 || len(xx) == 0 {
		return m
	}
	for _, pr := range myers(oo, xx) {
		m[p+pr[0]] = p + pr[1]
	}
	return m
}

// myers returns the matched index pairs of a longest common subsequence of a and b, found with
// Myers' greedy algorithm, or nil when the edit distance is so large that the search would keep more
// than maxCells diagonal endpoints (the caller then treats the middle as wholly changed).
func myers(a, b []string) [][2]int {
	n, m := len(a), len(b)
	// v[k+d] is the furthest x reached on diagonal k = x-y after d edits; trace keeps every round's v
	// for the walk back.
	var trace [][]int32
	var prev []int32
	cells := 0
	for d := 0; d <= n+m; d++ {
		cells += 2*d + 1
		if cells > maxCells {
			return nil
		}
		v := make([]int32, 2*d+1)
		for k := -d; k <= d; k += 2 {
			var x int
			switch {
			case d == 0:
				x = 0
			case k == -d || (k != d && prev[k-1+d-1] < prev[k+1+d-1]):
				x = int(prev[k+1+d-1]) // down: a line of b inserted
			default:
				x = int(prev[k-1+d-1]) + 1 // right: a line of a deleted
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[k+d] = int32(x)
			if x >= n && y >= m {
				trace = append(trace, v)
				return backtrack(trace, n, m)
			}
		}
		trace = append(trace, v)
		prev = v
	}
	return nil
}

// backtrack walks Myers' trace from (n, m) back to (0, 0), collecting the diagonal (matching) steps.
func backtrack(trace [][]int32, n, m int) [][2]int {
	var pairs [][2]int
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1]
		k := x - y
		var pk int
		if k == -d || (k != d && prev[k-1+d-1] < prev[k+1+d-1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := int(prev[pk+d-1])
		py := px - pk
		// The edit moved from (px, py) one step right or down; the snake after it is all matches.
		sx := px
		if pk == k-1 {
			sx = px + 1
		}
		for x > sx {
			x--
			y--
			pairs = append(pairs, [2]int{x, y})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x--
		y--
		pairs = append(pairs, [2]int{x, y})
	}
	for i, j := 0, len(pairs)-1; i < j; i, j = i+1, j-1 {
		pairs[i], pairs[j] = pairs[j], pairs[i]
	}
	return pairs
}
