package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/goldentest"
	"ghops.dev/gateway/internal/rpcerror"
)

// unknownKeys is a search call with n unknown keys besides its query, each
// with a 4-byte value: about 16 bytes a key (issue 19's 403 KB call has
// 25,000).
func unknownKeys(n int) string {
	var b strings.Builder
	b.WriteString(`{"query":"q"`)
	for i := range n {
		fmt.Fprintf(&b, `,"k%06d":"vvvv"`, i)
	}
	b.WriteString(`}`)
	return call("1", "search", b.String())
}

// boundedCases are the error answers that reach a bound, pinned by golden
// files (docs/errors.md, "Bounded answers").
var boundedCases = []struct {
	name, body string
	found      int // violations of the arguments: listed plus counted
}{
	{"invalid_params_capped", unknownKeys(25000), 25000},
	{"invalid_params_long_string", call("1", "search", `{"query":"`+strings.Repeat("q", 200_000)+`"}`), 1},
	{"invalid_params_long_key", call("1", "search", `{"query":"q","`+strings.Repeat("k", 100_000)+`":1}`), 1},
}

// TestRPCBoundedAnswers: a call that breaks its schema in thousands of ways,
// or with a huge value, is answered within docs/errors.md's bounds.
func TestRPCBoundedAnswers(t *testing.T) {
	f := newFixture(t)
	gw := f.newGateway(t, func(c *config.Config) { c.MaxBody = 1 << 20 })
	for _, tc := range boundedCases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, gw.url, tc.body)
			t.Logf("request %d bytes, answer %d bytes", len(tc.body), len(body))
			if len(body) > rpcerror.MaxErrorBytes {
				t.Fatalf("answer of %d bytes over %d", len(body), rpcerror.MaxErrorBytes)
			}
			var m struct {
				Error struct {
					Data struct {
						ValidationErrors []json.RawMessage `json:"validation_errors"`
						Omitted          int               `json:"validation_errors_omitted"`
					} `json:"data"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatalf("%v: %.300s", err, body)
			}
			// The count of the rest is exact, however many were found.
			if listed := len(m.Error.Data.ValidationErrors); listed+m.Error.Data.Omitted != tc.found || listed > rpcerror.MaxViolations {
				t.Errorf("listed %d, omitted %d, want %d found", listed, m.Error.Data.Omitted, tc.found)
			}
			goldentest.Compare(t, "rpc/bounded/"+tc.name+".golden", append([]byte(fmt.Sprintf("status: %d\n", resp.StatusCode)), append(normalise(body), '\n')...))
		})
	}
}

// TestHugeInvalidCallsMemory sends issue 19's call (25,000 unknown keys)
// eight times, four at once, and reports what the gateway allocated and
// kept. The figures are logged (go test -v); the assertions are on sizes:
// each answer within the bound, and the heap after the calls not grown by
// more than a few requests' worth.
func TestHugeInvalidCallsMemory(t *testing.T) {
	f := newFixture(t)
	gw := f.newGateway(t, func(c *config.Config) { c.MaxBody = 1 << 20 })
	body := unknownKeys(25000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const calls, parallel = 8, 4
	sizes := make(chan int, calls)
	var wg sync.WaitGroup
	for range parallel {
		wg.Go(func() {
			for range calls / parallel {
				resp, err := http.Post(gw.url+"/rpc", "application/json", strings.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				sizes <- int(n)
			}
		})
	}
	wg.Wait()
	close(sizes)
	runtime.GC()
	runtime.ReadMemStats(&after)
	for n := range sizes {
		if n == 0 || n > rpcerror.MaxErrorBytes {
			t.Errorf("answer of %d bytes", n)
		}
	}
	grown := int64(after.HeapInuse) - int64(before.HeapInuse)
	t.Logf("request %d bytes; %d calls allocated %.1f MB in all (%.1f MB a call, client included); heap in use %.1f MB -> %.1f MB",
		len(body), calls, float64(after.TotalAlloc-before.TotalAlloc)/1e6, float64(after.TotalAlloc-before.TotalAlloc)/1e6/calls,
		float64(before.HeapInuse)/1e6, float64(after.HeapInuse)/1e6)
	if grown > int64(parallel*len(body)*4) {
		t.Errorf("heap grew by %d bytes after the calls", grown)
	}
}

// BenchmarkHugeInvalidCall measures issue 19's call: one search with
// 25,000 unknown keys, answered -32602 (see answer-bytes).
func BenchmarkHugeInvalidCall(b *testing.B) {
	f := newFixture(b)
	gw := f.newGateway(b, func(c *config.Config) { c.MaxBody = 1 << 20 })
	body := unknownKeys(25000)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	var n int64
	for b.Loop() {
		resp, err := http.Post(gw.url+"/rpc", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		n, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	b.ReportMetric(float64(n), "answer-bytes")
}
