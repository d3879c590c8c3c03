// Package mcp is the gateway's Model Context Protocol implementation: one
// implementation of its own, with no SDK in the serving path. It answers
// initialize (version negotiation), ping, tools/list and its pages,
// tools/call, server/discover, notifications (cancellation) and unknown
// methods itself (methods.go, transport.go), inside the gateway's one
// request pipeline (package pipeline); sessions are signed ids any replica
// accepts (session.go).
//
// Why not the official Go SDK's server: serving a call through its
// stateless Streamable HTTP handler cost 164 µs and 310 KB per call against
// about 95 µs of gateway CPU for the whole of this path (docs/benchmarks.md,
// docs/architecture.md "The MCP layer"), far above the 15% issue 21 allows.
// The SDK stays in the tests as the reference client: the e2e tests, the
// conformance suite and the TypeScript SDK and mcp-go clients judge this
// implementation's wire.
//
// The transport rules (transport.go):
//
//   - A request's version: 2026-07-28 when its params._meta names it (with
//     the MCP-Protocol-Version header on HTTP, which must agree), else the
//     MCP-Protocol-Version header, else its Mcp-Session-Id's, else the
//     version initialize negotiated on the stdio connection, else 2025-03-26.
//     An unsupported version is -32022 with HTTP 400.
//   - 2026-07-28 requests need _meta with protocolVersion and
//     clientCapabilities (-32602, HTTP 400) and, on HTTP, Mcp-Method (and
//     Mcp-Name for tools/call) agreeing with the body (-32020, HTTP 400).
//     Methods the revision removed are -32601 with HTTP 404.
//   - Methods of capabilities the gateway does not declare (prompts,
//     resources, completion, logging, subscriptions/listen) are -32601,
//     with HTTP 404 at 2026-07-28 (a server must not answer what it does
//     not declare).
//   - tools/list is cacheScope "private" with ttlMs 60000 when the
//     caller's policy narrows it, "public" with ttlMs 0 otherwise.
//   - Batches only at 2025-03-26; initialize never in a batch.
//   - Sessions (HTTP, handshake versions): initialize mints an
//     Mcp-Session-Id that is an HMAC over version, issue time and a nonce;
//     any replica with the same secret accepts it. A forged or expired id
//     gets 404; a request without one is served. GET and DELETE get 405.
//
// Tool errors (the one rule, docs/errors.md): a failed tools/call is an
// isError CallToolResult when the request named a protocol version (session,
// header, _meta, or an initialized stdio connection) — its text renders the
// error, result._meta["dev.ghops/error"] carries the contract's
// {code, message, data}, and it has no structuredContent — and a JSON-RPC
// error object otherwise. -mcp-tool-errors jsonrpc|result forces either.
// An unknown tool is always a JSON-RPC error.
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/rpcargs"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolschema"
	toolgroup "ghops.dev/gateway/internal/toolset"
)

// Tool-error modes (-mcp-tool-errors).
const (
	// ToolErrorsAuto answers a failed tool call with an isError result when
	// the request named a protocol version, else with a JSON-RPC error.
	ToolErrorsAuto = "auto"
	// ToolErrorsJSONRPC always answers with a JSON-RPC error object.
	ToolErrorsJSONRPC = "jsonrpc"
	// ToolErrorsResult always answers with an isError tool result.
	ToolErrorsResult = "result"
)

// ErrorMetaKey is the result._meta key of an isError result's contract
// error object.
const ErrorMetaKey = "dev.ghops/error"

// ServerName is the name the gateway gives itself in serverInfo.
const ServerName = "ghops-gateway"

// DefaultSessionMaxAge is how long a minted session id stays valid.
const DefaultSessionMaxAge = 24 * time.Hour

// toolCaller is the part of *toolcall.Caller the server uses.
type toolCaller interface {
	Call(ctx context.Context, name string, args json.RawMessage, info toolcall.CallInfo) (json.RawMessage, *rpcerror.Error)
	// Spend charges a call refused before Call (an unknown tool) to the
	// caller's rate.
	Spend(ctx context.Context, name string) *rpcerror.Error
	// UnknownTool is the one answer to a tool the gateway does not offer
	// (toolcall.Caller.UnknownTool).
	UnknownTool(ctx context.Context, name string) *rpcerror.Error
}

// Server is the MCP layer: the protocol's methods over the registry's
// tools. It is safe for concurrent use.
type Server struct {
	reg      *toolschema.Registry
	caller   toolCaller
	mode     string
	version  string
	log      *slog.Logger
	sess     sessions
	pageSize int

	readOnly     bool
	toolsets     []string          // the gateway's groups (nil: every group)
	serverInfo   []byte            // {"name":...,"version":...}
	instructions []byte            // Instructions as a JSON string
	tools        []policy.Tool     // every offered tool, in registry order
	offered      map[string]bool   // the tools of the gateway's toolsets
	defs         map[string][]byte // each offered tool's encoded definition
	sorted       []string          // the gateway-wide tools/list, by name
	inflight     sync.Map          // cancellation key -> context.CancelFunc
}

// Option configures a Server.
type Option func(*Server)

// WithToolErrorMode selects the tool-error rule: ToolErrorsAuto (default),
// ToolErrorsJSONRPC or ToolErrorsResult; anything else keeps the default.
func WithToolErrorMode(mode string) Option {
	return func(s *Server) {
		switch mode {
		case ToolErrorsAuto, ToolErrorsJSONRPC, ToolErrorsResult:
			s.mode = mode
		}
	}
}

// WithSessionSecret sets the key session ids are signed with. Every replica
// behind one URL must get the same secret; an empty one keeps a random
// per-process key.
func WithSessionSecret(secret []byte) Option {
	return func(s *Server) {
		if len(secret) > 0 {
			s.sess.secret = append([]byte(nil), secret...)
		}
	}
}

// WithSessionMaxAge sets how long a session id is accepted (default
// DefaultSessionMaxAge; <= 0: forever).
func WithSessionMaxAge(d time.Duration) Option { return func(s *Server) { s.sess.maxAge = d } }

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(s *Server) {
		if l != nil {
			s.log = l
		}
	}
}

// WithServerVersion sets serverInfo.version (default "dev").
func WithServerVersion(v string) Option {
	return func(s *Server) {
		if v != "" {
			s.version = v
		}
	}
}

// WithReadOnly hides every writing tool from tools/list, as the call path
// (toolcall.WithReadOnly) refuses them.
func WithReadOnly(on bool) Option { return func(s *Server) { s.readOnly = on } }

// WithToolsets lists only the tools of these groups (nil: every group;
// package toolset), as the call path (toolcall.WithToolsets) knows no
// other: a tool outside them is an unknown tool for every session.
func WithToolsets(sets []string) Option { return func(s *Server) { s.toolsets = sets } }

// WithPageSize sets how many tools one tools/list page holds (default
// 1000: every tool on one page).
func WithPageSize(n int) Option { return func(s *Server) { s.pageSize = n } }

// New returns the MCP layer over the tools of reg, calling them through
// caller.
func New(reg *toolschema.Registry, caller toolCaller, opts ...Option) (*Server, error) {
	s := &Server{
		reg: reg, caller: caller, mode: ToolErrorsAuto, version: "dev", log: slog.Default(),
		sess: sessions{maxAge: DefaultSessionMaxAge, now: time.Now}, offered: map[string]bool{},
		defs: map[string][]byte{},
	}
	for _, o := range opts {
		o(s)
	}
	if s.pageSize <= 0 {
		s.pageSize = defaultPageSize
	}
	if s.sess.secret == nil {
		s.sess.secret = randomSecret()
	}
	s.serverInfo, _ = json.Marshal(struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}{ServerName, s.version})
	s.instructions, _ = json.Marshal(Instructions)
	for _, t := range reg.Tools() {
		set := toolgroup.Of(t.Method)
		if !toolgroup.Includes(s.toolsets, set) {
			continue
		}
		def, err := encodeTool(t)
		if err != nil {
			return nil, fmt.Errorf("mcp: tool %s: %w", t.Name, err)
		}
		s.offered[t.Name] = true
		s.defs[t.Name] = def
		s.tools = append(s.tools, policy.Tool{Name: t.Name, ReadOnly: t.Annotations.ReadOnlyHint, Toolset: set})
	}
	s.sorted = policy.Allowed(nil, s.tools, s.readOnly)
	slices.Sort(s.sorted)
	return s, nil
}

// Close releases the server's resources. The gateway's MCP layer holds
// none beyond memory (no sessions: session ids are signed, session.go); it
// stays for the binaries' shutdown order.
func (s *Server) Close() {}

// callState is what the transport knows about one tools/call.
type callState struct {
	requestID string
	version   string // the protocol version the request is served at
	named     bool   // the request named a protocol version
}

// toolOutcome is what one tools/call came to.
type toolOutcome struct {
	res      json.RawMessage // the tool's JSON result (success)
	err      *rpcerror.Error // the failure
	asResult bool            // the failure is answered as an isError result
	version  string          // the protocol version of the answer
	reg      *toolschema.Registry
}

// callTool calls tool name with args through the shared call path and applies
// the tool-error rule.
func (s *Server) callTool(ctx context.Context, cs *callState, name string, args json.RawMessage) toolOutcome {
	res, e := s.caller.Call(ctx, name, rpcargs.WithoutMeta(args), toolcall.CallInfo{RequestID: cs.requestID})
	return toolOutcome{res: res, err: e, asResult: e != nil && s.asResult(cs), version: cs.version, reg: s.reg}
}

// asResult applies the tool-error rule to one call.
func (s *Server) asResult(cs *callState) bool {
	switch s.mode {
	case ToolErrorsJSONRPC:
		return false
	case ToolErrorsResult:
		return true
	}
	return cs.named
}

// errorObject encodes the contract's error object {code, message, data}.
func errorObject(e *rpcerror.Error) []byte {
	obj, err := json.Marshal(e.JSONRPC())
	if err != nil {
		return []byte(`{"code":-32603,"message":"Internal error"}`)
	}
	return obj
}
