package dispatch

import (
	"context"
	"encoding/json"
	"net/http"

	"ghops.dev/gateway/internal/rpcerror"
)

// Protocol is what the method table calls for MCP's own methods: their
// answers are MCP's wire (package mcp implements it), while which of them
// runs, at which version, is decided here. It is an interface so that
// dispatch need not import mcp, which imports dispatch for tools/call.
type Protocol interface {
	// Initialize answers initialize's params and returns the negotiated
	// handshake version.
	Initialize(params json.RawMessage) (json.RawMessage, string, *rpcerror.Error)
	// Ping answers ping.
	Ping(params json.RawMessage) (json.RawMessage, *rpcerror.Error)
	// ToolsList answers tools/list for ctx's caller; modern adds
	// 2026-07-28's result members.
	ToolsList(ctx context.Context, params json.RawMessage, modern bool) (json.RawMessage, *rpcerror.Error)
	// Discover answers server/discover.
	Discover(params json.RawMessage) (json.RawMessage, *rpcerror.Error)
	// ToolResult encodes a tools/call outcome as a CallToolResult of
	// version (modern: 2026-07-28).
	ToolResult(o Outcome, version string, modern bool) json.RawMessage
	// NewSession mints a session id naming version for ctx's caller.
	NewSession(ctx context.Context, version string) string
}

// Request is one JSON-RPC request as a transport's framing hands it over.
type Request struct {
	// Method is the method as the framing names it: /rpc names a
	// tool-shaped method "tools/call" (Mapped), anything else as sent.
	Method string
	// Params are the request's params as sent.
	Params json.RawMessage
	// Notification says no answer is wanted.
	Notification bool
	// Batch says the request came in a JSON-RPC batch.
	Batch bool
	// RequestID identifies the request in logs, at the service and in
	// errors.
	RequestID string
	// Tool and Args are a tools/call's name and arguments, taken out of
	// the framing (MCP's params.name and params.arguments; /rpc's method
	// and params).
	Tool string
	Args json.RawMessage
	// Mapped says /rpc's framing mapped a tool-shaped method onto
	// tools/call: on plain JSON-RPC no other method exists.
	Mapped bool
	// Framing says how the request came.
	Framing Framing
	// Protocol implements MCP's own methods; nil on plain JSON-RPC (/rpc),
	// which has none.
	Protocol Protocol
}

// removedInStateless are the methods 2026-07-28 removed: a stateless
// request naming one gets -32601 (and HTTP 404), as for any unknown method.
var removedInStateless = map[string]bool{
	"initialize":                       true,
	"notifications/initialized":        true,
	"ping":                             true,
	"logging/setLevel":                 true,
	"resources/subscribe":              true,
	"resources/unsubscribe":            true,
	"notifications/roots/list_changed": true,
}

// undeclared are the methods of capabilities the gateway does not declare
// (it serves tools only): a server MUST declare what it serves, and a
// client seeing an answer would take the capability as served. They get
// -32601 as any unknown method (HTTP 404 at 2026-07-28).
// subscriptions/listen is among them: with no list-changed capability
// there is nothing to deliver on it.
var undeclared = map[string]bool{
	"prompts/list":             true,
	"prompts/get":              true,
	"resources/list":           true,
	"resources/read":           true,
	"resources/templates/list": true,
	"resources/subscribe":      true,
	"resources/unsubscribe":    true,
	"completion/complete":      true,
	"logging/setLevel":         true,
	"subscriptions/listen":     true,
}

// methodNotFound is -32601 in the framing's words. Two wordings exist
// because two contracts pin them (docs/errors.md and the goldens): plain
// JSON-RPC's "Method not found" on /rpc (the generated table's message),
// and on MCP the words its SDKs answer ("method not found", or why the
// method is missing), which MCP clients and the conformance suite know.
func methodNotFound(r *Request, why string) *rpcerror.Error {
	switch {
	case r.Protocol == nil:
		return rpcerror.New(rpcerror.MethodNotFound, "")
	case why == "":
		return rpcerror.New(rpcerror.MethodNotFound, "method not found")
	}
	return rpcerror.New(rpcerror.MethodNotFound, "Method not found: "+r.Method+why)
}

// Serve is the method table: it decides which method runs for r, at the
// version its framing resolved, and answers it. What the framing must
// apply (a session header, a stdio connection's negotiated version, a
// cancellation) comes back in the Outcome.
func (h *Handler) Serve(ctx context.Context, r Request) Outcome {
	p := r.Protocol
	if p == nil {
		// Plain JSON-RPC: a tool is a method; nothing else exists, so a
		// method that is no tool is -32601 (JSON-RPC 2.0), listing the
		// caller's tools. A tool-shaped one is charged to the caller's
		// rate like any call: no refused call is free.
		if r.Mapped && h.Offers(r.Tool) {
			o := h.ToolsCall(ctx, ToolCall{Name: r.Tool, Args: r.Args, RequestID: r.RequestID, Framing: r.Framing})
			o.NoReply = r.Notification
			return o
		}
		var e *rpcerror.Error
		if r.Mapped {
			e = h.caller.Spend(ctx, r.Tool)
		}
		if e == nil {
			e = h.caller.UnknownMethod(ctx, r.Tool, r.Mapped)
		}
		e.RequestID = r.RequestID
		return Outcome{Err: e, Tool: UnknownLabel, NoReply: r.Notification}
	}
	f := r.Framing
	if r.Notification {
		// MCP answers no notification; a cancellation names the request
		// the framing cancels.
		o := Outcome{NoReply: true}
		if r.Method == "notifications/cancelled" {
			o.Cancel = r.Params
		}
		return o
	}
	var (
		res json.RawMessage
		e   *rpcerror.Error
	)
	switch {
	case f.Modern && removedInStateless[r.Method]:
		e = methodNotFound(&r, " was removed in protocol version "+f.Version)
	case undeclared[r.Method]:
		e = methodNotFound(&r, " (the gateway serves tools only)")
	case r.Method == "initialize" && !f.Modern:
		return h.initialize(ctx, &r)
	case r.Method == "tools/call":
		o := h.ToolsCall(ctx, ToolCall{Name: r.Tool, Args: r.Args, RequestID: r.RequestID, Framing: f})
		if o.Err != nil && !o.AsResult {
			return o
		}
		o.Result = p.ToolResult(o, f.Version, f.Modern)
		return o
	case r.Method == "tools/list":
		res, e = p.ToolsList(ctx, r.Params, f.Modern)
	case r.Method == "ping" && !f.Modern:
		res, e = p.Ping(r.Params)
	case r.Method == "server/discover" && f.Modern:
		res, e = p.Discover(r.Params)
	default:
		e = methodNotFound(&r, "")
	}
	o := Outcome{Result: res, Err: e}
	if f.Modern && f.HTTP && e != nil && e.Code == rpcerror.MethodNotFound {
		// 2026-07-28 answers an unknown method 404 on Streamable HTTP.
		o.Status = http.StatusNotFound
	}
	return o
}

// initialize runs the handshake: never in a batch; the negotiated version
// goes to the framing (a new session on HTTP, the connection's version on
// stdio).
func (h *Handler) initialize(ctx context.Context, r *Request) Outcome {
	if r.Batch {
		return Outcome{Err: rpcerror.New(rpcerror.InvalidRequest, "Invalid Request: initialize must not be part of a JSON-RPC batch")}
	}
	res, version, e := r.Protocol.Initialize(r.Params)
	if e != nil {
		return Outcome{Err: e}
	}
	o := Outcome{Result: res, Negotiated: version}
	if r.Framing.HTTP {
		o.SessionHeader = r.Protocol.NewSession(ctx, version)
	}
	return o
}
