package taskbench

import (
	"context"
	"sync"
)

// A task whose outcome is a finding (which runs failed, which files lack a
// test) rather than a change in GitHub has its script report the finding
// and its Verify check it. Measure gives each run a place for it in the
// context that both the script and Verify receive, so a Verify sees only
// its own run's finding, however runs are scheduled.

// findingsKey is the context key of a run's finding.
type findingsKey struct{}

// finding is what a run's script concluded.
type finding struct {
	mu  sync.Mutex
	v   any
	set bool
}

// withFinding returns ctx with an empty place for one run's finding.
func withFinding(ctx context.Context) context.Context {
	return context.WithValue(ctx, findingsKey{}, new(finding))
}

// report records v as the finding of the run ctx belongs to (nothing
// outside a run).
func report(ctx context.Context, v any) {
	if f, ok := ctx.Value(findingsKey{}).(*finding); ok {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.v, f.set = v, true
	}
}

// take returns the run's finding, if its script reported one of type T,
// and clears it.
func take[T any](ctx context.Context) (T, bool) {
	var zero T
	f, ok := ctx.Value(findingsKey{}).(*finding)
	if !ok {
		return zero, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.v.(T)
	f.v, f.set = nil, false
	return v, ok
}
