package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"ghops.dev/infra/eventstream"
)

// maxAnswer bounds how much of one answer is read.
const maxAnswer = 16 << 20

// driver makes the calls of one run.
type driver struct {
	cfg       Config
	client    *http.Client
	url       string
	sessionID string // MCP session id, if the gateway issued one
	version   string // negotiated MCP protocol version
	stdio     *stdioServer
}

func newDriver(cfg Config) *driver {
	ep := "/rpc"
	if cfg.Endpoint == EndpointMCP {
		ep = "/mcp"
	}
	return &driver{cfg: cfg, client: newClient(cfg.Concurrency), url: strings.TrimSuffix(cfg.Target, "/") + ep}
}

// envelope is the part of a JSON-RPC response the load generator reads.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// post sends one JSON-RPC message and returns the HTTP answer with its body (the last event's data
// when the server answers with an event stream).
func (d *driver) post(ctx context.Context, body []byte, hdr map[string]string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if d.cfg.Authorization != "" {
		req.Header.Set("Authorization", d.cfg.Authorization)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return resp, nil, err
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		data = eventstream.Last(data)
	}
	return resp, data, nil
}

func (d *driver) mcpHeaders() map[string]string {
	h := map[string]string{"MCP-Protocol-Version": d.version}
	if d.sessionID != "" {
		h["Mcp-Session-Id"] = d.sessionID
	}
	return h
}

// initialize performs the MCP handshake once for the whole run: initialize, then
// notifications/initialized. Workers share the session, as replicas of a stateless gateway allow.
func (d *driver) initialize(ctx context.Context) error {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": d.cfg.MCPVersion, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "ghops-load", "version": "1"},
	}})
	ictx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	note, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if d.stdio != nil {
		data, err := d.stdio.send(ictx, "0", body)
		if err != nil {
			return fmt.Errorf("loadgen: MCP initialize: %w", err)
		}
		if v := negotiated(data); v == "" {
			return fmt.Errorf("loadgen: MCP initialize failed: %.300s", data)
		}
		if _, err := d.stdio.send(ictx, "", note); err != nil {
			return fmt.Errorf("loadgen: MCP notifications/initialized: %w", err)
		}
		return nil
	}
	resp, data, err := d.post(ictx, body, nil)
	if err != nil {
		return fmt.Errorf("loadgen: MCP initialize: %w", err)
	}
	v := negotiated(data)
	if v == "" {
		// The answer is the server's and may echo the request's Authorization value.
		return fmt.Errorf("loadgen: MCP initialize failed: HTTP %d: %.300s", resp.StatusCode, redactText(string(data), d.cfg.Authorization))
	}
	d.version, d.sessionID = v, resp.Header.Get("Mcp-Session-Id")
	resp, data, err = d.post(ictx, note, d.mcpHeaders())
	if err != nil {
		return fmt.Errorf("loadgen: MCP notifications/initialized: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("loadgen: MCP notifications/initialized: HTTP %d: %.300s", resp.StatusCode, redactText(string(data), d.cfg.Authorization))
	}
	return nil
}

// negotiated returns the protocol version of a successful initialize answer, "" for anything else.
func negotiated(data []byte) string {
	var env envelope
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(data, &env) != nil || env.Error != nil || json.Unmarshal(env.Result, &res) != nil {
		return ""
	}
	return res.ProtocolVersion
}

// call makes one tool call with JSON-RPC id n and classifies its answer.
func (d *driver) call(ctx context.Context, n int64, c Call) outcome {
	var msg map[string]any
	var hdr map[string]string
	if d.cfg.Endpoint != EndpointRPC {
		msg = map[string]any{"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": map[string]any{"name": c.Tool, "arguments": c.Args}}
		hdr = d.mcpHeaders()
	} else {
		msg = map[string]any{"jsonrpc": "2.0", "id": n, "method": c.Tool, "params": c.Args}
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return outcome{tool: c.Tool, kind: kindMalformed}
	}
	cctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	id := strconv.FormatInt(n, 10)
	start := time.Now()
	if d.stdio != nil {
		data, err := d.stdio.send(cctx, id, body)
		o := outcome{tool: c.Tool, latency: time.Since(start)}
		switch {
		case err != nil && ctx.Err() != nil:
			o.kind = kindCanceled
		case err != nil:
			o.kind = kindTransport
		default:
			o.kind, o.code = classify(200, data, id, true)
		}
		return o
	}
	resp, data, err := d.post(cctx, body, hdr)
	o := outcome{tool: c.Tool, latency: time.Since(start)}
	if err != nil {
		if ctx.Err() != nil {
			o.kind = kindCanceled
		} else {
			o.kind = kindTransport
		}
		return o
	}
	o.kind, o.code = classify(resp.StatusCode, data, id, d.cfg.Endpoint == EndpointMCP)
	return o
}

// classify reads one answer: a JSON-RPC error (by code), an MCP result with isError (by the code of
// the contract error in its _meta["dev.ghops/error"], else in its structuredContent as older gateways
// sent it, 0 when it has neither), success, or something that is not a JSON-RPC answer.
func classify(status int, data []byte, wantID string, mcp bool) (kind, int) {
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil || env.JSONRPC != "2.0" {
		if status/100 != 2 {
			return kindHTTP, status
		}
		return kindMalformed, 0
	}
	if env.Error != nil {
		if env.Error.Code == nil {
			return kindMalformed, 0
		}
		return kindRPCError, *env.Error.Code
	}
	if string(env.ID) != wantID || len(env.Result) == 0 {
		return kindMalformed, 0
	}
	if mcp {
		type coded struct {
			Code int `json:"code"`
		}
		var r struct {
			IsError           bool             `json:"isError"`
			Meta              map[string]coded `json:"_meta"`
			StructuredContent coded            `json:"structuredContent"`
		}
		if json.Unmarshal(env.Result, &r) == nil && r.IsError {
			if c := r.Meta["dev.ghops/error"].Code; c != 0 {
				return kindRPCError, c
			}
			return kindRPCError, r.StructuredContent.Code
		}
	}
	return kindOK, 0
}

// hubStats is the part of fakehub's GET /_fakehub/stats the report uses.
type hubStats struct {
	Total     int            `json:"total"`
	ByRoute   map[string]int `json:"by_route"`
	ByStatus  map[string]int `json:"by_status"`
	RateUnits map[string]int `json:"rate_units"`
}

// errStats is returned when fakehub's stats cannot be read; it never includes the admin token.
var errStats = errors.New("loadgen: reading fakehub stats failed")

func (d *driver) fetchStats(ctx context.Context) (*hubStats, error) {
	u := strings.TrimSuffix(d.cfg.FakehubAdminURL, "/") + "/_fakehub/stats"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, errStats
	}
	req.Header.Set("Authorization", "Bearer "+d.cfg.FakehubAdminToken)
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errStats, redact(err, d.cfg.FakehubAdminToken))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: HTTP %d", errStats, resp.StatusCode)
	}
	var s hubStats
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %v", errStats, err)
	}
	return &s, nil
}

// redact removes a secret from an error's text.
func redact(err error, secret string) string {
	return redactText(err.Error(), secret)
}

// redactText removes a secret from a text. It stays next to the only two secrets ghops-load holds
// (the fakehub admin token and the Authorization value), both known exactly, rather than using the
// shape-based ghops.dev/redact: a value such as "Bearer s3cret" need not look like a token.
func redactText(s, secret string) string {
	if secret != "" {
		s = strings.ReplaceAll(s, secret, "[redacted]")
		// The bare token of a "Bearer t" value may be echoed alone.
		if _, tok, ok := strings.Cut(secret, " "); ok && tok != "" {
			s = strings.ReplaceAll(s, tok, "[redacted]")
		}
	}
	return s
}
