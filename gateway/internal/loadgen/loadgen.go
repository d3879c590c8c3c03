// Package loadgen drives the ghops gateway with tool calls over POST /rpc (plain JSON-RPC 2.0) or
// POST /mcp (MCP tools/call after initialize) at a fixed concurrency, for a bounded duration and a
// bounded number of calls, and reports throughput, latency percentiles, errors by JSON-RPC code and,
// given fakehub's admin URL and token, the GitHub requests each tool call cost. It drives any other
// MCP server the same way, over HTTP or over the stdio of a process it starts (EndpointStdio), so
// that ghops can be compared with it (scripts/gms-compare.sh).
//
// It only ever talks to loopback addresses: targets are checked by CheckLoopback and every
// connection is checked again at dial time. It uses the standard library alone, so that what it
// measures is the servers and not a client library's overhead.
package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Endpoints Config.Endpoint accepts.
const (
	EndpointRPC = "rpc"
	EndpointMCP = "mcp"
	// EndpointStdio is MCP over the standard input and output of Config.Command, which the run
	// starts and stops.
	EndpointStdio = "stdio"
)

// Limits on a run, so that a typo cannot start an unbounded one.
const (
	MaxConcurrency = 1024
	MaxRequests    = 10_000_000
	MaxDuration    = time.Hour
)

// DefaultMCPVersion is the protocol version the MCP client offers in initialize.
const DefaultMCPVersion = "2025-06-18"

// Call is one tool call of the mix: the tool name (the JSON-RPC method on /rpc) and its arguments.
type Call struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// DemoArgs are arguments that succeed against fakehub's demo dataset (octo-org/hello-world, pull
// request #1 mergeable, its head commit with a passing check run).
var DemoArgs = map[string]json.RawMessage{
	"read_file":           json.RawMessage(`{"repo":"octo-org/hello-world","path":"README.md"}`),
	"get_tree":            json.RawMessage(`{"repo":"octo-org/hello-world"}`),
	"list_pull_requests":  json.RawMessage(`{"repo":"octo-org/hello-world"}`),
	"get_pr_mergeability": json.RawMessage(`{"repo":"octo-org/hello-world","prNumber":1}`),
	"get_checks_for_sha":  json.RawMessage(`{"repo":"octo-org/hello-world","sha":"5b72ac8be0a87e3a3fe5a1ebe29b5088b029b208"}`),
	"search":              json.RawMessage(`{"query":"hello"}`),
	"get_commits":         json.RawMessage(`{"repo":"octo-org/hello-world"}`),
	"get_branches":        json.RawMessage(`{"repo":"octo-org/hello-world"}`),
}

// ParseMix turns "read_file" or "read_file:3,search:1" (tool[:weight], comma-separated) into the
// round-robin list of calls, a tool of weight w appearing w times. Arguments come from args, else
// from DemoArgs; a tool found in neither is an error.
func ParseMix(spec string, args map[string]json.RawMessage) ([]Call, error) {
	var out []Call
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, w, hasWeight := strings.Cut(part, ":")
		weight := 1
		if hasWeight {
			n, err := strconv.Atoi(w)
			if err != nil || n < 1 || n > 100 {
				return nil, fmt.Errorf("loadgen: weight of %q must be 1..100", name)
			}
			weight = n
		}
		a, ok := args[name]
		if !ok {
			a, ok = DemoArgs[name]
		}
		if !ok {
			return nil, fmt.Errorf("loadgen: no arguments for tool %q (give them with -args %s='{...}')", name, name)
		}
		if !json.Valid(a) {
			return nil, fmt.Errorf("loadgen: arguments of %q are not JSON", name)
		}
		for i := 0; i < weight; i++ {
			out = append(out, Call{Tool: name, Args: a})
		}
	}
	if len(out) == 0 {
		return nil, errors.New("loadgen: empty tool mix")
	}
	return out, nil
}

// Config is one run. Target is the gateway's base URL ("http://127.0.0.1:8788"); Endpoint is
// EndpointRPC (default) or EndpointMCP. The run stops when Duration has passed or Requests calls
// have been started, whichever comes first; both are required. Warmup calls are made first,
// sequentially, and are not measured. Timeout bounds each call (default 30s). FakehubAdminURL and
// FakehubAdminToken, when both set, make the report include fakehub's request counts.
// Command is the server to start for EndpointStdio (program and arguments; the Target is then
// unused); the report gives its CPU time over the measured calls where Linux's /proc tells it.
// Authorization, when set, is sent as the Authorization header of every request to the target (not
// to fakehub), so that servers that want a bearer token, such as a gateway with API keys or another
// MCP server, can be driven too; like FakehubAdminToken it is a secret, kept out of reports and
// errors.
type Config struct {
	Target            string
	Endpoint          string
	Mix               []Call
	Concurrency       int
	Duration          time.Duration
	Requests          int
	Warmup            int
	Timeout           time.Duration
	MCPVersion        string
	FakehubAdminURL   string
	FakehubAdminToken string
	Authorization     string
	Command           []string
}

func (c *Config) validate() error {
	if err := CheckLoopback(c.Target); err != nil {
		return err
	}
	if c.FakehubAdminURL != "" {
		if err := CheckLoopback(c.FakehubAdminURL); err != nil {
			return fmt.Errorf("fakehub admin URL: %w", err)
		}
	}
	switch c.Endpoint {
	case "":
		c.Endpoint = EndpointRPC
	case EndpointRPC, EndpointMCP:
	case EndpointStdio:
		if len(c.Command) == 0 || c.Command[0] == "" {
			return errors.New("loadgen: endpoint stdio needs the server's command (-command)")
		}
	default:
		return fmt.Errorf("loadgen: endpoint must be %q, %q or %q", EndpointRPC, EndpointMCP, EndpointStdio)
	}
	if len(c.Mix) == 0 {
		return errors.New("loadgen: empty tool mix")
	}
	if c.Concurrency < 1 || c.Concurrency > MaxConcurrency {
		return fmt.Errorf("loadgen: concurrency must be 1..%d", MaxConcurrency)
	}
	if c.Duration <= 0 || c.Duration > MaxDuration {
		return fmt.Errorf("loadgen: duration must be positive and at most %v", MaxDuration)
	}
	if c.Requests < 1 || c.Requests > MaxRequests {
		return fmt.Errorf("loadgen: requests must be 1..%d", MaxRequests)
	}
	if c.Warmup < 0 || c.Warmup > MaxRequests {
		return fmt.Errorf("loadgen: warmup must be 0..%d", MaxRequests)
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.MCPVersion == "" {
		c.MCPVersion = DefaultMCPVersion
	}
	return nil
}

// outcome is one measured call.
type outcome struct {
	tool    string
	latency time.Duration
	kind    kind
	code    int // JSON-RPC code for kindRPCError, HTTP status for kindHTTP
}

type kind int

const (
	kindOK        kind = iota
	kindRPCError       // a JSON-RPC error object, or an MCP result with isError
	kindHTTP           // a non-2xx answer without a JSON-RPC body
	kindMalformed      // a 2xx answer that is not a JSON-RPC response to our call
	kindTransport      // no answer: connection failure or timeout
	kindCanceled       // interrupted by the caller (SIGINT/SIGTERM)
)

// Run performs the run described by cfg and returns its report. Cancelling ctx stops it early; the
// report then covers the calls that completed and says it was interrupted.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	d := newDriver(cfg)
	if cfg.Endpoint == EndpointStdio {
		srv, err := startStdio(cfg.Command)
		if err != nil {
			return nil, err
		}
		defer srv.stop()
		d.stdio = srv
	}
	if cfg.Endpoint != EndpointRPC {
		if err := d.initialize(ctx); err != nil {
			return nil, err
		}
	}
	for i := 0; i < cfg.Warmup; i++ {
		if o := d.call(ctx, int64(-1-i), cfg.Mix[i%len(cfg.Mix)]); o.kind == kindCanceled {
			return nil, ctx.Err()
		}
	}
	var before *hubStats
	if cfg.FakehubAdminURL != "" && cfg.FakehubAdminToken != "" {
		s, err := d.fetchStats(ctx)
		if err != nil {
			return nil, err
		}
		before = s
	}

	var cpu0 time.Duration
	cpuOK := false
	if d.stdio != nil {
		cpu0, cpuOK = d.stdio.cpu()
	}
	var next atomic.Int64
	results := make([][]outcome, cfg.Concurrency)
	start := time.Now()
	deadline := start.Add(cfg.Duration)
	var wg sync.WaitGroup
	for w := 0; w < cfg.Concurrency; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for ctx.Err() == nil && time.Now().Before(deadline) {
				n := next.Add(1)
				if n > int64(cfg.Requests) {
					return
				}
				results[w] = append(results[w], d.call(ctx, n, cfg.Mix[(n-1)%int64(len(cfg.Mix))]))
			}
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(start)
	var serverCPU time.Duration
	if cpuOK {
		if cpu1, ok := d.stdio.cpu(); ok {
			serverCPU = cpu1 - cpu0
		}
	}

	var all []outcome
	for _, r := range results {
		all = append(all, r...)
	}
	rep := newReport(cfg, all, elapsed)
	rep.ServerCPU = serverCPU
	switch {
	case ctx.Err() != nil:
		rep.StoppedBy = "interrupted"
	case next.Load() > int64(cfg.Requests):
		rep.StoppedBy = "request count"
	default:
		rep.StoppedBy = "duration"
	}
	if before != nil {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		after, err := d.fetchStats(sctx)
		if err != nil {
			return rep, err
		}
		rep.GitHub = diffStats(before, after, rep.Calls)
	}
	return rep, nil
}

// percentile returns the nearest-rank p-quantile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(float64(len(sorted))*p)) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}

// Latency is a latency distribution.
type Latency struct {
	P50 time.Duration `json:"p50_ns"`
	P90 time.Duration `json:"p90_ns"`
	P99 time.Duration `json:"p99_ns"`
	Max time.Duration `json:"max_ns"`
}

func latencyOf(ds []time.Duration) Latency {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return Latency{P50: percentile(ds, .50), P90: percentile(ds, .90), P99: percentile(ds, .99), Max: percentile(ds, 1)}
}
