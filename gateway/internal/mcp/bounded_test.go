package mcp

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"ghops.dev/gateway/internal/fakeservicetest"
	"ghops.dev/gateway/internal/logtest"
	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
)

// newBigBodyServer is newTestServer with a 1 MiB body limit, so that the
// hostile calls of issue 19 reach validation.
func newBigBodyServer(t *testing.T) *testServer {
	t.Helper()
	reg := newRegistry(t)
	caller := toolcall.New(reg, fakeservicetest.Serve(t, fakeService{}), toolcall.WithTimeout(5*time.Second))
	log := &logtest.Buffer{}
	logger := slog.New(slog.NewJSONHandler(log, nil))
	s, err := New(reg, caller, WithSessionSecret([]byte("test-secret")), WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	p := pipeline.New(pipeline.Options{MaxBody: 1 << 20, MaxBatch: 10, Sink: rpcerror.NewSink(log, logger), Logger: logger})
	srv := httptest.NewServer(p.Handler(s.HTTP()))
	t.Cleanup(srv.Close)
	return &testServer{s: s, p: p, srv: srv, log: log}
}

// hostileSearch is a tools/call of search with 300 unknown keys of 2,000
// characters each (each one a violation echoing the whole arguments).
func hostileSearch() string {
	var b strings.Builder
	b.WriteString(`{"query":"q"`)
	for i := range 300 {
		fmt.Fprintf(&b, `,"%04d%s":"<&>"`, i, strings.Repeat("k", 2000))
	}
	b.WriteString(`}`)
	return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":` + b.String() + `}}`
}

// TestBoundedToolErrors: on /mcp (JSON-RPC error and isError result) and
// stdio, the answer to a call with hundreds of long unknown keys stays
// under docs/errors.md's 64 KB, and says how many violations it left out.
func TestBoundedToolErrors(t *testing.T) {
	s := newBigBodyServer(t)
	sid := s.post(t, initialize1125).header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("no session")
	}
	c := startStdio(t, s)
	c.send(t, initialize1125)
	if m := c.recv(t); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	call := hostileSearch()
	cases := []struct {
		name  string
		shape string
		body  func(t *testing.T) []byte
	}{
		{"http without version", "jsonrpc", func(t *testing.T) []byte { return s.post(t, call).body }},
		{"http session", "result", func(t *testing.T) []byte { return s.post(t, call, "Mcp-Session-Id", sid).body }},
		{"stdio", "result", func(t *testing.T) []byte {
			c.send(t, call)
			return mustJSON(c.recv(t))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.body(t)
			t.Logf("request %d bytes, answer %d bytes", len(call), len(body))
			if len(body) > rpcerror.MaxErrorBytes {
				t.Fatalf("answer of %d bytes over %d", len(body), rpcerror.MaxErrorBytes)
			}
			if got := failure(t, body); got != tc.shape {
				t.Fatalf("shape %s, want %s", got, tc.shape)
			}
			var m struct {
				Result struct {
					Meta    map[string]rpcerrorJSON `json:"_meta"`
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"result"`
				Error *rpcerrorJSON `json:"error"`
			}
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatal(err)
			}
			e := m.Error
			if e == nil {
				me := m.Result.Meta[ErrorMetaKey]
				e = &me
				if len(m.Result.Content) != 1 || !strings.HasSuffix(m.Result.Content[0].Text, fmt.Sprintf("\n  - and %d more", e.Data.Omitted)) {
					t.Errorf("the text does not count the rest: %.200q", m.Result.Content)
				}
			}
			if e.Code != rpcerror.InvalidParamsCode || len(e.Data.ValidationErrors) == 0 || len(e.Data.ValidationErrors) > rpcerror.MaxViolations || e.Data.Omitted == 0 {
				t.Fatalf("code %d, listed %d, omitted %d", e.Code, len(e.Data.ValidationErrors), e.Data.Omitted)
			}
			for _, v := range e.Data.ValidationErrors {
				if len(v.Value) > rpcerror.MaxValueBytes || !strings.Contains(string(v.Params), rpcerror.TruncationMarker) {
					t.Errorf("value of %d bytes, params %.100s", len(v.Value), v.Params)
				}
			}
		})
	}
}

// rpcerrorJSON is the part of a contract error object the test reads.
type rpcerrorJSON struct {
	Code int `json:"code"`
	Data struct {
		ValidationErrors []struct {
			Value  json.RawMessage `json:"value"`
			Params json.RawMessage `json:"params"`
		} `json:"validation_errors"`
		Omitted int `json:"validation_errors_omitted"`
	} `json:"data"`
}
