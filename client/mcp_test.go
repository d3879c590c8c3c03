package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// fakeMCP is a loopback MCP Streamable HTTP server with scripted tools.
type fakeMCP struct {
	mu          sync.Mutex
	inits       int
	sessions    map[string]bool
	expireFirst bool // forget the session at the first tools/call
	calls       int
	notes       []string
}

func (f *fakeMCP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/mcp" || r.Method != http.MethodPost {
		http.Error(w, "no", http.StatusNotFound)
		return
	}
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") || !strings.Contains(r.Header.Get("Accept"), "application/json") {
		http.Error(w, "bad accept", http.StatusNotAcceptable)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name            string          `json:"name"`
			Cursor          string          `json:"cursor"`
			ProtocolVersion string          `json:"protocolVersion"`
			Arguments       json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if req.ID == nil {
		f.notes = append(f.notes, req.Method)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	answer := func(result string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	}
	if req.Method == "initialize" {
		f.inits++
		id := fmt.Sprintf("sess-%d", f.inits)
		if f.sessions == nil {
			f.sessions = map[string]bool{}
		}
		f.sessions[id] = true
		w.Header().Set("Mcp-Session-Id", id)
		answer(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"0"}}`)
		return
	}
	if !f.sessions[r.Header.Get("Mcp-Session-Id")] {
		http.Error(w, "unknown session", http.StatusNotFound)
		return
	}
	if r.Header.Get("MCP-Protocol-Version") != "2025-06-18" {
		http.Error(w, "bad version header", http.StatusBadRequest)
		return
	}
	switch req.Method {
	case "tools/list":
		if req.Params.Cursor == "" {
			answer(`{"tools":[{"name":"search","title":"Search","annotations":{"readOnlyHint":true}}],"nextCursor":"p2"}`)
		} else {
			answer(`{"tools":[{"name":"merge_pull_request"}]}`)
		}
		return
	case "tools/call":
	default:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, req.ID)
		return
	}
	f.calls++
	if f.expireFirst && f.calls == 1 {
		delete(f.sessions, r.Header.Get("Mcp-Session-Id"))
		http.Error(w, "unknown session", http.StatusNotFound)
		return
	}
	switch req.Params.Name {
	case "fetch":
		answer(`{"content":[{"type":"text","text":"{\"full_name\":\"o/r\"}"}],"structuredContent":{"full_name":"o/r","args":` + string(req.Params.Arguments) + `}}`)
	case "text_only":
		answer(`{"content":[{"type":"text","text":"{\"full_name\":\"o/text\"}"}]}`)
	case "rpc_error":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32002,"message":"Not Found","data":{"tool":"fetch"}}}`, req.ID)
	case "result_error":
		answer(`{"isError":true,"content":[{"type":"text","text":"Error -32602: Invalid params\n  - root: must have required property 'query'"}],"structuredContent":{"code":-32602,"message":"Validation errors: must have required property 'query'","data":{"tool":"search","validation_errors":[{"message":"must have required property 'query'","path":"root","keyword":"required"}]}}}`)
	case "meta_error":
		answer(`{"isError":true,"content":[{"type":"text","text":"Error -32005: Pull Request is not mergeable"}],"_meta":{"dev.ghops/error":{"code":-32005,"message":"Pull Request is not mergeable","data":{"tool":"merge_pull_request","mergeable_state":"dirty"}}}}`)
	case "text_error":
		answer(`{"isError":true,"content":[{"type":"text","text":"something broke"}]}`)
	case "sse":
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n")
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\n", req.ID)
		fmt.Fprintf(w, "data: \"result\":{\"structuredContent\":{\"via\":\"sse\"}}}\n\n")
	case "wrong_id":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"other","result":{}}`)
	case "html":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprint(w, "<html>502</html>")
	default:
		answer(`{"content":[{"type":"text","text":"not json"}]}`)
	}
}

// TestMCPTransport checks tools/call over /mcp: results, both error modes,
// SSE answers and envelope validation.
func TestMCPTransport(t *testing.T) {
	tests := []struct {
		name    string
		tool    string
		want    string
		wantIs  []error
		wantMsg string
	}{
		{"structured content", "fetch", `{"full_name":"o/r","args":{"repo":"o/r"}}`, nil, ""},
		{"text content only", "text_only", `{"full_name":"o/text"}`, nil, ""},
		{"sse answer after a notification", "sse", `{"via":"sse"}`, nil, ""},
		{"json-rpc error mode", "rpc_error", "", []error{ErrNotFound}, "Not Found"},
		{"isError result with the contract error in _meta", "meta_error", "", []error{ErrNotMergeable}, "Pull Request is not mergeable"},
		{"isError result from an older gateway", "result_error", "", []error{ErrInvalidParams}, "must have required property 'query'"},
		{"isError without an error object", "text_error", "", []error{ErrInternal}, "something broke"},
		{"non-json text", "plain", "", []error{ErrProtocol, ErrBadShape}, "neither structuredContent nor JSON text"},
		{"wrong id", "wrong_id", "", []error{ErrProtocol, ErrIDMismatch}, `got id "other"`},
		{"html", "html", "", []error{ErrTransport, ErrHTTPStatus}, "HTTP 502"},
	}
	srv := &fakeMCP{}
	c := newTestClient(t, serve(t, srv), WithTransport(TransportMCP))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := c.CallRaw(context.Background(), tc.tool, json.RawMessage(`{"repo":"o/r"}`))
			if tc.wantIs == nil {
				if err != nil || string(res) != tc.want {
					t.Fatalf("CallRaw = %s, %v; want %s", res, err, tc.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("CallRaw = %s, want an error", res)
			}
			assertIs(t, err, tc.wantIs...)
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tc.wantMsg)
			}
		})
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.inits != 1 || len(srv.notes) != 1 || srv.notes[0] != "notifications/initialized" {
		t.Errorf("inits = %d, notifications = %v; want one initialize and notifications/initialized", srv.inits, srv.notes)
	}
}

// TestMCPSessionExpired checks that a 404 for a known session leads to one
// new initialize and a repeated call.
func TestMCPSessionExpired(t *testing.T) {
	srv := &fakeMCP{expireFirst: true}
	c := newTestClient(t, serve(t, srv), WithTransport(TransportMCP))
	res, err := c.CallRaw(context.Background(), "fetch", json.RawMessage(`{"repo":"o/r"}`))
	if err != nil || !strings.Contains(string(res), "o/r") {
		t.Fatalf("CallRaw = %s, %v", res, err)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.inits != 2 || srv.calls != 2 {
		t.Errorf("inits = %d, calls = %d; want 2 and 2", srv.inits, srv.calls)
	}
}

// TestListRemoteTools checks cursor paging of tools/list.
func TestListRemoteTools(t *testing.T) {
	c := newTestClient(t, serve(t, &fakeMCP{}))
	tools, err := c.ListRemoteTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || tools[0].Name != "search" || !tools[0].ReadOnly() || tools[1].Name != "merge_pull_request" || !tools[1].Destructive() {
		t.Errorf("tools = %+v", tools)
	}
}

// TestRemoteToolHints checks that annotations left out of tools/list read
// as MCP's defaults (readOnlyHint false, destructiveHint true,
// idempotentHint false, openWorldHint true), and that destructiveHint and
// idempotentHint of a read-only tool, which MCP gives no meaning, read as a
// read-only tool behaves.
func TestRemoteToolHints(t *testing.T) {
	type hints struct{ readOnly, destructive, idempotent, openWorld bool }
	tests := []struct {
		name        string
		annotations string
		want        hints
	}{
		{"absent: MCP defaults", `{}`, hints{false, true, false, true}},
		{"null: MCP defaults", `null`, hints{false, true, false, true}},
		{"read-only", `{"readOnlyHint":true}`, hints{true, false, true, true}},
		{"read-only ignores destructive", `{"readOnlyHint":true,"destructiveHint":true,"idempotentHint":false}`, hints{true, false, true, true}},
		{"write, not destructive", `{"destructiveHint":false}`, hints{false, false, false, true}},
		{"write, idempotent", `{"destructiveHint":false,"idempotentHint":true}`, hints{false, false, true, true}},
		{"all stated", `{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}`, hints{false, true, false, true}},
		{"closed world", `{"readOnlyHint":true,"openWorldHint":false}`, hints{true, false, true, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var rt RemoteTool
			if err := json.Unmarshal([]byte(`{"name":"x","annotations":`+tc.annotations+`}`), &rt); err != nil {
				t.Fatal(err)
			}
			got := hints{rt.ReadOnly(), rt.Destructive(), rt.Idempotent(), rt.OpenWorld()}
			if got != tc.want {
				t.Errorf("hints of %s = %+v, want %+v", tc.annotations, got, tc.want)
			}
		})
	}
}

// TestMCPInitializeFailure checks that a bad initialize answer is reported.
func TestMCPInitializeFailure(t *testing.T) {
	tests := []struct {
		name  string
		reply reply
		want  error
	}{
		{"unsupported version", reply{body: `{"jsonrpc":"2.0","id":ID,"result":{"protocolVersion":"1999-01-01"}}`}, ErrBadShape},
		{"error answer", errorReply(CodeInvalidRequest, "Bad Request: unsupported protocol version", `{"protocol":{"requested":"x","supported":["2025-06-18"]}}`), ErrInvalidRequest},
		{"html", reply{status: 404, contentType: "text/html", body: "<h1>404</h1>"}, ErrHTTPStatus},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClient(t, serve(t, &recorder{replies: []reply{tc.reply}}), WithTransport(TransportMCP))
			_, err := c.CallRaw(context.Background(), "fetch", nil)
			if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
}
