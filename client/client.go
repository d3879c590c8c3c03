package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ghops.dev/infra/ctxsleep"
	"ghops.dev/redact"
)

// DefaultEndpoint is the gateway's default base URL (`make run`).
const DefaultEndpoint = "http://127.0.0.1:8788"

// Transport selects the gateway endpoint a Client speaks to.
type Transport string

const (
	// TransportRPC speaks plain JSON-RPC 2.0 to {endpoint}/rpc (batches
	// allowed). The default.
	TransportRPC Transport = "rpc"
	// TransportMCP speaks MCP Streamable HTTP to {endpoint}/mcp: initialize,
	// then tools/call.
	TransportMCP Transport = "mcp"
)

// Client calls the gateway's tools. It is safe for concurrent use.
type Client struct {
	base        string // endpoint without a trailing slash
	token       string
	hc          *http.Client
	transport   Transport
	retries     int
	maxWait     time.Duration
	sleep       func(context.Context, time.Duration) error
	maxResponse int64
	userAgent   string

	nextID atomic.Int64

	mcpMu      sync.Mutex
	mcpSession *mcpSession
}

// Option configures a Client.
type Option func(*Client) error

// checked returns an Option that fails with the error msg when invalid is
// true (the argument was rejected) and otherwise applies set.
func checked(invalid bool, msg string, set func(*Client)) Option {
	return func(c *Client) error {
		if invalid {
			return errors.New(msg)
		}
		set(c)
		return nil
	}
}

// WithToken sends token as "Authorization: Bearer <token>". The token never
// appears in an error the client returns.
func WithToken(token string) Option {
	return func(c *Client) error { c.token = token; return nil }
}

// WithHTTPClient replaces http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option {
	return checked(hc == nil, "client: nil *http.Client", func(c *Client) { c.hc = hc })
}

// WithTransport selects /rpc (default) or /mcp.
func WithTransport(t Transport) Option {
	return func(c *Client) error {
		switch t {
		case TransportRPC, TransportMCP:
			c.transport = t
			return nil
		}
		return fmt.Errorf("client: unknown transport %q (want rpc or mcp)", t)
	}
}

// WithRetries lets a call of a read-only or idempotent tool be repeated up
// to n more times after a rate-limit answer (-32004, or HTTP 429/503 with a
// Retry-After header), waiting the announced time. Default 0: no retries.
// Mutating, non-idempotent tools are never repeated.
func WithRetries(n int) Option {
	return checked(n < 0, "client: negative retries", func(c *Client) { c.retries = n })
}

// WithMaxRetryWait bounds one wait between retries (default 60s): an answer
// asking for a longer wait is returned at once.
func WithMaxRetryWait(d time.Duration) Option {
	return func(c *Client) error { c.maxWait = d; return nil }
}

// WithSleep replaces the wait between retries (tests count waits without
// sleeping). The function must return early with ctx's error when ctx ends.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return checked(sleep == nil, "client: nil sleep function", func(c *Client) { c.sleep = sleep })
}

// WithMaxResponseBytes bounds the size of an answer (default 32 MiB).
func WithMaxResponseBytes(n int64) Option {
	return checked(n <= 0, "client: response limit must be positive", func(c *Client) { c.maxResponse = n })
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option {
	return func(c *Client) error { c.userAgent = ua; return nil }
}

// New returns a Client for the gateway at endpoint, its base URL such as
// "http://127.0.0.1:8788" (a trailing /rpc or /mcp is dropped).
func New(endpoint string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: endpoint %q is not an http(s) URL", redact.String(endpoint))
	}
	u.RawQuery, u.Fragment = "", ""
	u.Path = strings.TrimRight(u.Path, "/")
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/rpc"), "/mcp")
	c := &Client{
		base:        strings.TrimRight(u.String(), "/"),
		hc:          http.DefaultClient,
		transport:   TransportRPC,
		maxWait:     60 * time.Second,
		sleep:       ctxsleep.Sleep,
		maxResponse: 32 << 20,
		userAgent:   "ghops-client/1",
	}
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Endpoint returns the base URL the client calls, without credentials.
func (c *Client) Endpoint() string { return redact.String(c.base) }

// CallRaw calls tool with args (a JSON object, nil for {}) and returns the
// result JSON. Errors are *Error (or *InvalidParamsError, *RateLimitError)
// for JSON-RPC errors, *TransportError and *ProtocolError for everything
// else, or ctx's error while waiting to retry.
func (c *Client) CallRaw(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	args, err := objectArgs(args)
	if err != nil {
		return nil, err
	}
	info, known := LookupTool(tool)
	retryable := known && info.Retryable()
	for attempt := 0; ; attempt++ {
		var res json.RawMessage
		if c.transport == TransportMCP {
			res, err = c.mcpCall(ctx, tool, args)
		} else {
			res, err = c.rpcCall(ctx, tool, args)
		}
		if err != nil && known && !info.ReadOnly {
			err = markOutcome(err)
		}
		if err == nil || !retryable || attempt >= c.retries {
			return res, err
		}
		wait, ok := retryWait(err)
		if !ok || wait > c.maxWait {
			return nil, err
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return nil, errors.Join(err, serr)
		}
	}
}

// retryWait says whether err is worth a retry and after how long.
func retryWait(err error) (time.Duration, bool) {
	var rl *RateLimitError
	if errors.As(err, &rl) {
		if rl.RetryAfter > 0 {
			return rl.RetryAfter, true
		}
		return time.Second, true
	}
	var te *TransportError
	if errors.As(err, &te) && errors.Is(te.Kind, ErrHTTPStatus) &&
		(te.StatusCode == http.StatusTooManyRequests || te.StatusCode == http.StatusServiceUnavailable) && te.RetryAfter > 0 {
		return te.RetryAfter, true
	}
	return 0, false
}

// objectArgs checks that args is a JSON object and compacts it.
func objectArgs(args json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}"), nil
	}
	if t[0] != '{' || !json.Valid(t) {
		return nil, errors.New("client: arguments must be a JSON object")
	}
	var b bytes.Buffer
	_ = json.Compact(&b, t)
	return b.Bytes(), nil
}

func (c *Client) newID() int64 { return c.nextID.Add(1) }

// rpcCall is one POST /rpc of one request.
func (c *Client) rpcCall(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	id := c.newID()
	u, ans, err := c.postRPC(ctx, rpcRequest{JSONRPC: "2.0", ID: id, Method: tool, Params: args})
	if err != nil {
		return nil, err
	}
	env, derr := decodeSingle(ans.body, strconv.FormatInt(id, 10))
	if terr := c.classify(u, ans, derr); terr != nil {
		return nil, terr
	}
	if derr != nil {
		return nil, derr
	}
	if env.rpcErr != nil {
		return nil, env.rpcErr.toError(ans.retryAfter)
	}
	return env.result, nil
}

// postRPC sends msg (one request or a batch) to /rpc and returns the URL
// it posted to, for classify, with the answer.
func (c *Client) postRPC(ctx context.Context, msg any) (string, *httpAnswer, error) {
	body, err := json.Marshal(msg)
	if err != nil {
		return "", nil, err
	}
	u := c.base + "/rpc"
	ans, err := c.post(ctx, u, body, nil)
	return u, ans, err
}

// BatchCall is one call of a batch.
type BatchCall struct {
	// Tool is the tool's name.
	Tool string
	// Args is the argument object (nil for {}).
	Args json.RawMessage
}

// BatchResult is the outcome of one BatchCall: exactly one of Result and
// Err is set. Err is an *Error (or *InvalidParamsError, *RateLimitError).
type BatchResult struct {
	// Result is the tool's result JSON.
	Result json.RawMessage
	// Err is the call's JSON-RPC error.
	Err error
}

// Batch sends calls as one JSON-RPC batch to /rpc and returns one result per
// call, in the calls' order, each response matched to its request by id. The
// returned error is set when the batch as a whole failed (transport failure,
// an invalid answer, a missing, extra or duplicate response, or a single
// error object answering the whole batch); then the results are nil. Batches
// are never retried and always use /rpc.
func (c *Client) Batch(ctx context.Context, calls []BatchCall) ([]BatchResult, error) {
	if len(calls) == 0 {
		return nil, errors.New("client: empty batch")
	}
	reqs := make([]rpcRequest, len(calls))
	ids := make([]string, len(calls))
	for i, call := range calls {
		args, err := objectArgs(call.Args)
		if err != nil {
			return nil, fmt.Errorf("call %d (%s): %w", i, call.Tool, err)
		}
		id := c.newID()
		reqs[i] = rpcRequest{JSONRPC: "2.0", ID: id, Method: call.Tool, Params: args}
		ids[i] = strconv.FormatInt(id, 10)
	}
	u, ans, err := c.postRPC(ctx, reqs)
	if err != nil {
		return nil, err
	}
	envs, derr := decodeBatch(ans.body, ids, ans.retryAfter)
	var rpcErr *Error
	if errors.As(derr, &rpcErr) && ans.status != http.StatusRequestEntityTooLarge {
		return nil, derr
	}
	if terr := c.classify(u, ans, derr); terr != nil {
		return nil, terr
	}
	if derr != nil {
		return nil, derr
	}
	out := make([]BatchResult, len(envs))
	for i, env := range envs {
		if env.rpcErr != nil {
			out[i].Err = env.rpcErr.toError(ans.retryAfter)
		} else {
			out[i].Result = env.result
		}
	}
	return out, nil
}
