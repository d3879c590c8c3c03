// Package dispatch is the gateway's one dispatcher: every transport
// (/rpc, /mcp, stdio) frames its bytes into requests — /rpc maps a
// tool-shaped method onto tools/call and passes anything else on as a
// method its table does not know — and hands them to Handler, which
// decides, once for all of them:
//
//   - which method runs (Handler.Serve, methods.go): the one method table
//     (initialize, ping, tools/list, tools/call, server/discover,
//     notifications/*, the undeclared capabilities such as
//     logging/setLevel, anything else -32601), with the version rules of
//     which method a protocol version allows (2026-07-28 removed the
//     handshake and ping, and alone has server/discover) and the -32601
//     wording of each framing; MCP's answers themselves are package mcp's
//     (the Protocol interface);
//   - unknown tools: on MCP (/mcp, stdio) a tools/call of a tool the
//     gateway does not offer is toolcall.Caller.UnknownTool's -32602, as
//     MCP says; on /rpc, where a tool is a method, it is
//     toolcall.Caller.UnknownMethod's -32601 listing the caller's tools,
//     as JSON-RPC says. Both are charged to the caller's rate like any
//     call and are always a JSON-RPC error whatever the tool-error rule;
//   - the tool-error rule (docs/architecture.md "The rule",
//     docs/errors.md): a failed call is an isError tool result when the
//     request named an MCP protocol version, a JSON-RPC error otherwise;
//     -mcp-tool-errors (WithToolErrors) forces either on MCP; /rpc, which
//     has no tool result to carry an error in, always answers a JSON-RPC
//     error.
//
// The transports keep only their framing: where a call's name and
// arguments sit in the body, which protocol version a request is served
// at (headers, session, _meta, the stdio handshake), and applying what an
// Outcome asks of the framing (a session header, a stdio connection's
// negotiated version, a cancellation).
package dispatch

import (
	"context"
	"encoding/json"

	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolschema"
)

// Tool-error modes (-mcp-tool-errors; config.ToolErrors*).
const (
	// ToolErrorsAuto answers a failed MCP tool call with an isError result
	// when the request named a protocol version, else with a JSON-RPC
	// error.
	ToolErrorsAuto = "auto"
	// ToolErrorsJSONRPC always answers with a JSON-RPC error object.
	ToolErrorsJSONRPC = "jsonrpc"
	// ToolErrorsResult answers every failed MCP tool call with an isError
	// tool result.
	ToolErrorsResult = "result"
)

// UnknownLabel is the metric label of a call of a tool the gateway does
// not offer (pipeline.Answer.Tool).
const UnknownLabel = "unknown"

// ToolCaller is the tool call path the Handler dispatches to: the part of
// *toolcall.Caller it uses.
type ToolCaller interface {
	// Lookup returns the tool named name if the gateway offers it.
	Lookup(name string) (*toolschema.Tool, bool)
	// Call runs an offered tool through the call chain.
	Call(ctx context.Context, name string, args json.RawMessage, info toolcall.CallInfo) (json.RawMessage, *rpcerror.Error)
	// Spend charges a call refused before Call (an unknown tool) to the
	// caller's rate.
	Spend(ctx context.Context, name string) *rpcerror.Error
	// UnknownTool is MCP's answer to a tool the gateway does not offer.
	UnknownTool(ctx context.Context, name string) *rpcerror.Error
	// UnknownMethod is /rpc's answer to a method that is no tool the
	// caller may call; tool says whether name has a tool name's shape.
	UnknownMethod(ctx context.Context, name string, tool bool) *rpcerror.Error
}

// Framing is what a transport's framing knows about one call beside its
// name and arguments.
type Framing struct {
	// Version is the MCP protocol version the request is served at; "" for
	// plain JSON-RPC (/rpc), which has no tool result to render an error in.
	Version string
	// Named says the request named its MCP protocol version (a session, the
	// MCP-Protocol-Version header, params._meta, or an initialized stdio
	// connection).
	Named bool
	// Modern says the request is served statelessly at 2026-07-28.
	Modern bool
	// HTTP says the request came over HTTP, where an answer may carry its
	// own status (stdio has none).
	HTTP bool
}

// ToolCall is one tools/call as a transport's framing hands it over.
type ToolCall struct {
	// Name is the tool's name as sent.
	Name string
	// Args are its arguments, already taken out of the framing (package
	// rpcargs).
	Args json.RawMessage
	// RequestID identifies the call in logs, at the service and in errors.
	RequestID string
	// Framing says how the call came.
	Framing Framing
}

// Outcome is what one tools/call came to.
type Outcome struct {
	// Result is the tool's JSON result (nil on failure).
	Result json.RawMessage
	// Err is the failure (nil on success).
	Err *rpcerror.Error
	// AsResult says the failure is answered as an isError tool result
	// rather than a JSON-RPC error.
	AsResult bool
	// Tool labels the call metric: the tool's name, or UnknownLabel.
	Tool string
	// NoReply says nothing is answered (a notification).
	NoReply bool
	// Status is the HTTP status the answer asks for (0: the transport's
	// StatusRules decide).
	Status int
	// Negotiated is the version initialize negotiated, for the framing to
	// remember (a stdio connection).
	Negotiated string
	// SessionHeader is a new Mcp-Session-Id for the framing to send
	// (initialize over HTTP).
	SessionHeader string
	// Cancel are the params of a notifications/cancelled: the framing
	// cancels the request they name in its scope.
	Cancel json.RawMessage
}

// Handler is the one dispatcher. It is safe for concurrent use.
type Handler struct {
	caller ToolCaller
	mode   string
}

// Option configures a Handler.
type Option func(*Handler)

// WithToolErrors selects the tool-error rule of MCP calls: ToolErrorsAuto
// (default), ToolErrorsJSONRPC or ToolErrorsResult; anything else keeps the
// default (package config refuses it first).
func WithToolErrors(mode string) Option {
	return func(h *Handler) {
		switch mode {
		case ToolErrorsAuto, ToolErrorsJSONRPC, ToolErrorsResult:
			h.mode = mode
		}
	}
}

// New returns the dispatcher over caller.
func New(caller ToolCaller, opts ...Option) *Handler {
	h := &Handler{caller: caller, mode: ToolErrorsAuto}
	for _, o := range opts {
		o(h)
	}
	return h
}

// Offers reports whether the gateway offers the tool named name.
func (h *Handler) Offers(name string) bool {
	_, ok := h.caller.Lookup(name)
	return ok
}

// ToolsCall runs one tools/call and decides how its failure is answered.
func (h *Handler) ToolsCall(ctx context.Context, c ToolCall) Outcome {
	if !h.Offers(c.Name) {
		// Refused before the call chain runs, so its rate is spent here:
		// no refused call is free (docs/errors.md).
		e := h.caller.Spend(ctx, c.Name)
		if e == nil {
			e = h.caller.UnknownTool(ctx, c.Name)
		}
		e.RequestID = c.RequestID
		return Outcome{Err: e, Tool: UnknownLabel}
	}
	res, e := h.caller.Call(ctx, c.Name, c.Args, toolcall.CallInfo{RequestID: c.RequestID})
	return Outcome{Result: res, Err: e, AsResult: e != nil && h.asResult(c.Framing), Tool: c.Name}
}

// asResult is the tool-error rule for a failed call of an offered tool.
func (h *Handler) asResult(f Framing) bool {
	if f.Version == "" {
		return false
	}
	switch h.mode {
	case ToolErrorsJSONRPC:
		return false
	case ToolErrorsResult:
		return true
	}
	return f.Named
}
