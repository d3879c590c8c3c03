package taskbench

import "testing"

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

// TestAnswerTake: a Verify takes a script's answer once; a second take, or
// one without a put, finds none.
func TestAnswerTake(t *testing.T) {
	var a answer[[]int64]
	if _, ok := a.take(); ok {
		t.Fatal("take before put found an answer")
	}
	a.put([]int64{1, 2})
	if v, ok := a.take(); !ok || len(v) != 2 {
		t.Fatalf("take = %v, %v; want [1 2], true", v, ok)
	}
	if v, ok := a.take(); ok || v != nil {
		t.Fatalf("second take = %v, %v; want nothing", v, ok)
	}
}
