package requestid

import (
	"regexp"
	"strings"
	"sync"
	"testing"
)

// pattern is the rule plain implements, as the contract states it.
var pattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

func TestAccept(t *testing.T) {
	tests := []struct {
		name, client string
		kept         bool
	}{
		{"plain", "req-1.a_B", true},
		{"64 characters", strings.Repeat("a", 64), true},
		{"65 characters", strings.Repeat("a", 65), false},
		{"empty", "", false},
		{"space", "a b", false},
		{"newline", "a\n", false},
		{"non-ASCII", "é", false},
		{"credential-shaped", "ghp_" + strings.Repeat("A", 36), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Accept(tc.client)
			if kept := got == tc.client; kept != tc.kept {
				t.Fatalf("Accept(%q) = %q, kept %v, want %v", tc.client, got, kept, tc.kept)
			}
			if !tc.kept && !isID(got) {
				t.Fatalf("Accept(%q) = %q, not a fresh id", tc.client, got)
			}
		})
	}
}

func isID(s string) bool { return regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(s) }

// TestNewUnique draws ids from many goroutines at once (the pool's
// generators are shared between them) and finds no repeat.
func TestNewUnique(t *testing.T) {
	const goroutines, each = 8, 2000
	var mu sync.Mutex
	seen := make(map[string]bool, goroutines*each)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := make([]string, 0, each)
			for range each {
				ids = append(ids, New())
			}
			mu.Lock()
			defer mu.Unlock()
			for _, id := range ids {
				if !isID(id) || seen[id] {
					t.Errorf("id %q: malformed or repeated", id)
				}
				seen[id] = true
			}
		}()
	}
	wg.Wait()
}

func FuzzPlainAgreesWithPattern(f *testing.F) {
	for _, s := range []string{"", "a", "a-b.c_D9", strings.Repeat("x", 64), strings.Repeat("x", 65), "a b", "é", "a\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := plain(s), pattern.MatchString(s); got != want {
			t.Fatalf("plain(%q) = %v, pattern says %v", s, got, want)
		}
	})
}
