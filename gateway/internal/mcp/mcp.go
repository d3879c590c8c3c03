// Package mcp is the gateway's Model Context Protocol layer. The protocol
// itself (initialize and version negotiation, ping, tools/list and its
// pages, tools/call dispatch, server/discover, the per-request _meta of
// 2026-07-28, cancellation) is the official Go SDK's
// (github.com/modelcontextprotocol/go-sdk): the registry's tools are added
// to an SDK server raw (Server.AddTool), with the gateway's own AJV-style
// validation and error contract inside the tool handler.
//
// What stays here is what the contract needs and the SDK cannot give (see
// docs/architecture.md): the Streamable HTTP and stdio envelope rules, run
// inside the gateway's one request pipeline (package edge), which feeds the
// SDK decoded requests over in-process connections (link.go) to long-lived
// SDK sessions, one per protocol version; and sessions that any replica
// accepts (session.go).
//
// The envelope rules (envelope.go):
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
//     with HTTP 404 at 2026-07-28; the SDK would answer them empty.
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
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ghops.dev/gateway/internal/policy"
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

// callStateKey is the TokenInfo.Extra key carrying a call's state into the
// SDK's tool handler.
const callStateKey = "dev.ghops/call"

// toolCaller is the part of *toolcall.Caller the server uses.
type toolCaller interface {
	Call(ctx context.Context, name string, args json.RawMessage, info toolcall.CallInfo) (json.RawMessage, *rpcerror.Error)
	// Spend charges a call refused before Call (an unknown tool) to the
	// caller's rate.
	Spend(ctx context.Context, name string) *rpcerror.Error
}

// Server is the MCP layer: an SDK server with the registry's tools and its
// in-process sessions. It is safe for concurrent use; Close ends its
// sessions.
type Server struct {
	reg      *toolschema.Registry
	caller   toolCaller
	mode     string
	version  string
	log      *slog.Logger
	sess     sessions
	pageSize int

	readOnly   bool
	toolsets   []string        // the gateway's groups (nil: every group)
	serverInfo []byte          // {"name":...,"version":...}
	tools      []policy.Tool   // every tool, in registry order
	names      []any           // tool names, for an unknown tool's violation
	offered    map[string]bool // the tools of the gateway's toolsets
	inflight   sync.Map        // cancellation key -> context.CancelFunc

	mu   sync.Mutex
	full *toolset            // every tool
	sets map[string]*toolset // by the comma-joined names of the tools it lists
}

// toolset is one SDK server listing some of the tools, with its sessions:
// what a principal restricted to those tools sees in tools/list.
type toolset struct {
	sdk    *sdk.Server
	legacy map[string]*link // handshake version -> session initialized at it
	modern *link            // session serving 2026-07-28 requests
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

// WithPageSize sets how many tools one tools/list page holds (default: the
// SDK's).
func WithPageSize(n int) Option { return func(s *Server) { s.pageSize = n } }

// New returns the MCP layer over the tools of reg, calling them through
// caller, with its sessions connected.
func New(reg *toolschema.Registry, caller toolCaller, opts ...Option) (*Server, error) {
	s := &Server{
		reg: reg, caller: caller, mode: ToolErrorsAuto, version: "dev", log: slog.Default(),
		sess: sessions{maxAge: DefaultSessionMaxAge, now: time.Now}, offered: map[string]bool{},
	}
	for _, o := range opts {
		o(s)
	}
	if s.sess.secret == nil {
		s.sess.secret = randomSecret()
	}
	s.serverInfo, _ = json.Marshal(sdk.Implementation{Name: ServerName, Version: s.version})
	var all []string
	for _, t := range reg.Tools() {
		set := toolgroup.Of(t.Method)
		if !toolgroup.Includes(s.toolsets, set) {
			continue
		}
		s.names = append(s.names, t.Name)
		s.offered[t.Name] = true
		s.tools = append(s.tools, policy.Tool{Name: t.Name, ReadOnly: t.Annotations.ReadOnlyHint, Toolset: set})
		all = append(all, t.Name)
	}
	full, err := s.newToolset(all)
	if err != nil {
		return nil, err
	}
	s.full, s.sets = full, map[string]*toolset{strings.Join(all, ","): full}
	return s, nil
}

// newToolset builds an SDK server listing the named tools and connects its
// long-lived sessions: one per handshake version, and one for 2026-07-28.
func (s *Server) newToolset(names []string) (*toolset, error) {
	ts := &toolset{legacy: map[string]*link{}}
	ts.sdk = sdk.NewServer(&sdk.Implementation{Name: ServerName, Version: s.version}, &sdk.ServerOptions{
		// The SDK logs every session it connects at Info: here that is every
		// initialize, so only its warnings are worth a record.
		Logger:       slog.New(warnAndAbove{s.log.Handler()}),
		PageSize:     s.pageSize,
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	for _, n := range names {
		if t, ok := s.reg.Lookup(n); ok {
			ts.sdk.AddTool(sdkTool(t), s.handler(t))
		}
	}
	ctx := context.Background()
	for _, v := range legacyVersions {
		l := newLink()
		state := &sdk.ServerSessionState{
			InitializeParams:  &sdk.InitializeParams{ProtocolVersion: v, Capabilities: &sdk.ClientCapabilities{}},
			InitializedParams: &sdk.InitializedParams{},
		}
		if _, err := ts.sdk.Connect(ctx, l, &sdk.ServerSessionOptions{State: state}); err != nil {
			ts.close()
			return nil, fmt.Errorf("mcp: session for %s: %w", v, err)
		}
		ts.legacy[v] = l
	}
	ts.modern = newLink()
	if _, err := ts.sdk.Connect(ctx, ts.modern, &sdk.ServerSessionOptions{State: &sdk.ServerSessionState{}}); err != nil {
		ts.close()
		return nil, fmt.Errorf("mcp: stateless session: %w", err)
	}
	return ts, nil
}

// warnAndAbove passes on only records of level Warn and above.
type warnAndAbove struct{ slog.Handler }

// Enabled implements slog.Handler.
func (h warnAndAbove) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.Handler.Enabled(ctx, l)
}

// close ends a toolset's sessions.
func (ts *toolset) close() {
	for _, l := range ts.legacy {
		_ = l.Close()
	}
	if ts.modern != nil {
		_ = ts.modern.Close()
	}
}

// linkFor returns the session serving r.
func (ts *toolset) linkFor(r resolved) *link {
	if r.modern {
		return ts.modern
	}
	if l := ts.legacy[r.version]; l != nil {
		return l
	}
	return ts.legacy[V20251125]
}

// toolsetFor returns the toolset of ctx's caller: the tools its principal
// may call (and only read-only ones in read-only mode), made on first use.
func (s *Server) toolsetFor(ctx context.Context) (*toolset, error) {
	var pr *policy.Principal
	if c := policy.CallerFrom(ctx); c != nil {
		pr = c.Principal
	}
	if pr == nil && !s.readOnly {
		return s.full, nil
	}
	names := policy.Allowed(pr, s.tools, s.readOnly)
	key := strings.Join(names, ",")
	s.mu.Lock()
	defer s.mu.Unlock()
	if ts := s.sets[key]; ts != nil {
		return ts, nil
	}
	ts, err := s.newToolset(names)
	if err != nil {
		return nil, err
	}
	s.sets[key] = ts
	return ts, nil
}

// visible returns the names of the tools ctx's caller sees in tools/list,
// for an unknown tool's error.
func (s *Server) visible(ctx context.Context) []any {
	var pr *policy.Principal
	if c := policy.CallerFrom(ctx); c != nil {
		pr = c.Principal
	}
	if pr == nil && !s.readOnly {
		return s.names
	}
	names := policy.Allowed(pr, s.tools, s.readOnly)
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out
}

// Close ends the server's sessions.
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ts := range s.sets {
		ts.close()
	}
}

// sdkTool describes a registry tool to the SDK. Every byte of a definition
// costs the model context on every session (the budget of
// TestToolsListBudget, docs/benchmarks.md), so it states only what differs
// from MCP's defaults: annotations equal to the specification's defaults
// (readOnlyHint false, destructiveHint true, idempotentHint false,
// openWorldHint true) are left out, as are destructiveHint and idempotentHint
// on a read-only tool (the specification gives them meaning only when
// readOnlyHint is false), and a title that only repeats the name (clients
// show the name when there is no title).
func sdkTool(t *toolschema.Tool) *sdk.Tool {
	a := &sdk.ToolAnnotations{ReadOnlyHint: t.Annotations.ReadOnlyHint}
	if !t.Annotations.ReadOnlyHint {
		a.IdempotentHint = t.Annotations.IdempotentHint
		if !t.Annotations.DestructiveHint {
			f := false
			a.DestructiveHint = &f
		}
	}
	if !t.Annotations.OpenWorldHint {
		f := false
		a.OpenWorldHint = &f
	}
	if *a == (sdk.ToolAnnotations{}) {
		a = nil
	}
	title := t.Title
	if strings.EqualFold(title, strings.ReplaceAll(t.Name, "_", " ")) {
		title = ""
	}
	return &sdk.Tool{
		Name: t.Name, Title: title, Description: t.Description,
		InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: a,
	}
}

// callState is what the envelope knows about one tools/call, handed to the
// SDK's tool handler through RequestExtra, and what the handler leaves for
// the envelope (the failure, whichever way it was answered).
type callState struct {
	ctx       context.Context // the caller's context: deadline, cancellation, principal
	requestID string
	version   string // the protocol version the request is served at
	named     bool   // the request named a protocol version
	err       *rpcerror.Error
}

// extra wraps cs for the SDK.
func (cs *callState) extra() *sdk.RequestExtra {
	return &sdk.RequestExtra{TokenInfo: &auth.TokenInfo{Extra: map[string]any{callStateKey: cs}}}
}

// stateOf returns the call state of a tool request (nil when the request did
// not come through the envelope, which cannot happen: the SDK server is
// reachable only through the links).
func stateOf(req *sdk.CallToolRequest) *callState {
	if req == nil || req.Extra == nil || req.Extra.TokenInfo == nil {
		return nil
	}
	cs, _ := req.Extra.TokenInfo.Extra[callStateKey].(*callState)
	return cs
}

// handler is the SDK tool handler of tool t: the shared call path
// (toolcall) and the tool-error rule. The envelope's own tools/call path
// (fastpath.go) runs the same code without the SDK's dispatch.
func (s *Server) handler(t *toolschema.Tool) sdk.ToolHandler {
	return func(sdkCtx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		cs := stateOf(req)
		if cs == nil {
			return nil, &jsonrpc.Error{Code: rpcerror.InternalError, Message: "Internal error"}
		}
		// The caller's context governs the call; the SDK's (ended by a
		// notifications/cancelled) stops it too.
		ctx, cancel := context.WithCancel(cs.ctx)
		defer cancel()
		stop := context.AfterFunc(sdkCtx, cancel)
		defer stop()
		o := s.run(ctx, cs, t.Name, req.Params.Arguments)
		if o.err != nil && !o.asResult {
			// The envelope answers with the contract error itself (cs.err);
			// this is only what the SDK hands back.
			return nil, &jsonrpc.Error{Code: int64(o.err.Code), Message: o.err.Message}
		}
		return o.sdkResult(), nil
	}
}

// toolOutcome is what one tools/call came to.
type toolOutcome struct {
	res      json.RawMessage // the tool's JSON result (success)
	err      *rpcerror.Error // the failure
	asResult bool            // the failure is answered as an isError result
	version  string          // the protocol version of the answer
	reg      *toolschema.Registry
}

// run calls tool name with args through the shared call path and applies
// the tool-error rule; the failure is also left in cs for the envelope.
func (s *Server) run(ctx context.Context, cs *callState, name string, args json.RawMessage) toolOutcome {
	res, e := s.caller.Call(ctx, name, stripMeta(args), toolcall.CallInfo{RequestID: cs.requestID})
	cs.err = e
	return toolOutcome{res: res, err: e, asResult: e != nil && s.asResult(cs), version: cs.version, reg: s.reg}
}

// sdkResult is the outcome as the SDK's CallToolResult.
func (o toolOutcome) sdkResult() *sdk.CallToolResult {
	if o.err != nil {
		return &sdk.CallToolResult{
			IsError: true,
			Content: []sdk.Content{&sdk.TextContent{Text: RenderError(o.err, o.reg)}},
			Meta:    sdk.Meta{ErrorMetaKey: json.RawMessage(errorObject(o.err))},
		}
	}
	r := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(o.res)}}}
	if hasStructuredContent(o.version) {
		r.StructuredContent = o.res
	}
	return r
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
