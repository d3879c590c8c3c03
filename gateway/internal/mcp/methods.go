package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"

	"net/http"

	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolschema"
)

// This file answers the protocol's own methods: initialize, ping,
// tools/list and server/discover. The gateway serves them itself rather
// than through the official SDK's server (docs/architecture.md, "The MCP
// layer": the SDK's per-request dispatch cost more CPU than the rest of the
// gateway's work on a call); the wire is the one the SDK answers, pinned by
// TestMethodsGolden and TestToolsListPages and decoded by the SDK's client
// in the e2e tests.

// defaultPageSize is how many tools one tools/list page holds unless
// WithPageSize says otherwise (the SDK's default, so that every tool fits
// one page).
const defaultPageSize = 1000

// privateListTTLMs is the ttlMs of a tools/list narrowed to one principal
// (cacheScope "private", MCP 2026-07-28): a policy is reloaded only with
// the gateway, so a minute of caching by the client loses nothing while
// sparing the list on every turn of an agent loop. An unfiltered list stays
// "public" with ttlMs 0, as before.
const privateListTTLMs = 60000

// Instructions is what initialize and server/discover tell a client about
// the server, for its model.
const Instructions = "ghops lets you read and change GitHub repositories through typed tools. " +
	"The tools listed are the ones your policy allows; others are refused as unknown tools. " +
	"A failed call carries a JSON-RPC code (-326xx for bad requests, -320xx for GitHub and policy failures) " +
	`with details in result._meta["dev.ghops/error"] or the error's data.`

// toolDef is a tool's definition on the wire, its members in the order the
// SDK's Tool type encodes them (clients and the context budget see the same
// bytes as before the gateway answered tools/list itself).
type toolDef struct {
	Annotations  *toolAnnotations `json:"annotations,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	Name         string           `json:"name"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Title        string           `json:"title,omitempty"`
}

// toolAnnotations are a tool's hints (MCP ToolAnnotations), every one
// explicit: the specification's defaults for an absent hint are not false
// (destructiveHint and openWorldHint default to true), and a host should not
// have to know them to read what a tool does.
type toolAnnotations struct {
	DestructiveHint bool `json:"destructiveHint"`
	IdempotentHint  bool `json:"idempotentHint"`
	OpenWorldHint   bool `json:"openWorldHint"`
	ReadOnlyHint    bool `json:"readOnlyHint"`
}

// encodeTool describes a registry tool: its title and all four annotations
// as the contract states them, and the schemas the generator published.
// Every byte of a definition costs the model context on every session, so
// the generator keeps each definition within 1 KB (tools/schemagen,
// publish.go; TestToolsListBudget, docs/benchmarks.md) by what the schemas
// carry, not by leaving out the hints and titles hosts show.
func encodeTool(t *toolschema.Tool) ([]byte, error) {
	a := t.Annotations
	return json.Marshal(toolDef{
		Annotations: &toolAnnotations{
			DestructiveHint: a.DestructiveHint, IdempotentHint: a.IdempotentHint,
			OpenWorldHint: a.OpenWorldHint, ReadOnlyHint: a.ReadOnlyHint,
		},
		Description: t.Description, InputSchema: t.InputSchema,
		Name: t.Name, OutputSchema: t.OutputSchema, Title: t.Title,
	})
}

// Errors of the protocol's own methods, in the words the SDK used for them
// (kept: clients and the goldens know them).
func invalidParams() *rpcerror.Error {
	return rpcerror.New(rpcerror.InvalidParamsCode, "invalid params")
}

func invalidRequest() *rpcerror.Error {
	return rpcerror.New(rpcerror.InvalidRequest, "invalid request")
}

// isObjectOrAbsent reports whether params is absent, null or an object:
// what every method's params may be.
func isObjectOrAbsent(params json.RawMessage) bool {
	p := bytes.TrimSpace(params)
	return len(p) == 0 || p[0] == '{' || bytes.Equal(p, []byte("null"))
}

// initialize negotiates a handshake version for initialize's params: the one asked for when it is a
// handshake version, else the newest handshake version (the client decides
// whether it can speak it).
func (s *Server) initialize(params json.RawMessage) (json.RawMessage, string, *rpcerror.Error) {
	if p := bytes.TrimSpace(params); len(p) == 0 || bytes.Equal(p, []byte("null")) {
		return nil, "", invalidRequest()
	}
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
		Capabilities    *struct {
			Experimental map[string]json.RawMessage `json:"experimental"`
		} `json:"capabilities"`
		ClientInfo *struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"clientInfo"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil, "", invalidParams()
	}
	v := V20251125
	if slices.Contains(legacyVersions, p.ProtocolVersion) {
		v = p.ProtocolVersion
	}
	var b bytes.Buffer
	b.WriteString(`{"capabilities":{"tools":{}},"instructions":`)
	b.Write(s.instructions)
	b.WriteString(`,"protocolVersion":"` + v + `","serverInfo":`)
	b.Write(s.serverInfo)
	b.WriteByte('}')
	return b.Bytes(), v, nil
}

// ping answers ping.
func ping(params json.RawMessage) (json.RawMessage, *rpcerror.Error) {
	if !isObjectOrAbsent(params) {
		return nil, invalidParams()
	}
	return json.RawMessage(`{}`), nil
}

// modernMeta opens a 2026-07-28 result: its resultType and the serverInfo
// _meta.
func (s *Server) modernMeta(b *bytes.Buffer) {
	b.WriteString(`"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":`)
	b.Write(s.serverInfo)
	b.WriteString(`},`)
}

// discover answers server/discover (2026-07-28 only; serve decides).
func (s *Server) discover(params json.RawMessage) (json.RawMessage, *rpcerror.Error) {
	if !isObjectOrAbsent(params) {
		return nil, invalidParams()
	}
	var b bytes.Buffer
	b.WriteByte('{')
	s.modernMeta(&b)
	b.WriteString(`"ttlMs":0,"cacheScope":"public","supportedVersions":`)
	v, _ := json.Marshal(SupportedVersions)
	b.Write(v)
	b.WriteString(`,"capabilities":{"tools":{}},"instructions":`)
	b.Write(s.instructions)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// toolsList answers tools/list: the
// tools ctx's caller may call, sorted by name, one page from params.cursor
// on. A list narrowed to the caller is
// cacheScope "private" with a positive ttlMs; the gateway-wide one public.
func (s *Server) toolsList(ctx context.Context, params json.RawMessage, modern bool) (json.RawMessage, *rpcerror.Error) {
	if !isObjectOrAbsent(params) {
		return nil, invalidParams()
	}
	var p struct {
		Cursor string `json:"cursor"`
	}
	if len(params) > 0 && json.Unmarshal(params, &p) != nil {
		return nil, invalidParams()
	}
	names, private := s.listed(ctx)
	start := 0
	if p.Cursor != "" {
		last, err := base64.URLEncoding.DecodeString(p.Cursor)
		if err != nil {
			return nil, invalidParams()
		}
		start, _ = slices.BinarySearch(names, string(last)+"\x00")
	}
	end, next := len(names), ""
	if end-start > s.pageSize {
		end = start + s.pageSize
		next = base64.URLEncoding.EncodeToString([]byte(names[end-1]))
	}
	size := 128
	for _, n := range names[start:end] {
		size += len(s.defs[n]) + 1
	}
	var b bytes.Buffer
	b.Grow(size)
	b.WriteByte('{')
	if modern {
		s.modernMeta(&b)
	}
	if private {
		b.WriteString(`"ttlMs":` + strconv.Itoa(privateListTTLMs) + `,"cacheScope":"private",`)
	} else {
		b.WriteString(`"ttlMs":0,"cacheScope":"public",`)
	}
	if next != "" {
		b.WriteString(`"nextCursor":"` + next + `",`)
	}
	b.WriteString(`"tools":[`)
	for i, n := range names[start:end] {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(s.defs[n])
	}
	b.WriteString(`]}`)
	return b.Bytes(), nil
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

// methodNotFound is -32601 in the words MCP's SDKs answer ("method not
// found", or why the method is missing), which MCP clients and the
// conformance suite know (the goldens pin them); /rpc's is JSON-RPC's
// "Method not found" (package toolrpc).
func methodNotFound(method, why string) *rpcerror.Error {
	if why == "" {
		return rpcerror.New(rpcerror.MethodNotFound, "method not found")
	}
	return rpcerror.New(rpcerror.MethodNotFound, "Method not found: "+method+why)
}

// serve is the method table of every request but tools/call (Serve): which
// method runs at version and its answer. 2026-07-28 removed the handshake
// and ping and alone has server/discover; methods of undeclared
// capabilities and unknown ones are -32601, HTTP 404 at 2026-07-28 over
// HTTP.
func (t *transport) serve(ctx context.Context, x *pipeline.Body, c *pipeline.Call, version string) pipeline.Answer {
	modern := version == V20260728
	method, params := c.Request.Method, c.Request.Params
	var (
		res json.RawMessage
		e   *rpcerror.Error
	)
	switch {
	case modern && removedInStateless[method]:
		e = methodNotFound(method, " was removed in protocol version "+version)
	case undeclared[method]:
		e = methodNotFound(method, " (the gateway serves tools only)")
	case method == "initialize" && !modern:
		return t.initialize(ctx, x, c)
	case method == "tools/list":
		res, e = t.s.toolsList(ctx, params, modern)
	case method == "ping" && !modern:
		res, e = ping(params)
	case method == "server/discover" && modern:
		res, e = t.s.discover(params)
	default:
		e = methodNotFound(method, "")
	}
	a := pipeline.Answer{Result: res, Err: e}
	if modern && !t.stdio && e != nil && e.Code == rpcerror.MethodNotFound {
		// 2026-07-28 answers an unknown method 404 on Streamable HTTP.
		a.Status = http.StatusNotFound
	}
	return a
}

// initialize runs the handshake: never in a batch; the negotiated version
// and whether the client declared elicitation go to a new session's id on
// HTTP, to the connection on stdio.
func (t *transport) initialize(ctx context.Context, x *pipeline.Body, c *pipeline.Call) pipeline.Answer {
	if c.Batch {
		return pipeline.Answer{Err: rpcerror.New(rpcerror.InvalidRequest, "Invalid Request: initialize must not be part of a JSON-RPC batch")}
	}
	res, version, e := t.s.initialize(c.Request.Params)
	if e != nil {
		return pipeline.Answer{Err: e}
	}
	elicit := initElicitation(c.Request.Params)
	if t.stdio {
		cn := connOf(x)
		cn.mu.Lock()
		cn.version, cn.elicit = version, elicit
		cn.mu.Unlock()
	} else {
		x.SetHeader(headerSessionID, t.s.sess.mintWith(version, binding(ctx), elicit))
	}
	return pipeline.Answer{Result: res}
}

// listed returns the names of the tools ctx's caller sees, sorted, and
// whether that list was narrowed to the caller (its policy hides some).
func (s *Server) listed(ctx context.Context) ([]string, bool) {
	var pr *policy.Principal
	if c := policy.CallerFrom(ctx); c != nil {
		pr = c.Principal
	}
	if pr == nil {
		return s.sorted, false
	}
	names := policy.Allowed(pr, s.tools, s.readOnly)
	slices.Sort(names)
	return names, !slices.Equal(names, s.sorted)
}
