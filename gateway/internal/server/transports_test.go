package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	ghopsv1 "ghops.dev/gen/ghops/v1"

	"ghops.dev/gateway/internal/fakeservicetest"
	"ghops.dev/gateway/internal/httpcall"
	"ghops.dev/gateway/internal/mcp"
	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolrpc"
	"ghops.dev/gateway/internal/toolschema"
)

// mergeService merges every pull request but number 404, which GitHub
// does not know.
type mergeService struct {
	ghopsv1.UnimplementedGitHubServiceServer
}

func (mergeService) MergePullRequest(_ context.Context, r *ghopsv1.MergePullRequestRequest) (*ghopsv1.MergePullRequestResponse, error) {
	if r.GetPrNumber() == 404 {
		return nil, fakeservicetest.Status(codes.NotFound, "Not Found", ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND,
			map[string]string{"repo": r.GetRepo(), "pr": "404"}, &ghopsv1.GitHubError{Status: 404, Message: "Not Found"})
	}
	return &ghopsv1.MergePullRequestResponse{Merged: true, Sha: "6dcb09b5b57875f334f61aebed695e2e4193db5e"}, nil
}

// recorder is the real call path, noting what the transports asked of it:
// every transport's tool call must reach the one dispatcher of tool calls.
type recorder struct {
	*toolcall.Caller
	mu   sync.Mutex
	seen []string
}

func (r *recorder) note(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, s)
}

// take returns what was noted since the last take.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.seen
	r.seen = nil
	return s
}

func (r *recorder) Call(ctx context.Context, in toolcall.Request) (json.RawMessage, *toolschema.Tool, *rpcerror.Error) {
	res, tool, e := r.Caller.Call(ctx, in)
	switch {
	case tool != nil:
		r.note("call " + in.Name)
	case in.Unknown == toolcall.UnknownAsMethod:
		r.note("unknown method " + in.Name)
	default:
		r.note("unknown " + in.Name)
	}
	return res, tool, e
}

func (r *recorder) UnknownMethod(ctx context.Context, name string, tool bool) *rpcerror.Error {
	if !tool {
		name = ""
	}
	r.note("unknown method " + name)
	return r.Caller.UnknownMethod(ctx, name, tool)
}

// gateway is /rpc, /mcp and stdio over one dispatcher of tool calls.
type gateway struct {
	rec *recorder
	url string
	p   *pipeline.Pipeline
	mcp *mcp.Server
}

func newGateway(t *testing.T) *gateway {
	t.Helper()
	reg, err := toolschema.NewRegistry(ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService"))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Caller: toolcall.New(reg, fakeservicetest.Serve(t, mergeService{}), toolcall.WithTimeout(5*time.Second))}
	logger := slog.New(slog.DiscardHandler)
	m, err := mcp.New(reg, rec, mcp.WithSessionSecret([]byte("test-secret")), mcp.WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	p := pipeline.New(pipeline.Options{Sink: rpcerror.NewSink(io.Discard, logger), Logger: logger})
	mux := http.NewServeMux()
	mux.Handle("POST /rpc", p.Handler(toolrpc.New(rec, false)))
	mux.Handle("POST /mcp", p.Handler(m.HTTP()))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &gateway{rec: rec, url: srv.URL, p: p, mcp: m}
}

// post sends one request to path and returns its JSON-RPC answer.
func (g *gateway) post(t *testing.T, path, body string, headers ...string) map[string]json.RawMessage {
	t.Helper()
	_, b := httpcall.Do(t, http.MethodPost, g.url+path, body,
		append([]string{"Content-Type", "application/json", "Accept", "application/json"}, headers...)...)
	return answer(t, b)
}

// stdio sends lines on a new stdio connection and returns the answer to
// the last one.
func (g *gateway) stdio(t *testing.T, lines ...string) map[string]json.RawMessage {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- g.p.ServeStream(context.Background(), g.mcp.Stdio(), inR, outW)
		_ = outW.Close()
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		<-done
	})
	out := json.NewDecoder(outR)
	var m map[string]json.RawMessage
	for _, l := range lines {
		if _, err := io.WriteString(inW, l+"\n"); err != nil {
			t.Fatal(err)
		}
		m = nil
		if err := out.Decode(&m); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// answer decodes a JSON-RPC answer.
func answer(t *testing.T, b []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("answer %q: %v", b, err)
	}
	return m
}

// errorObject is a JSON-RPC error object's code and message.
type errorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// shape is how an answer came back, in transport-neutral terms.
type shape struct {
	kind string      // "error", "isError", "result"
	err  errorObject // kind error or isError
	tool string      // kind result: the tool's JSON result, as sent
}

// shapeOf reads an answer: a JSON-RPC error, an MCP isError result (its
// contract error from _meta), an MCP CallToolResult (its text content) or
// a plain /rpc result.
func shapeOf(t *testing.T, m map[string]json.RawMessage) shape {
	t.Helper()
	if e, ok := m["error"]; ok {
		var o errorObject
		if err := json.Unmarshal(e, &o); err != nil {
			t.Fatal(err)
		}
		return shape{kind: "error", err: o}
	}
	var r struct {
		IsError bool                       `json:"isError"`
		Meta    map[string]json.RawMessage `json:"_meta"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(m["result"], &r); err != nil {
		t.Fatal(err)
	}
	switch {
	case r.IsError:
		var o errorObject
		if err := json.Unmarshal(r.Meta[mcp.ErrorMetaKey], &o); err != nil {
			t.Fatalf("isError result without the contract error: %s", m["result"])
		}
		return shape{kind: "isError", err: o}
	case len(r.Content) == 1:
		return shape{kind: "result", tool: r.Content[0].Text}
	}
	return shape{kind: "result", tool: string(m["result"])}
}

const (
	// stateless is the _meta of a 2026-07-28 request.
	stateless  = `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`
	initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	versioned  = "2025-11-25"
)

// TestOneDispatcherForEveryTransport: the same logical requests sent over
// /rpc, /mcp and stdio reach the one dispatcher of tool calls (the
// recorder sees its calls, each tool looked up once), get the same answer
// (the same error object wherever an error is answered, the same tool
// result wherever one succeeds), and each transport only frames it: a raw
// result on /rpc, a CallToolResult on MCP, and the tool-error rule's
// isError result only where the request named an MCP version. MCP's method
// table (package mcp) answers a method the version allows alike on its two
// wires, and a method no framing knows, one of a capability the gateway
// does not declare, or one the named version removed is -32601 on all
// three.
func TestOneDispatcherForEveryTransport(t *testing.T) {
	g := newGateway(t)
	rpc := func(method, params string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":` + params + `}`
	}
	call := func(name, args string) string {
		return rpc("tools/call", `{"name":"`+name+`","arguments":`+args+`}`)
	}
	type send struct {
		transport string
		do        func(t *testing.T) map[string]json.RawMessage
		want      string // the answer's kind
		// seen, when set, replaces the case's seen for this send: /rpc
		// asks the call path for the caller's tools on every method that
		// is no tool (UnknownMethod's -32601 lists them).
		seen []string
	}
	// rpcUnknown is what /rpc asks of the call path for a method that is
	// not even shaped like a tool name.
	rpcUnknown := []string{"unknown method "}
	tests := []struct {
		name string
		// seen is what the dispatcher asked of the call path, per send.
		seen []string
		// codeOnly compares the error codes alone: the wording of -32601
		// is each framing's, kept byte-identical by the goldens (MCP's
		// "method not found" as its SDKs word it, JSON-RPC's "Method not
		// found" on /rpc).
		codeOnly bool
		// result is what a successful answer holds (default: the merged
		// pull request).
		result string
		sends  []send
	}{
		{
			name:   "method the version allows",
			result: `{}`,
			sends: []send{
				{"mcp", func(t *testing.T) map[string]json.RawMessage {
					return g.post(t, "/mcp", rpc("ping", `{}`), "MCP-Protocol-Version", versioned)
				}, "result", nil},
				{"stdio", func(t *testing.T) map[string]json.RawMessage { return g.stdio(t, initialize, rpc("ping", `{}`)) }, "result", nil},
			},
		},
		{
			name:     "method of an undeclared capability",
			codeOnly: true,
			sends: []send{
				{"rpc", func(t *testing.T) map[string]json.RawMessage { return g.post(t, "/rpc", rpc("prompts/list", `{}`)) }, "error", rpcUnknown},
				{"mcp", func(t *testing.T) map[string]json.RawMessage {
					return g.post(t, "/mcp", rpc("prompts/list", `{}`), "MCP-Protocol-Version", versioned)
				}, "error", nil},
				{"stdio", func(t *testing.T) map[string]json.RawMessage {
					return g.stdio(t, initialize, rpc("prompts/list", `{}`))
				}, "error", nil},
			},
		},
		{
			name:     "method the version removed",
			codeOnly: true,
			sends: []send{
				// Not on /rpc, where "ping" has a tool name's shape (an
				// unknown tool there) and no version can be named.
				{"mcp", func(t *testing.T) map[string]json.RawMessage {
					return g.post(t, "/mcp", rpc("ping", stateless), "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "ping")
				}, "error", nil},
				{"stdio", func(t *testing.T) map[string]json.RawMessage { return g.stdio(t, rpc("ping", stateless)) }, "error", nil},
			},
		},
		{
			name:     "method only a newer version has",
			codeOnly: true,
			sends: []send{
				{"rpc", func(t *testing.T) map[string]json.RawMessage { return g.post(t, "/rpc", rpc("server/discover", `{}`)) }, "error", rpcUnknown},
				{"mcp", func(t *testing.T) map[string]json.RawMessage {
					return g.post(t, "/mcp", rpc("server/discover", `{}`), "MCP-Protocol-Version", versioned)
				}, "error", nil},
				{"stdio", func(t *testing.T) map[string]json.RawMessage {
					return g.stdio(t, initialize, rpc("server/discover", `{}`))
				}, "error", nil},
			},
		},
		{
			name:     "unknown method",
			codeOnly: true,
			sends: []send{
				{"rpc", func(t *testing.T) map[string]json.RawMessage { return g.post(t, "/rpc", rpc("no/such", `{}`)) }, "error", rpcUnknown},
				{"mcp", func(t *testing.T) map[string]json.RawMessage { return g.post(t, "/mcp", rpc("no/such", `{}`)) }, "error", nil},
				{"stdio", func(t *testing.T) map[string]json.RawMessage { return g.stdio(t, rpc("no/such", `{}`)) }, "error", nil},
			},
		},
		{
			// On /rpc a tool is a method: JSON-RPC's -32601, as for any
			// method that is no tool (compared by code with the others).
			name:     "unknown tool as an /rpc method",
			codeOnly: true,
			sends: []send{
				{"rpc", func(t *testing.T) map[string]json.RawMessage { return g.post(t, "/rpc", rpc("no_such_tool", `{}`)) }, "error", []string{"unknown method no_such_tool"}},
				{"rpc", func(t *testing.T) map[string]json.RawMessage { return g.post(t, "/rpc", rpc("no/such", `{}`)) }, "error", rpcUnknown},
			},
		},
		{
			// On MCP, tools/call of an unknown tool: -32602, as MCP says.
			name: "unknown tool",
			seen: []string{"unknown no_such_tool"},
			sends: []send{
				{"mcp", func(t *testing.T) map[string]json.RawMessage { return g.post(t, "/mcp", call("no_such_tool", `{}`)) }, "error", nil},
				// A version named does not make an unknown tool a tool error.
				{"mcp versioned", func(t *testing.T) map[string]json.RawMessage {
					return g.post(t, "/mcp", call("no_such_tool", `{}`), "MCP-Protocol-Version", versioned)
				}, "error", nil},
				{"stdio initialized", func(t *testing.T) map[string]json.RawMessage {
					return g.stdio(t, initialize, call("no_such_tool", `{}`))
				}, "error", nil},
			},
		},
		{
			name: "tool failure, no version named",
			seen: []string{"call merge_pull_request"},
			sends: []send{
				{"rpc", func(t *testing.T) map[string]json.RawMessage {
					return g.post(t, "/rpc", rpc("merge_pull_request", `{"repo":"o/r","prNumber":404}`))
				}, "error", nil},
				{"mcp", func(t *testing.T) map[string]json.RawMessage {
					return g.post(t, "/mcp", call("merge_pull_request", `{"repo":"o/r","prNumber":404}`))
				}, "error", nil},
				{"stdio", func(t *testing.T) map[string]json.RawMessage {
					return g.stdio(t, call("merge_pull_request", `{"repo":"o/r","prNumber":404}`))
				}, "error", nil},
			},
		},
		{
			name: "tool failure, version named",
			seen: []string{"call merge_pull_request"},
			sends: []send{
				// /rpc has no version to name: always a JSON-RPC error.
				{"rpc", func(t *testing.T) map[string]json.RawMessage {
					return g.post(t, "/rpc", rpc("merge_pull_request", `{"repo":"o/r","prNumber":404}`), "MCP-Protocol-Version", versioned)
				}, "error", nil},
				{"mcp", func(t *testing.T) map[string]json.RawMessage {
					return g.post(t, "/mcp", call("merge_pull_request", `{"repo":"o/r","prNumber":404}`), "MCP-Protocol-Version", versioned)
				}, "isError", nil},
				{"stdio", func(t *testing.T) map[string]json.RawMessage {
					return g.stdio(t, initialize, call("merge_pull_request", `{"repo":"o/r","prNumber":404}`))
				}, "isError", nil},
			},
		},
		{
			name: "successful call",
			seen: []string{"call merge_pull_request"},
			sends: []send{
				{"rpc", func(t *testing.T) map[string]json.RawMessage {
					return g.post(t, "/rpc", rpc("merge_pull_request", `{"repo":"o/r","prNumber":2}`))
				}, "result", nil},
				{"mcp", func(t *testing.T) map[string]json.RawMessage {
					return g.post(t, "/mcp", call("merge_pull_request", `{"repo":"o/r","prNumber":2}`), "MCP-Protocol-Version", versioned)
				}, "result", nil},
				{"stdio", func(t *testing.T) map[string]json.RawMessage {
					return g.stdio(t, initialize, call("merge_pull_request", `{"repo":"o/r","prNumber":2}`))
				}, "result", nil},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var first *shape
			for _, s := range tc.sends {
				g.rec.take()
				got := shapeOf(t, s.do(t))
				wantSeen := tc.seen
				if s.seen != nil {
					wantSeen = s.seen
				}
				if seen := g.rec.take(); !slices.Equal(seen, wantSeen) {
					t.Errorf("%s: the dispatcher asked %q of the call path, want %q", s.transport, seen, wantSeen)
				}
				if got.kind != s.want {
					t.Errorf("%s: answered as %s, want %s", s.transport, got.kind, s.want)
				}
				if first == nil {
					first = &got
					continue
				}
				if tc.codeOnly {
					if got.err.Code != first.err.Code {
						t.Errorf("%s: code %d, but %s answered %d", s.transport, got.err.Code, tc.sends[0].transport, first.err.Code)
					}
					continue
				}
				if got.err != first.err || got.tool != first.tool {
					t.Errorf("%s: %+v, but %s answered %+v", s.transport, got, tc.sends[0].transport, *first)
				}
			}
			if first.kind != "result" && first.err.Code == 0 {
				t.Errorf("no error code in %+v", *first)
			}
			if tc.codeOnly && first.err.Code != rpcerror.MethodNotFound {
				t.Errorf("code %d, want %d", first.err.Code, rpcerror.MethodNotFound)
			}
			want := tc.result
			if want == "" {
				want = `"merged":true`
			}
			if first.kind == "result" && !strings.Contains(first.tool, want) {
				t.Errorf("result %s, want it to hold %s", first.tool, want)
			}
		})
	}
	t.Run("unknown tool answer names the tool", func(t *testing.T) {
		got := shapeOf(t, g.post(t, "/mcp", call("no_such_tool", `{}`)))
		if got.err.Code != rpcerror.InvalidParamsCode || got.err.Message != "Unknown tool: no_such_tool" {
			t.Errorf("unknown tool answered %+v, want %d %q", got.err, rpcerror.InvalidParamsCode, "Unknown tool: no_such_tool")
		}
	})
	t.Run("unknown /rpc method lists the caller's tools", func(t *testing.T) {
		body := g.post(t, "/rpc", rpc("no_such_tool", `{}`))
		var e struct {
			Code int `json:"code"`
			Data struct {
				Tool  string   `json:"tool"`
				Tools []string `json:"tools"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body["error"], &e); err != nil {
			t.Fatalf("error member %s: %v", body["error"], err)
		}
		if e.Code != rpcerror.MethodNotFound || e.Data.Tool != "no_such_tool" || !slices.Contains(e.Data.Tools, "merge_pull_request") {
			t.Errorf("unknown /rpc method answered %s, want -32601 naming no_such_tool and listing merge_pull_request", body["error"])
		}
	})
}
