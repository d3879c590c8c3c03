package loadgen

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is the outcome of a run. Calls counts measured calls that got an answer or failed in
// transport (calls cut short by an interruption are left out). Errors maps JSON-RPC codes to counts
// (code 0: an MCP isError result without a code); HTTPErrors maps HTTP statuses of answers that were
// not JSON-RPC; Malformed counts 2xx answers that were not a JSON-RPC response to the call.
type Report struct {
	Target      string           `json:"target"`
	Endpoint    string           `json:"endpoint"`
	MCPVersion  string           `json:"mcp_version,omitempty"`
	Concurrency int              `json:"concurrency"`
	Mix         string           `json:"mix"`
	StoppedBy   string           `json:"stopped_by"`
	Calls       int              `json:"calls"`
	OK          int              `json:"ok"`
	Errors      map[int]int      `json:"errors_by_code"`
	HTTPErrors  map[int]int      `json:"http_errors"`
	Malformed   int              `json:"malformed"`
	Transport   int              `json:"transport_errors"`
	Elapsed     time.Duration    `json:"elapsed_ns"`
	Throughput  float64          `json:"calls_per_second"`
	Latency     Latency          `json:"latency"`
	ByTool      map[string]*Tool `json:"by_tool"`
	GitHub      *GitHubCalls     `json:"github,omitempty"`
	// ServerCPU is the CPU time (user and system) the stdio server spent during the measured part
	// of the run, where /proc tells it (Linux); zero otherwise.
	ServerCPU time.Duration `json:"server_cpu_ns,omitempty"`
	toolOrder []string      // tools in mix order, for printing
}

// Tool is one tool's share of a run.
type Tool struct {
	Calls   int     `json:"calls"`
	OK      int     `json:"ok"`
	Latency Latency `json:"latency"`
}

// GitHubCalls is what fakehub served during the measured part of the run: every request
// (Requests), those answered 304 Not Modified from an ETag (NotModified), the rate-limit units spent
// and the requests per route, and PerCall, the requests per measured tool call.
type GitHubCalls struct {
	Requests    int            `json:"requests"`
	NotModified int            `json:"not_modified"`
	RateUnits   int            `json:"rate_units"`
	PerCall     float64        `json:"per_call"`
	ByRoute     map[string]int `json:"by_route"`
	ByStatus    map[string]int `json:"by_status"`
}

func newReport(cfg Config, all []outcome, elapsed time.Duration) *Report {
	r := &Report{
		Target: cfg.Target, Endpoint: cfg.Endpoint, Concurrency: cfg.Concurrency, Elapsed: elapsed,
		Errors: map[int]int{}, HTTPErrors: map[int]int{}, ByTool: map[string]*Tool{},
	}
	if cfg.Endpoint != EndpointRPC {
		r.MCPVersion = cfg.MCPVersion
	}
	if cfg.Endpoint == EndpointStdio {
		r.Target = strings.Join(cfg.Command, " ")
	}
	r.Mix = mixString(cfg.Mix)
	var lat []time.Duration
	perTool := map[string][]time.Duration{}
	for _, c := range cfg.Mix {
		if _, ok := r.ByTool[c.Tool]; !ok {
			r.ByTool[c.Tool] = &Tool{}
			r.toolOrder = append(r.toolOrder, c.Tool)
		}
	}
	for _, o := range all {
		if o.kind == kindCanceled {
			continue
		}
		r.Calls++
		t := r.ByTool[o.tool]
		t.Calls++
		lat = append(lat, o.latency)
		perTool[o.tool] = append(perTool[o.tool], o.latency)
		switch o.kind {
		case kindOK:
			r.OK++
			t.OK++
		case kindRPCError:
			r.Errors[o.code]++
		case kindHTTP:
			r.HTTPErrors[o.code]++
		case kindMalformed:
			r.Malformed++
		case kindTransport:
			r.Transport++
		}
	}
	r.Latency = latencyOf(lat)
	for name, ds := range perTool {
		r.ByTool[name].Latency = latencyOf(ds)
	}
	if elapsed > 0 {
		r.Throughput = float64(r.Calls) / elapsed.Seconds()
	}
	return r
}

// mixString renders a mix back in ParseMix's syntax.
func mixString(mix []Call) string {
	var names []string
	count := map[string]int{}
	for _, c := range mix {
		if count[c.Tool] == 0 {
			names = append(names, c.Tool)
		}
		count[c.Tool]++
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n
		if count[n] > 1 {
			parts[i] += ":" + strconv.Itoa(count[n])
		}
	}
	return strings.Join(parts, ",")
}

func diffStats(before, after *hubStats, calls int) *GitHubCalls {
	g := &GitHubCalls{Requests: after.Total - before.Total, ByRoute: map[string]int{}, ByStatus: map[string]int{}}
	for k, v := range after.ByRoute {
		if d := v - before.ByRoute[k]; d != 0 {
			g.ByRoute[k] = d
		}
	}
	for k, v := range after.ByStatus {
		if d := v - before.ByStatus[k]; d != 0 {
			g.ByStatus[k] = d
		}
	}
	g.NotModified = g.ByStatus["304"]
	for k, v := range after.RateUnits {
		g.RateUnits += v - before.RateUnits[k]
	}
	if calls > 0 {
		g.PerCall = float64(g.Requests) / float64(calls)
	}
	return g
}

// ms renders a duration in milliseconds with three significant decimals.
func ms(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 3, 64) + "ms" }

func codeList(m map[int]int, prefix string) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s%d x%d", prefix, k, m[k])
	}
	return strings.Join(parts, ", ")
}

// WriteText prints the report for people.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	ep := "/" + r.Endpoint
	if r.Endpoint == EndpointStdio {
		ep = " over stdio"
	}
	if r.MCPVersion != "" {
		ep += " (MCP " + r.MCPVersion + ")"
	}
	fmt.Fprintf(tw, "target\t%s%s\n", strings.TrimSuffix(r.Target, "/"), ep)
	fmt.Fprintf(tw, "mix\t%s, concurrency %d, stopped by %s\n", r.Mix, r.Concurrency, r.StoppedBy)
	fmt.Fprintf(tw, "calls\t%d in %s = %.1f calls/s\n", r.Calls, r.Elapsed.Round(time.Millisecond), r.Throughput)
	fmt.Fprintf(tw, "ok\t%d\n", r.OK)
	fmt.Fprintf(tw, "JSON-RPC errors\t%s\n", codeList(r.Errors, ""))
	if len(r.HTTPErrors) > 0 || r.Malformed > 0 || r.Transport > 0 {
		fmt.Fprintf(tw, "other failures\tHTTP: %s; malformed %d; transport %d\n", codeList(r.HTTPErrors, ""), r.Malformed, r.Transport)
	}
	fmt.Fprintf(tw, "latency\tp50 %s  p90 %s  p99 %s  max %s\n", ms(r.Latency.P50), ms(r.Latency.P90), ms(r.Latency.P99), ms(r.Latency.Max))
	if len(r.ByTool) > 1 {
		for _, name := range r.toolOrder {
			t := r.ByTool[name]
			fmt.Fprintf(tw, "  %s\t%d calls, %d ok, p50 %s  p99 %s\n", name, t.Calls, t.OK, ms(t.Latency.P50), ms(t.Latency.P99))
		}
	}
	if r.ServerCPU > 0 && r.Calls > 0 {
		fmt.Fprintf(tw, "server CPU\t%s = %.1fµs per call\n", r.ServerCPU.Round(time.Millisecond), float64(r.ServerCPU)/float64(r.Calls)/1e3)
	}
	if g := r.GitHub; g != nil {
		fmt.Fprintf(tw, "GitHub requests\t%d = %.2f per call (304 Not Modified: %d, rate-limit units: %d)\n", g.Requests, g.PerCall, g.NotModified, g.RateUnits)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.GitHub == nil || len(r.GitHub.ByRoute) == 0 {
		return nil
	}
	// Routes are long: a table of their own, so they do not widen the one above.
	routes := make([]string, 0, len(r.GitHub.ByRoute))
	for k := range r.GitHub.ByRoute {
		routes = append(routes, k)
	}
	sort.Strings(routes)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, k := range routes {
		fmt.Fprintf(tw, "%d\t  %s\n", r.GitHub.ByRoute[k], k)
	}
	return tw.Flush()
}
