// Package toolcall is the call path shared by /rpc and /mcp: look the tool
// up, decode and validate its arguments (toolschema), call the service with
// grpc.ClientConnInterface.Invoke on the tool's full method with a deadline and
// x-request-id metadata (plus x-github-token when the caller sent a token and
// forwarding is enabled), map any failure to the error contract (rpcerror) and
// render the response as the tool's JSON result (Tool.EncodeResult).
//
// The API:
//
//	New(reg, conn, opts...) *Caller   // WithTimeout, WithForwardToken
//	(*Caller).Call(ctx, name, args, CallInfo{RequestID, Token}) (json.RawMessage, *rpcerror.Error)
//	NewRequestID() string
//
// Call never panics: a panic below it becomes -32603. Arguments must already
// be normalised (see package normalize); Call does not unwrap anything.
package toolcall

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolschema"
)

// DefaultTimeout is the deadline of a service call when none is configured.
const DefaultTimeout = 30 * time.Second

// Metadata keys sent to the service.
const (
	// MDRequestID carries the request id.
	MDRequestID = "x-request-id"
	// MDGitHubToken carries the caller's own GitHub token when forwarding is on.
	MDGitHubToken = "x-github-token"
)

// CallInfo is what the transport knows about the caller.
type CallInfo struct {
	// RequestID identifies the call in logs and errors; generated when empty.
	RequestID string
	// Token is the caller's bearer token, forwarded only with
	// WithForwardToken(true). It never appears in a log or an error.
	Token string
}

// Caller calls tools. It is safe for concurrent use.
type Caller struct {
	reg     *toolschema.Registry
	conn    grpc.ClientConnInterface
	timeout time.Duration
	forward bool
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

// WithForwardToken makes Call forward CallInfo.Token as x-github-token.
func WithForwardToken(on bool) Option { return func(c *Caller) { c.forward = on } }

// New returns a Caller over the tools of reg, calling conn.
func New(reg *toolschema.Registry, conn grpc.ClientConnInterface, opts ...Option) *Caller {
	c := &Caller{reg: reg, conn: conn, timeout: DefaultTimeout}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Registry returns the tools the Caller serves.
func (c *Caller) Registry() *toolschema.Registry { return c.reg }

// NewRequestID returns a fresh random request id (32 hex digits).
func NewRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Call runs tool name with args (a JSON value, normally an object) and
// returns its JSON result or the contract error. An unknown tool is -32601.
func (c *Caller) Call(ctx context.Context, name string, args json.RawMessage, info CallInfo) (res json.RawMessage, rerr *rpcerror.Error) {
	if info.RequestID == "" {
		info.RequestID = NewRequestID()
	}
	defer func() {
		if p := recover(); p != nil {
			res, rerr = nil, rpcerror.Internal(name, info.RequestID, fmt.Errorf("panic in tool call: %v", p))
		}
	}()
	tool, ok := c.reg.Lookup(name)
	if !ok {
		e := rpcerror.New(rpcerror.MethodNotFound, name)
		e.RequestID = info.RequestID
		return nil, e
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	req, vs := tool.Decode(args)
	if len(vs) > 0 {
		e := rpcerror.InvalidParams(name, vs)
		e.RequestID = info.RequestID
		e.Log = fillLog(e.Log, args)
		return nil, e
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	md := metadata.Pairs(MDRequestID, info.RequestID)
	if c.forward && info.Token != "" {
		md.Set(MDGitHubToken, info.Token)
	}
	ctx = metadata.NewOutgoingContext(ctx, md)
	resp := tool.NewResponse()
	if err := c.conn.Invoke(ctx, tool.FullMethod, req, resp); err != nil {
		e := rpcerror.FromStatus(name, err, info.RequestID)
		e.Log = fillLog(e.Log, args)
		return nil, e
	}
	out, err := tool.EncodeResult(resp)
	if err != nil {
		return nil, rpcerror.Internal(name, info.RequestID, fmt.Errorf("encode result: %w", err))
	}
	return out, nil
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
