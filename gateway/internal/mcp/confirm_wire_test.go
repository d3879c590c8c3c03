package mcp

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"ghops.dev/gateway/internal/fakeservicetest"
	"ghops.dev/gateway/internal/goldentest"
	"ghops.dev/gateway/internal/logtest"
	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
)

// newConfirmServer is newTestServer with merge_pull_request under the
// gateway-wide -confirm.
func newConfirmServer(t testing.TB) *testServer {
	t.Helper()
	reg := newRegistry(t)
	caller := toolcall.New(reg, fakeservicetest.Serve(t, fakeService{}), toolcall.WithTimeout(5*time.Second), toolcall.WithConfirm([]string{"merge_pull_request"}))
	log := &logtest.Buffer{}
	logger := slog.New(slog.NewJSONHandler(log, nil))
	s, err := New(reg, caller, WithSessionSecret([]byte("test-secret")), WithLogger(logger), WithConfirmAny(true))
	if err != nil {
		t.Fatal(err)
	}
	p := pipeline.New(pipeline.Options{MaxBody: 1 << 16, MaxBatch: 10, Sink: rpcerror.NewSink(log, logger), Logger: logger})
	srv := httptest.NewServer(p.Handler(s.HTTP()))
	t.Cleanup(srv.Close)
	return &testServer{s: s, p: p, srv: srv, log: log}
}

var stateRE = regexp.MustCompile(`c1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+`)

// TestConfirmWireGolden pins the answers of a call that needs a person's
// confirmation: 2026-07-28's input-required result (its requestState
// replaced), and the -32001 of clients that cannot ask.
func TestConfirmWireGolden(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"merge_pull_request","arguments":{"repo":"octo-org/hello-world","prNumber":1,"merge_method":"squash"}`
	modern := []string{"MCP-Protocol-Version", V20260728, "Mcp-Method", "tools/call", "Mcp-Name", "merge_pull_request"}
	meta := func(caps string) string {
		return `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
	}
	tests := []struct {
		name, body string
		headers    []string
	}{
		{"modern_ask", call + meta(`{"elicitation":{}}`), modern},
		{"modern_url_only_cannot_ask", call + meta(`{"elicitation":{"url":{}}}`), modern},
		{"legacy_without_session", call + `}}`, []string{"MCP-Protocol-Version", V20251125}},
	}
	s := newConfirmServer(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := s.post(t, tc.body, tc.headers...)
			if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
				t.Fatalf("%d %s: %s", r.status, r.header.Get("Content-Type"), r.body)
			}
			goldentest.Compare(t, "confirm/"+tc.name+".json", stateRE.ReplaceAll(normalize(r.body), []byte("<state>")))
		})
	}
}

// sseEvents reads the data lines of an event stream.
func sseEvents(t *testing.T, r *bufio.Reader) <-chan string {
	t.Helper()
	ch := make(chan string, 4)
	go func() {
		defer close(ch)
		for {
			line, err := r.ReadString('\n')
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				ch <- strings.TrimSpace(d)
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// TestElicitationOverHTTP: at 2025-11-25 a client that declared
// elicitation gets elicitation/create as the first event of the call's
// answer stream; a response posted in another session reaches nothing,
// the one posted in the call's session is taken (202), and the call's
// answer follows on the stream. Without the capability in initialize the
// call is refused.
func TestElicitationOverHTTP(t *testing.T) {
	s := newConfirmServer(t)
	initialize := func(caps string) string {
		r := s.post(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"1"}}}`)
		if id := r.header.Get("Mcp-Session-Id"); id != "" {
			return id
		}
		t.Fatalf("no session: %s", r.body)
		return ""
	}
	sid, other := initialize(`{"elicitation":{}}`), initialize(`{"elicitation":{}}`)
	req, _ := http.NewRequest(http.MethodPost, s.srv.URL, strings.NewReader(
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"merge_pull_request","arguments":{"repo":"octo-org/hello-world","prNumber":1}}}`))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": V20251125, "Mcp-Session-Id": sid} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("answer %s", resp.Header.Get("Content-Type"))
	}
	events := sseEvents(t, bufio.NewReader(resp.Body))
	var ask struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Mode    string `json:"mode"`
			Message string `json:"message"`
		} `json:"params"`
	}
	first := <-events
	if err := json.Unmarshal([]byte(first), &ask); err != nil || ask.Method != "elicitation/create" || ask.Params.Mode != "form" ||
		ask.Params.Message != "Allow merge_pull_request on octo-org/hello-world?\nprNumber: 1" {
		t.Fatalf("first event %s", first)
	}
	answer := `{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"accept","content":{"confirm":true}}}`
	if r := s.post(t, answer, "Mcp-Session-Id", other, "MCP-Protocol-Version", V20251125); r.status != http.StatusAccepted {
		t.Fatalf("response in another session: %d", r.status)
	}
	select {
	case e := <-events:
		t.Fatalf("a response from another session was taken: %s", e)
	case <-time.After(300 * time.Millisecond):
	}
	if r := s.post(t, answer, "Mcp-Session-Id", sid, "MCP-Protocol-Version", V20251125); r.status != http.StatusAccepted {
		t.Fatalf("response: %d %s", r.status, r.body)
	}
	select {
	case last := <-events:
		if !strings.Contains(last, `"id":5`) || !strings.Contains(last, `\"merged\":true`) {
			t.Fatalf("answer %s", last)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer after the confirmation")
	}
	plain := initialize(`{}`)
	r := s.post(t, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"merge_pull_request","arguments":{"repo":"octo-org/hello-world","prNumber":1}}}`,
		"Mcp-Session-Id", plain, "MCP-Protocol-Version", V20251125)
	if !strings.Contains(string(r.body), "did not declare the elicitation capability") || !strings.Contains(string(r.body), `"rule":"confirm"`) {
		t.Fatalf("without the capability: %s", r.body)
	}
}
