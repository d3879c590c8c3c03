package taskbench

import (
	"context"
	"testing"
)

// TestNextMinor: the release-notes script's next tag after the latest
// release's, and the tags it refuses to guess from.
func TestNextMinor(t *testing.T) {
	tests := []struct {
		name, tag, want string
		wantErr         bool
	}{
		{name: "minor", tag: "v0.2.0", want: "v0.3.0"},
		{name: "patch reset", tag: "v1.9.4", want: "v1.10.0"},
		{name: "no v", tag: "0.2.0", wantErr: true},
		{name: "two parts", tag: "v0.2", wantErr: true},
		{name: "not a number", tag: "v0.x.0", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := nextMinor(tc.tag)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("nextMinor(%q) = %q, %v; want %q, error %v", tc.tag, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// TestFindingTake: a Verify takes its run's finding once; a second take,
// one without a report, one of another type or one in another run finds
// none.
func TestFindingTake(t *testing.T) {
	run, other := withFinding(context.Background()), withFinding(context.Background())
	if _, ok := take[[]int64](run); ok {
		t.Fatal("take before report found a finding")
	}
	report(run, []int64{1, 2})
	if v, ok := take[[]int64](other); ok {
		t.Fatalf("another run's take = %v, want nothing", v)
	}
	if v, ok := take[[]int64](run); !ok || len(v) != 2 {
		t.Fatalf("take = %v, %v; want [1 2], true", v, ok)
	}
	if v, ok := take[[]int64](run); ok || v != nil {
		t.Fatalf("second take = %v, %v; want nothing", v, ok)
	}
	report(run, []string{"a"})
	if v, ok := take[[]int64](run); ok {
		t.Fatalf("take of the wrong type = %v, want nothing", v)
	}
}
