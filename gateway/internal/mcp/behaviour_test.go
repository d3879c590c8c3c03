package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// stdioClient drives the stdio transport through the pipeline over pipes.
type stdioClient struct {
	in   *io.PipeWriter
	out  *json.Decoder
	done chan error
}

func startStdio(t *testing.T, s *testServer) *stdioClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &stdioClient{in: inW, out: json.NewDecoder(outR), done: make(chan error, 1)}
	go func() {
		c.done <- s.p.ServeStream(context.Background(), s.s.Stdio(), inR, outW)
		_ = outW.Close()
	}()
	t.Cleanup(func() { _ = inW.Close() })
	return c
}

func (c *stdioClient) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (c *stdioClient) recv(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := c.out.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

const initialize1125 = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// failure is the shape a failed tools/call came back in.
func failure(t *testing.T, body []byte) string {
	t.Helper()
	var m struct {
		Result *struct {
			IsError           bool                       `json:"isError"`
			Meta              map[string]json.RawMessage `json:"_meta"`
			StructuredContent json.RawMessage            `json:"structuredContent"`
		} `json:"result"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%q: %v", body, err)
	}
	switch {
	case m.Error != nil:
		return "jsonrpc"
	case m.Result != nil && m.Result.IsError && m.Result.Meta[ErrorMetaKey] != nil && m.Result.StructuredContent == nil:
		return "result"
	}
	t.Fatalf("not a failure: %s", body)
	return ""
}

// TestToolErrorRule checks the one rule on every way a request can name a
// protocol version, including the session and the stdio handshake, and the
// two forced modes.
func TestToolErrorRule(t *testing.T) {
	call := strings.Replace(mergeCall(404, false), `"id":7`, `"id":2`, 1)
	for _, mode := range []string{ToolErrorsAuto, ToolErrorsJSONRPC, ToolErrorsResult} {
		s := newModeServer(t, mode)
		r := s.post(t, initialize1125)
		sid := r.header.Get("Mcp-Session-Id")
		if sid == "" {
			t.Fatalf("no session: %s", r.body)
		}
		named := map[bool]string{true: "result", false: "jsonrpc"}
		if mode != ToolErrorsAuto {
			named = map[bool]string{true: mode, false: mode}
		}
		t.Run(mode+"/http no version", func(t *testing.T) {
			if got := failure(t, s.post(t, call).body); got != named[false] {
				t.Errorf("got %s", got)
			}
		})
		t.Run(mode+"/http session", func(t *testing.T) {
			if got := failure(t, s.post(t, call, "Mcp-Session-Id", sid).body); got != named[true] {
				t.Errorf("got %s", got)
			}
		})
		t.Run(mode+"/stdio", func(t *testing.T) {
			c := startStdio(t, s)
			c.send(t, call)
			if got := failure(t, mustJSON(c.recv(t))); got != named[false] {
				t.Errorf("before initialize: got %s", got)
			}
			c.send(t, initialize1125)
			if m := c.recv(t); m["result"] == nil {
				t.Fatalf("initialize: %v", m)
			}
			c.send(t, call)
			if got := failure(t, mustJSON(c.recv(t))); got != named[true] {
				t.Errorf("after initialize: got %s", got)
			}
		})
	}
}

// mustJSON re-encodes a decoded message.
func mustJSON(m map[string]json.RawMessage) []byte {
	b, _ := json.Marshal(m)
	return b
}

// TestStdioFraming: a stdio connection negotiates, lists, calls, survives an
// oversized line, and only ever writes JSON-RPC to stdout.
func TestStdioFraming(t *testing.T) {
	s := newTestServer(t)
	c := startStdio(t, s)
	c.send(t, initialize1125)
	if m := c.recv(t); !bytes.Contains(m["result"], []byte(`"protocolVersion":"2025-11-25"`)) {
		t.Fatalf("initialize: %s", m["result"])
	}
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if m := c.recv(t); !bytes.Contains(m["result"], []byte(`"name":"merge_pull_request"`)) {
		t.Fatalf("tools/list: %s", m["result"])
	}
	c.send(t, `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"`+strings.Repeat("x", 1<<17)+`"}}`)
	if m := c.recv(t); !bytes.Contains(m["error"], []byte(`"code":-32600`)) {
		t.Fatalf("oversized line: %v", m)
	}
	c.send(t, mergeCall(1, false))
	if m := c.recv(t); !bytes.Contains(m["result"], []byte(`\"merged\":true`)) {
		t.Fatalf("call: %s", m["result"])
	}
	_ = c.in.Close()
	if err := <-c.done; err != nil {
		t.Fatal(err)
	}
}

// TestCancellation: notifications/cancelled stops an in-flight tools/call of
// the same session (HTTP) or connection (stdio), and only there, and so
// does the HTTP request's stream closing; each time the service (a real
// gRPC server on 127.0.0.1) sees its context cancelled.
func TestCancellation(t *testing.T) {
	s := newTestServer(t)
	block := `{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"merge_pull_request","arguments":{"repo":"octo-org/hello-world","prNumber":999}}}`
	cancelSlow := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow"}}`
	t.Run("http session", func(t *testing.T) {
		drainCancelled()
		sid := s.post(t, initialize1125).header.Get("Mcp-Session-Id")
		done := make(chan reply, 1)
		go func() { done <- s.post(t, block, "Mcp-Session-Id", sid) }()
		<-blockStarted
		if r := s.post(t, cancelSlow, "Mcp-Session-Id", "s1.other.session"); r.status != http.StatusNotFound {
			t.Fatalf("cancel with a forged session: %d", r.status)
		}
		if r := s.post(t, cancelSlow, "Mcp-Session-Id", sid); r.status != http.StatusAccepted {
			t.Fatalf("cancel: %d %s", r.status, r.body)
		}
		select {
		case r := <-done:
			if !bytes.Contains(r.body, []byte(`"code":-32603`)) {
				t.Fatalf("cancelled call answered %s", r.body)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the call was not cancelled")
		}
		waitServiceCancelled(t)
	})
	t.Run("stdio", func(t *testing.T) {
		drainCancelled()
		c := startStdio(t, s)
		c.send(t, block)
		<-blockStarted
		c.send(t, cancelSlow)
		if m := c.recv(t); string(m["id"]) != `"slow"` {
			t.Fatalf("%v", m)
		}
		waitServiceCancelled(t)
	})
	for _, tc := range []struct {
		name    string
		body    string
		headers []string
	}{
		{"http stream closed", block, v1125},
		{"http stream closed 2026", strings.Replace(block, `"prNumber":999}`, `"prNumber":999},`+statelessMeta, 1), statelessHeaders("tools/call", "merge_pull_request")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			drainCancelled()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.srv.URL, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for i := 0; i+1 < len(tc.headers); i += 2 {
				req.Header.Set(tc.headers[i], tc.headers[i+1])
			}
			errc := make(chan error, 1)
			go func() {
				resp, err := s.srv.Client().Do(req)
				if err == nil {
					_ = resp.Body.Close()
				}
				errc <- err
			}()
			<-blockStarted
			cancel()
			if err := <-errc; err == nil {
				t.Fatal("the request was answered before it was cancelled")
			}
			waitServiceCancelled(t)
		})
	}
}

// TestNoSecretsAndOneLinePerError: an internal error's cause (holding a
// token) reaches neither the answer nor the log unredacted, and a batch
// logs one jsonrpc_error line per error element.
func TestNoSecretsAndOneLinePerError(t *testing.T) {
	s := newTestServer(t)
	r := s.post(t, mergeCall(500, false), "MCP-Protocol-Version", V20251125)
	if strings.Contains(string(r.body), "ghp_") || strings.Contains(s.log.String(), "ghp_SECRET") {
		t.Fatalf("token leaked: %s\n%s", r.body, s.log.String())
	}
	before := len(s.log.ErrorLines())
	r = s.post(t, `[`+mergeCall(404, false)+`,`+strings.Replace(mergeCall(1, false), `"id":7`, `"id":8`, 1)+`,{"jsonrpc":"2.0","id":9,"method":"nope"},{"jsonrpc":"2.0","method":"nope"}]`, "MCP-Protocol-Version", V20250326)
	if r.status != 200 {
		t.Fatalf("batch status %d: %s", r.status, r.body)
	}
	lines := s.log.ErrorLines()[before:]
	if len(lines) != 2 {
		t.Fatalf("batch with two error answers logged %d lines: %q", len(lines), lines)
	}
	if !strings.Contains(lines[0]+lines[1], "jsonrpc_error tool=merge_pull_request code=-32002 repo=octo-org/hello-world pr=2") {
		t.Errorf("lines %q", lines)
	}
}

// FuzzMessage sends arbitrary bodies under arbitrary protocol headers to the
// HTTP transport: never a panic, always a well-formed answer.
func FuzzMessage(f *testing.F) {
	for _, c := range protocolCases {
		v := ""
		if len(c.headers) > 1 {
			v = c.headers[1]
		}
		f.Add([]byte(c.body), v)
	}
	f.Add([]byte(mergeCall(1, true)), V20260728)
	s := newTestServer(f)
	h := s.p.Handler(s.s.HTTP())
	f.Fuzz(func(t *testing.T, body []byte, version string) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		if version != "" {
			req.Header.Set("MCP-Protocol-Version", version)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		out := rec.Body.Bytes()
		if len(out) == 0 {
			if rec.Code != http.StatusAccepted {
				t.Fatalf("empty answer with status %d", rec.Code)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("answer is not JSON: %q", out)
		}
	})
}
