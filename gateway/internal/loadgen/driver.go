package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
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
