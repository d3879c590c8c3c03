package merge3

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkMerge3 merges a 2,000-line file where each side edits every 50th line, offset so that the
// edits never touch: the merge is clean and exercises the LCS on both sides.
func BenchmarkMerge3(b *testing.B) {
	const n = 2000
	var base, ours, theirs strings.Builder
	for i := 0; i < n; i++ {
		line := fmt.Sprintf("line %d: the quick brown fox jumps over the lazy dog\n", i)
		base.WriteString(line)
		switch {
		case i%50 == 0:
			ours.WriteString(fmt.Sprintf("line %d: edited on our side\n", i))
			theirs.WriteString(line)
		case i%50 == 25:
			ours.WriteString(line)
			theirs.WriteString(fmt.Sprintf("line %d: edited on their side\n", i))
		default:
			ours.WriteString(line)
			theirs.WriteString(line)
		}
	}
	o, a, t := []byte(base.String()), []byte(ours.String()), []byte(theirs.String())
	if r := Merge(o, a, t, Labels{}); r.Conflicts != 0 || !strings.Contains(string(r.Content), "edited on their side") || !strings.Contains(string(r.Content), "edited on our side") {
		b.Fatalf("merge: %d conflicts", r.Conflicts)
	}
	b.SetBytes(int64(len(o)))
	b.ReportAllocs()
	for b.Loop() {
		Merge(o, a, t, Labels{})
	}
}
