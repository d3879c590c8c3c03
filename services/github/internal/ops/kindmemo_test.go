package ops

import (
	"testing"
	"time"
)

// TestIssueKinds: what the memo says, for how long, for which repository,
// and that a nil memo and a full one are safe.
func TestIssueKinds(t *testing.T) {
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	k := newIssueKinds()
	k.now = func() time.Time { return now }
	k.put("Octo-Org/Hello", 5, 1005, false)
	k.put("o/r", 1, 0, true)
	k.put("", 2, 1, false)
	k.put("o/r", 0, 1, false)
	for _, tc := range []struct {
		name  string
		repo  string
		n     int
		after time.Duration
		ok    bool
		want  kindEntry
	}{
		{"an issue, names in another case", "octo-org/hello", 5, 0, true, kindEntry{id: 1005}},
		{"a pull request", "o/r", 1, 0, true, kindEntry{pull: true}},
		{"another number", "octo-org/hello", 6, 0, false, kindEntry{}},
		{"another repository", "octo-org/hello2", 5, 0, false, kindEntry{}},
		{"no repository was not kept", "", 2, 0, false, kindEntry{}},
		{"nor number 0", "o/r", 0, 0, false, kindEntry{}},
		{"at the end of kindTTL", "octo-org/hello", 5, kindTTL, true, kindEntry{id: 1005}},
		{"after it", "octo-org/hello", 5, kindTTL + time.Second, false, kindEntry{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k.now = func() time.Time { return now.Add(tc.after) }
			got, ok := k.known(tc.repo, tc.n)
			if ok != tc.ok || got.id != tc.want.id || got.pull != tc.want.pull {
				t.Errorf("known = %+v, %v; want %+v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
	var none *issueKinds
	none.put("o/r", 1, 1, false)
	if _, ok := none.known("o/r", 1); ok {
		t.Error("a nil memo remembered")
	}
	k.now = func() time.Time { return now }
	for i := 1; i <= kindMemoMax; i++ {
		k.put("o/many", i, int64(i), false)
	}
	if len(k.m) > kindMemoMax {
		t.Errorf("%d entries, want at most %d", len(k.m), kindMemoMax)
	}
	if e, ok := k.known("o/many", kindMemoMax); !ok || e.id != kindMemoMax {
		t.Error("the newest entry is gone after the memo started again")
	}
}
