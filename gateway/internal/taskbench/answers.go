package taskbench

import "sync"

// answer holds what a script concluded, for its task's Verify to check: a
// task whose outcome is a finding (which runs failed, which files lack a
// test) rather than a change in GitHub. Runners call a task's Verify right
// after its script, one run at a time (Measure); take returns the answer
// and clears it, so a Verify never sees another run's.
type answer[T any] struct {
	mu  sync.Mutex
	v   T
	set bool
}

// put records the script's answer.
func (a *answer[T]) put(v T) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.v, a.set = v, true
}

// take returns the recorded answer and whether there was one, and clears it.
func (a *answer[T]) take() (T, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	v, ok := a.v, a.set
	var zero T
	a.v, a.set = zero, false
	return v, ok
}
