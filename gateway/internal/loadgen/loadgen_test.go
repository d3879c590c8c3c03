package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ghops.dev/gateway/internal/goldentest"
)

// startServer serves h on 127.0.0.1 for the test.
func startServer(t *testing.T, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// fakeGateway answers /rpc and /mcp like the gateway (by tool name: "ok" tools succeed, "limited"
// answers -32004, "broken" a plain-text 502, "garbled" a 200 that is not JSON-RPC), and
// /_fakehub/stats like fakehub, counting two GitHub requests per tool call.
type fakeGateway struct {
	calls     atomic.Int64
	mcpCalls  atomic.Int64
	badHeader atomic.Int64
	session   string
}

func (f *fakeGateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/_fakehub/stats":
		if r.Header.Get("Authorization") != "Bearer adm" {
			w.WriteHeader(401)
			return
		}
		n := int(f.calls.Load())
		_ = json.NewEncoder(w).Encode(map[string]any{"total": 2 * n, "by_route": map[string]int{"GET /x": n, "GET /y": n},
			"by_status": map[string]int{"200": n, "304": n}, "rate_units": map[string]int{"core": n}})
	case "/rpc":
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &req) != nil {
			w.WriteHeader(400)
			return
		}
		f.calls.Add(1)
		f.answer(w, req.ID, req.Method, false)
	case "/mcp":
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &req) != nil {
			w.WriteHeader(400)
			return
		}
		switch req.Method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", f.session)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"fake","version":"1"}}}`, req.ID)
		case "notifications/initialized":
			w.WriteHeader(202)
		case "tools/call":
			if r.Header.Get("Mcp-Session-Id") != f.session || r.Header.Get("MCP-Protocol-Version") != "2025-03-26" {
				f.badHeader.Add(1)
			}
			f.calls.Add(1)
			f.mcpCalls.Add(1)
			f.answer(w, req.ID, req.Params.Name, true)
		default:
			w.WriteHeader(400)
		}
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeGateway) answer(w http.ResponseWriter, id json.RawMessage, tool string, mcp bool) {
	switch tool {
	case "ok":
		if mcp {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[]}}\n\n", id)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"ok":true}}`, id)
	case "limited":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32004,"message":"Rate limit exceeded"}}`, id)
	case "tool-error":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"isError":true,"_meta":{"dev.ghops/error":{"code":-32002,"message":"Not found"}},"content":[{"type":"text","text":"Error -32002: Not found"}]}}`, id)
	case "broken":
		http.Error(w, "bad gateway", 502)
	default:
		fmt.Fprint(w, `<html>`)
	}
}

func mix(t *testing.T, spec string) []Call {
	t.Helper()
	args := map[string]json.RawMessage{}
	for _, n := range []string{"ok", "limited", "tool-error", "broken", "garbled"} {
		args[n] = json.RawMessage(`{}`)
	}
	m, err := ParseMix(spec, args)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRun(t *testing.T) {
	tests := []struct {
		name, endpoint, mix string
		requests            int
		wantOK              int
		wantErrors          map[int]int
		wantHTTP            map[int]int
		wantMalformed       int
	}{
		{"rpc all ok", EndpointRPC, "ok", 40, 40, map[int]int{}, map[int]int{}, 0},
		{"rpc mixed", EndpointRPC, "ok:2,limited,broken,garbled", 50, 20, map[int]int{-32004: 10}, map[int]int{502: 10}, 10},
		{"mcp sse and isError", EndpointMCP, "ok,tool-error,limited", 30, 10, map[int]int{-32002: 10, -32004: 10}, map[int]int{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeGateway{session: "sess-1"}
			url := startServer(t, f)
			rep, err := Run(context.Background(), Config{Target: url, Endpoint: tc.endpoint, Mix: mix(t, tc.mix), Concurrency: 4,
				Duration: time.Hour, Requests: tc.requests, FakehubAdminURL: url, FakehubAdminToken: "adm"})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Calls != tc.requests || rep.OK != tc.wantOK || rep.StoppedBy != "request count" || rep.Malformed != tc.wantMalformed {
				t.Fatalf("calls %d ok %d stopped by %q malformed %d, want %d %d request count %d", rep.Calls, rep.OK, rep.StoppedBy, rep.Malformed, tc.requests, tc.wantOK, tc.wantMalformed)
			}
			if fmt.Sprint(rep.Errors) != fmt.Sprint(tc.wantErrors) || fmt.Sprint(rep.HTTPErrors) != fmt.Sprint(tc.wantHTTP) {
				t.Fatalf("errors %v http %v, want %v %v", rep.Errors, rep.HTTPErrors, tc.wantErrors, tc.wantHTTP)
			}
			if g := rep.GitHub; g == nil || g.Requests != 2*tc.requests || g.PerCall != 2 || g.NotModified != tc.requests || g.RateUnits != tc.requests {
				t.Fatalf("github %+v", rep.GitHub)
			}
			if rep.Latency.P50 <= 0 || rep.Latency.P50 > rep.Latency.P90 || rep.Latency.P90 > rep.Latency.P99 || rep.Latency.P99 > rep.Latency.Max {
				t.Fatalf("latency %+v", rep.Latency)
			}
			if tc.endpoint == EndpointMCP && (f.mcpCalls.Load() != int64(tc.requests) || f.badHeader.Load() != 0) {
				t.Fatalf("mcp calls %d with bad headers %d", f.mcpCalls.Load(), f.badHeader.Load())
			}
		})
	}
}

// TestRunSendsAuthorization drives a server that wants a bearer token: the Authorization value
// goes on every request to the target, MCP handshake included, and never to fakehub's stats
// (fakeGateway answers those 401 unless they carry the admin token).
func TestRunSendsAuthorization(t *testing.T) {
	tests := []struct {
		name, endpoint, auth string
	}{
		{"rpc with a token", EndpointRPC, "Bearer github_pat_0123"},
		{"mcp with a token", EndpointMCP, "Bearer github_pat_0123"},
		{"mcp without", EndpointMCP, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeGateway{session: "sess-1"}
			var mu sync.Mutex
			seen := map[string]int{} // Authorization values by path
			url := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				seen[r.URL.Path+" "+r.Header.Get("Authorization")]++
				mu.Unlock()
				f.ServeHTTP(w, r)
			}))
			rep, err := Run(context.Background(), Config{Target: url, Endpoint: tc.endpoint, Mix: mix(t, "ok"), Concurrency: 2,
				Duration: time.Hour, Requests: 10, FakehubAdminURL: url, FakehubAdminToken: "adm", Authorization: tc.auth})
			if err != nil || rep.OK != 10 {
				t.Fatalf("Run = %+v, %v", rep, err)
			}
			want := map[string]int{"/" + tc.endpoint + " " + tc.auth: 10, "/_fakehub/stats Bearer adm": 2}
			if tc.endpoint == EndpointMCP {
				want["/mcp "+tc.auth] += 2 // initialize, notifications/initialized
			}
			if fmt.Sprint(seen) != fmt.Sprint(want) {
				t.Fatalf("requests by path and Authorization %v, want %v", seen, want)
			}
		})
	}
}

// TestRunKeepsAuthorizationOutOfErrors: a server that refuses the handshake and echoes the
// request's Authorization (or its bare token) in its answer gets a clear error without the secret.
func TestRunKeepsAuthorizationOutOfErrors(t *testing.T) {
	tests := []struct {
		name string
		echo func(auth string) string
	}{
		{"whole value echoed", func(auth string) string { return "refused: " + auth }},
		{"bare token echoed", func(auth string) string { _, tok, _ := strings.Cut(auth, " "); return "bad token " + tok }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, tc.echo(r.Header.Get("Authorization")), http.StatusUnauthorized)
			}))
			const secret = "ghp_0123456789abcdefghijABCDEFGHIJ01234567"
			rep, err := Run(context.Background(), Config{Target: url, Endpoint: EndpointMCP, Mix: mix(t, "ok"), Concurrency: 1,
				Duration: time.Hour, Requests: 1, Authorization: "Bearer " + secret})
			if err == nil || rep != nil {
				t.Fatalf("Run = %+v, %v; want an initialize error", rep, err)
			}
			if msg := err.Error(); strings.Contains(msg, secret) || !strings.Contains(msg, "HTTP 401") || !strings.Contains(msg, "[redacted]") {
				t.Fatalf("error %q: want HTTP 401 and [redacted], never the token", msg)
			}
		})
	}
}

func TestRunStops(t *testing.T) {
	t.Run("by duration", func(t *testing.T) {
		url := startServer(t, &fakeGateway{})
		rep, err := Run(context.Background(), Config{Target: url, Mix: mix(t, "ok"), Concurrency: 2, Duration: 50 * time.Millisecond, Requests: MaxRequests})
		if err != nil || rep.StoppedBy != "duration" || rep.Calls == 0 || rep.Calls >= MaxRequests {
			t.Fatalf("report %+v err %v", rep, err)
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var n atomic.Int64
		var once sync.Once
		url := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) >= 5 {
				once.Do(cancel)
			}
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		}))
		rep, err := Run(ctx, Config{Target: url, Mix: mix(t, "ok"), Concurrency: 1, Duration: time.Hour, Requests: 1000})
		if err != nil || rep.StoppedBy != "interrupted" || rep.Calls < 4 || rep.Calls > 5 {
			t.Fatalf("report %+v err %v", rep, err)
		}
	})
}

func TestRunRejects(t *testing.T) {
	url := startServer(t, &fakeGateway{})
	good := Config{Target: url, Mix: []Call{{Tool: "ok", Args: json.RawMessage(`{}`)}}, Concurrency: 1, Duration: time.Second, Requests: 1}
	tests := []struct {
		name   string
		mutate func(c *Config)
		want   error
	}{
		{"remote target", func(c *Config) { c.Target = "http://192.0.2.1:8788" }, ErrNotLoopback},
		{"hostname target", func(c *Config) { c.Target = "http://gateway.example:8788" }, ErrNotLoopback},
		{"remote fakehub", func(c *Config) { c.FakehubAdminURL = "http://10.1.2.3:8789" }, ErrNotLoopback},
		{"zero concurrency", func(c *Config) { c.Concurrency = 0 }, nil},
		{"no duration", func(c *Config) { c.Duration = 0 }, nil},
		{"no request bound", func(c *Config) { c.Requests = 0 }, nil},
		{"unknown endpoint", func(c *Config) { c.Endpoint = "grpc" }, nil},
		{"empty mix", func(c *Config) { c.Mix = nil }, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := good
			tc.mutate(&c)
			rep, err := Run(context.Background(), c)
			if err == nil || rep != nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("Run = %v, %v; want error %v", rep, err, tc.want)
			}
		})
	}
	t.Run("baseline is accepted", func(t *testing.T) {
		if rep, err := Run(context.Background(), good); err != nil || rep.Calls != 1 {
			t.Fatalf("Run = %+v, %v", rep, err)
		}
	})
}

func TestCheckLoopback(t *testing.T) {
	tests := []struct {
		url string
		ok  bool
	}{
		{"http://127.0.0.1:8788", true},
		{"http://127.200.3.4/", true},
		{"https://[::1]:443", true},
		{"http://localhost:8788", true},
		{"http://LocalHost", true},
		{"http://10.0.0.1:8788", false},
		{"http://0.0.0.0:8788", false},
		{"http://[::]:8788", false},
		{"http://example.com", false},
		{"http://127.0.0.1.nip.io", false},
		{"http://localhost.example.com", false},
		{"ftp://127.0.0.1", false},
		{"http://user:pw@127.0.0.1", false},
		{"127.0.0.1:8788", false},
		{"::::", false},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			if err := CheckLoopback(tc.url); (err == nil) != tc.ok {
				t.Fatalf("CheckLoopback(%q) = %v, want ok=%v", tc.url, err, tc.ok)
			}
		})
	}
}

func TestClientRefusesNonLoopback(t *testing.T) {
	tests := []struct{ name, url string }{
		{"documentation address", "http://192.0.2.1:9/"},
		{"private address", "http://10.255.255.1:9/"},
	}
	c := newClient(1)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Get(tc.url)
			if !errors.Is(err, ErrNotLoopback) {
				t.Fatalf("Get(%s) = %v, want ErrNotLoopback", tc.url, err)
			}
		})
	}
	t.Run("no redirects", func(t *testing.T) {
		url := startServer(t, http.RedirectHandler("http://192.0.2.1/", http.StatusFound))
		resp, err := c.Get(url)
		if err != nil || resp.StatusCode != http.StatusFound {
			t.Fatalf("resp %v err %v", resp, err)
		}
		resp.Body.Close()
	})
}

func TestParseMix(t *testing.T) {
	tests := []struct {
		spec, want string
		n          int
		wantErr    bool
	}{
		{"read_file", "read_file", 1, false},
		{"read_file:3, search:1", "read_file:3,search", 4, false},
		{"get_tree,get_pr_mergeability,list_pull_requests,get_checks_for_sha", "get_tree,get_pr_mergeability,list_pull_requests,get_checks_for_sha", 4, false},
		{"custom", "custom", 1, false},
		{"nosuchtool", "", 0, true},
		{"read_file:0", "", 0, true},
		{"read_file:x", "", 0, true},
		{"", "", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			m, err := ParseMix(tc.spec, map[string]json.RawMessage{"custom": json.RawMessage(`{"a":1}`)})
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v", err)
			}
			if err == nil && (len(m) != tc.n || mixString(m) != tc.want) {
				t.Fatalf("mix %v (%s), want %d calls %s", m, mixString(m), tc.n, tc.want)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	got := latencyOf(ds)
	want := Latency{P50: 50 * time.Millisecond, P90: 90 * time.Millisecond, P99: 99 * time.Millisecond, Max: 100 * time.Millisecond}
	if got != want {
		t.Fatalf("latency %+v, want %+v", got, want)
	}
	tests := []struct {
		name string
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{"empty", nil, .5, 0},
		{"one", []time.Duration{7}, .99, 7},
		{"two p50", []time.Duration{1, 2}, .5, 1},
		{"two p90", []time.Duration{1, 2}, .9, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := percentile(tc.in, tc.p); got != tc.want {
				t.Fatalf("percentile = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		mcp      bool
		wantKind kind
		wantCode int
	}{
		{"result", 200, `{"jsonrpc":"2.0","id":7,"result":{}}`, false, kindOK, 0},
		{"error", 200, `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"x"}}`, false, kindRPCError, -32602},
		{"mapped status error", 429, `{"jsonrpc":"2.0","id":7,"error":{"code":-32004,"message":"x"}}`, false, kindRPCError, -32004},
		{"id null error", 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, false, kindRPCError, -32700},
		{"wrong id", 200, `{"jsonrpc":"2.0","id":8,"result":{}}`, false, kindMalformed, 0},
		{"no result", 200, `{"jsonrpc":"2.0","id":7}`, false, kindMalformed, 0},
		{"error without code", 200, `{"jsonrpc":"2.0","id":7,"error":{"message":"x"}}`, false, kindMalformed, 0},
		{"not json 413", 413, `too big`, false, kindHTTP, 413},
		{"not json 200", 200, `<html>`, false, kindMalformed, 0},
		{"wrong version", 200, `{"jsonrpc":"1.0","id":7,"result":{}}`, false, kindMalformed, 0},
		{"mcp isError", 200, `{"jsonrpc":"2.0","id":7,"result":{"isError":true,"structuredContent":{"code":-32005}}}`, true, kindRPCError, -32005},
		{"mcp isError no code", 200, `{"jsonrpc":"2.0","id":7,"result":{"isError":true}}`, true, kindRPCError, 0},
		{"rpc isError is a result", 200, `{"jsonrpc":"2.0","id":7,"result":{"isError":true}}`, false, kindOK, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, c := classify(tc.status, []byte(tc.body), "7", tc.mcp)
			if k != tc.wantKind || c != tc.wantCode {
				t.Fatalf("classify = %v %d, want %v %d", k, c, tc.wantKind, tc.wantCode)
			}
		})
	}
}

func TestWriteTextGolden(t *testing.T) {
	cfg := Config{Target: "http://127.0.0.1:8788", Endpoint: EndpointMCP, MCPVersion: "2025-06-18", Concurrency: 8,
		Mix: []Call{{Tool: "read_file"}, {Tool: "read_file"}, {Tool: "search"}}}
	var outs []outcome
	for i := 1; i <= 100; i++ {
		o := outcome{tool: "read_file", latency: time.Duration(i) * 100 * time.Microsecond}
		switch {
		case i%10 == 0:
			o.tool, o.kind, o.code = "search", kindRPCError, -32004
		case i%25 == 1:
			o.kind, o.code = kindHTTP, 502
		}
		outs = append(outs, o)
	}
	outs = append(outs, outcome{tool: "read_file", kind: kindCanceled})
	rep := newReport(cfg, outs, 2*time.Second)
	rep.StoppedBy = "request count"
	rep.GitHub = diffStats(&hubStats{Total: 5, ByRoute: map[string]int{"GET /a": 5}, ByStatus: map[string]int{"200": 5}},
		&hubStats{Total: 155, ByRoute: map[string]int{"GET /a": 105, "GET /search/code": 50}, ByStatus: map[string]int{"200": 105, "304": 50}, RateUnits: map[string]int{"core": 100}}, rep.Calls)
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	goldentest.Compare(t, "report.golden", []byte(b.String()))
}
