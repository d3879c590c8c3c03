package toolcall

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"ghops.dev/gateway/internal/policy"
	"ghops.dev/infra/callmeta"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	ghopsv1 "ghops.dev/gen/ghops/v1"

	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolschema"
)

// fakeConn is a grpc.ClientConnInterface whose Invoke runs fn.
type fakeConn struct {
	fn func(ctx context.Context, method string, args, reply any) error
}

func (f fakeConn) Invoke(ctx context.Context, method string, args, reply any, _ ...grpc.CallOption) error {
	return f.fn(ctx, method, args, reply)
}

func (fakeConn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, status.Error(codes.Unimplemented, "no streams")
}

func registry(t testing.TB) *toolschema.Registry {
	t.Helper()
	reg, err := toolschema.NewRegistry(ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService"))
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestCall(t *testing.T) {
	reg := registry(t)
	ok := func(_ context.Context, method string, args, reply any) error {
		if method != "/ghops.v1.GitHubService/GetPrMergeability" {
			return status.Error(codes.Unimplemented, method)
		}
		if args.(*ghopsv1.GetPrMergeabilityRequest).GetPrNumber() != 2 {
			return status.Error(codes.InvalidArgument, "wrong decode")
		}
		proto.Merge(reply.(proto.Message), &ghopsv1.GetPrMergeabilityResponse{MergeableState: "clean"})
		return nil
	}
	tests := []struct {
		name     string
		tool     string
		args     string
		fn       func(ctx context.Context, method string, args, reply any) error
		opts     []Option
		wantCode int
		wantLog  rpcerror.LogFields
		want     string
	}{
		{name: "success", tool: "get_pr_mergeability", args: `{"repo":"o/r","prNumber":2}`, fn: ok, want: `"mergeable_state":"clean"`},
		{name: "unknown tool", tool: "nope", args: `{}`, fn: ok, wantCode: -32602},
		{name: "invalid params with log fields", tool: "get_pr_mergeability", args: `{"repo":"o/r","prNumber":0}`, fn: ok, wantCode: -32602,
			wantLog: rpcerror.LogFields{Repo: "o/r", PR: "0"}},
		{name: "empty args are an empty object", tool: "search", args: ``, fn: ok, wantCode: -32602},
		{name: "service error keeps args context", tool: "get_pr_mergeability", args: `{"repo":"o/r","prNumber":2}`, wantCode: -32002,
			fn:      func(context.Context, string, any, any) error { return status.Error(codes.NotFound, "Not Found") },
			wantLog: rpcerror.LogFields{Repo: "o/r", PR: "2"}},
		{name: "deadline is internal", tool: "get_pr_mergeability", args: `{"repo":"o/r","prNumber":2}`, wantCode: -32603,
			opts: []Option{WithTimeout(time.Millisecond)}, wantLog: rpcerror.LogFields{Repo: "o/r", PR: "2"},
			fn: func(ctx context.Context, _ string, _, _ any) error {
				<-ctx.Done()
				return status.FromContextError(ctx.Err()).Err()
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New(reg, fakeConn{tc.fn}, tc.opts...)
			res, _, e := c.Call(context.Background(), Request{Name: tc.tool, Args: json.RawMessage(tc.args), RequestID: "rid"})
			if tc.wantCode == 0 {
				if e != nil {
					t.Fatalf("error %d %s", e.Code, e.Message)
				}
				if !strings.Contains(string(res), tc.want) {
					t.Fatalf("result %s lacks %s", res, tc.want)
				}
				return
			}
			if e == nil || e.Code != tc.wantCode {
				t.Fatalf("got %v (%s) want code %d", e, res, tc.wantCode)
			}
			if e.Log != tc.wantLog {
				t.Errorf("log fields %+v want %+v", e.Log, tc.wantLog)
			}
			if e.Code == -32603 && e.Data.RequestId != "rid" {
				t.Errorf("internal error without request id: %+v", e.Data)
			}
		})
	}
}

// TestCallMetadata: the request id and a deadline go with every call; a
// caller's own GitHub token (GitHub as the OAuth issuer) only with that
// caller's calls, and no other credential ever.
func TestCallMetadata(t *testing.T) {
	tests := []struct {
		name          string
		caller        *policy.Caller
		wantToken     []string
		wantPrincipal []string
	}{
		{"no caller", nil, nil, nil},
		{"api key caller", &policy.Caller{Principal: &policy.Principal{Name: "bot"}, Via: policy.KindAPIKey}, nil, []string{"apikey:bot"}},
		{"github caller", &policy.Caller{Principal: &policy.Principal{Name: "octocat"}, Via: policy.KindGitHub, GitHubToken: "ghp_x"}, []string{"ghp_x"}, []string{"github:octocat"}},
		{"oidc caller", &policy.Caller{Principal: &policy.Principal{Name: "auth0|5f7c"}, Via: policy.KindOIDC}, nil, []string{"oidc:auth0|5f7c"}},
		{"caller without a principal", &policy.Caller{Via: policy.KindAPIKey}, nil, nil},
		{"name already of its kind", &policy.Caller{Principal: &policy.Principal{Name: "github:octocat"}, Via: policy.KindGitHub}, nil, []string{"github:octocat"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var md metadata.MD
			var deadline bool
			fn := func(ctx context.Context, _ string, _, _ any) error {
				md, _ = metadata.FromOutgoingContext(ctx)
				_, deadline = ctx.Deadline()
				return nil
			}
			c := New(registry(t), fakeConn{fn})
			ctx := context.Background()
			if tc.caller != nil {
				ctx = policy.WithCaller(ctx, tc.caller)
			}
			if _, _, e := c.Call(ctx, Request{Name: "fetch", Args: json.RawMessage(`{"repo":"o/r"}`)}); e != nil {
				t.Fatal(e)
			}
			if got := md.Get(callmeta.GitHubToken); strings.Join(got, ",") != strings.Join(tc.wantToken, ",") {
				t.Errorf("token md %v want %v", got, tc.wantToken)
			}
			if got := md.Get(callmeta.Principal); strings.Join(got, ",") != strings.Join(tc.wantPrincipal, ",") {
				t.Errorf("principal md %v want %v", got, tc.wantPrincipal)
			}
			if ids := md.Get(callmeta.RequestID); len(ids) != 1 || len(ids[0]) != 32 {
				t.Errorf("request id md %v", ids)
			}
			if !deadline {
				t.Error("call without deadline")
			}
		})
	}
}

// gate is a fake service call that counts calls in flight and holds each
// until released.
type gate struct {
	mu       sync.Mutex
	now, max int
	release  chan struct{}
}

func (g *gate) fn(ctx context.Context, _ string, _, _ any) error {
	g.mu.Lock()
	g.now++
	g.max = max(g.max, g.now)
	g.mu.Unlock()
	defer func() { g.mu.Lock(); g.now--; g.mu.Unlock() }()
	select {
	case <-g.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// TestInFlightLimits: a principal's concurrency and the gateway's global
// cap bound the service calls in flight; calls over them wait for a slot
// (they are not refused while their deadline allows).
func TestInFlightLimits(t *testing.T) {
	tests := []struct {
		name    string
		opts    []Option
		callers []*policy.Caller
		want    int
	}{
		{"principal concurrency 2", nil, []*policy.Caller{{Principal: &policy.Principal{Name: "a", Rules: policy.Rules{Concurrency: 2}}}}, 2},
		{"global cap 3 across principals", []Option{WithMaxInFlight(3)}, []*policy.Caller{
			{Principal: &policy.Principal{Name: "a"}}, {Principal: &policy.Principal{Name: "b"}}}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := &gate{release: make(chan struct{})}
			c := New(registry(t), fakeConn{g.fn}, append(tc.opts, WithTimeout(10*time.Second))...)
			var wg sync.WaitGroup
			errs := make(chan *rpcerror.Error, 8)
			for i := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx := policy.WithCaller(context.Background(), tc.callers[i%len(tc.callers)])
					_, _, e := c.Call(ctx, Request{Name: "fetch", Args: json.RawMessage(`{"repo":"o/r"}`)})
					errs <- e
				}()
			}
			deadline := time.Now().Add(5 * time.Second)
			for {
				g.mu.Lock()
				n := g.now
				g.mu.Unlock()
				if n == tc.want || time.Now().After(deadline) {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond) // give any call over the limit the chance to slip in
			close(g.release)
			wg.Wait()
			close(errs)
			for e := range errs {
				if e != nil {
					t.Fatalf("a waiting call failed: %v", e)
				}
			}
			if g.max != tc.want {
				t.Fatalf("%d calls in flight at once, want %d", g.max, tc.want)
			}
		})
	}
}

// TestWaitBoundedByDeadline: a call that cannot get a slot before its
// deadline is refused with -32004 naming the rule, and never reaches the
// service.
func TestWaitBoundedByDeadline(t *testing.T) {
	g := &gate{release: make(chan struct{})}
	defer close(g.release)
	// The first call holds its slot past every deadline.
	hold := func(ctx context.Context, m string, a, r any) error { return g.fn(context.Background(), m, a, r) }
	c := New(registry(t), fakeConn{hold}, WithTimeout(300*time.Millisecond), WithMaxInFlight(1))
	first := make(chan struct{})
	go func() {
		close(first)
		_, _, _ = c.Call(context.Background(), Request{Name: "fetch", Args: json.RawMessage(`{"repo":"o/r"}`)})
	}()
	<-first
	for {
		g.mu.Lock()
		n := g.now
		g.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	_, _, e := c.Call(context.Background(), Request{Name: "fetch", Args: json.RawMessage(`{"repo":"o/r"}`)})
	if e == nil || e.Code != rpcerror.RateLimited || e.Data.Policy == nil || e.Data.Policy.Rule != "max_in_flight" || e.RetryAfter < 1 {
		t.Fatalf("got %+v", e)
	}
	if g.max != 1 {
		t.Fatalf("%d in flight", g.max)
	}
}

// TestAnswersAreConfined: a confined principal's search query reaches the
// service narrowed to its repos globs (one naming a wider scope does not
// reach it), its answer still loses the search results outside them
// (total_count counts what is left), an
// answer about another repository is refused whole without naming it, and
// a request naming a repository outside the globs in any case never
// reaches the service.
func TestAnswersAreConfined(t *testing.T) {
	reg := registry(t)
	calls, sent := 0, ""
	conn := fakeConn{fn: func(_ context.Context, method string, args, reply any) error {
		calls++
		switch method {
		case "/ghops.v1.GitHubService/Search":
			sent = args.(*ghopsv1.SearchRequest).GetQuery()
			proto.Merge(reply.(proto.Message), &ghopsv1.SearchResponse{TotalCount: 40, Repositories: []*ghopsv1.RepositorySummary{
				{FullName: "octo-org/hello-world"}, {FullName: "octo-org/secret", Description: "hidden"}}})
		case "/ghops.v1.GitHubService/Fetch":
			proto.Merge(reply.(proto.Message), &ghopsv1.FetchResponse{Repository: &ghopsv1.Repository{FullName: "octo-org/secret", Description: "hidden"}})
		}
		return nil
	}}
	c := New(reg, conn)
	bot := policy.WithCaller(context.Background(), &policy.Caller{Principal: &policy.Principal{Name: "bot", Rules: policy.Rules{Repos: []string{"octo-org/hello-world"}}}, Via: policy.KindAPIKey})
	tests := []struct {
		name, tool, args string
		wantCode         int
		wantCalls        int
		want             string // in the result
		wantSent         string // the search query the service received
	}{
		{"search narrowed, and filtered as a second line", "search", `{"query":"hello"}`, 0, 1, `"total_count":1`, "hello repo:octo-org/hello-world"},
		{"search naming a wider owner", "search", `{"query":"org:octo-org"}`, rpcerror.PermissionDenied, 0, "", ""},
		{"fetch answering about another repository", "fetch", `{"repo":"octo-org/hello-world"}`, rpcerror.PermissionDenied, 1, "", ""},
		{"request naming a hidden repository in another case", "fetch", `{"repo":"Octo-Org/Secret"}`, rpcerror.PermissionDenied, 0, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls, sent = 0, ""
			res, _, e := c.Call(bot, Request{Name: tc.tool, Args: json.RawMessage(tc.args)})
			code := 0
			if e != nil {
				code = e.Code
				if b, _ := json.Marshal(e.JSONRPC()); strings.Contains(string(b), "secret") || strings.Contains(string(b), "hidden") {
					t.Fatalf("the error names the hidden repository: %s", b)
				}
			}
			if code != tc.wantCode || calls != tc.wantCalls {
				t.Fatalf("code %d calls %d, want %d %d (%v)", code, calls, tc.wantCode, tc.wantCalls, e)
			}
			if strings.Contains(string(res), "secret") || !strings.Contains(string(res), tc.want) {
				t.Fatalf("result %s", res)
			}
			if sent != tc.wantSent {
				t.Fatalf("the service received the query %q, want %q", sent, tc.wantSent)
			}
		})
	}
}

// TestInvalidCallsSpendTheRate: calls refused for their name, their
// arguments or the policy spend the principal's rate like good ones, so a
// flood of them is throttled with -32004 (and a Retry-After); none of them
// reaches the service.
func TestInvalidCallsSpendTheRate(t *testing.T) {
	const rate = 3
	invalid := []struct {
		name, tool, args string
		code             int
	}{
		{"unknown tool", "no_such_tool", `{}`, rpcerror.InvalidParamsCode},
		{"bad arguments", "search", `{"nope":1}`, rpcerror.InvalidParamsCode},
		{"repository outside the policy", "fetch", `{"repo":"o/secret"}`, rpcerror.PermissionDenied},
	}
	for _, tc := range invalid {
		t.Run(tc.name, func(t *testing.T) {
			var invoked int
			c := New(registry(t), fakeConn{func(context.Context, string, any, any) error { invoked++; return nil }})
			ctx := policy.WithCaller(context.Background(), &policy.Caller{Principal: &policy.Principal{Name: "flood",
				Rules: policy.Rules{RatePerMinute: rate, Repos: []string{"o/r"}}}})
			for i := range rate {
				if _, _, e := c.Call(ctx, Request{Name: tc.tool, Args: json.RawMessage(tc.args)}); e == nil || e.Code != tc.code {
					t.Fatalf("call %d: got %+v, want %d", i+1, e, tc.code)
				}
			}
			for _, next := range []struct{ tool, args string }{{tc.tool, tc.args}, {"fetch", `{"repo":"o/r"}`}} {
				_, _, e := c.Call(ctx, Request{Name: next.tool, Args: json.RawMessage(next.args)})
				if e == nil || e.Code != rpcerror.RateLimited || e.Data.Policy == nil || e.Data.Policy.Rule != "rate_per_minute" || e.RetryAfter < 1 {
					t.Fatalf("%s after %d invalid calls: got %+v", next.tool, rate, e)
				}
			}
			if _, _, e := c.Call(ctx, Request{Name: "no_such_tool", Unknown: UnknownAsMethod}); e == nil || e.Code != rpcerror.RateLimited {
				t.Fatalf("an unknown method on a spent rate: %+v", e)
			}
			if invoked != 0 {
				t.Fatalf("the service was called %d times", invoked)
			}
		})
	}
}

// TestUnknownTool: the one unknown-tool answer lists exactly the tools the
// caller may call (its policy narrows them; the gateway's toolsets and
// read-only mode narrow them for everyone), and quotes at most 100 bytes of
// the name.
func TestUnknownTool(t *testing.T) {
	reg := registry(t)
	bot := &policy.Caller{Principal: &policy.Principal{Name: "bot", Rules: policy.Rules{Tools: []string{"fetch", "search"}}}, Via: policy.KindAPIKey}
	writer := &policy.Caller{Principal: &policy.Principal{Name: "writer", Rules: policy.Rules{Tools: []string{"read_file", "commit_files", "search"}}}, Via: policy.KindAPIKey}
	tests := []struct {
		name    string
		opts    []Option
		caller  *policy.Caller
		tool    string
		allowed []string // nil: every tool of the registry
		message string
	}{
		{name: "no policy", tool: "nope", message: "Unknown tool: nope"},
		{name: "narrowed by policy", caller: bot, tool: "nope", allowed: []string{"search", "fetch"}, message: "Unknown tool: nope"},
		{name: "read-only gateway of one toolset", opts: []Option{WithReadOnly(true), WithToolsets([]string{"repos"})}, caller: writer, tool: "nope", allowed: []string{"read_file"}, message: "Unknown tool: nope"},
		{name: "long name", tool: strings.Repeat("x", 150), message: "Unknown tool: " + strings.Repeat("x", 100) + "..."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New(reg, nil, tc.opts...)
			ctx := context.Background()
			if tc.caller != nil {
				ctx = policy.WithCaller(ctx, tc.caller)
			}
			e := c.UnknownTool(ctx, tc.tool)
			if e.Code != rpcerror.InvalidParamsCode || e.Message != tc.message {
				t.Fatalf("%d %q, want -32602 %q", e.Code, e.Message, tc.message)
			}
			if len(e.Violations) != 1 {
				t.Fatalf("violations %+v", e.Violations)
			}
			got, _ := e.Violations[0].Params["allowedValues"].([]any)
			want := tc.allowed
			if want == nil {
				for _, tl := range reg.Tools() {
					want = append(want, tl.Name)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("allowed %v, want %v", got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("allowed[%d] = %v, want %s", i, got[i], want[i])
				}
			}
		})
	}
}
