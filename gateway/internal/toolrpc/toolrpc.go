// Package toolrpc is the plain JSON-RPC 2.0 transport of POST /rpc, run by
// the gateway's one pipeline (package pipeline): every tool is a method, its
// params are the tool's arguments in any shape package rpcargs accepts,
// and its result is the tool's JSON result.
//
// It only frames: batches are always accepted (within the pipeline's
// limits); a method that has a tool name's shape is a tools/call of the
// tool it names, and every request goes to the gateway's one dispatcher
// (package dispatch), which decides it — a method that is no tool the
// caller may call (a tool the gateway does not offer, or a name that
// cannot be one, say "tools/list") is JSON-RPC's -32601 listing the
// caller's tools, and a failure is always a JSON-RPC error here (/rpc has
// no tool result to carry one); its HTTP status rules (StatusRules, applied by
// pipeline.Status) are 200 for every JSON-RPC answer unless status mapping
// is on, where each error code has its status (docs/errors.md) and a batch
// takes the highest; a body of notifications only is answered 204 with no
// body.
package toolrpc

import (
	"context"
	"net/http"

	"ghops.dev/gateway/internal/dispatch"
	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/rpcargs"
)

// Transport is the /rpc envelope.
type Transport struct {
	calls   *dispatch.Handler
	mapping bool
}

// New returns the /rpc transport handing its calls to the dispatcher calls;
// mapping turns on the HTTP status mapping.
func New(calls *dispatch.Handler, mapping bool) *Transport {
	return &Transport{calls: calls, mapping: mapping}
}

// Name implements pipeline.Transport.
func (*Transport) Name() string { return "rpc" }

// Begin implements pipeline.Transport: /rpc accepts every well-formed body.
func (*Transport) Begin(context.Context, *pipeline.Body, []*pipeline.Call, bool) *pipeline.Refusal {
	return nil
}

// Serve implements pipeline.Transport: one tool call, framed for the
// dispatcher.
func (t *Transport) Serve(ctx context.Context, _ *pipeline.Body, c *pipeline.Call) pipeline.Answer {
	if c.Invalid != nil {
		return pipeline.Invalid(c)
	}
	req := c.Request
	// A tool-shaped method is a tools/call of the tool it names; anything
	// else is passed on as sent, a method the dispatcher's plain JSON-RPC
	// table does not know (-32601). No Framing.Version: plain JSON-RPC,
	// whose failures are JSON-RPC errors.
	r := dispatch.Request{Method: req.Method, Notification: req.IsNotification(), RequestID: c.RequestID}
	if toolName(req.Method) {
		r.Method, r.Mapped, r.Tool, r.Args = "tools/call", true, req.Method, rpcargs.Arguments(req.Method, req.Params)
	}
	o := t.calls.Serve(ctx, r)
	return pipeline.Answer{Result: o.Result, Err: o.Err, NoReply: o.NoReply, Tool: o.Tool}
}

// toolName reports whether method has the shape of a tool name (lower-case
// snake case, as every tool of the contract is named), so that /rpc maps it
// onto a tools/call.
func toolName(method string) bool {
	if method == "" || len(method) > 128 || method[0] < 'a' || method[0] > 'z' {
		return false
	}
	for i := 0; i < len(method); i++ {
		c := method[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// StatusRules implements pipeline.Transport: 200, or with
// -http-status-mapping the generated table's status (the highest of a
// batch); 204 when nothing is answered.
func (t *Transport) StatusRules() pipeline.StatusRules {
	return pipeline.StatusRules{MapErrors: t.mapping, Empty: http.StatusNoContent}
}
