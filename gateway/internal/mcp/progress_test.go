package mcp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolschema"
)

// progressSteps are what progressCaller reports, in order.
var progressSteps = []toolcall.Progress{
	{Done: 1, Total: 3, Message: "commit 1 of 3"}, {Done: 2, Total: 3}, {Done: 3, Message: "done"},
}

// progressCaller stands in for the call path: it reports progressSteps
// through the ProgressFunc the transport put in the call's context, as the
// service's progress does through Caller.Call, and records whether there
// was one.
type progressCaller struct {
	reg    *toolschema.Registry
	mu     sync.Mutex
	asked  []bool
	result json.RawMessage
}

func (c *progressCaller) Call(ctx context.Context, r toolcall.Request) (json.RawMessage, *toolschema.Tool, *rpcerror.Error) {
	tool, ok := c.reg.Lookup(r.Name)
	if !ok {
		return nil, nil, rpcerror.New(rpcerror.InvalidParamsCode, "", rpcerror.Tool(r.Name))
	}
	f := toolcall.ProgressFrom(ctx)
	c.mu.Lock()
	c.asked = append(c.asked, f != nil)
	c.mu.Unlock()
	if f != nil {
		for _, p := range progressSteps {
			f(p)
		}
	}
	return json.RawMessage(`{"merged":true}`), tool, nil
}

// lastAsked reports whether the last call got a ProgressFunc.
func (c *progressCaller) lastAsked(t *testing.T) bool {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.asked) == 0 {
		t.Fatal("no call reached the call path")
	}
	return c.asked[len(c.asked)-1]
}

// newProgressServer serves /mcp over progressCaller on 127.0.0.1.
func newProgressServer(t *testing.T) (*Server, *pipeline.Pipeline, *httptest.Server, *progressCaller) {
	t.Helper()
	pc := &progressCaller{reg: newRegistry(t)}
	logger := slog.New(slog.DiscardHandler)
	s, err := New(pc.reg, pc, WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	p := pipeline.New(pipeline.Options{Sink: rpcerror.NewSink(io.Discard, logger), Logger: logger})
	srv := httptest.NewServer(p.Handler(s.HTTP()))
	t.Cleanup(srv.Close)
	return s, p, srv, pc
}

// wantProgress is what the client must have received for progressSteps.
var wantProgress = []sdk.ProgressNotificationParams{
	{ProgressToken: "tok", Progress: 1, Total: 3, Message: "commit 1 of 3"},
	{ProgressToken: "tok", Progress: 2, Total: 3},
	{ProgressToken: "tok", Progress: 3, Message: "done"},
}

// TestProgressReachesTheSDKClient: a tools/call carrying a progressToken
// gets the call's progress as notifications/progress before its answer,
// received by the official Go SDK client's ProgressNotificationHandler over
// Streamable HTTP, at a handshake version and at 2026-07-28; without a
// token the call path is asked for no progress.
func TestProgressReachesTheSDKClient(t *testing.T) {
	_, _, srv, pc := newProgressServer(t)
	for _, pin := range []string{V20251125, V20260728} {
		t.Run(pin, func(t *testing.T) {
			var (
				mu  sync.Mutex
				got []sdk.ProgressNotificationParams
			)
			c := sdk.NewClient(&sdk.Implementation{Name: "progress-test", Version: "1"}, &sdk.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, *req.Params)
				},
			})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: srv.URL, DisableStandaloneSSE: true, MaxRetries: -1},
				&sdk.ClientSessionOptions{ProtocolVersion: pin})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cs.Close() })
			params := &sdk.CallToolParams{Name: "merge_pull_request", Arguments: map[string]any{"repo": "octo-org/hello-world", "prNumber": 1}}
			params.SetProgressToken("tok")
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				t.Fatalf("call: %v %+v", err, res)
			}
			if !pc.lastAsked(t) {
				t.Fatal("the call path got no ProgressFunc")
			}
			// The SDK client hands notifications to its handler on its own
			// goroutine: wait for them (the deadline only bounds a failure).
			for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
				mu.Lock()
				n := len(got)
				mu.Unlock()
				if n >= len(wantProgress) {
					break
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != len(wantProgress) {
				t.Fatalf("progress %+v, want %+v", got, wantProgress)
			}
			for i := range got {
				g, w := got[i], wantProgress[i]
				if g.ProgressToken != w.ProgressToken || g.Progress != w.Progress || g.Total != w.Total || g.Message != w.Message {
					t.Errorf("progress %d: %+v, want %+v", i, got[i], wantProgress[i])
				}
			}
			if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "merge_pull_request", Arguments: map[string]any{"repo": "octo-org/hello-world", "prNumber": 1}}); err != nil {
				t.Fatal(err)
			}
			if pc.lastAsked(t) {
				t.Error("a call without a progressToken got a ProgressFunc")
			}
		})
	}
}

// TestProgressFraming: on stdio the notifications are lines before the
// answer; on HTTP a client that accepts only JSON gets the plain answer
// and the call path is asked for no progress; a token that is neither a
// string nor an integer asks for none either.
func TestProgressFraming(t *testing.T) {
	s, p, srv, pc := newProgressServer(t)
	call := func(token string) string {
		return `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"merge_pull_request","arguments":{"repo":"octo-org/hello-world","prNumber":1},"_meta":{"progressToken":` + token + `}}}`
	}
	t.Run("stdio", func(t *testing.T) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		go func() {
			_ = p.ServeStream(context.Background(), s.Stdio(), inR, outW)
			_ = outW.Close()
		}()
		t.Cleanup(func() { _ = inW.Close() })
		if _, err := io.WriteString(inW, call(`7`)+"\n"); err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(outR)
		want := []string{
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"total":3,"message":"commit 1 of 3"}}`,
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":2,"total":3}}`,
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":3,"message":"done"}}`,
		}
		for i, w := range want {
			var line json.RawMessage
			if err := dec.Decode(&line); err != nil {
				t.Fatal(err)
			}
			if string(line) != w {
				t.Fatalf("line %d: %s, want %s", i, line, w)
			}
		}
		var answer struct {
			ID json.RawMessage `json:"id"`
		}
		if err := dec.Decode(&answer); err != nil || string(answer.ID) != "9" {
			t.Fatalf("answer id %s: %v", answer.ID, err)
		}
	})
	for _, tc := range []struct {
		name, accept, token string
		events              bool
	}{
		{"json only", "application/json", `"t"`, false},
		{"event stream", "application/json, text/event-stream", `"t"`, true},
		{"float token", "application/json, text/event-stream", `1.5`, false},
		{"object token", "application/json, text/event-stream", `{}`, false},
	} {
		t.Run("http/"+tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(call(tc.token)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", tc.accept)
			req.Header.Set("MCP-Protocol-Version", V20251125)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			ct := resp.Header.Get("Content-Type")
			if got := ct == "text/event-stream"; got != tc.events {
				t.Fatalf("Content-Type %q: %s", ct, b)
			}
			if pc.lastAsked(t) != tc.events {
				t.Errorf("call path asked for progress: %v, want %v", !tc.events, tc.events)
			}
			if tc.events {
				if n := strings.Count(string(b), "event: message\ndata: "); n != 4 || !strings.HasSuffix(string(b), `"id":9,"result":{"content":[{"type":"text","text":"{\"merged\":true}"}],"structuredContent":{"merged":true}}}`+"\n\n") {
					t.Errorf("%d events: %s", n, b)
				}
			} else if !strings.HasPrefix(string(b), `{"jsonrpc":"2.0","id":9,"result":`) {
				t.Errorf("answer %s", b)
			}
		})
	}
}
