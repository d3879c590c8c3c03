package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ghops.dev/gateway/internal/httpcall"
	"ghops.dev/gateway/internal/logtest"
	"ghops.dev/gateway/internal/rpcerror"
)

// echo is a transport that answers every request with its method and
// request id, fails methods named "fail:<code>", panics on "panic", blocks
// on "block" until its context ends, and records what it saw.
type echo struct {
	mu       sync.Mutex
	ids      []string
	running  atomic.Int32
	peak     atomic.Int32
	started  atomic.Int32
	finished atomic.Int32
	entered  chan struct{} // receives once per "block" call started
}

func (*echo) Name() string { return "echo" }

func (*echo) Begin(context.Context, *Body, []*Call, bool) *Refusal { return nil }

func (e *echo) Serve(ctx context.Context, _ *Body, c *Call) Answer {
	if c.Invalid != nil {
		return Invalid(c)
	}
	e.started.Add(1)
	defer e.finished.Add(1)
	n := e.running.Add(1)
	defer e.running.Add(-1)
	for {
		p := e.peak.Load()
		if n <= p || e.peak.CompareAndSwap(p, n) {
			break
		}
	}
	e.mu.Lock()
	e.ids = append(e.ids, c.RequestID)
	e.mu.Unlock()
	m := c.Request.Method
	switch {
	case m == "panic":
		panic("boom with token ghp_abcdefghijklmnopqrstuvwxyz0123456789")
	case m == "block":
		if e.entered != nil {
			e.entered <- struct{}{}
		}
		<-ctx.Done()
		return Answer{Err: rpcerror.Internal("block", c.RequestID, ctx.Err()), Tool: "block"}
	case m == "slow":
		time.Sleep(20 * time.Millisecond)
	case strings.HasPrefix(m, "fail:"):
		code, _ := strconv.Atoi(strings.TrimPrefix(m, "fail:"))
		e := rpcerror.New(code, "", rpcerror.Tool("t"))
		if code == rpcerror.RateLimited {
			e.RetryAfter = 7
		}
		return Answer{Err: e, NoReply: c.Request.IsNotification(), Tool: "t"}
	}
	res, _ := json.Marshal(map[string]string{"method": m, "requestId": c.RequestID})
	return Answer{Result: res, NoReply: c.Request.IsNotification(), Tool: "t"}
}

func (*echo) StatusRules() StatusRules { return StatusRules{Empty: http.StatusNoContent} }

// rig is a pipeline over an echo transport, served on 127.0.0.1.
type rig struct {
	p    *Pipeline
	t    *echo
	logs *logtest.Buffer
	url  string
}

func newRig(t *testing.T, opts Options) *rig {
	t.Helper()
	logs := &logtest.Buffer{}
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	opts.Sink = rpcerror.NewSink(logs, logger)
	opts.Logger = logger
	r := &rig{p: New(opts), t: &echo{}, logs: logs}
	srv := httptest.NewServer(r.p.Handler(r.t))
	t.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

func req(id, method string) string {
	if id == "" {
		return `{"jsonrpc":"2.0","method":"` + method + `"}`
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"}`
}

// TestParsing checks that every body that is not I-JSON is refused as a
// whole with -32700, and that ids of every legal type come back byte for
// byte.
func TestParsing(t *testing.T) {
	r := newRig(t, Options{})
	tests := []struct {
		name, body, want string
	}{
		{"duplicate envelope key", `{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: duplicate key at \"/id\""`},
		{"duplicate argument key", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"query":"a","query":"b"}}`,
			`"message":"Parse error: duplicate key at \"/params/query\""`},
		{"duplicate beside _meta", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{},"arguments":{"repo":"a","repo":"b"}}}`,
			`"message":"Parse error: duplicate key at \"/params/arguments/repo\""`},
		{"duplicate in a wrapper", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"args":{"x":1},"args":{"x":2}}}`,
			`"message":"Parse error: duplicate key at \"/params/args\""`},
		{"duplicate in a batch element", `[` + req("1", "m") + `,{"jsonrpc":"2.0","id":2,"method":"m","method":"n"}]`,
			`"message":"Parse error: duplicate key at \"/1/method\""`},
		{"id not UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"m\"}",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: invalid UTF-8 at \"/id\""`},
		{"lone surrogate id", `{"jsonrpc":"2.0","id":"\ud800","method":"m"}`,
			`"message":"Parse error: invalid UTF-8 at \"/id\""`},
		{"plain syntax error", `{"jsonrpc":"2.0",`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data"`},
		{"trailing data", req("1", "m") + ` x`, `{"code":-32700,"message":"Parse error"`},
		{"id 1.0", req("1.0", "m"), `{"jsonrpc":"2.0","id":1.0,"result":`},
		{"id 1e3", req("1e3", "m"), `{"jsonrpc":"2.0","id":1e3,"result":`},
		{"id -0", req("-0", "m"), `{"jsonrpc":"2.0","id":-0,"result":`},
		{"huge id", req("123456789012345678901234567890", "m"), `{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":`},
		{"escaped string id", req(`"a\u00e9\"b"`, "m"), `{"jsonrpc":"2.0","id":"a\u00e9\"b","result":`},
		{"null id", req("null", "m"), `{"jsonrpc":"2.0","id":null,"result":`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := httpcall.Do(t, http.MethodPost, r.url, tc.body)
			if !bytes.Contains(body, []byte(tc.want)) {
				t.Fatalf("status %d body %s, want it to contain %s", resp.StatusCode, body, tc.want)
			}
			if !json.Valid(body) {
				t.Fatalf("answer is not JSON: %q", body)
			}
		})
	}
}

// TestBodyLimit checks the 413 before parsing, by Content-Length and by the
// bytes actually read (chunked), and the stream's -32600 for a long line.
func TestBodyLimit(t *testing.T) {
	r := newRig(t, Options{MaxBody: 64})
	big := `{"jsonrpc":"2.0","id":1,"method":"` + strings.Repeat("m", 100) + `"}`
	for _, chunked := range []bool{false, true} {
		t.Run("chunked="+strconv.FormatBool(chunked), func(t *testing.T) {
			var body io.Reader = strings.NewReader(big)
			if chunked {
				body = io.MultiReader(strings.NewReader(big)) // no length: chunked
			}
			hr, _ := http.NewRequest(http.MethodPost, r.url, body)
			resp, err := http.DefaultClient.Do(hr)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestEntityTooLarge || !bytes.Contains(b, []byte(`"code":-32600,"message":"Invalid Request: body exceeds the limit of 64 bytes"`)) {
				t.Fatalf("%d %s", resp.StatusCode, b)
			}
		})
	}
	if n := r.t.started.Load(); n != 0 {
		t.Errorf("%d calls ran", n)
	}
}

// TestBatches checks the batch limit, the concurrency bound, the per-item
// request ids and that one Retry-After (the largest) covers a batch.
func TestBatches(t *testing.T) {
	r := newRig(t, Options{MaxBatch: 5, BatchConcurrency: 2})
	var items []string
	for i := range 5 {
		items = append(items, req(strconv.Itoa(i), "slow"))
	}
	resp, body := httpcall.Do(t, http.MethodPost, r.url, "["+strings.Join(items, ",")+"]", requestIDHeader, "batch-7")
	var out []map[string]json.RawMessage
	if err := json.Unmarshal(body, &out); err != nil || len(out) != 5 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if p := r.t.peak.Load(); p != 2 {
		t.Errorf("peak concurrency %d, want 2", p)
	}
	for i, o := range out {
		if !bytes.Contains(o["result"], []byte(`"requestId":"batch-7-`+strconv.Itoa(i)+`"`)) {
			t.Errorf("item %d: %s", i, o["result"])
		}
	}
	resp, body = httpcall.Do(t, http.MethodPost, r.url, "["+strings.Join(append(items, req("9", "m")), ",")+"]")
	if !bytes.Contains(body, []byte(`"message":"Invalid Request: batch of 6 requests exceeds the limit of 5"`)) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	resp, _ = httpcall.Do(t, http.MethodPost, r.url, `[`+req("1", "fail:-32004")+`,`+req("2", "m")+`]`)
	if got := resp.Header.Get("Retry-After"); got != "7" {
		t.Errorf("Retry-After %q", got)
	}
}

// TestCallerGoneStopsTheBatch: a client that disconnects mid-batch stops
// the calls not yet started, and nothing is logged per call.
func TestCallerGoneStopsTheBatch(t *testing.T) {
	r := newRig(t, Options{BatchConcurrency: 2})
	r.t.entered = make(chan struct{}, 10)
	var items []string
	for i := range 10 {
		items = append(items, req(strconv.Itoa(i), "block"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	hr, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.url, strings.NewReader("["+strings.Join(items, ",")+"]"))
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(hr)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-r.t.entered
	<-r.t.entered
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("client: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for r.t.finished.Load() < r.t.started.Load() || !strings.Contains(r.logs.String(), "caller went away") {
		if time.Now().After(deadline) {
			t.Fatalf("started %d finished %d; logs %s", r.t.started.Load(), r.t.finished.Load(), r.logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := r.t.started.Load(); n != 2 {
		t.Errorf("%d of 10 calls started, want the 2 running when the caller left", n)
	}
	if lines := r.logs.ErrorLines(); len(lines) != 0 {
		t.Errorf("jsonrpc_error lines for a caller who left: %q", lines)
	}
	if strings.Contains(r.logs.String(), `"level":"ERROR"`) {
		t.Errorf("ERROR records for a caller who left: %s", r.logs.String())
	}
}

// TestPanicIsContained: a panic in a transport becomes -32603 with only
// tool, timestamp and requestId, and its message is redacted in the log.
func TestPanicIsContained(t *testing.T) {
	r := newRig(t, Options{})
	resp, body := httpcall.Do(t, http.MethodPost, r.url, req("1", "panic"))
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"error":{"code":-32603,"message":"Internal error","data":{"tool":"","requestId":`)) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	logs := r.logs.String()
	if strings.Contains(logs, "ghp_abcdefghijklmnopqrstuvwxyz") || strings.Contains(string(body), "boom") {
		t.Errorf("the panic leaked: %s / %s", logs, body)
	}
	// Logged once: the line, and the one cause record with the panic and
	// its stack (issue 23: no failure logged twice).
	if len(r.logs.ErrorLines()) != 1 || strings.Count(logs, `"msg":"internal error"`) != 1 ||
		!strings.Contains(logs, "panic serving a call (") || !strings.Contains(logs, "goroutine ") || strings.Count(logs, "panic serving a call") != 1 {
		t.Errorf("logs: %s", logs)
	}
}

// requestIDHeader is the header name tests send.
const requestIDHeader = "X-Request-Id"

// TestRequestID: a plain client id is kept and returned; a secret-shaped or
// malformed one is replaced.
func TestRequestID(t *testing.T) {
	r := newRig(t, Options{})
	tests := []struct {
		name, sent string
		kept       bool
	}{
		{"plain", "abc-123_x.y", true},
		{"absent", "", false},
		{"too long", strings.Repeat("a", 65), false},
		{"spaces", "a b", false},
		{"github token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", false},
		{"demo token", "ghops-demo-token", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := httpcall.Do(t, http.MethodPost, r.url, req("1", "m"), requestIDHeader, tc.sent)
			got := resp.Header.Get(requestIDHeader)
			if kept := got == tc.sent; kept != tc.kept || got == "" {
				t.Fatalf("sent %q, got %q", tc.sent, got)
			}
			if !bytes.Contains(body, []byte(`"requestId":"`+got+`"`)) {
				t.Errorf("the call did not see the id: %s", body)
			}
		})
	}
}

// TestMethodNotAllowed: only POST.
func TestMethodNotAllowed(t *testing.T) {
	r := newRig(t, Options{})
	for _, m := range []string{http.MethodGet, http.MethodDelete, http.MethodPut} {
		resp, body := httpcall.Do(t, m, r.url, "")
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" || !json.Valid(body) {
			t.Errorf("%s: %d %q %s", m, resp.StatusCode, resp.Header.Get("Allow"), body)
		}
	}
}

// TestNotifications: notifications are run, never answered, and a failed
// one writes no jsonrpc_error line (nothing was answered).
func TestNotifications(t *testing.T) {
	r := newRig(t, Options{})
	resp, body := httpcall.Do(t, http.MethodPost, r.url, `[`+req("", "m")+`,`+req("", "fail:-32002")+`]`)
	if resp.StatusCode != http.StatusNoContent || len(body) != 0 {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	if r.t.started.Load() != 2 || len(r.logs.ErrorLines()) != 0 || !strings.Contains(r.logs.String(), "notification refused") {
		t.Errorf("started %d, logs %s", r.t.started.Load(), r.logs.String())
	}
}

// stdio drives ServeStream through pipes.
type stdio struct {
	in   *io.PipeWriter
	out  *json.Decoder
	done chan error
}

func startStream(t *testing.T, r *rig, ctx context.Context) *stdio {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &stdio{in: inW, out: json.NewDecoder(outR), done: make(chan error, 1)}
	go func() {
		s.done <- r.p.ServeStream(ctx, r.t, inR, outW)
		_ = outW.Close()
	}()
	t.Cleanup(func() { _ = inW.Close() })
	return s
}

func (s *stdio) roundTrip(t *testing.T, line string) map[string]json.RawMessage {
	t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := s.out.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestStream checks the stdio framing: an oversized line is answered and
// skipped, a panic is contained, the stream ends cleanly at EOF.
func TestStream(t *testing.T) {
	r := newRig(t, Options{MaxBody: 128})
	s := startStream(t, r, context.Background())
	if m := s.roundTrip(t, req("1", "m")); string(m["id"]) != "1" || m["result"] == nil {
		t.Fatalf("%v", m)
	}
	m := s.roundTrip(t, req("2", strings.Repeat("x", 200)))
	if !bytes.Contains(m["error"], []byte(`"message":"Invalid Request: message exceeds the limit of 128 bytes"`)) || string(m["id"]) != "null" {
		t.Fatalf("%s", m["error"])
	}
	if m := s.roundTrip(t, req("3", "panic")); !bytes.Contains(m["error"], []byte(`"code":-32603`)) {
		t.Fatalf("%v", m)
	}
	if m := s.roundTrip(t, "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"m\"}"); !bytes.Contains(m["error"], []byte(`"code":-32700`)) || string(m["id"]) != "null" {
		t.Fatalf("%v", m)
	}
	if m := s.roundTrip(t, req("4", "m")); string(m["id"]) != "4" {
		t.Fatalf("the stream did not survive: %v", m)
	}
	_ = s.in.Close()
	if err := <-s.done; err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.logs.String(), "ghp_abcdefghijklmnopqrstuvwxyz") {
		t.Error("the stdio panic log is not redacted")
	}
}

// TestStreamEndsWithContext: ServeStream returns ctx's error when ctx ends,
// after the running calls are cancelled.
func TestStreamEndsWithContext(t *testing.T) {
	r := newRig(t, Options{})
	r.t.entered = make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	s := startStream(t, r, ctx)
	if _, err := io.WriteString(s.in, req("1", "block")+"\n"); err != nil {
		t.Fatal(err)
	}
	<-r.t.entered
	cancel()
	select {
	case err := <-s.done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("ServeStream: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStream did not return")
	}
}

// FuzzBody feeds arbitrary bodies to the pipeline: never a panic, always a
// well-formed answer (nothing, or JSON-RPC response objects whose ids are
// valid JSON).
func FuzzBody(f *testing.F) {
	for _, s := range []string{
		req("1", "m"), `[` + req("1", "m") + `,` + req("", "m") + `]`, `[]`, `[1]`, `{`, `{"jsonrpc":"2.0","id":1,"id":1}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"m\"}", req("1e400", "panic"), req(`"x"`, "fail:-32004"),
	} {
		f.Add([]byte(s))
	}
	logger := slog.New(slog.DiscardHandler)
	p := New(Options{MaxBody: 1 << 12, MaxBatch: 8, Sink: rpcerror.NewSink(nil, logger), Logger: logger})
	tr := &echo{}
	h := p.Handler(tr)
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := httptest.NewRecorder()
		hr := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		hr.RemoteAddr = net.JoinHostPort("127.0.0.1", "1")
		h.ServeHTTP(rec, hr)
		out := rec.Body.Bytes()
		if len(out) == 0 {
			return
		}
		var objs []map[string]json.RawMessage
		if out[0] == '[' {
			if err := json.Unmarshal(out, &objs); err != nil || len(objs) == 0 {
				t.Fatalf("bad batch answer %q", out)
			}
		} else {
			var o map[string]json.RawMessage
			if err := json.Unmarshal(out, &o); err != nil {
				t.Fatalf("bad answer %q", out)
			}
			objs = append(objs, o)
		}
		for _, o := range objs {
			if string(o["jsonrpc"]) != `"2.0"` || o["id"] == nil || (o["result"] == nil) == (o["error"] == nil) {
				t.Fatalf("malformed response %v in %q", o, out)
			}
		}
	})
}
