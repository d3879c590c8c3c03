package toolcall

import "context"

// Progress is one step of a call that makes several GitHub requests, as the
// service reports it: Done of Total units (Total is 0 when the service does
// not know the total in advance), with an optional short Message. Progress
// values of one call only grow.
type Progress struct {
	Done    float64
	Total   float64
	Message string
}

// ProgressFunc receives the progress of one call. It is called from the
// goroutine that runs the call, never after Call has returned, and must not
// block for long: a transport that cannot deliver a notification at once
// drops it (progress is advisory, the answer is not).
type ProgressFunc func(Progress)

type progressKey struct{}

// WithProgress returns a context under which Caller.Call reports the
// service's progress of the call to report. Transports set it only when the
// request asked for progress (MCP's params._meta.progressToken): without
// it, Call asks the service for no progress at all.
func WithProgress(ctx context.Context, report ProgressFunc) context.Context {
	if report == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, report)
}

// ProgressFrom returns the ProgressFunc WithProgress put in ctx (nil: the
// request asked for no progress). Call reads it for the service; stand-ins
// of Call in the transports' tests read it to drive progress themselves.
func ProgressFrom(ctx context.Context) ProgressFunc {
	f, _ := ctx.Value(progressKey{}).(ProgressFunc)
	return f
}
