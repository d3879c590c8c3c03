package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	wire "ghops.dev/gateway/internal/jsonrpc"
	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/rpcargs"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
)

// transport is MCP on one wire: Streamable HTTP or stdio.
type transport struct {
	s     *Server
	stdio bool
}

// HTTP returns the Streamable HTTP transport, for pipeline.Pipeline.Handler.
func (s *Server) HTTP() pipeline.Transport { return &transport{s: s} }

// Stdio returns the stdio transport, for pipeline.Pipeline.ServeStream.
func (s *Server) Stdio() pipeline.Transport { return &transport{s: s, stdio: true} }

// Name implements pipeline.Transport.
func (t *transport) Name() string {
	if t.stdio {
		return "stdio"
	}
	return "mcp"
}

// headerState is what an HTTP body's MCP headers say (Body.State).
type headerState struct {
	header    string   // MCP-Protocol-Version as sent
	hasHeader bool     // the header was sent
	sessionID string   // Mcp-Session-Id as sent
	binding   string   // the principal the session was checked against
	session   string   // the valid session's version ("" otherwise)
	elicit    bool     // the valid session's client declared elicitation
	methods   []string // Mcp-Method values
	names     []string // Mcp-Name values
}

// conn is a stdio connection's state (pipeline.Stream).
type conn struct {
	mu      sync.Mutex
	version string // what initialize negotiated ("" before)
	elicit  bool   // initialize declared the elicitation capability
}

// negotiated returns the connection's handshake version and whether there
// was one.
func (c *conn) negotiated() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version == "" {
		return V20251125, false
	}
	return c.version, true
}

// connOf returns the stdio connection of x.
func connOf(x *pipeline.Body) *conn {
	return x.Stream.State(func() any { return &conn{} }).(*conn)
}

// Begin implements pipeline.Transport: the rules that concern a whole body.
func (t *transport) Begin(ctx context.Context, x *pipeline.Body, calls []*pipeline.Call, batch bool) *pipeline.Refusal {
	version := ""
	if t.stdio {
		version, _ = connOf(x).negotiated()
	} else {
		h := x.HTTP.Header
		env := &headerState{
			header:    h.Get(headerProtocolVersion),
			hasHeader: len(h.Values(headerProtocolVersion)) > 0,
			sessionID: h.Get(headerSessionID),
			methods:   h.Values(headerMethod),
			names:     h.Values(headerName),
		}
		x.State = env
		if env.hasHeader && !isSupported(env.header) && batch {
			// A single request is answered in Serve, with its id.
			return &pipeline.Refusal{Err: unsupportedVersion(env.header), Status: http.StatusBadRequest}
		}
		if env.sessionID != "" {
			v, err := t.s.sess.lookup(env.sessionID, binding(ctx))
			if err != nil && !(len(calls) == 1 && calls[0].Request != nil && calls[0].Request.Method == "initialize") {
				e := rpcerror.New(rpcerror.InvalidRequest, "Unknown or expired session: initialize a new one")
				return &pipeline.Refusal{Err: e, Status: http.StatusNotFound}
			}
			env.session, env.elicit, env.binding = v.version, v.elicit, binding(ctx)
		}
		switch {
		case env.hasHeader && isSupported(env.header):
			version = env.header
		case env.hasHeader:
			return nil // unsupported: Serve answers -32022
		case env.session != "":
			version = env.session
		default:
			version = defaultHTTPVersion
		}
	}
	if batch && !allowsBatches(version) {
		e := rpcerror.New(rpcerror.InvalidRequest, "Invalid Request: JSON-RPC batches are not supported in protocol version "+version)
		return &pipeline.Refusal{Err: e, Status: http.StatusBadRequest}
	}
	return nil
}

// StatusRules implements pipeline.Transport: 400 for a body refused
// whole, 202 when nothing is answered, a single answer's own status
// (protocol failures), else 200.
func (t *transport) StatusRules() pipeline.StatusRules {
	return pipeline.StatusRules{Refused: http.StatusBadRequest, Empty: http.StatusAccepted, AnswerStatus: true}
}

// Serve implements pipeline.Transport: one element of a body, under MCP's
// rules: the version it is served at (resolve), then the method table
// (serve); a tools/call goes to the gateway's one dispatcher of tool calls
// (toolsCall).
func (t *transport) Serve(ctx context.Context, x *pipeline.Body, c *pipeline.Call) pipeline.Answer {
	if c.Invalid != nil {
		if isResponse(c.Raw) {
			// A client answering a server request (an elicitation of
			// confirm.go): handed to the call waiting for it in the same
			// session or connection; anything else is ignored.
			t.s.deliver(t.scope(x), c.Raw)
			return pipeline.Answer{NoReply: true}
		}
		a := pipeline.Invalid(c)
		a.Status = http.StatusBadRequest
		return a
	}
	req := c.Request
	var name, uri string
	var args, meta json.RawMessage
	if !req.IsNotification() {
		name, uri, args, meta = readParams(req.Params)
	}
	version, named, refusal := t.resolve(x, req, name, uri, meta)
	if refusal != nil {
		if req.IsNotification() {
			refusal.NoReply = true
		}
		return *refusal
	}
	if req.IsNotification() {
		// MCP answers no notification; a cancellation names the request
		// to cancel in this session or connection.
		if req.Method == "notifications/cancelled" {
			t.s.cancel(t.scope(x), req.Params)
		}
		return pipeline.Answer{NoReply: true}
	}
	// Any request may be cancelled (notifications/cancelled) and report
	// progress to a progressToken.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if key := inflightKey(t.scope(x), c.ID); key != "" {
		t.s.inflight.add(key, cancel)
		defer t.s.inflight.remove(key)
	}
	if tok := progressToken(meta); tok != nil && x.CanNotify() {
		ctx = toolcall.WithProgress(ctx, progressReporter(x, tok))
	}
	if req.Method == "tools/call" {
		return t.toolsCall(ctx, x, c, name, args, meta, version, named)
	}
	return t.serve(ctx, x, c, version)
}

// toolsCall runs one tools/call through the gateway's one dispatcher
// (toolcall.Caller) and applies MCP's tool-error rule to its failure
// (docs/architecture.md "The rule", docs/errors.md): an isError
// CallToolResult when the request named its protocol version, a JSON-RPC
// error otherwise; -mcp-tool-errors (WithToolErrors) forces either. An
// unknown tool is always UnknownTool's -32602 JSON-RPC error, as MCP says.
func (t *transport) toolsCall(ctx context.Context, x *pipeline.Body, c *pipeline.Call, name string, args, meta json.RawMessage, version string, named bool) pipeline.Answer {
	var mrtr *mrtrConfirmer
	if t.s.mayConfirm(ctx) {
		ctx, mrtr = t.confirmer(ctx, x, version, meta, c.Request.Params)
	}
	res, tool, e := t.s.calls.Call(ctx, toolcall.Request{Name: name, Args: rpcargs.WithoutMeta(args), RequestID: c.RequestID})
	label := name
	if tool == nil {
		label = UnknownLabel
	}
	if mrtr != nil && mrtr.asked != nil {
		// The call stopped at its confirmation: the answer is the
		// input-required result that asks for it, not the refusal.
		return pipeline.Answer{Result: mrtr.asked, Tool: label}
	}
	if e != nil && (tool == nil || !t.s.asResult(named)) {
		return pipeline.Answer{Err: e, Tool: label}
	}
	return pipeline.Answer{Result: t.s.encodeToolResult(res, e, version, version == V20260728), Err: e, Tool: label}
}

// asResult is the tool-error rule for a failed call of an offered tool.
func (s *Server) asResult(named bool) bool {
	switch s.toolErrors {
	case ToolErrorsJSONRPC:
		return false
	case ToolErrorsResult:
		return true
	}
	return named
}

// paramsMembers are the members of a request's params readParams reads.
var paramsMembers = []string{"name", "uri", "arguments", "_meta"}

// readParams reads name, uri, arguments and _meta of a request's params in
// one pass (params may hold a megabyte of file content): params are a value
// of a body the JSON-RPC parser accepted, so valid I-JSON (wire.Members).
func readParams(raw json.RawMessage) (name, uri string, args, meta json.RawMessage) {
	if len(raw) == 0 || raw[0] != '{' {
		return "", "", nil, nil
	}
	var m [4]gjson.Result
	wire.Members(raw, paramsMembers, m[:])
	if m[0].Type == gjson.String {
		name = strings.Clone(m[0].Str)
	}
	if m[1].Type == gjson.String {
		uri = strings.Clone(m[1].Str)
	}
	return name, uri, rawIn(raw, m[2]), rawIn(raw, m[3])
}

// rawIn returns the bytes of a value gjson found in raw (nil when absent).
func rawIn(raw []byte, r gjson.Result) json.RawMessage {
	switch {
	case !r.Exists():
		return nil
	case r.Index > 0 && r.Index+len(r.Raw) <= len(raw):
		return raw[r.Index : r.Index+len(r.Raw)]
	}
	return json.RawMessage(r.Raw)
}

// resolve applies the version rules to one request (see the package doc):
// the version it is served at (2026-07-28 is served statelessly) and
// whether the request named it, or the answer that refuses it. name, uri
// and meta are its params' members (none for a notification).
func (t *transport) resolve(x *pipeline.Body, req *wire.Request, name, uri string, meta json.RawMessage) (string, bool, *pipeline.Answer) {
	call := !req.IsNotification()
	var (
		metaVersion         string
		hasVersion, hasCaps bool
	)
	if call {
		metaVersion, hasVersion, hasCaps = readMeta(meta)
	}
	var env *headerState
	if !t.stdio {
		env = x.State.(*headerState)
		if env.hasHeader && !isSupported(env.header) {
			return "", false, &pipeline.Answer{Err: unsupportedVersion(env.header), Status: http.StatusBadRequest}
		}
		if hasVersion || env.header == V20260728 {
			switch {
			case !env.hasHeader:
				return "", false, t.headerMismatch("the MCP-Protocol-Version header is required with params._meta")
			case call && !hasVersion:
				return "", false, t.invalidMeta(req.Params, metaProtocolVersion)
			case call && metaVersion != env.header:
				return "", false, t.headerMismatch("MCP-Protocol-Version header " + strconv.Quote(env.header) + " does not match params._meta value " + strconv.Quote(metaVersion))
			}
		}
	}
	if hasVersion {
		if !isSupported(metaVersion) {
			return "", false, &pipeline.Answer{Err: unsupportedVersion(metaVersion), Status: t.httpStatus(http.StatusBadRequest)}
		}
		if !isModern(metaVersion) {
			return metaVersion, true, nil
		}
		if !hasCaps {
			return "", false, t.invalidMeta(req.Params, metaClientCapabilities)
		}
		if env != nil {
			if a := t.checkHeaders(env, req, name, uri); a != nil {
				return "", false, a
			}
		}
		return V20260728, true, nil
	}
	if t.stdio {
		v, named := connOf(x).negotiated()
		return v, named, nil
	}
	switch {
	case env.header == V20260728:
		// A notification at 2026-07-28 (the _meta triple is for calls only).
		return V20260728, true, nil
	case env.hasHeader:
		return env.header, true, nil
	case env.session != "":
		return env.session, true, nil
	}
	return defaultHTTPVersion, false, nil
}

// checkHeaders applies 2026-07-28's Mcp-Method and Mcp-Name rules.
func (t *transport) checkHeaders(env *headerState, req *wire.Request, name, uri string) *pipeline.Answer {
	if len(env.methods) != 1 {
		return t.headerMismatch("exactly one Mcp-Method header is required")
	}
	if env.methods[0] != req.Method {
		return t.headerMismatch("Mcp-Method header value " + strconv.Quote(env.methods[0]) + " does not match body value " + strconv.Quote(req.Method))
	}
	var want string
	switch req.Method {
	case "tools/call", "prompts/get":
		want = name
	case "resources/read":
		want = uri
	default:
		return nil
	}
	if len(env.names) != 1 {
		return t.headerMismatch("exactly one Mcp-Name header is required for " + req.Method)
	}
	got, ok := decodeHeaderValue(strings.TrimSpace(env.names[0]))
	if !ok {
		return t.headerMismatch("Mcp-Name header value is malformed")
	}
	if got != want {
		return t.headerMismatch("Mcp-Name header value " + strconv.Quote(got) + " does not match body value " + strconv.Quote(want))
	}
	return nil
}

// httpStatus returns status on HTTP and 0 (no meaning) on stdio.
func (t *transport) httpStatus(status int) int {
	if t.stdio {
		return 0
	}
	return status
}

// headerMismatch is -32020 with HTTP 400.
func (t *transport) headerMismatch(msg string) *pipeline.Answer {
	e := rpcerror.New(CodeHeaderMismatch, "Header mismatch: "+msg)
	return &pipeline.Answer{Err: e, Status: t.httpStatus(http.StatusBadRequest)}
}

// invalidMeta is a 2026-07-28 request whose params lack _meta or one of
// its required members: -32602, HTTP 400, with the violation AJV would
// report (path "root" when _meta itself is missing).
func (t *transport) invalidMeta(params json.RawMessage, member string) *pipeline.Answer {
	path, missing := "/_meta", member
	if topValue(params, "_meta") == nil {
		path, missing = "root", "_meta"
	}
	msg := "must have required property '" + missing + "'"
	e := rpcerror.New(rpcerror.InvalidParamsCode, "Invalid params: "+msg, rpcerror.Violations([]rpcerror.Violation{{
		Message: msg, Path: path, Keyword: "required", Params: map[string]any{"missingProperty": missing},
	}}))
	return &pipeline.Answer{Err: e, Status: t.httpStatus(http.StatusBadRequest)}
}

// unsupportedVersion is -32022: the contract's data.protocol, and the same
// members at the top of data, where MCP 2026-07-28's
// UnsupportedProtocolVersionError puts them (SDKs read data.supported to
// fall back to a version both sides speak).
func unsupportedVersion(requested string) *rpcerror.Error {
	e := rpcerror.New(CodeUnsupportedProtocolVersion, "")
	e.Data.Protocol = &rpcerror.Protocol{Requested: requested, Supported: append([]string(nil), SupportedVersions...)}
	e.Data.Supported = append([]string(nil), SupportedVersions...)
	e.Data.Requested = requested
	return e
}

// progressToken returns params._meta.progressToken when it is a string or
// an integer, as MCP requires (nil otherwise: no progress is sent).
func progressToken(meta json.RawMessage) json.RawMessage {
	if len(meta) == 0 || !bytes.Contains(meta, []byte("progressToken")) {
		return nil
	}
	v := gjson.GetBytes(meta, "progressToken")
	switch {
	case v.Type == gjson.String, v.Type == gjson.Number && !strings.ContainsAny(v.Raw, ".eE"):
		return json.RawMessage(v.Raw)
	}
	return nil
}

// progressParams are a notifications/progress's params.
type progressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         float64         `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

// progressReporter sends the call's progress to the client as
// notifications/progress ahead of the answer (stdio lines, or events of the
// HTTP answer's event stream).
func progressReporter(x *pipeline.Body, token json.RawMessage) toolcall.ProgressFunc {
	return func(p toolcall.Progress) {
		params, err := json.Marshal(progressParams{ProgressToken: token, Progress: p.Done, Total: max(p.Total, 0), Message: p.Message})
		if err != nil {
			return // a NaN from the service: progress is advisory
		}
		x.Notify("notifications/progress", params)
	}
}

// scope names the owner of in-flight calls for notifications/cancelled: a
// stdio connection or an HTTP session ("" when there is none: without a
// session, an HTTP request cannot be told apart from another client's).
func (t *transport) scope(x *pipeline.Body) string {
	if t.stdio {
		return fmt.Sprintf("stdio:%p", x.Stream)
	}
	if env, ok := x.State.(*headerState); ok && env.session != "" {
		// The id was checked against this principal (Begin); naming the
		// principal here too keeps scopes apart even so.
		return "http:" + env.binding + "\x00" + env.sessionID
	}
	return ""
}

// binding names the principal of ctx's caller for the session ids: its
// kind (how it authenticated) and name; "" without authentication (every
// caller of such a gateway is the same principal).
func binding(ctx context.Context) string {
	c := policy.CallerFrom(ctx)
	if c == nil {
		return ""
	}
	return string(c.Via) + ":" + c.Name()
}

// inflightKey names an in-flight request within its scope.
func inflightKey(scope string, id json.RawMessage) string {
	if scope == "" || id == nil {
		return ""
	}
	if bytes.IndexAny(id, " \t\r\n") < 0 {
		// Without whitespace a valid id is already compact (Compact keeps
		// a string's bytes as they are): the common case, one allocation.
		if !json.Valid(id) {
			return ""
		}
		return scope + "\x00" + string(id)
	}
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return ""
	}
	return scope + "\x00" + b.String()
}

// cancel handles notifications/cancelled: it cancels the named in-flight
// request of the same scope, if any (a late or unknown id is ignored).
func (s *Server) cancel(scope string, params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	if key := inflightKey(scope, p.RequestID); key != "" {
		s.inflight.cancel(key)
	}
}

// readMeta reads what params._meta (raw) says about the request's
// protocol: the version it names, whether it names one, and whether it
// gives the client's capabilities (an object). A version that is not a
// string counts as named and unsupported.
func readMeta(raw json.RawMessage) (version string, named, capabilities bool) {
	if raw == nil || !bytes.Contains(raw, []byte(metaProtocolVersion)) {
		return "", false, false
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(raw, &meta) != nil {
		return "", false, false
	}
	v, ok := meta[metaProtocolVersion]
	if !ok {
		return "", false, false
	}
	_ = json.Unmarshal(v, &version)
	caps, ok := meta[metaClientCapabilities]
	return version, true, ok && len(caps) > 0 && caps[0] == '{'
}

// topValue returns the raw value of member key of a JSON object (nil when
// absent or not an object), without decoding the other members: params may
// hold a megabyte of file content. obj comes from a body the pipeline has
// checked is I-JSON, so there is one member of that name at most.
func topValue(obj json.RawMessage, key string) json.RawMessage {
	if len(obj) == 0 || obj[0] != '{' {
		return nil
	}
	return rawIn(obj, gjson.GetBytes(obj, gjsonKey(key)))
}

// gjsonKey escapes the characters gjson's path syntax gives a meaning.
func gjsonKey(k string) string {
	if !strings.ContainsAny(k, ".*?|#@\\!=<>%") {
		return k
	}
	var b strings.Builder
	for _, c := range k {
		switch c {
		case '.', '*', '?', '|', '#', '@', '\\', '!', '=', '<', '>', '%':
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// isResponse reports whether raw is a JSON-RPC response object: an id and a
// result or error, and no method.
func isResponse(raw json.RawMessage) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	m := gjson.GetManyBytes(raw, "method", "id", "result", "error")
	return !m[0].Exists() && m[1].Exists() && (m[2].Exists() || m[3].Exists())
}

// decodeHeaderValue undoes the "=?base64?...?=" sentinel of Mcp-Name; a
// plain value must be printable ASCII.
func decodeHeaderValue(v string) (string, bool) {
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") && len(v) >= len("=?base64??=") {
		b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-2])
		if err != nil {
			return "", false
		}
		return string(b), true
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", false
		}
	}
	return v, true
}
