package retryafter_test

import (
	"testing"
	"time"

	"ghops.dev/infra/retryafter"
)

func TestParse(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		v      string
		want   time.Duration
		wantOK bool
	}{
		{name: "seconds", v: "120", want: 2 * time.Minute, wantOK: true},
		{name: "spaces around", v: " 5 ", want: 5 * time.Second, wantOK: true},
		{name: "zero: retry now", v: "0", want: 0, wantOK: true},
		{name: "capped at a day", v: "999999999999", want: retryafter.Max, wantOK: true},
		{name: "larger than int64", v: "99999999999999999999", want: 0, wantOK: false},
		{name: "negative", v: "-1", wantOK: false},
		{name: "HTTP date ahead", v: "Tue, 24 Nov 2026 12:01:30 GMT", want: 90 * time.Second, wantOK: true},
		{name: "HTTP date past: retry now", v: "Tue, 24 Nov 2026 11:00:00 GMT", want: 0, wantOK: true},
		{name: "HTTP date far ahead: capped", v: "Tue, 24 Nov 2099 12:00:00 GMT", want: retryafter.Max, wantOK: true},
		{name: "empty", v: "", wantOK: false},
		{name: "garbage", v: "soon", wantOK: false},
		{name: "fraction", v: "1.5", wantOK: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, ok := retryafter.Parse(tc.v, now)
			if d != tc.want || ok != tc.wantOK {
				t.Errorf("Parse(%q) = %v %v, want %v %v", tc.v, d, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// FuzzParse checks that any header value is read without a panic and gives
// a wait between zero and Max, zero when it is not understood.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{"120", "0", "-1", "Tue, 24 Nov 2026 12:01:30 GMT", "soon", "", "99999999999999999999", " 7 "} {
		f.Add(seed)
	}
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := retryafter.Parse(v, now)
		if d < 0 || d > retryafter.Max {
			t.Fatalf("Parse(%q) = %v, out of [0, %v]", v, d, retryafter.Max)
		}
		if !ok && d != 0 {
			t.Fatalf("Parse(%q) = %v without ok", v, d)
		}
	})
}
