// Package toolrpc is the plain JSON-RPC 2.0 transport of POST /rpc, run by
// the gateway's one pipeline (package pipeline): every tool is a method, its
// params are the tool's arguments in any shape package rpcargs accepts,
// and its result is the tool's JSON result.
//
// It only frames: batches are always accepted (within the pipeline's
// limits); a method that has a tool name's shape is a call of the tool it
// names, run by the gateway's one dispatcher of tool calls
// (toolcall.Caller) — a method that is no tool the caller may call (a tool
// the gateway does not offer, or a name that cannot be one, say
// "tools/list") is JSON-RPC's -32601 listing the caller's tools
// (UnknownMethod; only a tool-shaped one is charged to the caller's rate),
// and a failure is always a JSON-RPC error here (/rpc has no tool result to
// carry one); its HTTP status rules (StatusRules, applied by
// pipeline.Status) are 200 for every JSON-RPC answer unless status mapping
// is on, where each error code has its status (docs/errors.md) and a batch
// takes the highest; a body of notifications only is answered 204 with no
// body.
package toolrpc

import (
	"context"
	"encoding/json"
	"net/http"

	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/rpcargs"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolschema"
)

// unknownLabel is the metric label of a method that is no tool the
// gateway offers (pipeline.Answer.Tool).
const unknownLabel = "unknown"

// Caller is the gateway's one dispatcher of tool calls, which knows no
// protocol: the part of *toolcall.Caller /rpc uses.
type Caller interface {
	// Call runs one tool call; its tool is nil when the gateway does not
	// offer it.
	Call(ctx context.Context, r toolcall.Request) (json.RawMessage, *toolschema.Tool, *rpcerror.Error)
	// UnknownMethod is the -32601 of a method that is no tool the caller
	// may call; tool says whether name has a tool name's shape.
	UnknownMethod(ctx context.Context, name string, tool bool) *rpcerror.Error
}

// Transport is the /rpc envelope.
type Transport struct {
	calls   Caller
	mapping bool
}

// New returns the /rpc transport running its calls through calls, the
// gateway's one dispatcher of tool calls; mapping turns on the HTTP status
// mapping.
func New(calls Caller, mapping bool) *Transport {
	return &Transport{calls: calls, mapping: mapping}
}

// Name implements pipeline.Transport.
func (*Transport) Name() string { return "rpc" }

// Begin implements pipeline.Transport: /rpc accepts every well-formed body.
func (*Transport) Begin(context.Context, *pipeline.Body, []*pipeline.Call, bool) *pipeline.Refusal {
	return nil
}

// Serve implements pipeline.Transport: one tool call. A tool-shaped
// method is a call of the tool it names (an unknown one is refused as a
// method, after its rate is spent); any other method is -32601 at once:
// on plain JSON-RPC no other method exists.
func (t *Transport) Serve(ctx context.Context, _ *pipeline.Body, c *pipeline.Call) pipeline.Answer {
	if c.Invalid != nil {
		return pipeline.Invalid(c)
	}
	req := c.Request
	a := pipeline.Answer{NoReply: req.IsNotification(), Tool: unknownLabel}
	if !toolName(req.Method) {
		a.Err = t.calls.UnknownMethod(ctx, req.Method, false)
		a.Err.RequestID = c.RequestID
		return a
	}
	res, tool, e := t.calls.Call(ctx, toolcall.Request{Name: req.Method, Args: rpcargs.Arguments(req.Method, req.Params),
		RequestID: c.RequestID, Unknown: toolcall.UnknownAsMethod})
	if tool != nil {
		a.Tool = tool.Name
	}
	a.Result, a.Err = res, e
	return a
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
