package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/golden"
)

// call renders one JSON-RPC request.
func call(id, method, params string) string {
	s := `{"jsonrpc":"2.0","method":"` + method + `"`
	if params != "" {
		s += `,"params":` + params
	}
	if id != "" {
		s += `,"id":` + id
	}
	return s + `}`
}

func fetch(id, repo string) string { return call(id, "fetch", `{"repo":"`+repo+`"}`) }

// rpcCases are the wire shapes pinned by golden files, in both status modes.
var rpcCases = []struct {
	name, body string
}{
	{"success", fetch("1", "o/ok")},
	{"success_wrapped_args", call(`"s"`, "fetch", `{"arguments":"{\"repo\":\"o/ok\"}","_meta":{"progressToken":1}}`)},
	{"parse_error", `{"jsonrpc":"2.0","method":`},
	{"invalid_request", `{"jsonrpc":"2.0","id":1}`},
	{"empty_batch", `[]`},
	{"batch_of_one_invalid", `[1]`},
	{"batch_of_three_invalid", `[1,2,3]`},
	{"invalid_request_object", `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`},
	{"ids_of_every_type", `[` + fetch(`"a<b>&"`, "o/ok") + `,` + fetch("1.0", "o/missing") + `,` + fetch("1e3", "o/ok") + `,` +
		fetch("null", "o/missing") + `,` + fetch("-7", "o/ok") + `]`},
	{"method_not_found", call("1", "no_such_tool", `{}`)},
	{"invalid_params_required", call("1", "search", `{}`)},
	{"invalid_params_many", call("1", "search", `{"query":"`+strings.Repeat("q", 257)+`","page":0,"extra":true}`)},
	{"invalid_params_wrapped", call("1", "get_pr_mergeability", `{"input":{"repo":"not a repo","prNumber":"2"}}`)},
	{"invalid_params_ref_name", call("1", "apply_patch", `{"repo":"octo-org/hello-world","branch":"a/../../../../octo-org/secret/git/ref/heads/main","message":"m","patch":"p"}`)},
	// get_job_log's window: exactly one of tail_lines and start_line (oneOf), start_line and
	// max_lines together (dependentRequired), both stated by the published schema.
	{"invalid_params_job_log_window", call("1", "get_job_log", `{"repo":"o/r","job_id":7,"tail_lines":5,"start_line":1}`)},
	{"invalid_params_job_log_range", call("1", "get_job_log", `{"repo":"o/r","job_id":7,"max_lines":5}`)},
	{"permission_denied", fetch("1", "o/denied")},
	{"not_found", fetch("1", "o/missing")},
	{"github_validation", fetch("1", "o/unprocessable")},
	{"rate_limited", fetch("1", "o/limited")},
	{"not_mergeable", fetch("1", "o/dirty")},
	{"head_sha_mismatch", fetch("1", "o/moved")},
	{"internal_error", fetch("1", "o/broken")},
	{"too_large", fetch("1", "o/"+strings.Repeat("x", 5000))},
	{"batch_mixed", `[` + fetch("1", "o/ok") + `,` + fetch(`"two"`, "o/missing") + `,` + fetch("", "o/ok") + `,1,` +
		fetch("3", "o/limited") + `,` + call("4", "search", `{}`) + `]`},
	{"batch_too_large", `[` + strings.TrimSuffix(strings.Repeat(fetch("1", "o/ok")+",", 11), ",") + `]`},
	{"notifications_only", `[` + fetch("", "o/ok") + `,` + fetch("", "o/missing") + `]`},
	{"notification_single", fetch("", "o/missing")},
}

func TestRPCGolden(t *testing.T) {
	f := newFixture(t)
	for _, mode := range []struct {
		name    string
		mapping bool
	}{{"default", false}, {"mapped", true}} {
		gw := f.newGateway(t, func(c *config.Config) { c.HTTPStatusMapping = mode.mapping })
		for _, tc := range rpcCases {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				before := len(gw.logs.ErrorLines())
				resp, body := post(t, gw.url, tc.body)
				var got strings.Builder
				fmt.Fprintf(&got, "status: %d\n", resp.StatusCode)
				if ra := resp.Header.Get("Retry-After"); ra != "" {
					fmt.Fprintf(&got, "retry-after: %s\n", ra)
				}
				if len(body) > 0 {
					if !json.Valid(body) || resp.Header.Get("Content-Type") != "application/json" {
						t.Fatalf("not a JSON answer: %q", body)
					}
					got.Write(normalise(body))
					got.WriteByte('\n')
				}
				golden.Compare(t, "rpc/"+mode.name+"/"+tc.name+".golden", []byte(got.String()))
				// Exactly one log line per error object sent, none otherwise.
				wantLines := strings.Count(string(body), `"error":{"code":`)
				if n := len(gw.logs.ErrorLines()) - before; n != wantLines {
					t.Errorf("%d jsonrpc_error lines for %d error responses", n, wantLines)
				}
			})
		}
	}
}

func TestRPCNoTokenLeaks(t *testing.T) {
	f := newFixture(t)
	gw := f.newGateway(t, nil)
	_, body := post(t, gw.url, fetch("1", "o/broken"))
	if strings.Contains(string(body), "ghp_") || strings.Contains(string(body), "Bad Gateway") {
		t.Errorf("internal cause leaked: %s", body)
	}
	logs := gw.logs.String()
	if strings.Contains(logs, "ghp_secret") {
		t.Errorf("token in logs: %s", logs)
	}
	if !strings.Contains(logs, "[REDACTED]") || !strings.Contains(logs, "502 Bad Gateway") {
		t.Errorf("cause not logged (redacted): %s", logs)
	}
}

func TestRPCTooLargeBeforeParsing(t *testing.T) {
	f := newFixture(t)
	gw := f.newGateway(t, nil) // status mapping off: 413 anyway
	tests := []struct {
		name    string
		chunked bool
	}{{"content-length", false}, {"chunked", true}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Not even JSON: a parser would say -32700; the limit wins.
			var rd io.Reader = strings.NewReader(strings.Repeat("x", 5000))
			if tc.chunked {
				rd = struct{ io.Reader }{rd} // hides the length: sent chunked
			}
			req, err := http.NewRequest(http.MethodPost, gw.url+"/rpc", rd)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("status %d want 413", resp.StatusCode)
			}
		})
	}
}

func TestRPCMethodNotAllowed(t *testing.T) {
	f := newFixture(t)
	gw := f.newGateway(t, nil)
	resp, err := http.Get(gw.url + "/rpc")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET /rpc: %d %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestRPCBatchKeepsOrder(t *testing.T) {
	f := newFixture(t)
	gw := f.newGateway(t, func(c *config.Config) { c.BatchConcurrency = 3 })
	var parts []string
	for i := range 10 {
		repo := "o/ok"
		if i%3 == 0 {
			repo = "o/missing"
		}
		parts = append(parts, fetch(fmt.Sprint(i), repo))
	}
	_, body := post(t, gw.url, "["+strings.Join(parts, ",")+"]")
	var got []struct {
		ID    int             `json:"id"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 10 {
		t.Fatalf("%d answers", len(got))
	}
	for i, a := range got {
		if a.ID != i || (a.Error != nil) != (i%3 == 0) {
			t.Errorf("answer %d: id %d error %s", i, a.ID, a.Error)
		}
	}
}

func TestTwoGatewaysAlternate(t *testing.T) {
	f := newFixture(t)
	gws := []*gateway{f.newGateway(t, nil), f.newGateway(t, nil)}
	if gws[0].url == gws[1].url {
		t.Fatal("gateways share an address")
	}
	for i := range 6 {
		gw := gws[i%2]
		resp, body := post(t, gw.url, fetch(fmt.Sprint(i), "o/ok"))
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":`, i)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), want) {
			t.Fatalf("call %d on gateway %d: %d %s", i, i%2, resp.StatusCode, body)
		}
	}
}

func TestHealthAndReady(t *testing.T) {
	f := newFixture(t)
	gw := f.newGateway(t, nil)
	get := func(path string) int {
		resp, err := http.Get(gw.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	tests := []struct {
		name   string
		status healthpb.HealthCheckResponse_ServingStatus
		path   string
		want   int
	}{
		{"healthz", healthpb.HealthCheckResponse_SERVING, "/healthz", 200},
		{"ready when serving", healthpb.HealthCheckResponse_SERVING, "/readyz", 200},
		{"not ready when not serving", healthpb.HealthCheckResponse_NOT_SERVING, "/readyz", 503},
		{"healthz regardless", healthpb.HealthCheckResponse_NOT_SERVING, "/healthz", 200},
		{"ready again", healthpb.HealthCheckResponse_SERVING, "/readyz", 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f.health.SetServingStatus("", tc.status)
			if got := get(tc.path); got != tc.want {
				t.Errorf("%s = %d want %d", tc.path, got, tc.want)
			}
		})
	}
}

func TestReadyWithoutService(t *testing.T) {
	f := newFixture(t)
	gw := f.newGateway(t, nil)
	_ = f.conn.Close() // the service is gone for this gateway
	resp, err := http.Get(gw.url + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("readyz = %d want 503", resp.StatusCode)
	}
}

func TestMetrics(t *testing.T) {
	f := newFixture(t)
	gw := f.newGateway(t, nil)
	post(t, gw.url, fetch("1", "o/ok"))
	post(t, gw.url, fetch("1", "o/missing"))
	resp, err := http.Get(gw.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	b := string(raw)
	for _, want := range []string{
		`ghops_gateway_rpc_requests_total{code="0",endpoint="rpc",method="fetch"} 1`,
		`ghops_gateway_rpc_requests_total{code="-32002",endpoint="rpc",method="fetch"} 1`,
		`ghops_gateway_http_requests_total{endpoint="rpc",status="200"} 2`,
		`ghops_gateway_http_request_duration_seconds_count{endpoint="rpc"} 2`,
	} {
		if !strings.Contains(b, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// TestGracefulShutdownDrains: a call in flight when the server is told to
// stop still gets its answer; the drain is never shorter than the call
// timeout, even when the shutdown timeout is configured shorter (here
// 100 ms for a call released after 500 ms).
func TestGracefulShutdownDrains(t *testing.T) {
	f := newFixture(t)
	gw := f.newGateway(t, func(c *config.Config) {
		c.CallTimeout = 5 * time.Second
		c.ShutdownTimeout = 100 * time.Millisecond
	})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + lis.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- gw.srv.Serve(ctx, lis) }()

	var wg sync.WaitGroup
	var status int
	var body []byte
	wg.Add(1)
	go func() {
		defer wg.Done()
		resp, b := post(t, url, fetch("1", "o/slow"))
		status, body = resp.StatusCode, b
	}()
	<-f.svc.started // the request is in flight
	cancel()        // SIGTERM in the binary
	time.Sleep(500 * time.Millisecond)
	close(f.svc.release)
	wg.Wait()
	if err := <-served; err != nil {
		t.Fatalf("Serve after drain: %v", err)
	}
	if status != http.StatusOK || !strings.Contains(string(body), `"full_name":"o/slow"`) {
		t.Fatalf("in-flight request not drained: %d %s", status, body)
	}
	if resp, err := http.Post(url+"/rpc", "application/json", strings.NewReader(fetch("2", "o/ok"))); err == nil {
		resp.Body.Close()
		t.Fatal("server still accepts after shutdown")
	}
}

// TestSlowBodyIsCut: a client that sends its headers and then dribbles its
// body does not hold the connection: the server's read timeout, sized to
// the call timeout (here 2 s), closes it.
func TestSlowBodyIsCut(t *testing.T) {
	f := newFixture(t)
	gw := f.newGateway(t, func(c *config.Config) { c.CallTimeout = 2 * time.Second })
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = gw.srv.Serve(ctx, lis) }()
	conn, err := net.Dial("tcp", lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = conn.Write([]byte("POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"))
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		buf := make([]byte, 4096)
		for {
			if _, err := conn.Read(buf); err != nil {
				return
			}
		}
	}()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case <-closed:
			return
		case <-tick.C:
			_, _ = conn.Write([]byte(" ")) // one byte at a time, forever
		case <-deadline:
			t.Fatal("a dribbling client kept its connection for 20 s")
		}
	}
}
