package taskbench

import (
	"slices"
	"testing"
)

// TestUntestedGo: which changed Go files the repo-analysis scripts report
// as having no test file of their own.
func TestUntestedGo(t *testing.T) {
	head := map[string]bool{"a/x.go": true, "a/x_test.go": true, "a/y.go": true, "b/z.go": true, "docs/d.md": true, "a/y_test.txt": true}
	tests := []struct {
		name    string
		changed []string
		want    []string
	}{
		{name: "tested and untested", changed: []string{"b/z.go", "a/x.go", "a/y.go"}, want: []string{"a/y.go", "b/z.go"}},
		{name: "tests and other files left out", changed: []string{"a/x_test.go", "docs/d.md"}},
		{name: "removed since", changed: []string{"c/gone.go"}},
		{name: "changed twice, listed once", changed: []string{"a/y.go", "a/y.go"}, want: []string{"a/y.go"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := untestedGo(tc.changed, head); !slices.Equal(got, tc.want) {
				t.Fatalf("untestedGo(%v) = %v, want %v", tc.changed, got, tc.want)
			}
		})
	}
}
