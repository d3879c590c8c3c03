package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"ghops.dev/redact"

	"ghops.dev/gateway/internal/jsonrpc"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolschema"
)

// envelope is what the transport knows about one message besides its body.
type envelope struct {
	http      bool
	header    string     // MCP-Protocol-Version (HTTP)
	hasHdr    bool       // the header was sent
	method    []string   // Mcp-Method values (nil: absent)
	name      []string   // Mcp-Name values (nil: absent)
	token     string     // Authorization bearer token, forwarded per toolcall's setting
	sessionID string     // Mcp-Session-Id as sent (HTTP)
	stdio     *stdioConn // the stdio connection, nil on HTTP
}

// outcome is the answer to one body: nil body means no content (202 on HTTP).
type outcome struct {
	body       []byte
	status     int
	retryAfter int
	newSession string
}

// answer is the answer to one request of a body.
type answer struct {
	resp       *jsonrpc.Response // nil: nothing to send (notification)
	status     int
	retryAfter int
	newSession string
}

// metaVersion reads params._meta["io.modelcontextprotocol/protocolVersion"].
// ok is false when absent; a present non-string value yields "" with ok true
// (and is refused as an unsupported version).
func metaVersion(params json.RawMessage) (string, bool) {
	if len(params) == 0 || params[0] != '{' || !bytes.Contains(params, []byte(metaProtocolVersion)) {
		return "", false
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return "", false
	}
	raw, ok := p.Meta[metaProtocolVersion]
	if !ok {
		return "", false
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", true
	}
	return v, true
}

// isResponse reports whether raw is a JSON-RPC response object (a client
// answering a server request): the transport accepts and ignores it.
func isResponse(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	_, hasMethod := m["method"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	_, hasID := m["id"]
	return !hasMethod && hasID && (hasResult || hasError)
}

// process answers one body. sessionOK returns the session's version and
// whether its id (if any) is valid; it is only consulted for handshake-era
// requests.
func (h *Handler) process(ctx context.Context, env *envelope, body []byte, sessionOK func() (string, bool)) outcome {
	items, batch, perr := jsonrpc.ParseBody(body)
	if perr != nil {
		e := rpcerror.New(perr.Code, "")
		return outcome{body: h.errorBody(ctx, nil, e), status: http.StatusBadRequest}
	}
	if batch {
		return h.processBatch(ctx, env, body, items, sessionOK)
	}
	it := items[0]
	if it.Err != nil {
		if isResponse(body) {
			return outcome{status: http.StatusAccepted}
		}
		e := rpcerror.New(it.Err.Code, "")
		return outcome{body: h.errorBody(ctx, it.ID, e), status: http.StatusBadRequest}
	}
	a := h.handleOne(ctx, env, it.Request, sessionOK)
	if a.resp == nil {
		return outcome{status: a.status, newSession: a.newSession}
	}
	return outcome{body: encodeAnswer(*a.resp), status: a.status, retryAfter: a.retryAfter, newSession: a.newSession}
}

// encodeAnswer encodes one response. A result is written directly: every
// result is built by this package from pre-encoded or freshly encoded JSON
// and the id bytes come from the parser, so re-validating a 16 KB tools/list
// on every call (as the generic encoder does) would only cost time. Errors
// take the generic encoder, with its fixed fallback.
func encodeAnswer(r jsonrpc.Response) []byte {
	if r.Error != nil || r.Result == nil || r.ID == nil {
		return jsonrpc.EncodeResponse(r)
	}
	b := make([]byte, 0, len(r.ID)+len(r.Result)+32)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, r.ID...)
	b = append(b, `,"result":`...)
	b = append(b, r.Result...)
	return append(b, '}')
}

// processBatch answers a JSON-RPC batch, which only 2025-03-26 allows.
func (h *Handler) processBatch(ctx context.Context, env *envelope, body []byte, items []jsonrpc.Item, sessionOK func() (string, bool)) outcome {
	if env.http && env.hasHdr && !isSupported(env.header) {
		return outcome{body: h.errorBody(ctx, nil, h.unsupportedVersion(env.header)), status: http.StatusBadRequest}
	}
	version, sessOK := h.legacyVersion(env, sessionOK)
	if env.http && !sessOK {
		return h.unknownSession(ctx)
	}
	if (env.http && env.header == V20260728) || !featuresOf(version).batches {
		e := rpcerror.New(rpcerror.InvalidRequest, "")
		e.Message = "JSON-RPC batches are not supported in protocol version " + version
		return outcome{body: h.errorBody(ctx, nil, e), status: http.StatusBadRequest}
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(body, &raws)
	answers := make([]*jsonrpc.Response, len(items))
	retryAfter := 0
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, maxBatchConcurrency)
	for i, it := range items {
		if it.Err != nil {
			if i < len(raws) && isResponse(raws[i]) {
				continue
			}
			r := h.sink.Response(ctx, it.ID, rpcerror.New(it.Err.Code, ""))
			answers[i] = &r
			continue
		}
		if it.Request.Method == "initialize" {
			if it.Request.IsNotification() {
				continue
			}
			e := rpcerror.New(rpcerror.InvalidRequest, "")
			e.Message = "initialize must not be part of a JSON-RPC batch"
			r := h.sink.Response(ctx, it.Request.ID, e)
			answers[i] = &r
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, req *jsonrpc.Request) {
			defer func() { <-sem; wg.Done() }()
			a := h.handleLegacy(ctx, env, req, version)
			mu.Lock()
			answers[i] = a.resp
			retryAfter = max(retryAfter, a.retryAfter)
			mu.Unlock()
		}(i, it.Request)
	}
	wg.Wait()
	var out []jsonrpc.Response
	for _, a := range answers {
		if a != nil {
			out = append(out, *a)
		}
	}
	if len(out) == 0 {
		return outcome{status: http.StatusAccepted}
	}
	return outcome{body: jsonrpc.EncodeBatch(out), status: http.StatusOK, retryAfter: retryAfter}
}

// legacyVersion picks a handshake-era request's version: the header's, else
// the session's, else the transport default. ok is false for a bad session id.
func (h *Handler) legacyVersion(env *envelope, sessionOK func() (string, bool)) (string, bool) {
	if env.stdio != nil {
		return env.stdio.negotiated(), true
	}
	sv, ok := "", true
	if sessionOK != nil {
		sv, ok = sessionOK()
	}
	switch {
	case env.hasHdr && !isModern(env.header):
		return env.header, ok
	case sv != "":
		return sv, ok
	}
	return defaultHTTPVersion, ok
}

// unknownSession is the 404 of a forged or expired Mcp-Session-Id.
func (h *Handler) unknownSession(ctx context.Context) outcome {
	e := rpcerror.New(rpcerror.InvalidRequest, "")
	e.Message = "Unknown or expired session: initialize a new one"
	return outcome{body: h.errorBody(ctx, nil, e), status: http.StatusNotFound}
}

// handleOne classifies one request by era and answers it.
func (h *Handler) handleOne(ctx context.Context, env *envelope, req *jsonrpc.Request, sessionOK func() (string, bool)) answer {
	if env.http && env.hasHdr && !isSupported(env.header) {
		return h.errAnswer(ctx, req, h.unsupportedVersion(env.header), http.StatusBadRequest)
	}
	metaV, hasMeta := metaVersion(req.Params)
	if hasMeta || (env.http && env.header == V20260728) {
		if env.http {
			switch {
			case !env.hasHdr:
				return h.headerMismatch(ctx, req, "the MCP-Protocol-Version header is required")
			case !hasMeta:
				return h.headerMismatch(ctx, req, "MCP-Protocol-Version header "+strconv.Quote(env.header)+" but params._meta has no "+metaProtocolVersion)
			case metaV != env.header:
				return h.headerMismatch(ctx, req, "MCP-Protocol-Version header "+strconv.Quote(env.header)+" does not match body value "+strconv.Quote(metaV))
			}
		}
		if !isSupported(metaV) {
			return h.errAnswer(ctx, req, h.unsupportedVersion(metaV), http.StatusBadRequest)
		}
		if isModern(metaV) {
			return h.handleStateless(ctx, env, req)
		}
		return h.handleLegacy(ctx, env, req, metaV)
	}
	version, ok := h.legacyVersion(env, sessionOK)
	if env.http && !ok && req.Method != "initialize" {
		e := rpcerror.New(rpcerror.InvalidRequest, toolOf(req))
		e.Message = "Unknown or expired session: initialize a new one"
		return h.errAnswer(ctx, req, e, http.StatusNotFound)
	}
	return h.handleLegacy(ctx, env, req, version)
}

// headerMismatch answers -32020 with HTTP 400.
func (h *Handler) headerMismatch(ctx context.Context, req *jsonrpc.Request, msg string) answer {
	e := rpcerror.New(rpcerror.InvalidRequest, toolOf(req))
	e.Code = CodeHeaderMismatch
	e.HTTPStatus = http.StatusBadRequest
	e.Message = "Header mismatch: " + msg
	return h.errAnswer(ctx, req, e, http.StatusBadRequest)
}

// unsupportedVersion is -32022 with both the 2026-07-28 shape (data.supported,
// data.requested) and seed 004's data.protocol.
func (h *Handler) unsupportedVersion(requested string) *rpcerror.Error {
	e := rpcerror.New(rpcerror.InvalidRequest, "")
	e.Code = CodeUnsupportedProtocolVersion
	e.HTTPStatus = http.StatusBadRequest
	e.Message = "Unsupported protocol version"
	e.Data.Protocol = &rpcerror.Protocol{Requested: requested, Supported: append([]string(nil), SupportedVersions...)}
	return e
}

// toolOf names the tool of a tools/call request for error data ("" otherwise).
func toolOf(req *jsonrpc.Request) string {
	if req.Method != "tools/call" {
		return ""
	}
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(req.Params, &p)
	return p.Name
}

// errAnswer reports e through the sink and answers req with it.
func (h *Handler) errAnswer(ctx context.Context, req *jsonrpc.Request, e *rpcerror.Error, status int) answer {
	if req.IsNotification() {
		// A notification gets no answer, so no jsonrpc_error line either
		// (that line counts error answers); the refusal is still logged.
		h.logger.LogAttrs(ctx, slog.LevelInfo, "mcp notification refused",
			slog.String("method", redact.String(clip(req.Method, 100))), slog.Int("code", e.Code), slog.String("message", redact.String(e.Message)))
		if status == 0 || status == http.StatusOK {
			status = http.StatusAccepted
		}
		return answer{status: status}
	}
	r := h.errorResponse(ctx, req.ID, e)
	return answer{resp: &r, status: status, retryAfter: e.RetryAfter}
}

// errorResponse is the one place an MCP error object is born: the sink logs
// it (exactly one jsonrpc_error line) and builds the response; -32022 gets
// the 2026-07-28 data members beside the contract's.
func (h *Handler) errorResponse(ctx context.Context, id json.RawMessage, e *rpcerror.Error) jsonrpc.Response {
	r := h.sink.Response(ctx, id, e)
	if e.Code == CodeUnsupportedProtocolVersion && e.Data.Protocol != nil {
		r.Error.Data = versionData{Data: e.Data, Supported: e.Data.Protocol.Supported, Requested: e.Data.Protocol.Requested}
	}
	return r
}

// versionData is -32022's data: the contract's fields plus the top-level
// supported/requested that 2026-07-28 clients read to renegotiate.
type versionData struct {
	rpcerror.Data
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

// errorBody encodes a whole single error answer.
func (h *Handler) errorBody(ctx context.Context, id json.RawMessage, e *rpcerror.Error) []byte {
	return jsonrpc.EncodeResponse(h.errorResponse(ctx, id, e))
}

// handleStateless serves a 2026-07-28 request.
func (h *Handler) handleStateless(ctx context.Context, env *envelope, req *jsonrpc.Request) answer {
	if env.http && !req.IsNotification() {
		if len(env.method) != 1 {
			return h.headerMismatch(ctx, req, "exactly one Mcp-Method header is required")
		}
		if env.method[0] != req.Method {
			return h.headerMismatch(ctx, req, "Mcp-Method header value "+strconv.Quote(env.method[0])+" does not match body value "+strconv.Quote(req.Method))
		}
		if req.Method == "tools/call" || req.Method == "resources/read" || req.Method == "prompts/get" {
			want := toolOf(req)
			if req.Method != "tools/call" {
				var p struct {
					Name string `json:"name"`
					URI  string `json:"uri"`
				}
				_ = json.Unmarshal(req.Params, &p)
				want = p.Name + p.URI
			}
			if len(env.name) != 1 {
				return h.headerMismatch(ctx, req, "exactly one Mcp-Name header is required for "+req.Method)
			}
			got, ok := decodeHeaderValue(env.name[0])
			if !ok {
				return h.headerMismatch(ctx, req, "Mcp-Name header value is malformed")
			}
			if got != want {
				return h.headerMismatch(ctx, req, "Mcp-Name header value "+strconv.Quote(got)+" does not match body value "+strconv.Quote(want))
			}
		}
	}
	if req.IsNotification() {
		if req.Method == "notifications/cancelled" {
			h.cancel(env, req.Params)
		}
		return answer{status: http.StatusAccepted}
	}
	switch req.Method {
	case "server/discover":
		return h.result(req, h.discover)
	case "tools/list":
		return h.toolsList(ctx, req, V20260728)
	case "tools/call":
		return h.toolsCall(ctx, env, req, V20260728)
	}
	e := rpcerror.New(rpcerror.MethodNotFound, "")
	if removedInStateless[req.Method] {
		e.Message = "Method not found: " + req.Method + " was removed in protocol version " + V20260728
	}
	status := 0
	if env.http {
		status = http.StatusNotFound
	}
	return h.errAnswer(ctx, req, e, status)
}

// decodeHeaderValue undoes the "=?base64?...?=" sentinel of Mcp-Name.
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

// handleLegacy serves a request of a handshake-era version.
func (h *Handler) handleLegacy(ctx context.Context, env *envelope, req *jsonrpc.Request, version string) answer {
	if req.IsNotification() {
		switch req.Method {
		case "notifications/cancelled":
			h.cancel(env, req.Params)
		case "notifications/initialized":
		}
		return answer{status: http.StatusAccepted}
	}
	switch req.Method {
	case "initialize":
		return h.initialize(ctx, env, req)
	case "ping":
		return h.result(req, []byte("{}"))
	case "server/discover":
		return h.result(req, h.discover)
	case "tools/list":
		return h.toolsList(ctx, req, version)
	case "tools/call":
		return h.toolsCall(ctx, env, req, version)
	}
	return h.errAnswer(ctx, req, rpcerror.New(rpcerror.MethodNotFound, ""), http.StatusOK)
}

// result answers req with a pre-encoded result object.
func (h *Handler) result(req *jsonrpc.Request, res []byte) answer {
	return answer{resp: &jsonrpc.Response{ID: req.ID, Result: res}, status: http.StatusOK}
}

// invalidParams is a protocol-level -32602 with one violation.
func invalidParams(tool, msg string, v toolschema.Violation) *rpcerror.Error {
	e := rpcerror.InvalidParams(tool, []toolschema.Violation{v})
	e.Message = msg
	return e
}

// initialize negotiates a handshake version and, on HTTP, mints a session.
func (h *Handler) initialize(ctx context.Context, env *envelope, req *jsonrpc.Request) answer {
	var p struct {
		ProtocolVersion *string `json:"protocolVersion"`
	}
	if len(req.Params) == 0 || req.Params[0] != '{' || json.Unmarshal(req.Params, &p) != nil || p.ProtocolVersion == nil {
		e := invalidParams("", "Invalid params: initialize needs params.protocolVersion", toolschema.Violation{
			Message: "must have required property 'protocolVersion'", Path: "root", Keyword: "required",
			Params: map[string]any{"missingProperty": "protocolVersion"}, Value: rawValue(req.Params),
		})
		return h.errAnswer(ctx, req, e, http.StatusOK)
	}
	v := latestLegacy
	for _, lv := range legacyVersions {
		if lv == *p.ProtocolVersion {
			v = lv
		}
	}
	if env.stdio != nil {
		env.stdio.setNegotiated(v)
	}
	res := []byte(`{"protocolVersion":"` + v + `","capabilities":{"tools":{}},"serverInfo":` + string(h.serverInfo) + `}`)
	a := h.result(req, res)
	if env.http && featuresOf(v).sessions {
		a.newSession = h.sess.mint(v)
	}
	return a
}

// rawValue decodes raw JSON for a violation's value (nil when absent).
func rawValue(raw json.RawMessage) any {
	if len(raw) == 0 {
		return map[string]any{}
	}
	var v any
	_ = json.Unmarshal(raw, &v)
	return v
}

// toolsList answers one page of the pre-encoded tool list.
func (h *Handler) toolsList(ctx context.Context, req *jsonrpc.Request, version string) answer {
	var p struct {
		Cursor *json.RawMessage `json:"cursor"`
	}
	if len(req.Params) > 0 && req.Params[0] == '{' {
		_ = json.Unmarshal(req.Params, &p)
	}
	cursor := ""
	if p.Cursor != nil && string(*p.Cursor) != "null" {
		if json.Unmarshal(*p.Cursor, &cursor) != nil || cursor == "" {
			cursor = "\x00"
		}
	}
	page, ok := h.catalog.page(version, cursor)
	if !ok {
		e := invalidParams("", "Invalid params: unknown cursor", toolschema.Violation{
			Message: "must be a cursor returned by tools/list", Path: "/cursor", Keyword: "cursor",
			Params: map[string]any{}, Value: rawValue(derefRaw(p.Cursor)),
		})
		return h.errAnswer(ctx, req, e, http.StatusOK)
	}
	return h.result(req, page)
}

// derefRaw returns *r or nil.
func derefRaw(r *json.RawMessage) json.RawMessage {
	if r == nil {
		return nil
	}
	return *r
}

// toolsCall runs one tool through the shared call path.
func (h *Handler) toolsCall(ctx context.Context, env *envelope, req *jsonrpc.Request, version string) answer {
	var p struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if len(req.Params) == 0 || req.Params[0] != '{' || json.Unmarshal(req.Params, &p) != nil || p.Name == nil {
		e := invalidParams("", "Invalid params: tools/call needs params.name", toolschema.Violation{
			Message: "must have required property 'name'", Path: "root", Keyword: "required",
			Params: map[string]any{"missingProperty": "name"}, Value: rawValue(req.Params),
		})
		return h.errAnswer(ctx, req, e, http.StatusOK)
	}
	name := *p.Name
	if h.reg == nil || !h.known(name) {
		h.count(env, "unknown", rpcerror.InvalidParamsCode)
		e := invalidParams(name, "Unknown tool: "+clip(name, 100), toolschema.Violation{
			Message: "must be equal to one of the allowed values", Path: "/name", Keyword: "enum",
			Params: map[string]any{"allowedValues": h.toolNames}, Value: name,
		})
		return h.errAnswer(ctx, req, e, http.StatusOK)
	}
	args := stripMeta(p.Arguments)

	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if key := h.inflightKey(env, req.ID); key != "" {
		h.inflight.Store(key, cancel)
		defer h.inflight.Delete(key)
	}
	info := toolcall.CallInfo{RequestID: toolcall.NewRequestID(), Token: env.token}
	var (
		res  json.RawMessage
		rerr *rpcerror.Error
	)
	if h.caller == nil {
		rerr = rpcerror.Internal(name, info.RequestID, errors.New("mcp: no tool caller configured"))
	} else {
		res, rerr = h.caller.Call(callCtx, name, args, info)
	}
	f := featuresOf(version)
	if rerr != nil {
		h.count(env, name, rerr.Code)
		if h.mode == ToolErrorsResult {
			h.sink.Report(ctx, rerr)
			a := h.result(req, h.errorResult(rerr, f))
			a.retryAfter = rerr.RetryAfter
			return a
		}
		return h.errAnswer(ctx, req, rerr, http.StatusOK)
	}
	h.count(env, name, 0)
	return h.result(req, h.successResult(res, f))
}

// count reports one tools/call to the observer, if any.
func (h *Handler) count(env *envelope, tool string, code int) {
	if h.observe == nil {
		return
	}
	endpoint := "stdio"
	if env.http {
		endpoint = "mcp"
	}
	h.observe(endpoint, tool, code)
}

// known reports whether name is a tool.
func (h *Handler) known(name string) bool {
	_, ok := h.reg.Lookup(name)
	return ok
}

// clip shortens s to n bytes for messages.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// stripMeta removes a top-level "_meta" member from an arguments object;
// absent or null arguments become {}.
func stripMeta(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return json.RawMessage("{}")
	}
	if t[0] != '{' || !bytes.Contains(t, []byte(`"_meta"`)) {
		return args
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(t, &m) != nil {
		return args
	}
	if _, ok := m["_meta"]; !ok {
		return args
	}
	delete(m, "_meta")
	b, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return b
}

// successResult is a CallToolResult: the JSON as text content, plus
// structuredContent where the version has it.
func (h *Handler) successResult(res json.RawMessage, f features) []byte {
	var b bytes.Buffer
	b.WriteString(`{"content":[{"type":"text","text":`)
	b.Write(marshalString(string(res)))
	b.WriteString(`}]`)
	if f.outputSchema {
		b.WriteString(`,"structuredContent":`)
		b.Write(res)
	}
	h.finish(&b, f)
	return b.Bytes()
}

// errorResult is the isError CallToolResult of the "result" tool-error mode.
func (h *Handler) errorResult(e *rpcerror.Error, f features) []byte {
	obj, err := json.Marshal(e.JSONRPC())
	if err != nil {
		obj = []byte(`{"code":-32603,"message":"Internal error"}`)
	}
	var b bytes.Buffer
	b.WriteString(`{"content":[{"type":"text","text":`)
	b.Write(marshalString(RenderError(e)))
	b.WriteString(`}],"structuredContent":`)
	b.Write(obj)
	b.WriteString(`,"isError":true`)
	h.finish(&b, f)
	return b.Bytes()
}

// finish closes a result object, adding the stateless members when needed.
func (h *Handler) finish(b *bytes.Buffer, f features) {
	if f.stateless {
		b.WriteString(`,"resultType":"complete","_meta":`)
		b.Write(h.serverMeta)
	}
	b.WriteByte('}')
}

// RenderError renders a contract error as seed 002 shows for text-only
// clients: "Error <code>: <title>" and one "  - path: message" line per
// violation (-32602), or one "  - key: value" line per context field.
func RenderError(e *rpcerror.Error) string {
	var b strings.Builder
	title := e.Message
	if e.Code == rpcerror.InvalidParamsCode && len(e.Data.ValidationErrors) > 0 {
		title = "Invalid params"
	}
	fmt.Fprintf(&b, "Error %d: %s", e.Code, title)
	for _, v := range e.Data.ValidationErrors {
		fmt.Fprintf(&b, "\n  - %s: %s", v.Path, v.Message)
	}
	d := e.Data
	var lines []string
	add := func(k, v string) {
		if v != "" {
			lines = append(lines, k+": "+v)
		}
	}
	if d.GitHub != nil {
		gh := d.GitHub.Message
		if gh == e.Message {
			gh = ""
		}
		if d.GitHub.Status != 0 {
			gh = strings.TrimSpace(strconv.Itoa(d.GitHub.Status) + " " + gh)
		}
		add("github", gh)
		add("documentation_url", d.GitHub.DocumentationURL)
	}
	if d.Resource != nil {
		add("resource", strings.TrimSpace(d.Resource.Type+" "+d.Resource.ID))
	}
	if d.RetryAfter != nil {
		add("retryAfter", strconv.Itoa(*d.RetryAfter)+"s")
	}
	add("mergeable_state", d.MergeableState)
	add("expected_sha", d.ExpectedSHA)
	add("actual_sha", d.ActualSHA)
	if d.Protocol != nil {
		add("protocol", "requested "+d.Protocol.Requested+", supported "+strings.Join(d.Protocol.Supported, ", "))
	}
	add("requestId", d.RequestID)
	for _, l := range lines {
		b.WriteString("\n  - " + l)
	}
	return b.String()
}

// inflightKey names an in-flight request for notifications/cancelled: only
// within a scope a client owns (a stdio connection or an HTTP session).
func (h *Handler) inflightKey(env *envelope, id json.RawMessage) string {
	scope := ""
	switch {
	case env.stdio != nil:
		scope = env.stdio.scope
	case env.sessionID != "":
		scope = "http:" + env.sessionID
	default:
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return ""
	}
	return scope + "\x00" + b.String()
}

// cancel handles notifications/cancelled: it cancels the named in-flight
// request of the same scope, if any (a late or unknown id is ignored).
func (h *Handler) cancel(env *envelope, params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	key := h.inflightKey(env, p.RequestID)
	if key == "" {
		return
	}
	if c, ok := h.inflight.Load(key); ok {
		c.(context.CancelFunc)()
	}
}
