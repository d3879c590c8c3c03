package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"ghops.dev/infra/eventstream"
)

// MCPProtocolVersion is the MCP version the client asks for in initialize.
const MCPProtocolVersion = "2025-11-25"

// mcpVersions are the versions the client accepts from the server.
var mcpVersions = map[string]bool{
	"2024-11-05": true,
	"2025-03-26": true,
	"2025-06-18": true,
	"2025-11-25": true,
}

// mcpSession is the outcome of initialize.
type mcpSession struct {
	id      string // Mcp-Session-Id, "" when the server issues none
	version string // negotiated protocol version
}

// mcpEnsure initializes once and returns the session.
func (c *Client) mcpEnsure(ctx context.Context) (*mcpSession, error) {
	c.mcpMu.Lock()
	defer c.mcpMu.Unlock()
	if c.mcpSession != nil {
		return c.mcpSession, nil
	}
	params, _ := json.Marshal(map[string]any{
		"protocolVersion": MCPProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "ghops-client", "version": "1"},
	})
	res, ans, err := c.mcpRequest(ctx, nil, "initialize", params)
	if err != nil {
		return nil, err
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(res, &init); err != nil || !mcpVersions[init.ProtocolVersion] {
		return nil, protoErr(ErrBadShape, "initialize answered protocol version %q; the client speaks 2024-11-05 to %s", truncateText(init.ProtocolVersion, 40), MCPProtocolVersion)
	}
	s := &mcpSession{id: ans.header.Get("Mcp-Session-Id"), version: init.ProtocolVersion}
	// notifications/initialized: 202 with no body; its failure shows on the
	// next call, so it is not checked here.
	note, _ := json.Marshal(map[string]string{"jsonrpc": "2.0", "method": "notifications/initialized"})
	_, _ = c.post(ctx, c.base+"/mcp", note, mcpHeaders(s))
	c.mcpSession = s
	return s, nil
}

// mcpReset forgets s so that the next call initializes again.
func (c *Client) mcpReset(s *mcpSession) {
	c.mcpMu.Lock()
	defer c.mcpMu.Unlock()
	if c.mcpSession == s {
		c.mcpSession = nil
	}
}

func mcpHeaders(s *mcpSession) http.Header {
	h := http.Header{}
	h.Set("Accept", "application/json, text/event-stream")
	if s != nil {
		h.Set("MCP-Protocol-Version", s.version)
		if s.id != "" {
			h.Set("Mcp-Session-Id", s.id)
		}
	}
	return h
}

// mcpRequest posts one request to /mcp and returns its validated result.
func (c *Client) mcpRequest(ctx context.Context, s *mcpSession, method string, params json.RawMessage) (json.RawMessage, *httpAnswer, error) {
	id := c.newID()
	body, err := json.Marshal(rpcRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return nil, nil, err
	}
	u := c.base + "/mcp"
	ans, err := c.post(ctx, u, body, mcpHeaders(s))
	if err != nil {
		return nil, nil, err
	}
	want := strconv.FormatInt(id, 10)
	if ans.contentType == "text/event-stream" {
		ans.body = sseMessage(ans.body, want)
	}
	env, derr := decodeSingle(ans.body, want)
	if terr := c.classify(u, ans, derr); terr != nil {
		return nil, ans, terr
	}
	if derr != nil {
		return nil, ans, derr
	}
	if env.rpcErr != nil {
		return nil, ans, env.rpcErr.toError(ans.retryAfter)
	}
	return env.result, ans, nil
}

// mcpCall calls a tool over /mcp, initializing first, and initializing again
// once when the server no longer knows the session (HTTP 404).
func (c *Client) mcpCall(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	params, err := json.Marshal(struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}{tool, args})
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		s, err := c.mcpEnsure(ctx)
		if err != nil {
			return nil, err
		}
		res, ans, err := c.mcpRequest(ctx, s, "tools/call", params)
		if err != nil && attempt == 0 && s.id != "" && ans != nil && ans.status == http.StatusNotFound {
			c.mcpReset(s)
			continue
		}
		if err != nil {
			return nil, err
		}
		return toolResult(res, ans.retryAfter)
	}
}

// ErrorMetaKey is the result._meta key under which the gateway puts the
// contract's {code, message, data} of a failed tool call answered as an
// isError result (docs/errors.md).
const ErrorMetaKey = "dev.ghops/error"

// toolResult extracts the tool's JSON from an MCP CallToolResult:
// structuredContent, else the first text content parsed as JSON. A result
// with isError true becomes the error it carries in
// _meta["dev.ghops/error"] (or, from a gateway older than that rule, in
// structuredContent or the text).
func toolResult(res json.RawMessage, retryAfter time.Duration) (json.RawMessage, error) {
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage            `json:"structuredContent"`
		IsError           bool                       `json:"isError"`
		Meta              map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, protoErr(ErrBadShape, "tools/call result is %s, not a CallToolResult", describeJSON(res))
	}
	text := ""
	for _, ct := range r.Content {
		if ct.Type == "text" {
			text = ct.Text
			break
		}
	}
	structured := bytes.TrimSpace(r.StructuredContent)
	if string(structured) == "null" {
		structured = nil
	}
	if r.IsError {
		if obj := r.Meta[ErrorMetaKey]; len(obj) > 0 {
			if we, err := parseErrorObject(obj); err == nil {
				return nil, we.toError(retryAfter)
			}
		}
		if len(structured) > 0 {
			if we, err := parseErrorObject(structured); err == nil {
				return nil, we.toError(retryAfter)
			}
		}
		if we, err := parseErrorObject(json.RawMessage(text)); err == nil {
			return nil, we.toError(retryAfter)
		}
		return nil, &Error{Code: CodeInternal, Message: "tool error: " + truncateText(text, 500)}
	}
	if len(structured) > 0 {
		return json.RawMessage(structured), nil
	}
	if json.Valid([]byte(text)) && strings.HasPrefix(strings.TrimSpace(text), "{") {
		return json.RawMessage(text), nil
	}
	return nil, protoErr(ErrBadShape, "tools/call result has neither structuredContent nor JSON text")
}

// sseMessage returns the data of the server-sent event that answers id, or
// the body unchanged when there is none (the decoder then reports it).
func sseMessage(body []byte, id string) []byte {
	for _, data := range eventstream.Data(body) {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(data, &probe) == nil && compactToken(probe.ID) == id {
			return data
		}
	}
	return body
}

// RemoteTool is one entry of the gateway's MCP tools/list.
type RemoteTool struct {
	// Name is the tool's name.
	Name string `json:"name"`
	// Title is its human-readable name (absent before MCP 2025-06-18, and
	// when it would only repeat the name).
	Title string `json:"title,omitempty"`
	// Description tells what it does.
	Description string `json:"description,omitempty"`
	// Annotations are MCP's behaviour hints as sent: nil when absent. The
	// gateway leaves out hints equal to MCP's defaults, so read them through
	// ReadOnly, Destructive, Idempotent and OpenWorld, which apply them.
	Annotations struct {
		// ReadOnlyHint is true for tools that change nothing.
		ReadOnlyHint *bool `json:"readOnlyHint,omitempty"`
		// DestructiveHint is true for tools that may overwrite data.
		DestructiveHint *bool `json:"destructiveHint,omitempty"`
		// IdempotentHint is true when repeating a call changes nothing more.
		IdempotentHint *bool `json:"idempotentHint,omitempty"`
		// OpenWorldHint is true for tools that reach outside entities.
		OpenWorldHint *bool `json:"openWorldHint,omitempty"`
	} `json:"annotations"`
	// InputSchema is the tool's JSON Schema for its arguments.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// hint is an MCP annotation with its default when absent.
func hint(h *bool, def bool) bool {
	if h == nil {
		return def
	}
	return *h
}

// ReadOnly is MCP's readOnlyHint (default false).
func (t RemoteTool) ReadOnly() bool { return hint(t.Annotations.ReadOnlyHint, false) }

// Destructive is MCP's destructiveHint (default true), which MCP gives a
// meaning only for a tool that is not read-only: a read-only tool destroys
// nothing.
func (t RemoteTool) Destructive() bool {
	return !t.ReadOnly() && hint(t.Annotations.DestructiveHint, true)
}

// Idempotent is MCP's idempotentHint (default false), which MCP gives a
// meaning only for a tool that is not read-only: repeating a read-only call
// changes nothing, so it is idempotent.
func (t RemoteTool) Idempotent() bool {
	return t.ReadOnly() || hint(t.Annotations.IdempotentHint, false)
}

// OpenWorld is MCP's openWorldHint (default true).
func (t RemoteTool) OpenWorld() bool { return hint(t.Annotations.OpenWorldHint, true) }

// ListRemoteTools asks the gateway's /mcp endpoint for its tools, following
// cursors (at most 100 pages). It always uses /mcp.
func (c *Client) ListRemoteTools(ctx context.Context) ([]RemoteTool, error) {
	s, err := c.mcpEnsure(ctx)
	if err != nil {
		return nil, err
	}
	var out []RemoteTool
	cursor := ""
	for page := 0; page < 100; page++ {
		params := json.RawMessage("{}")
		if cursor != "" {
			params, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		res, _, err := c.mcpRequest(ctx, s, "tools/list", params)
		if err != nil {
			return nil, err
		}
		var r struct {
			Tools      []RemoteTool `json:"tools"`
			NextCursor string       `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &r); err != nil {
			return nil, protoErr(ErrBadShape, "tools/list result: %v", err)
		}
		out = append(out, r.Tools...)
		if r.NextCursor == "" {
			return out, nil
		}
		cursor = r.NextCursor
	}
	return nil, fmt.Errorf("client: tools/list did not end after 100 pages")
}
