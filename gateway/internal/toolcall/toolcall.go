// Package toolcall is the gateway's one dispatcher of tool calls, for
// every transport, and knows no protocol: a transport hands Caller.Call a
// Request (the tool's name, its arguments, the request id, and how an
// unknown tool is refused), and Call looks the tool up once and runs it
// through one chain of links (Interceptor, in the style of connect-go's
// interceptors) around the service call. The links, in the order links()
// declares once, are Rate (every call spends one unit of its principal's
// rate), Resolve (an unknown tool is refused; the arguments are decoded and
// validated with toolschema), Policy (its tools, repositories, read-only,
// the gateway's -read-only; and the answer confined to what the principal
// may see), Confirm (a person's confirmation of the tools the policy or
// -confirm names), Limits (the principal's concurrency, the global
// in-flight cap, the call's deadline) and Audit (the record of a write).
// The end of the chain calls the service with
// grpc.ClientConnInterface.Invoke on the tool's full method with
// x-request-id metadata (plus x-github-token when the caller authenticated
// with its own GitHub token, x-ghops-content-trust, the principal's
// content trust, and x-ghops-repos, its repos globs) and maps any failure
// to the error contract (rpcerror); Call renders the response as the tool's JSON result.
//
// Every refusal happens before the service is called, so a refused call
// costs GitHub nothing; but every call, refused or not, first spends one
// unit of its principal's rate, so that invalid calls cannot be sent for
// free (docs/errors.md).
//
// The API:
//
//	New(reg, conn, opts...) *Caller   // WithTimeout, WithReadOnly, WithQuota, WithMaxInFlight, WithAudit, ...
//	(*Caller).Call(ctx, Request{Name, Args, RequestID, Unknown}) (json.RawMessage, *toolschema.Tool, *rpcerror.Error)
//
// Call does not recover a panic: the pipeline does, once per call, for
// every transport (package pipeline). Arguments must already be normalised
// (see package rpcargs); Call does not unwrap anything.
package toolcall

import (
	"ghops.dev/infra/callmeta"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/quota"
	"ghops.dev/gateway/internal/requestid"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolschema"
	"ghops.dev/gateway/internal/toolset"
)

// DefaultTimeout is the deadline of a service call when none is configured.
const DefaultTimeout = 30 * time.Second

// Caller calls tools. It is safe for concurrent use.
type Caller struct {
	reg      *toolschema.Registry
	conn     grpc.ClientConnInterface
	timeout  time.Duration
	readOnly bool
	toolsets []string // nil: every group
	info     GatewayInfo
	quota    quota.Quota
	inflight chan struct{} // nil: no global cap
	audit    *slog.Logger  // nil: no audit records
	confirm  []string      // tool globs every caller must have confirmed (-confirm)
	trust    string        // the gateway's content trust (WithContentTrust)

	chain   []Interceptor // see use
	handler Handler       // links around invoke

	offeredOnce  sync.Once
	offeredTools []policy.Tool // see offered
}

// Option configures a Caller.
type Option func(*Caller)

// WithTimeout sets each call's deadline (default DefaultTimeout; <= 0 keeps it).
func WithTimeout(d time.Duration) Option {
	return func(c *Caller) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithReadOnly refuses every tool that is not read-only, whoever calls.
func WithReadOnly(on bool) Option { return func(c *Caller) { c.readOnly = on } }

// WithToolsets offers only the tools of these groups (nil: every group;
// package toolset): any other tool is unknown (UnknownTool), whoever calls, as
// if the gateway did not have it (the operator's -toolsets).
func WithToolsets(sets []string) Option { return func(c *Caller) { c.toolsets = sets } }

// WithQuota sets where principals' rates and concurrency are counted
// (default: in process).
func WithQuota(q quota.Quota) Option {
	return func(c *Caller) {
		if q != nil {
			c.quota = q
		}
	}
}

// WithMaxInFlight caps the service calls in flight at once, across callers
// (<= 0: no cap). A call over the cap waits for a slot within its deadline.
func WithMaxInFlight(n int) Option {
	return func(c *Caller) {
		if n > 0 {
			c.inflight = make(chan struct{}, n)
		}
	}
}

// WithAudit writes one record per call of a tool that is not read-only to l.
func WithAudit(l *slog.Logger) Option { return func(c *Caller) { c.audit = l } }

// WithContentTrust sets the gateway's content trust (-content-trust),
// sent to the service with every call unless the caller's principal sets
// its own (policy.EffectiveContentTrust; callmeta.ContentTrust). Default
// callmeta.ContentTrustAll.
func WithContentTrust(v string) Option {
	return func(c *Caller) {
		if v != "" {
			c.trust = v
		}
	}
}

// GatewayInfo is what the gateway tells tools with the gateway_info option
// about itself.
type GatewayInfo struct {
	// Version is the gateway's version.
	Version string
	// Warnings are its configuration warnings, one sentence each.
	Warnings []string
}

// WithGatewayInfo sets what tools with the gateway_info option receive.
func WithGatewayInfo(info GatewayInfo) Option { return func(c *Caller) { c.info = info } }

// New returns a Caller over the tools of reg, calling conn.
func New(reg *toolschema.Registry, conn grpc.ClientConnInterface, opts ...Option) *Caller {
	c := &Caller{reg: reg, conn: conn, timeout: DefaultTimeout, quota: quota.NewLocal(), trust: callmeta.ContentTrustAll}
	for _, o := range opts {
		o(c)
	}
	c.use(c.links()...)
	return c
}

// Registry returns the tools the Caller serves.
func (c *Caller) Registry() *toolschema.Registry { return c.reg }

// Lookup returns the tool named name if the gateway offers it: in the
// registry and in the gateway's toolsets.
func (c *Caller) Lookup(name string) (*toolschema.Tool, bool) {
	t, ok := c.reg.Lookup(name)
	if !ok {
		return nil, false
	}
	// Without -toolsets every tool is offered: the tool's group is not read
	// (its options are decoded per call; Lookup runs on every call).
	if c.toolsets != nil && !toolset.Includes(c.toolsets, toolset.Of(t.Method)) {
		return nil, false
	}
	return t, true
}

// ReadOnly reports whether the gateway refuses every writing tool.
func (c *Caller) ReadOnly() bool { return c.readOnly }

// Call runs in.Name with in.Args (a JSON value, normally an object)
// through the Caller's links and the service, and returns its JSON result
// or the contract error, and the tool called: nil when the gateway does not
// offer it (the call was refused as in.Unknown says). Call is the one
// place a tool is looked up, once per call. Every error carries the call's
// request id, set here once for every link.
func (c *Caller) Call(ctx context.Context, in Request) (json.RawMessage, *toolschema.Tool, *rpcerror.Error) {
	if in.RequestID == "" {
		in.RequestID = requestid.New()
	}
	in.Caller = policy.CallerFrom(ctx)
	in.Tool, _ = c.Lookup(in.Name)
	r := requests.Get().(*Request)
	defer func() { *r = Request{}; requests.Put(r) }()
	*r = in
	if e := c.handler(ctx, r); e != nil {
		if e.RequestID == "" {
			e.RequestID = in.RequestID
		}
		return nil, in.Tool, e
	}
	out, err := r.Tool.EncodeResult(r.Response)
	if err != nil {
		return nil, in.Tool, rpcerror.Internal(in.Name, in.RequestID, fmt.Errorf("encode result: %w", err))
	}
	return out, in.Tool, nil
}

// requests recycles the Request of each call: the chain's links are func
// values, so a Request escapes to the heap, and the call path is the
// gateway's hottest (docs/benchmarks.md). No link keeps r after its call
// returns.
var requests = sync.Pool{New: func() any { return new(Request) }}

// invoke is the end of the chain: it calls the service with the request's
// metadata (request id, the caller's GitHub token and principal, the
// gateway's info for tools that ask for it) and maps its failure to the
// contract. Its deadline is set by Limits.
func (c *Caller) invoke(ctx context.Context, r *Request) *rpcerror.Error {
	caller, tool := r.Caller, r.Tool
	var pr *policy.Principal
	if caller != nil {
		pr = caller.Principal
	}
	// The keys (package callmeta) are lower case already, so the map is
	// built as is rather than through metadata.Pairs and Set, which
	// lower-case every key on every call.
	md := metadata.MD{callmeta.RequestID: {r.RequestID}}
	if trust := policy.EffectiveContentTrust(pr, c.trust); trust != callmeta.ContentTrustAll {
		// The service reads no value as "all" (package contenttrust):
		// only a narrowing travels, one header fewer on most calls.
		md[callmeta.ContentTrust] = []string{trust}
	}
	if caller != nil && caller.GitHubToken != "" {
		md[callmeta.GitHubToken] = []string{caller.GitHubToken}
	}
	if name := caller.Name(); name != "" {
		md[callmeta.Principal] = []string{principalKey(caller.Via, name)}
	}
	if pr != nil && len(pr.Repos) > 0 {
		// The service refuses a project item of a repository outside
		// them, which only it can see before it writes.
		md[callmeta.Repos] = pr.Repos
	}
	if tool.GatewayInfo {
		md[callmeta.GatewayVersion] = []string{c.info.Version}
		if len(c.info.Warnings) > 0 {
			md[callmeta.GatewayWarning] = c.info.Warnings
		}
	}
	ctx = metadata.NewOutgoingContext(ctx, md)
	resp := tool.NewResponse()
	var err error
	if report := ProgressFrom(ctx); report != nil {
		err = invokeWithProgress(ctx, c.conn, tool.FullMethod, r.Message, resp, report)
	} else {
		err = c.conn.Invoke(ctx, tool.FullMethod, r.Message, resp)
	}
	r.Response, r.Err = resp, err
	if err != nil {
		e := rpcerror.FromStatus(r.Name, err, r.RequestID)
		if !tool.Annotations.ReadOnlyHint && rpcerror.LostAnswer(err) {
			e.MarkOutcomeUnknown()
		}
		e.Log = fillLog(e.Log, r.Args)
		return e
	}
	return nil
}

// checkPolicy applies the policy to every repository the request names (the
// fields the contract marks as repositories) and narrows its search queries
// to the principal's repositories (policy.NarrowSearch): -32001 naming the
// rule that refused the call.
func (c *Caller) checkPolicy(_ context.Context, caller *policy.Caller, tool *toolschema.Tool, req proto.Message) *rpcerror.Error {
	var pr *policy.Principal
	if caller != nil {
		pr = caller.Principal
	}
	var repos []string
	ok := true
	if pr != nil && len(pr.Repos) > 0 {
		// Only a principal with repos globs has repositories to check: the
		// walk over the request is skipped on every other call.
		repos, ok = policy.Repos(req)
	}
	d := policy.Check(pr, policy.Tool{Name: tool.Name, ReadOnly: tool.Annotations.ReadOnlyHint, Toolset: toolset.Of(tool.Method)}, repos, c.readOnly)
	if d == nil && !ok {
		d = &policy.Denial{Rule: "repos", Detail: "the request nests too deep to be checked"}
	}
	if d == nil {
		d = policy.CheckProjects(pr, req)
	}
	if d == nil {
		// The owner a write creates a repository under (policy/owners.go).
		d = policy.CheckOwners(pr, tool.Annotations.ReadOnlyHint, req)
	}
	if d == nil && pr != nil && len(pr.Repos) > 0 {
		// A search query (the fields marked as one) is narrowed to the
		// principal's repositories before GitHub matches it, so that no
		// part of the answer (has_next, counts, incomplete_results) speaks
		// of hidden ones; confine filters the answer as a second line.
		d = policy.NarrowSearch(pr, req)
	}
	if d == nil {
		return nil
	}
	return rpcerror.New(rpcerror.PermissionDenied, "Permission denied: "+d.Detail, rpcerror.Tool(tool.Name), rpcerror.Refusal(caller.Name(), d.Rule, d.Detail))
}

// confine removes from a successful answer what the caller's principal
// may not see (policy.Confine); an answer about a repository outside its
// globs is refused whole with -32001, which names the principal's globs,
// never the repository.
func confine(caller *policy.Caller, tool string, resp proto.Message) *rpcerror.Error {
	if caller == nil || policy.Confine(caller.Principal, resp) == "" {
		return nil
	}
	d := "allowed repositories: " + strings.Join(caller.Principal.Repos, ", ")
	return rpcerror.New(rpcerror.PermissionDenied, "Permission denied: the answer names a repository outside "+d, rpcerror.Tool(tool), rpcerror.Refusal(caller.Name(), "repos", d))
}

// spend spends one unit of the calling principal's rate (rate_per_minute)
// for a call of tool: nil when there is one (or no rate applies), else the
// -32004 (or, with the shared store unreachable and failing closed, the
// -32603) to answer instead. The Rate link spends it for every call, an
// unknown tool's included, so that no refused call is free.
func (c *Caller) spend(ctx context.Context, caller *policy.Caller, tool string) *rpcerror.Error {
	if caller == nil || caller.Principal == nil || caller.Principal.RatePerMinute <= 0 {
		return nil
	}
	pr := caller.Principal
	_, e := c.quotaTake(ctx, tool, pr, quota.Limits{PerMinute: pr.RatePerMinute})
	return e
}

// acquireSlot holds a slot of the principal's concurrency and of the global
// in-flight cap for the call (its rate was spent by Spend); the returned
// func gives them back.
func (c *Caller) acquireSlot(ctx context.Context, caller *policy.Caller, tool string) (func(), *rpcerror.Error) {
	release := func() {}
	if caller != nil && caller.Principal != nil && caller.Principal.Concurrency > 0 {
		r, e := c.quotaTake(ctx, tool, caller.Principal, quota.Limits{Concurrency: caller.Principal.Concurrency})
		if e != nil {
			return nil, e
		}
		release = r
	}
	if c.inflight == nil {
		return release, nil
	}
	select {
	case c.inflight <- struct{}{}:
		// A free slot, the usual case, costs no timer.
		return func() { <-c.inflight; release() }, nil
	default:
	}
	wait, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	select {
	case c.inflight <- struct{}{}:
		return func() { <-c.inflight; release() }, nil
	case <-wait.Done():
		release()
		return nil, limited(tool, caller.Name(), "max_in_flight", strconv.Itoa(cap(c.inflight))+" calls in flight at the gateway", time.Second)
	}
}

// quotaTake takes l of pr's quota, waiting for a slot at most the call
// timeout, and maps a refusal to the contract.
func (c *Caller) quotaTake(ctx context.Context, tool string, pr *policy.Principal, l quota.Limits) (func(), *rpcerror.Error) {
	wait, cancel := context.WithTimeout(ctx, c.timeout)
	r, retry, err := c.quota.Take(wait, pr.Name, l)
	cancel()
	switch {
	case errors.Is(err, quota.ErrRate):
		return nil, limited(tool, pr.Name, "rate_per_minute", strconv.Itoa(pr.RatePerMinute)+" calls a minute", retry)
	case errors.Is(err, quota.ErrConcurrency):
		return nil, limited(tool, pr.Name, "concurrency", strconv.Itoa(pr.Concurrency)+" calls in flight", retry)
	case errors.Is(err, quota.ErrStore):
		return nil, rpcerror.New(rpcerror.InternalError, "Service unavailable: the quota store cannot be reached", rpcerror.Tool(tool), rpcerror.Cause(err))
	case err != nil:
		return nil, rpcerror.Internal(tool, "", fmt.Errorf("quota: %w", err))
	}
	return r, nil
}

// limited is -32004 for one of the gateway's own limits: GitHub was not
// called, so the answer carries retryAfter and the rule, and no github or
// rateLimit figures.
func limited(tool, principal, rule, detail string, retry time.Duration) *rpcerror.Error {
	secs := max(1, int(math.Ceil(retry.Seconds())))
	return rpcerror.New(rpcerror.RateLimited, "Rate limit exceeded: "+detail, rpcerror.Tool(tool),
		rpcerror.RetryAfter(secs), rpcerror.Refusal(principal, rule, detail))
}

// fillLog completes the log fields the service did not send from the
// arguments (repo, prNumber, sha), best effort.
func fillLog(l rpcerror.LogFields, args json.RawMessage) rpcerror.LogFields {
	var a struct {
		Repo     any `json:"repo"`
		PRNumber any `json:"prNumber"`
		SHA      any `json:"sha"`
	}
	if json.Unmarshal(args, &a) != nil {
		return l
	}
	if l.Repo == "" {
		if s, ok := a.Repo.(string); ok {
			l.Repo = s
		}
	}
	if l.PR == "" {
		if f, ok := a.PRNumber.(float64); ok {
			l.PR = strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	if l.SHA == "" {
		if s, ok := a.SHA.(string); ok {
			l.SHA = s
		}
	}
	return l
}

// principalKey is the "kind:name" the service charges a call to (its share
// of the token's GitHub budget): kinds keep identities apart there as they
// do in the policy, and a name that already carries its kind (an OAuth
// principal without a policy file) is not prefixed twice.
func principalKey(via policy.Kind, name string) string {
	kind := string(via)
	switch via {
	case policy.KindAPIKey:
		kind = "apikey"
	case "":
		kind = "principal"
	}
	if strings.HasPrefix(name, kind+":") {
		return name
	}
	return kind + ":" + name
}
