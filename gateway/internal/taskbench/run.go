package taskbench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ghops.dev/services/fakehub"
)

// Epoch is the time fakehub's clock starts at in every run: two months
// after the demo data was made (fakehub's seed epoch is 2026-01-01), so
// that "not updated in 30 days" picks the seeded issues and not what a
// task's Setup adds, on any day the benchmark runs, and every date in an
// answer has the same length in every run.
var Epoch = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// HubConfig is the fakehub every run starts from: the demo data, a clock
// that starts at Epoch and runs at the wall clock's pace, rate limits no
// task reaches (requests are counted, never refused), and an admin token
// nobody knows (the runner reads the hub through its Go API).
func HubConfig() fakehub.Config {
	start := time.Now()
	var b [16]byte
	_, _ = rand.Read(b[:])
	return fakehub.Config{
		Seed:         "demo",
		AdminToken:   hex.EncodeToString(b[:]),
		CoreLimit:    100_000_000,
		SearchLimit:  100_000_000,
		GraphQLLimit: 100_000_000,
		Now:          func() time.Time { return Epoch.Add(time.Since(start)) },
	}
}

// Requests are the GitHub requests fakehub counted against a rate limit,
// by resource (GitHub's rate-limit buckets): REST core, search (code
// search included) and GraphQL, which GitHub limits separately.
type Requests struct {
	Core    int `json:"core"`
	Search  int `json:"search"`
	GraphQL int `json:"graphql"`
}

// Total is every counted request.
func (r Requests) Total() int { return r.Core + r.Search + r.GraphQL }

// add returns r plus o.
func (r Requests) add(o Requests) Requests {
	return Requests{Core: r.Core + o.Core, Search: r.Search + o.Search, GraphQL: r.GraphQL + o.GraphQL}
}

// String is "7" or "7 (2 search, 1 GraphQL)".
func (r Requests) String() string {
	var parts []string
	if r.Search > 0 {
		parts = append(parts, fmt.Sprintf("%d search", r.Search))
	}
	if r.GraphQL > 0 {
		parts = append(parts, fmt.Sprintf("%d GraphQL", r.GraphQL))
	}
	if len(parts) == 0 {
		return fmt.Sprint(r.Total())
	}
	return fmt.Sprintf("%d (%s)", r.Total(), strings.Join(parts, ", "))
}

// requestsOf reads the counted requests out of fakehub's counters.
func requestsOf(s fakehub.Stats) Requests {
	return Requests{
		Core:    s.RateUnits["core"],
		Search:  s.RateUnits["search"] + s.RateUnits["code_search"],
		GraphQL: s.RateUnits["graphql"],
	}
}

// minus returns r less o.
func (r Requests) minus(o Requests) Requests {
	return Requests{Core: r.Core - o.Core, Search: r.Search - o.Search, GraphQL: r.GraphQL - o.GraphQL}
}

// Call is one tool call of a run, as the model paid for it.
type Call struct {
	Tool string `json:"tool"`
	// ResultBytes is the CallToolResult as compact JSON (content,
	// structuredContent, _meta): what a host hands the model at most.
	ResultBytes int `json:"result_bytes"`
	// ContentBytes is the text of the content items only.
	ContentBytes int  `json:"content_bytes"`
	IsError      bool `json:"is_error"`
	// Requests are the GitHub requests fakehub counted during the call.
	Requests Requests `json:"requests"`
}

// Report is what one task cost on one server, and whether it was done.
type Report struct {
	Task   string `json:"task"`
	Server Server `json:"server"`
	// Toolsets is what the server was given ("all" for every tool).
	Toolsets string `json:"toolsets"`
	// Tools and ListBytes are the tools/list answer: its tools and its
	// result as compact JSON.
	Tools     int    `json:"tools"`
	ListBytes int    `json:"list_bytes"`
	Calls     []Call `json:"calls"`
	// Verified says Verify found the outcome in fakehub; Failure says
	// why not (the script's error or Verify's).
	Verified bool   `json:"verified"`
	Failure  string `json:"failure,omitempty"`
}

// ResultBytes sums the calls' ResultBytes.
func (r *Report) ResultBytes() int {
	n := 0
	for _, c := range r.Calls {
		n += c.ResultBytes
	}
	return n
}

// ContentBytes sums the calls' ContentBytes.
func (r *Report) ContentBytes() int {
	n := 0
	for _, c := range r.Calls {
		n += c.ContentBytes
	}
	return n
}

// Requests sums the calls' counted GitHub requests.
func (r *Report) Requests() Requests {
	var n Requests
	for _, c := range r.Calls {
		n = n.add(c.Requests)
	}
	return n
}

// CallTimeout bounds one tool call, tools/list and Verify.
const CallTimeout = 60 * time.Second

// recorder is the Caller a script gets: it makes the call on the session
// and appends what it cost to the report.
type recorder struct {
	s   *sdk.ClientSession
	h   *fakehub.Hub
	rep *Report
	// after is the task's AfterCall.
	after func(context.Context, *fakehub.Hub) error
	mu    sync.Mutex // scripts call one at a time; the lock keeps a careless one's counts apart
}

// Call makes one tool call and records it. A protocol error (an unknown
// tool, bad arguments the server refuses as JSON-RPC) is an error; a
// tool's error result is a Result with IsError, recorded like any other.
func (r *recorder) Call(ctx context.Context, tool string, args map[string]any) (Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	before := requestsOf(r.h.Stats())
	res, err := r.s.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	after := requestsOf(r.h.Stats())
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", tool, err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		return Result{}, fmt.Errorf("%s: encoding the result: %w", tool, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	r.rep.Calls = append(r.rep.Calls, Call{
		Tool: tool, ResultBytes: len(b), ContentBytes: text.Len(), IsError: res.IsError, Requests: after.minus(before),
	})
	if r.after != nil {
		if err := r.after(ctx, r.h); err != nil {
			return Result{}, fmt.Errorf("after %s: %w", tool, err)
		}
	}
	return Result{Text: text.String(), IsError: res.IsError}, nil
}

// Measure runs task's script for server over transport, an MCP server
// already working against h (Setup already run): it connects, reads
// tools/list once as a host does before the first call, runs the script
// through a recorder, then Verify, and closes the session (for a
// CommandTransport: stdin closed, then SIGTERM). toolsets only labels the
// report. The error is for a run that could not be measured (no
// connection, no script); a task not done is a Report with Verified false.
func Measure(ctx context.Context, task Task, server Server, toolsets string, h *fakehub.Hub, transport sdk.Transport) (*Report, error) {
	script := task.Scripts[server]
	if script == nil {
		return nil, fmt.Errorf("task %s has no %s script", task.Name, server)
	}
	rep := &Report{Task: task.Name, Server: server, Toolsets: toolsets}
	cctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "ghops-tasks", Version: "1"}, nil)
	s, err := c.Connect(cctx, transport, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", server, err)
	}
	defer func() { _ = s.Close() }()
	list, err := s.ListTools(cctx, nil)
	if err != nil {
		return nil, fmt.Errorf("%s tools/list: %w", server, err)
	}
	b, err := json.Marshal(list)
	if err != nil {
		return nil, err
	}
	rep.Tools, rep.ListBytes = len(list.Tools), len(b)
	ctx = withFinding(ctx)
	if err := script(ctx, &recorder{s: s, h: h, rep: rep, after: task.AfterCall}); err != nil {
		rep.Failure = "script: " + err.Error()
		return rep, nil
	}
	vctx, vcancel := context.WithTimeout(ctx, CallTimeout)
	defer vcancel()
	if err := task.Verify(vctx, h); err != nil {
		rep.Failure = "verify: " + err.Error()
		return rep, nil
	}
	rep.Verified = true
	return rep, nil
}

// Binaries are the servers' executables a Run starts; an empty path
// means that server is not run.
type Binaries map[Server]string

// ToolsetsFor is the toolsets value server gets for task under mode:
// "task" (the task's own toolsets) or "all" (every tool).
func ToolsetsFor(task Task, server Server, mode string) string {
	if mode == "all" {
		return "all"
	}
	return task.Toolsets[server]
}

// Run measures task on server: a fresh fakehub (HubConfig) served on
// 127.0.0.1, Setup, the server's binary started as an MCP host starts it
// (a child process on stdio, the GitHub URL and the demo token in its
// environment), then Measure. mode is as for ToolsetsFor.
func Run(ctx context.Context, task Task, server Server, binary, mode string) (*Report, error) {
	h, err := fakehub.New(HubConfig())
	if err != nil {
		return nil, err
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(lis) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if task.Setup != nil {
		if err := task.Setup(h); err != nil {
			return nil, fmt.Errorf("task %s setup: %w", task.Name, err)
		}
	}
	toolsets := ToolsetsFor(task, server, mode)
	cmd, err := ServerCommand(server, binary, "http://"+lis.Addr().String(), toolsets)
	if err != nil {
		return nil, err
	}
	stderr := &tail{max: 4096}
	cmd.Stderr = stderr
	rep, err := Measure(ctx, task, server, toolsets, h, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second})
	if err != nil && stderr.Len() > 0 {
		err = fmt.Errorf("%w; %s's stderr ends: %s", err, server, stderr.String())
	}
	return rep, err
}

// ServerCommand is the command line and environment server's binary runs
// with against the GitHub API at hubURL (no trailing slash), with the
// demo token, offering toolsets. The environment is the caller's less
// every GITHUB_ and GHOPS_ variable, so that nothing of the caller's own
// GitHub setup reaches the server.
func ServerCommand(server Server, binary, hubURL, toolsets string) (*exec.Cmd, error) {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GITHUB_") && !strings.HasPrefix(kv, "GHOPS_") {
			env = append(env, kv)
		}
	}
	var cmd *exec.Cmd
	switch server {
	case Ghops:
		cmd = exec.Command(binary, "-embedded", "stdio")
		env = append(env, "GITHUB_TOKEN="+fakehub.DemoToken, "GITHUB_API_URL="+hubURL+"/", "GHOPS_TOOLSETS="+toolsets)
	case GMS:
		// gms takes a host that is not github.com as GitHub Enterprise
		// Server: REST under /api/v3/ and GraphQL at /api/graphql, both
		// of which fakehub serves.
		cmd = exec.Command(binary, "stdio")
		env = append(env, "GITHUB_PERSONAL_ACCESS_TOKEN="+fakehub.DemoToken, "GITHUB_HOST="+hubURL, "GITHUB_TOOLSETS="+toolsets)
	default:
		return nil, fmt.Errorf("unknown server %q", server)
	}
	cmd.Env = env
	return cmd, nil
}

// tail keeps the last max bytes written to it: a child's stderr, shown
// when the child cannot be reached.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

var _ io.Writer = (*tail)(nil)

// Write keeps p's end.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

// Len is the bytes kept.
func (t *tail) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.b)
}

// String is the bytes kept.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
