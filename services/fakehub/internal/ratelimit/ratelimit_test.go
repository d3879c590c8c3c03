package ratelimit

import (
	"testing"
	"time"
)

func TestSpend(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	l := New(func() time.Time { return now })
	tests := []struct {
		name          string
		identity      string
		wantOK        bool
		wantRemaining int
	}{
		{"first", "a", true, 1},
		{"second", "a", true, 0},
		{"third refused", "a", false, 0},
		{"other identity", "b", true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, ok := l.Spend(tc.identity, "core", 2, time.Hour, 1)
			if ok != tc.wantOK || s.Remaining != tc.wantRemaining {
				t.Fatalf("Spend = %+v %v, want remaining %d ok %v", s, ok, tc.wantRemaining, tc.wantOK)
			}
		})
	}
	now = now.Add(time.Hour)
	if s, ok := l.Spend("a", "core", 2, time.Hour, 1); !ok || s.Used != 1 {
		t.Fatalf("after window: %+v %v", s, ok)
	}
}
