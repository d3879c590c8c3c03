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
