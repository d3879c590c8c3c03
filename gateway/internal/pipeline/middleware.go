package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"

	"ghops.dev/redact"

	"ghops.dev/gateway/internal/rpcerror"
)

// Handler answers one call of a body: the shape of Transport.Serve, and
// of every concern wrapped around it.
type Handler func(ctx context.Context, x *Body, c *Call) Answer

// Middleware wraps a Handler with one concern (tracing, for instance), in
// the style of connect-go's interceptors: it runs code before and after
// next, may change ctx, and may answer without calling next. The pipeline
// applies its middleware once, to every transport alike (Options.Middleware),
// so that each concern lives in one place.
type Middleware func(next Handler) Handler

// chain returns h wrapped in mw, the first outermost.
func chain(h Handler, mw []Middleware) Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		if mw[i] != nil {
			h = mw[i](h)
		}
	}
	return h
}

// Recover is the pipeline's outermost middleware: a panic while serving a
// call becomes -32603, whose cause (redacted, with the stack) goes to the
// log only, through the sink's one jsonrpc_error line and cause record.
// http.ErrAbortHandler keeps its meaning (net/http aborts the response).
func Recover(next Handler) Handler {
	return func(ctx context.Context, x *Body, c *Call) (a Answer) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				cause := fmt.Errorf("panic serving a call (%s): %s\n%s", x.Transport, redact.String(fmt.Sprint(v)), redact.String(string(debug.Stack())))
				a = Answer{Err: rpcerror.Internal("", c.RequestID, cause), Tool: "unknown"}
				if c.Request != nil && c.Request.IsNotification() {
					a.NoReply = true
				}
			}
		}()
		return next(ctx, x, c)
	}
}
