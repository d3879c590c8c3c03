// Package pipeline is the gateway's one request pipeline. POST /rpc, POST /mcp
// and the stdio stream all hand it raw bytes and get back the bytes to send;
// in between, everything that must be the same on every transport happens
// here, once:
//
//	request id     X-Request-Id accepted when well-formed (never when it looks
//	               like a secret), generated otherwise, returned on HTTP,
//	               "-<i>" appended per batch item, passed to the service
//	body cap       Content-Length, then the bytes actually read: 413 (HTTP) or
//	               a -32600 answer (stdio), before any parsing
//	parsing        jsonrpc.ParseBody: I-JSON only (no duplicate key anywhere,
//	               valid UTF-8), ids echoed byte for byte
//	batch policy   MaxBatch and BatchConcurrency wherever a transport accepts
//	               batches; a caller that goes away stops the calls not yet run
//	serving        Transport.Serve per call, inside the one recover of the
//	               gateway and the optional Tracer (middleware.go)
//	errors         every error answer is reported through rpcerror.Sink (the
//	               one jsonrpc_error line, redacted) and encoded one way;
//	               HTTP middleware in front (guard, authn) writes its
//	               refusals with WriteError
//	notifications  Body.Notify sends a call's notifications (MCP progress)
//	               ahead of its answer: stdio lines, or an event-stream
//	               answer on HTTP when the client accepts one
//	HTTP           the status, decided in one place (Status, from the
//	               transport's StatusRules) and Retry-After
//
// A Transport adds only its envelope rules: which bodies it accepts as a
// whole (Begin), how one call is served (Serve) and its HTTP status rules as
// data (StatusRules). The design follows connect-go's and the MCP Go SDK's:
// the transports only move messages, every wire protocol behind one small
// interface; the concerns of a tool call are toolcall's one interceptor
// chain, those of an HTTP request net/http middleware in front.
package pipeline

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"ghops.dev/gateway/internal/jsonrpc"
	"ghops.dev/gateway/internal/rpcerror"
)

// Transport is one wire protocol's envelope rules.
type Transport interface {
	// Name labels the transport in metrics and logs: "rpc", "mcp", "stdio".
	Name() string
	// Begin looks at a parsed body before any of its calls runs and may
	// refuse it as a whole (a batch the protocol forbids, an unknown
	// session). It may keep per-body state in x.
	Begin(ctx context.Context, x *Body, calls []*Call, batch bool) *Refusal
	// Serve answers one element of the body: a valid request, or an invalid
	// element (Call.Invalid set) the transport may still accept silently.
	Serve(ctx context.Context, x *Body, c *Call) Answer
	// StatusRules are its HTTP status rules; the pipeline applies them
	// (Status), the transport decides no status itself.
	StatusRules() StatusRules
}

// Refusal answers a whole body with one error.
type Refusal struct {
	// Err is the error answered (id null).
	Err *rpcerror.Error
	// Status is the HTTP status (0: the transport's StatusRules decide).
	Status int
}

// Call is one element of a body.
type Call struct {
	// Request is the valid request or notification (nil when Invalid).
	Request *jsonrpc.Request
	// Invalid is the error of an element that is not a valid request.
	Invalid *jsonrpc.Error
	// Raw is the element as sent.
	Raw json.RawMessage
	// ID is the id to answer with (null when it could not be recovered).
	ID json.RawMessage
	// RequestID identifies this call in logs and at the service.
	RequestID string
	// Index is the element's position in its batch (0 for a single request).
	Index int
	// Batch says the element came in a batch.
	Batch bool
}

// Answer is a transport's answer to one call.
type Answer struct {
	// Result is the JSON result to send.
	Result json.RawMessage
	// Err is the call's failure. It is sent as the JSON-RPC error unless
	// Result is set too (the transport rendered it into a result, as MCP's
	// isError tool results do); either way it is reported once.
	Err *rpcerror.Error
	// NoReply says nothing is sent (a notification, or a client's response).
	NoReply bool
	// Status is the HTTP status this answer asks for (0: transport default).
	Status int
	// Tool labels the call metric: a tool name, "unknown" or "invalid"
	// (empty: the call is not counted).
	Tool string
}

// Observer counts answered calls: transport name, tool label and JSON-RPC
// code (0 for success).
type Observer func(transport, tool string, code int)

// Options configure a Pipeline.
type Options struct {
	// MaxBody bounds a request body or stdio line, in bytes (default 1 MiB).
	MaxBody int64
	// MaxBatch bounds the elements of a batch (default 50).
	MaxBatch int
	// BatchConcurrency bounds the calls of one batch run at once (default 8).
	BatchConcurrency int
	// StreamConcurrency bounds the messages of one stdio stream served at
	// once, so that notifications/cancelled can overtake a slow call
	// (default 16).
	StreamConcurrency int
	// Sink reports every error answer (one jsonrpc_error line each).
	Sink *rpcerror.Sink
	// Logger receives the pipeline's own records (default slog.Default()).
	Logger *slog.Logger
	// Observe counts answered calls (nil: not counted).
	Observe Observer
	// Trace observes every call of every transport (nil: not traced).
	Trace Tracer
}

// Defaults of Options.
const (
	DefaultMaxBody           = 1 << 20
	DefaultMaxBatch          = 50
	DefaultBatchConcurrency  = 8
	DefaultStreamConcurrency = 16
)

// Pipeline is the request pipeline. It is safe for concurrent use.
type Pipeline struct {
	opts Options
	log  *slog.Logger
}

// New returns a pipeline with opts (zero fields take their defaults).
func New(opts Options) *Pipeline {
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = DefaultMaxBatch
	}
	if opts.BatchConcurrency <= 0 {
		opts.BatchConcurrency = DefaultBatchConcurrency
	}
	if opts.StreamConcurrency <= 0 {
		opts.StreamConcurrency = DefaultStreamConcurrency
	}
	p := &Pipeline{opts: opts, log: opts.Logger}
	if p.log == nil {
		p.log = slog.Default()
	}
	return p
}

// Body is one body in flight: what its transport knows about it beside
// the bytes.
type Body struct {
	// HTTP is the request (nil on stdio).
	HTTP *http.Request
	// RequestID is the body's request id.
	RequestID string
	// Stream is the stdio stream's per-connection state (nil on HTTP).
	Stream *Stream
	// State is the transport's per-body state, set in Begin.
	State any
	// Transport names the body's transport (Transport.Name), for the
	// Tracer and the logs.
	Transport string

	mu     sync.Mutex
	header http.Header // response headers to add (HTTP)

	// notify sends one encoded notification ahead of the answer (nil: the
	// framing cannot: /rpc, or an HTTP client that accepts no event stream).
	notify func(msg []byte)
	// extend moves the HTTP answer's write deadline (nil on stdio).
	extend func(d time.Duration)
}

// CanNotify reports whether notifications can reach the client ahead of
// this body's answer: on stdio, and on HTTP when the client accepts
// text/event-stream (the answer then comes as an event stream).
func (x *Body) CanNotify() bool { return x.notify != nil }

// Notify sends the notification method with params (a JSON object) to the
// client ahead of the body's answer; without CanNotify it does nothing.
// Calls of one batch may notify concurrently.
func (x *Body) Notify(method string, params json.RawMessage) {
	if x.notify == nil {
		return
	}
	x.notify(jsonrpc.EncodeNotification(method, params))
}

// Send sends msg, an encoded request of the server's own (MCP's
// elicitation/create), to the client ahead of the body's answer, as Notify
// sends a notification; without CanNotify it does nothing. The client's
// response arrives as a message of its own (a later body on HTTP, a line on
// stdio), which the transport matches to the request by its id.
func (x *Body) Send(msg []byte) {
	if x.notify != nil {
		x.notify(msg)
	}
}

// ExtendWrite gives the HTTP answer d from now to be written, past the
// server's write timeout (sized to one call): a call that waits for a
// person (an elicitation) needs longer. It does nothing on stdio.
func (x *Body) ExtendWrite(d time.Duration) {
	if x.extend != nil {
		x.extend(d)
	}
}

// SetHeader adds a response header (HTTP only; ignored on stdio). Calls of
// one batch may set headers concurrently.
func (x *Body) SetHeader(key, value string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.header == nil {
		x.header = http.Header{}
	}
	x.header.Set(key, value)
}

// Stream is one stdio connection, shared by its messages.
type Stream struct {
	mu    sync.Mutex
	state any
}

// State returns the connection's transport state, made by init on first
// use (a transport's per-connection record, e.g. the protocol version
// initialize negotiated). Concurrent messages get the same value.
func (s *Stream) State(init func() any) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == nil {
		s.state = init()
	}
	return s.state
}

// Invalid is the answer to an element that is not a valid request: its
// -32600 with the id that could be recovered.
func Invalid(c *Call) Answer {
	return Answer{Err: rpcerror.New(c.Invalid.Code, ""), Tool: "invalid"}
}
