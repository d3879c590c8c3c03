// Package ctxsleep is the one wait that a cancelled call cuts short: the
// client's retries, the service's retries of GitHub reads and its GitHub
// budget all pause between attempts, and none may outlive the call that
// waits (time.Sleep would keep a cancelled call's goroutine busy).
package ctxsleep

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx ends, whichever comes first; it returns
// ctx.Err() in the second case and nil in the first.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
