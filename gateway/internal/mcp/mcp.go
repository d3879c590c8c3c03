// Package mcp is the gateway's Model Context Protocol implementation: one
// implementation of its own, with no SDK in the serving path. It frames
// Streamable HTTP and stdio (transport.go) inside the gateway's one request
// pipeline (package pipeline) and holds every rule of the protocol, here
// alone: versions and sessions, the method table (which method runs at
// which version, the stateless revision's removed methods, undeclared
// capabilities, initialize never in a batch: methods.go), the answers of
// initialize, ping, tools/list and its pages, server/discover, and a
// tools/call's CallToolResult under the tool-error rule (toolresult.go).
// A tools/call's tool runs through the gateway's one dispatcher of tool
// calls, toolcall.Caller, which knows no protocol. Sessions are signed ids
// any replica accepts (session.go).
//
// Why not the official Go SDK's server: serving a call through its
// stateless Streamable HTTP handler cost 164 µs and 310 KB per call against
// about 95 µs of gateway CPU for the whole of this path (docs/benchmarks.md,
// docs/architecture.md "The MCP layer"), far above the 15% issue 21 allows.
// The SDK stays in the tests as the reference client: the e2e tests, the
// conformance suite and the TypeScript SDK and mcp-go clients judge this
// implementation's wire.
//
// The protocol's rules:
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
//   - A person's confirmation of a tool call (toolcall's confirm link,
//     confirm.go): at 2026-07-28 an input-required result with an
//     elicitation/create input request and a sealed requestState; before,
//     elicitation/create sent ahead of the answer to a client that
//     declared elicitation in initialize (the session id records it), its
//     response matched by id within the session or stdio connection.
//
// Tool errors (the one rule, docs/errors.md): a failed tools/call is an
// isError CallToolResult when the request named a protocol version (session,
// header, _meta, or an initialized stdio connection) — its text renders the
// error, result._meta["dev.ghops/error"] carries the contract's
// {code, message, data}, and it has no structuredContent — and a JSON-RPC
// error object otherwise. -mcp-tool-errors jsonrpc|result forces either.
// An unknown tool is always a JSON-RPC error (toolcall.Caller's
// UnknownTool).
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
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolschema"
	toolgroup "ghops.dev/gateway/internal/toolset"
)

// ErrorMetaKey is the result._meta key of an isError result's contract
// error object.
const ErrorMetaKey = "dev.ghops/error"

// ServerName is the name the gateway gives itself in serverInfo.
const ServerName = "ghops-gateway"

// DefaultSessionMaxAge is how long a minted session id stays valid.
const DefaultSessionMaxAge = 24 * time.Hour

// Tool-error modes (-mcp-tool-errors; config.ToolErrors*).
const (
	// ToolErrorsAuto answers a failed tool call with an isError result
	// when the request named a protocol version, else with a JSON-RPC
	// error.
	ToolErrorsAuto = "auto"
	// ToolErrorsJSONRPC always answers with a JSON-RPC error object.
	ToolErrorsJSONRPC = "jsonrpc"
	// ToolErrorsResult answers every failed tool call with an isError
	// tool result.
	ToolErrorsResult = "result"
)

// UnknownLabel is the metric label of a call of a tool the gateway does
// not offer (pipeline.Answer.Tool).
const UnknownLabel = "unknown"

// Caller is the gateway's one dispatcher of tool calls, which knows no
// protocol: the part of *toolcall.Caller a tools/call uses.
type Caller interface {
	// Call runs one tool call; its tool is nil when the gateway does not
	// offer it.
	Call(ctx context.Context, r toolcall.Request) (json.RawMessage, *toolschema.Tool, *rpcerror.Error)
}

// Server is the MCP layer: the protocol's methods over the registry's
// tools. It is safe for concurrent use.
type Server struct {
	reg        *toolschema.Registry
	calls      Caller // runs tools/call's tool (toolcall.Caller)
	toolErrors string // the tool-error mode (WithToolErrors)
	version    string
	log        *slog.Logger
	sess       sessions
	pageSize   int

	readOnly     bool
	confirmAny   bool              // the gateway's -confirm names tools (confirm.go)
	toolsets     []string          // the gateway's groups (nil: every group)
	serverInfo   []byte            // {"name":...,"version":...}
	instructions []byte            // Instructions as a JSON string
	tools        []policy.Tool     // every offered tool, in registry order
	defs         map[string][]byte // each offered tool's encoded definition
	sorted       []string          // the gateway-wide tools/list, by name
	inflight     inflightCalls     // the requests notifications/cancelled may name
	waiting      sync.Map          // elicitation key -> chan json.RawMessage (confirm.go)
	confirms     confirmStates     // 2026-07-28 confirmation states (confirm.go)
}

// inflightCalls maps each in-flight request's cancellation key
// (inflightKey) to its cancel function. A mutex and a map rather than a
// sync.Map: every request adds a key of its own and removes it, the
// write-once-delete pattern sync.Map is not made for (a new key takes its
// lock anyway, and allocates an entry besides); a cancellation is rare.
type inflightCalls struct {
	mu sync.Mutex
	m  map[string]context.CancelFunc
}

// add records cancel under key, replacing a request of the same key (a
// client that reuses an id in flight cancels the later one).
func (c *inflightCalls) add(key string, cancel context.CancelFunc) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]context.CancelFunc{}
	}
	c.m[key] = cancel
	c.mu.Unlock()
}

// remove forgets key.
func (c *inflightCalls) remove(key string) {
	c.mu.Lock()
	delete(c.m, key)
	c.mu.Unlock()
}

// cancel cancels the request recorded under key, if any.
func (c *inflightCalls) cancel(key string) {
	c.mu.Lock()
	cancel := c.m[key]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Option configures a Server.
type Option func(*Server)

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

// WithConfirmAny says the gateway's -confirm names tools, so that any
// caller's call may need a person's confirmation (confirm.go); without it
// only principals whose policy has confirm are given a way to ask, and
// every other call is spared the cost.
func WithConfirmAny(on bool) Option { return func(s *Server) { s.confirmAny = on } }

// WithToolErrors selects the tool-error rule of tools/call: ToolErrorsAuto
// (default), ToolErrorsJSONRPC or ToolErrorsResult; anything else keeps the
// default (package config refuses it first).
func WithToolErrors(mode string) Option {
	return func(s *Server) {
		switch mode {
		case ToolErrorsAuto, ToolErrorsJSONRPC, ToolErrorsResult:
			s.toolErrors = mode
		}
	}
}

// WithPageSize sets how many tools one tools/list page holds (default
// 1000: every tool on one page).
func WithPageSize(n int) Option { return func(s *Server) { s.pageSize = n } }

// New returns the MCP layer over the tools of reg, whose tools/call runs
// through calls, the gateway's one dispatcher of tool calls.
func New(reg *toolschema.Registry, calls Caller, opts ...Option) (*Server, error) {
	s := &Server{
		reg: reg, calls: calls, toolErrors: ToolErrorsAuto, version: "dev", log: slog.Default(),
		sess: sessions{maxAge: DefaultSessionMaxAge, now: time.Now},
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
	s.confirms = confirmStates{secret: s.sess.secret, now: s.sess.now}
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

// errorObject encodes the contract's error object {code, message, data}.
func errorObject(e *rpcerror.Error) []byte {
	obj, err := json.Marshal(e.JSONRPC())
	if err != nil {
		return []byte(`{"code":-32603,"message":"Internal error"}`)
	}
	return obj
}
