// Package mcp is the gateway's Model Context Protocol layer: the Streamable
// HTTP endpoint mounted at /mcp (an http.Handler) and the stdio transport of
// `ghops-gateway stdio`. It speaks every published protocol version:
// 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25 through the initialize
// handshake, and the stateless 2026-07-28 through per-request _meta, with
// server/discover, the Mcp-Method and Mcp-Name headers and resultType.
//
// The layer is thin: tools, schemas and the call path belong to toolschema
// and toolcall (shared with /rpc), errors to rpcerror, whose Sink writes the
// one jsonrpc_error log line of every error answer. Everything derivable
// from the descriptors (the tools/list answer of every version, cut into
// pages, with opaque cursors) is encoded once, in NewHandler.
//
// The API:
//
//	NewHandler(reg, caller, opts...) *Handler    // http.Handler for POST/GET/DELETE /mcp
//	(*Handler).ServeStdio(ctx, in, out) error    // newline-delimited JSON-RPC on stdin/stdout
//	WithToolErrorMode("jsonrpc"|"result"), WithAllowedOrigins, WithSessionSecret,
//	WithSessionMaxAge, WithLogger, WithSink, WithPageSize, WithMaxBodyBytes, WithServerVersion
//
// Decisions where the specification leaves room (docs/errors.md repeats the
// ones clients see):
//
//   - Era: a request whose params._meta names a protocol version, or whose
//     MCP-Protocol-Version header is 2026-07-28, is served statelessly;
//     anything else by the handshake rules of the header's version, else the
//     session's, else 2025-03-26 (HTTP) or the version initialize negotiated
//     (stdio). initialize answers the client's version when it is a
//     handshake version, else 2025-11-25.
//   - Sessions (handshake versions on HTTP): initialize mints an
//     Mcp-Session-Id that is an HMAC over version, issue time and a nonce
//     under a secret; any replica with the same secret accepts it, nothing
//     is stored. A forged or expired id gets 404; a request without one is
//     served (sessions are never required). Without a configured secret a
//     random one is drawn per process, so replicas MUST share one.
//   - GET and DELETE /mcp answer 405 (no server-initiated stream; a session
//     holds no state to delete).
//   - An unknown tool is a JSON-RPC error -32602 "Unknown tool: <name>" (the
//     specification's own example) whatever the tool-error mode.
//   - HTTP statuses: 400 for parse errors, invalid requests, rejected
//     batches, -32020 and -32022; 404 for -32601 on stateless requests and
//     for an unknown session; 403 for a refused Origin; 413 for an oversized
//     body; 202 for notifications and responses; 200 otherwise (tool errors
//     included), with Retry-After on -32004.
//   - Logging: every JSON-RPC error answer goes through rpcerror.Sink (one
//     jsonrpc_error line); in "result" mode a failed tool call writes its line
//     too (the isError result is its error answer); a refused notification
//     gets no answer and so only an ordinary log record.
//   - Accept and Content-Type are not enforced (curl examples omit them); the
//     answer is always application/json, never a stream.
package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"ghops.dev/redact"

	"ghops.dev/gateway/internal/jsonrpc"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolschema"
)

// Tool-error modes of tools/call.
const (
	// ToolErrorsJSONRPC answers a failed tool call with a JSON-RPC error
	// object, exactly as /rpc does (the default, as seed 000 documents).
	ToolErrorsJSONRPC = "jsonrpc"
	// ToolErrorsResult answers it with a CallToolResult whose isError is true,
	// whose structuredContent is {code, message, data} and whose text renders
	// the error for text-only clients.
	ToolErrorsResult = "result"
)

// DefaultMaxBodyBytes bounds a request body (HTTP) or line (stdio).
const DefaultMaxBodyBytes = 1 << 20

// DefaultSessionMaxAge is how long a minted session id stays valid.
const DefaultSessionMaxAge = 24 * time.Hour

// ServerName is the name the gateway gives itself in serverInfo.
const ServerName = "ghops-gateway"

// maxBatchConcurrency bounds the tool calls of one batch running at once.
const maxBatchConcurrency = 4

// Handler is the MCP endpoint. It is safe for concurrent use and holds no
// per-client state beyond in-flight cancellation hooks.
type Handler struct {
	reg      *toolschema.Registry
	caller   toolCaller
	mode     string
	origins  []string
	anyOrig  bool
	sess     sessions
	sink     *rpcerror.Sink
	logger   *slog.Logger
	maxBody  int64
	pageSize int
	version  string

	catalog    *catalog
	serverMeta []byte // {"io.modelcontextprotocol/serverInfo":{...}}
	serverInfo []byte // {"name":...,"version":...}
	discover   []byte // the server/discover result
	toolNames  []any  // allowed values of an unknown tool's violation

	inflight sync.Map // cancellation key -> context.CancelFunc

	observe func(endpoint, tool string, code int) // nil: calls are not counted
}

// toolCaller is the part of *toolcall.Caller the handler uses.
type toolCaller interface {
	Call(ctx context.Context, name string, args json.RawMessage, info toolcall.CallInfo) (json.RawMessage, *rpcerror.Error)
}

// Option configures a Handler.
type Option func(*Handler)

// WithToolErrorMode selects how failed tool calls are answered:
// ToolErrorsJSONRPC (default) or ToolErrorsResult. Any other value keeps the
// default.
func WithToolErrorMode(mode string) Option {
	return func(h *Handler) {
		if mode == ToolErrorsJSONRPC || mode == ToolErrorsResult {
			h.mode = mode
		}
	}
}

// WithAllowedOrigins sets the Origin values accepted besides loopback ones
// (http(s)://localhost, 127.0.0.1 or [::1], any port). "*" accepts every
// origin. A request without Origin is always accepted (it is not a browser).
func WithAllowedOrigins(origins []string) Option {
	return func(h *Handler) {
		for _, o := range origins {
			o = strings.TrimRight(strings.TrimSpace(o), "/")
			switch o {
			case "":
			case "*":
				h.anyOrig = true
			default:
				h.origins = append(h.origins, strings.ToLower(o))
			}
		}
	}
}

// WithSessionSecret sets the key session ids are signed with. Every replica
// behind one URL must get the same secret; an empty one keeps the random
// per-process default.
func WithSessionSecret(secret []byte) Option {
	return func(h *Handler) {
		if len(secret) > 0 {
			h.sess.secret = append([]byte(nil), secret...)
		}
	}
}

// WithSessionMaxAge sets how long a session id is accepted (default
// DefaultSessionMaxAge; <= 0: forever).
func WithSessionMaxAge(d time.Duration) Option { return func(h *Handler) { h.sess.maxAge = d } }

// WithLogger sets the structured logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(h *Handler) {
		if l != nil {
			h.logger = l
		}
	}
}

// WithCallObserver has every tools/call counted, as /rpc counts its calls,
// so that one metric covers tool traffic whichever endpoint it came by.
// observe receives "mcp" or "stdio", the tool name ("unknown" for a name
// that is not a tool, keeping the label set bounded) and the JSON-RPC code
// of the answer (0 for success, also in "result" tool-error mode).
func WithCallObserver(observe func(endpoint, tool string, code int)) Option {
	return func(h *Handler) { h.observe = observe }
}

// WithSink sets the error sink shared with /rpc, which writes the one
// jsonrpc_error line per error answer (default: a sink on os.Stderr).
func WithSink(s *rpcerror.Sink) Option {
	return func(h *Handler) {
		if s != nil {
			h.sink = s
		}
	}
}

// WithPageSize sets how many tools one tools/list page holds (default: all).
func WithPageSize(n int) Option { return func(h *Handler) { h.pageSize = n } }

// WithMaxBodyBytes bounds a request body or stdio line (default
// DefaultMaxBodyBytes).
func WithMaxBodyBytes(n int64) Option {
	return func(h *Handler) {
		if n > 0 {
			h.maxBody = n
		}
	}
}

// WithServerVersion sets the version reported in serverInfo (default "dev").
func WithServerVersion(v string) Option {
	return func(h *Handler) {
		if v != "" {
			h.version = v
		}
	}
}

// withCaller replaces the call path (tests).
func withCaller(c toolCaller) Option { return func(h *Handler) { h.caller = c } }

// NewHandler returns the MCP endpoint over the tools of reg, calling them
// through caller. Everything the answers need from the descriptors is
// encoded here, once.
func NewHandler(reg *toolschema.Registry, caller *toolcall.Caller, opts ...Option) *Handler {
	h := &Handler{
		reg:     reg,
		mode:    ToolErrorsJSONRPC,
		logger:  slog.Default(),
		maxBody: DefaultMaxBodyBytes,
		version: "dev",
		sess:    sessions{maxAge: DefaultSessionMaxAge, now: time.Now},
	}
	if caller != nil {
		h.caller = caller
	}
	for _, o := range opts {
		o(h)
	}
	if h.sess.secret == nil {
		h.sess.secret = make([]byte, 32)
		_, _ = rand.Read(h.sess.secret)
	}
	if h.sink == nil {
		h.sink = rpcerror.NewSink(os.Stderr, h.logger)
	}
	h.serverInfo = []byte(`{"name":` + string(marshalString(ServerName)) + `,"version":` + string(marshalString(h.version)) + `}`)
	h.serverMeta = []byte(`{"` + metaServerInfo + `":` + string(h.serverInfo) + `}`)
	var tools []*toolschema.Tool
	if reg != nil {
		tools = reg.Tools()
	}
	for _, t := range tools {
		h.toolNames = append(h.toolNames, t.Name)
	}
	h.catalog = newCatalog(tools, h.pageSize, h.serverMeta)
	vs, _ := json.Marshal(SupportedVersions)
	h.discover = []byte(`{"supportedVersions":` + string(vs) + `,"capabilities":{"tools":{}},"ttlMs":` +
		strconv.Itoa(listTTLMillis) + `,"cacheScope":"public","resultType":"complete","_meta":` + string(h.serverMeta) + `}`)
	return h
}

// originAllowed applies the DNS-rebinding protection: no Origin, a loopback
// origin or a configured one.
func (h *Handler) originAllowed(origin string) bool {
	if origin == "" || h.anyOrig {
		return true
	}
	o := strings.ToLower(strings.TrimRight(origin, "/"))
	for _, a := range h.origins {
		if a == o {
			return true
		}
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// ServeHTTP implements the Streamable HTTP transport on one endpoint.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			h.logger.Error("mcp: panic in handler", "panic", redact.String(toString(p)))
			writeJSON(w, http.StatusInternalServerError, jsonrpc.FallbackBody, 0)
		}
	}()
	ctx := r.Context()
	if !h.originAllowed(r.Header.Get("Origin")) {
		e := rpcerror.New(rpcerror.InvalidRequest, "")
		e.Message = "Origin not allowed"
		h.writeError(ctx, w, http.StatusForbidden, nil, e)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if r.ContentLength > h.maxBody {
		h.writeTooLarge(ctx, w)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if asMaxBytes(err, &mbe) {
			h.writeTooLarge(ctx, w)
			return
		}
		e := rpcerror.New(rpcerror.ParseError, "")
		h.writeError(ctx, w, http.StatusBadRequest, nil, e)
		return
	}

	env := &envelope{
		http:   true,
		header: r.Header.Get(headerProtocolVersion),
		hasHdr: r.Header.Values(headerProtocolVersion) != nil,
		method: r.Header.Values(headerMethod),
		name:   r.Header.Values(headerName),
		token:  bearer(r.Header.Get("Authorization")),
	}
	sid := r.Header.Get(headerSessionID)
	env.sessionID = sid

	out := h.process(ctx, env, body, h.httpSessionCheck(env, sid))
	if out.newSession != "" {
		w.Header().Set(headerSessionID, out.newSession)
	}
	if out.body == nil {
		if out.status == 0 {
			out.status = http.StatusAccepted
		}
		w.WriteHeader(out.status)
		return
	}
	if out.status == 0 {
		out.status = http.StatusOK
	}
	writeJSON(w, out.status, out.body, out.retryAfter)
}

// httpSessionCheck returns the session verdict of a request's Mcp-Session-Id.
func (h *Handler) httpSessionCheck(env *envelope, sid string) func() (string, bool) {
	return func() (string, bool) {
		if sid == "" {
			return "", true
		}
		v, err := h.sess.check(sid)
		if err != nil {
			return "", false
		}
		return v, true
	}
}

// writeTooLarge answers an oversized body: 413 with a -32600 naming the limit.
func (h *Handler) writeTooLarge(ctx context.Context, w http.ResponseWriter) {
	e := rpcerror.New(rpcerror.InvalidRequest, "")
	e.Message = "Request body exceeds " + strconv.FormatInt(h.maxBody, 10) + " bytes"
	h.writeError(ctx, w, http.StatusRequestEntityTooLarge, nil, e)
}

// writeError sends one error answer through the sink with an HTTP status.
func (h *Handler) writeError(ctx context.Context, w http.ResponseWriter, status int, id json.RawMessage, e *rpcerror.Error) {
	writeJSON(w, status, h.errorBody(ctx, id, e), e.RetryAfter)
}

// writeJSON writes a JSON body with its status (and Retry-After when > 0).
func writeJSON(w http.ResponseWriter, status int, body []byte, retryAfter int) {
	w.Header().Set("Content-Type", "application/json")
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// bearer extracts the token of an Authorization: Bearer header.
func bearer(v string) string {
	const p = "bearer "
	if len(v) > len(p) && strings.EqualFold(v[:len(p)], p) {
		return strings.TrimSpace(v[len(p):])
	}
	return ""
}
