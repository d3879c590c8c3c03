package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"

	"ghops.dev/redact"

	"ghops.dev/gateway/internal/rpcerror"
)

// Tracer starts the observation of one call (a span, package calltrace)
// and returns the context the call runs in and the function that ends the
// observation with the call's answer. It is a hook, not a chain: the
// concerns of a tool call are toolcall's one interceptor chain, and those
// of an HTTP request plain net/http middleware in front of the pipeline.
type Tracer func(ctx context.Context, x *Body, c *Call) (context.Context, func(Answer))

// serveCall serves one call on transport t: the one place a handler runs,
// on whatever goroutine runs it (the HTTP request's, a batch element's, a
// stdio message's), and so the gateway's one recover (TestCallPathStructure). A
// panic while serving becomes -32603, whose cause (redacted, with the
// stack) goes to the log only, through the sink's one jsonrpc_error line
// and cause record. http.ErrAbortHandler keeps its meaning (net/http aborts
// the response).
func (p *Pipeline) serveCall(ctx context.Context, t Transport, x *Body, c *Call) (a Answer) {
	var end func(Answer)
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
		if end != nil {
			end(a)
		}
	}()
	if p.opts.Trace != nil {
		ctx, end = p.opts.Trace(ctx, x, c)
	}
	return t.Serve(ctx, x, c)
}
