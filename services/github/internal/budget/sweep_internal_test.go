package budget

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// TestLocalStaysBounded: many tokens' finished windows and write paces do
// not stay in memory.
func TestLocalStaysBounded(t *testing.T) {
	b := NewLocal(Limits{WritesPerMinute: 600}, Hooks{})
	ctx := context.Background()
	past := time.Now().Add(-time.Second)
	for i := range 5000 {
		tok := "t" + strconv.Itoa(i)
		b.Observe(ctx, tok, Snapshot{Resource: "core", Limit: 10, Remaining: 0, Reset: past})
		b.Observe(ctx, tok, Snapshot{Resource: "core", Limit: 10, Remaining: 9, Reset: time.Now().Add(time.Hour)})
	}
	b.Observe(ctx, "live", Snapshot{Resource: "core", Limit: 10, Remaining: 0, Reset: time.Now().Add(time.Hour)})
	b.mu.Lock()
	n := len(b.blocks)
	b.mu.Unlock()
	if n > sweepAt {
		t.Errorf("%d blocks kept, bound %d", n, sweepAt)
	}
	if _, ok := b.Blocked("live", "core"); !ok {
		t.Error("the live block was swept")
	}
	for i := range 3000 {
		b.tat["w"+strconv.Itoa(i)] = past
	}
	if err := b.pace(ctx, "writer"); err != nil {
		t.Fatal(err)
	}
	if len(b.tat) > sweepAt {
		t.Errorf("%d write paces kept", len(b.tat))
	}
}

// TestSharesStayBounded: finished windows of many principals do not stay
// in memory, and a sweep made by a request of a shorter window (search, a
// minute) keeps the counts of longer ones (core, an hour) that still run.
func TestSharesStayBounded(t *testing.T) {
	b := NewLocal(Limits{}, Hooks{})
	ctx := context.Background()
	if err := b.Charge(ctx, "tok", "apikey:live", "core", 2); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-2 * time.Hour)
	for i := range 3000 {
		b.spent["tok\x00p"+strconv.Itoa(i)+"\x00core"] = shareCount{start: past, end: past.Add(time.Hour), n: 1}
	}
	// This request's sweep drops the finished windows.
	if err := b.Charge(ctx, "tok", "apikey:live", "search", 5); err != nil {
		t.Fatal(err)
	}
	if len(b.spent) > sweepAt {
		t.Errorf("%d share counts kept, bound %d", len(b.spent), sweepAt)
	}
	if err := b.Charge(ctx, "tok", "apikey:live", "core", 2); err != nil {
		t.Fatalf("second of two: %v", err)
	}
	if err := b.Charge(ctx, "tok", "apikey:live", "core", 2); err == nil {
		t.Error("the live core count was swept: a third request of two was admitted")
	}
}
