package ops

import "testing"

// TestCapPatch checks the cut of one patch: at a line end, never leaving a
// hunk header without its lines, flagged whenever anything is cut.
func TestCapPatch(t *testing.T) {
	const patch = "@@ -1,2 +1,2 @@\n-a\n+b\n@@ -10 +10 @@\n-c\n+d"
	tests := []struct {
		name  string
		limit int
		want  string
		cut   bool
	}{
		{name: "fits", limit: len(patch), want: patch},
		{name: "cut inside the second hunk", limit: len(patch) - 2, want: "@@ -1,2 +1,2 @@\n-a\n+b\n@@ -10 +10 @@\n-c", cut: true},
		{name: "cut after a header drops it", limit: 38, want: "@@ -1,2 +1,2 @@\n-a\n+b", cut: true},
		{name: "cut inside the first line", limit: 5, want: "", cut: true},
		{name: "no room", limit: 0, want: "", cut: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := capPatch(patch, tt.limit)
			if got != tt.want || cut != tt.cut || len(got) > tt.limit {
				t.Errorf("capPatch(%d) = %q, %v; want %q, %v", tt.limit, got, cut, tt.want, tt.cut)
			}
		})
	}
}
