package pipeline

import (
	"ghops.dev/redact"

	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"ghops.dev/gateway/internal/jsonrpc"
	"ghops.dev/gateway/internal/requestid"
	"ghops.dev/gateway/internal/rpcerror"
)

// Handler returns the HTTP handler that serves transport t on POST. Other
// methods get 405: no transport here has a server-initiated stream.
func (p *Pipeline) Handler(t Transport) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.serveHTTP(t, w, r) })
}

// serveHTTP is the HTTP front of the pipeline. Its calls recover in
// serveCall; the framing around them (parsing, encoding) answers every
// input without panicking (fuzzed: jsonrpc, server).
func (p *Pipeline) serveHTTP(t Transport, w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	x := &Body{HTTP: r, RequestID: requestid.Accept(r.Header.Get(requestid.Header)), Transport: t.Name()}
	w.Header().Set(requestid.Header, x.RequestID)
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		o := p.refuse(ctx, t, x, &Refusal{Err: rpcerror.New(rpcerror.InvalidRequest, "Invalid Request: use POST"), Status: http.StatusMethodNotAllowed})
		writeBody(w, o.status, o.body, 0)
		return
	}
	limit := p.opts.MaxBody
	if r.ContentLength > limit {
		p.writeTooLarge(ctx, t, x, w)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			p.writeTooLarge(ctx, t, x, w)
			return
		}
		// The client went away or broke the body mid-way: whatever we
		// write is unlikely to arrive, but it is well-formed.
		p.log.LogAttrs(ctx, slog.LevelInfo, "reading request body", slog.String("transport", t.Name()), slog.String("error", redact.String(err.Error())))
		o := p.refuse(ctx, t, x, &Refusal{Err: rpcerror.New(rpcerror.ParseError, "")})
		writeBody(w, o.status, o.body, 0)
		return
	}
	x.extend = func(d time.Duration) { _ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d)) }
	var events *eventStream
	if acceptsEventStream(r.Header) {
		events = &eventStream{w: w, x: x}
		x.notify = events.send
	}
	o := p.serveBody(ctx, t, x, body)
	if events != nil && events.finish(o) {
		return
	}
	x.mu.Lock()
	for k, v := range x.header {
		w.Header()[k] = v
	}
	x.mu.Unlock()
	switch {
	case o.gone:
		return
	case o.body == nil:
		w.WriteHeader(o.status)
		return
	}
	writeBody(w, o.status, o.body, o.retryAfter)
}

// acceptsEventStream reports whether the client's Accept header allows a
// text/event-stream answer (Streamable HTTP clients send
// "application/json, text/event-stream").
func acceptsEventStream(h http.Header) bool {
	for _, v := range h.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			mt, _, _ := strings.Cut(part, ";")
			if mt = strings.TrimSpace(mt); strings.EqualFold(mt, "text/event-stream") || mt == "*/*" || strings.EqualFold(mt, "text/*") {
				return true
			}
		}
	}
	return false
}

// eventStream turns one HTTP answer into a Streamable HTTP event stream
// the moment a notification must go out ahead of it (MCP progress): the
// status (200) and headers are sent with the first event, each message is
// one "message" event, and the answer is the last. A body that sends no
// notification is answered as plain JSON, as before.
type eventStream struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	x       *Body
	started bool
	closed  bool
}

// send writes one message as an event, starting the stream on first use.
func (e *eventStream) send(msg []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	if !e.started {
		e.started = true
		h := e.w.Header()
		e.x.mu.Lock()
		for k, v := range e.x.header {
			h[k] = v
		}
		e.x.mu.Unlock()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		e.w.WriteHeader(http.StatusOK)
	}
	e.write(msg)
}

// write sends one event and flushes it (mu held).
func (e *eventStream) write(msg []byte) {
	_, _ = io.WriteString(e.w, "event: message\ndata: ")
	_, _ = e.w.Write(msg)
	_, _ = io.WriteString(e.w, "\n\n")
	_ = http.NewResponseController(e.w).Flush()
}

// finish ends the stream with the answer o and reports whether the stream
// had started (the answer is then written); otherwise nothing was sent and
// the caller answers as plain JSON.
func (e *eventStream) finish(o outcome) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	if !e.started {
		return false
	}
	if !o.gone && o.body != nil {
		e.write(o.body)
	}
	return true
}

// writeTooLarge answers 413 with a -32600 naming the limit, whatever the
// transport's status rules, and closes the connection: the rest of the body
// is not read.
func (p *Pipeline) writeTooLarge(ctx context.Context, t Transport, x *Body, w http.ResponseWriter) {
	e := rpcerror.Newf(rpcerror.InvalidRequest, "Invalid Request: body exceeds the limit of %d bytes", p.opts.MaxBody)
	o := p.refuse(ctx, t, x, &Refusal{Err: e, Status: http.StatusRequestEntityTooLarge})
	w.Header().Set("Connection", "close")
	writeBody(w, o.status, o.body, 0)
}

// jsonContentType is the Content-Type of every JSON answer.
var jsonContentType = []string{"application/json"}

// writeBody writes a JSON body with its status, and Retry-After when > 0.
func writeBody(w http.ResponseWriter, status int, body []byte, retryAfter int) {
	h := w.Header()
	// Assigned rather than Set: the value's slice is shared, not allocated
	// per response (WriteHeader copies the header before it is written).
	h["Content-Type"] = jsonContentType
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(retryAfter))
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// WriteError answers an HTTP request with e alone (id null) and status: the
// one writer of JSON-RPC error bodies for the HTTP middleware in front of
// the pipeline (guard, authn), encoded and written as the pipeline writes
// its own. e is reported once through sink (the jsonrpc_error line) and
// carries the request's id: its X-Request-Id when well-formed, else a new
// one, sent back in the header.
func WriteError(w http.ResponseWriter, r *http.Request, sink *rpcerror.Sink, status int, e *rpcerror.Error) {
	e.RequestID = requestid.Accept(r.Header.Get(requestid.Header))
	w.Header().Set(requestid.Header, e.RequestID)
	writeBody(w, status, jsonrpc.EncodeResponse(sink.Response(r.Context(), nil, e)), e.RetryAfter)
}
