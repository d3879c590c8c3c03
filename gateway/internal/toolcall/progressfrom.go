package toolcall

import "context"

// ProgressFrom returns the ProgressFunc WithProgress put in ctx (nil: the
// request asked for no progress). Call reads it for the service; stand-ins
// of Call in the transports' tests read it to drive progress themselves.
func ProgressFrom(ctx context.Context) ProgressFunc { return progressOf(ctx) }
