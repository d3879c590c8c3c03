package toolcall

import (
	"context"
	"encoding/json"

	"google.golang.org/protobuf/proto"

	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolschema"
)

// Request is one tool call, as a transport hands it to Caller.Call and on
// its way through the Caller's chain. The transport sets Name, Args,
// RequestID and Unknown; the links fill in the rest as they go: Call looks
// the tool up (Tool), Resolve decodes its arguments (Message), the service
// call sets Response and Err (the service's own error, before it is mapped
// to the contract), so that a link after next (Audit) sees what happened.
type Request struct {
	// Name is the tool's name as the caller sent it.
	Name string
	// Args are its JSON arguments, already normalised (package rpcargs).
	Args json.RawMessage
	// RequestID identifies the call in logs, metadata and errors
	// (generated when empty).
	RequestID string
	// Unknown says how a call of a tool the gateway does not offer is
	// refused (default UnknownAsParams).
	Unknown Unknown
	// Caller is who calls (nil: no authentication configured); Call sets
	// it from the context.
	Caller *policy.Caller
	// Tool is the tool called, looked up once by Call; nil when the
	// gateway does not offer it (Resolve then refuses the call).
	Tool *toolschema.Tool
	// Message is the decoded, validated request; nil until Resolve.
	Message proto.Message
	// Response is the service's answer; nil until the service was called.
	Response proto.Message
	// Err is the service's error, if the service was called and failed.
	Err error
}

// Handler answers one tool call: the service call at the end of the chain,
// and every link wrapped around it.
// Its result is r.Response, which Call encodes once every link has seen
// it (Policy confines it first).
type Handler func(ctx context.Context, r *Request) *rpcerror.Error

// Interceptor is one concern of a tool call (rate, policy, limits, audit),
// in the style of connect-go's interceptors: Wrap runs code before and
// after next, may change ctx, and may answer without calling next. Name
// says which concern it is, so that the declared order can be read back
// (Caller.Links) and tested.
type Interceptor struct {
	// Name names the concern, one word ("rate", "policy").
	Name string
	// Wrap returns next wrapped in the concern.
	Wrap func(next Handler) Handler
}

// Unknown is how a call of a tool the gateway does not offer is refused:
// the two answers of docs/errors.md, chosen by how the transport names a
// tool.
type Unknown int

const (
	// UnknownAsParams is UnknownTool's -32602 "Unknown tool": the tool is
	// a parameter of the request (MCP's tools/call).
	UnknownAsParams Unknown = iota
	// UnknownAsMethod is UnknownMethod's -32601 listing the caller's tools:
	// the tool is the request's method (/rpc).
	UnknownAsMethod
)

// use sets the links every call runs through, the first outermost, around
// the service call. New installs links(), the one declaration of their
// order; tests install their own.
func (c *Caller) use(links ...Interceptor) {
	c.chain = links
	h := c.invoke
	for i := len(links) - 1; i >= 0; i-- {
		h = links[i].Wrap(h)
	}
	c.handler = h
}

// Links returns the names of the links in the order a call runs through
// them.
func (c *Caller) Links() []string {
	names := make([]string, len(c.chain))
	for i, l := range c.chain {
		names[i] = l.Name
	}
	return names
}

// links are the gateway's tool-call links in their order, declared here
// and nowhere else (TestCallPathStructure): Rate first (every call, even
// one refused for its name or arguments, spends its principal's rate:
// docs/errors.md), Resolve (unknown tool, invalid arguments), Policy,
// Confirm (a person allows the call: after Policy, so a refused call is
// never put to a person; before Limits, so that a person's time holds no
// slot and eats no deadline), Limits (concurrency, in-flight cap and the
// call's deadline) and Audit, innermost, so that it records every write
// that reached the service and only those. A panic anywhere below is the
// pipeline's to recover, once per call (package pipeline).
func (c *Caller) links() []Interceptor {
	return []Interceptor{c.Rate(), c.Resolve(), c.Policy(), c.Confirm(), c.Limits(), c.Audit()}
}

// Rate spends one unit of the caller's rate before anything else (spend),
// so that a call refused for its name or its arguments costs its principal
// as much as a good one (issue 19: a flood of invalid calls is throttled
// like any other).
func (c *Caller) Rate() Interceptor {
	return Interceptor{Name: "rate", Wrap: func(next Handler) Handler {
		return func(ctx context.Context, r *Request) *rpcerror.Error {
			if e := c.spend(ctx, r.Caller, r.Name); e != nil {
				return e
			}
			return next(ctx, r)
		}
	}}
}

// Resolve refuses a tool the gateway does not offer (Call looked it up:
// UnknownTool's -32602 or UnknownMethod's -32601, as the request's Unknown
// says) and decodes and validates its arguments (-32602 with the
// violations).
func (c *Caller) Resolve() Interceptor {
	return Interceptor{Name: "resolve", Wrap: func(next Handler) Handler {
		return func(ctx context.Context, r *Request) *rpcerror.Error {
			tool := r.Tool
			if tool == nil {
				if r.Unknown == UnknownAsMethod {
					return c.UnknownMethod(ctx, r.Name, true)
				}
				return c.UnknownTool(ctx, r.Name)
			}
			if len(r.Args) == 0 {
				r.Args = json.RawMessage("{}")
			}
			req, vs := tool.Decode(r.Args)
			if len(vs) > 0 {
				e := rpcerror.InvalidParams(r.Name, vs)
				e.Log = fillLog(e.Log, r.Args)
				return e
			}
			r.Message = req
			return next(ctx, r)
		}
	}}
}

// Policy refuses with -32001 a call the caller's principal (or the
// gateway's -read-only) does not allow, narrows its search queries to the
// principal's repositories (checkPolicy), and confines the answer to what
// the principal may see (confine).
func (c *Caller) Policy() Interceptor {
	return Interceptor{Name: "policy", Wrap: func(next Handler) Handler {
		return func(ctx context.Context, r *Request) *rpcerror.Error {
			if e := c.checkPolicy(ctx, r.Caller, r.Tool, r.Message); e != nil {
				e.Log = fillLog(e.Log, r.Args)
				return e
			}
			if e := next(ctx, r); e != nil {
				return e
			}
			return confine(r.Caller, r.Tool.Name, r.Response)
		}
	}}
}

// Limits holds a slot of the principal's concurrency and of the global
// in-flight cap for the call (acquireSlot), then gives the service call its
// deadline: the wait for a slot does not eat into it.
func (c *Caller) Limits() Interceptor {
	return Interceptor{Name: "limits", Wrap: func(next Handler) Handler {
		return func(ctx context.Context, r *Request) *rpcerror.Error {
			release, e := c.acquireSlot(ctx, r.Caller, r.Name)
			if e != nil {
				e.Log = fillLog(e.Log, r.Args)
				return e
			}
			defer release()
			ctx, cancel := context.WithTimeout(ctx, c.timeout)
			defer cancel()
			return next(ctx, r)
		}
	}}
}

// Audit writes the one audit record of each call of a tool that is not
// read-only, once the service has answered (writeAudit).
func (c *Caller) Audit() Interceptor {
	return Interceptor{Name: "audit", Wrap: func(next Handler) Handler {
		return func(ctx context.Context, r *Request) *rpcerror.Error {
			e := next(ctx, r)
			// Only a write that reached the service is recorded (Response
			// is set by the service call, whatever its outcome).
			if r.Response != nil && !r.Tool.Annotations.ReadOnlyHint {
				c.writeAudit(ctx, r.Caller, r.Name, r.RequestID, r.Message, r.Response, r.Err)
			}
			return e
		}
	}}
}
