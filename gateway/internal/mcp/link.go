package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// link is one in-process connection to a go-sdk server session: the gateway
// writes decoded requests into it and reads the session's responses out.
// It implements both sdk.Transport (Server.Connect calls Connect once) and
// the sdk.Connection it returns.
//
// Why not the SDK's own transports: its Streamable HTTP handler parses each
// body twice and builds a throw-away session per request in stateless mode
// (measured 164 µs and 310 KB of garbage per tools/call on this machine,
// against 49 µs through a long-lived session), has no batch limit, answers
// oversized bodies and protocol errors in plain text, cannot echo ids such
// as 1.0 or 1e3 byte for byte, and keeps sessions in process memory, so
// replicas cannot share them. docs/architecture.md has the whole list.
type link struct {
	in   chan jsonrpc.Message
	done chan struct{}
	once sync.Once

	mu      sync.Mutex
	pending map[int64]chan *jsonrpc.Response
	next    atomic.Int64
}

// errLinkClosed reports a call on a closed link.
var errLinkClosed = errors.New("mcp: session closed")

// newLink returns an open link.
func newLink() *link {
	return &link{in: make(chan jsonrpc.Message), done: make(chan struct{}), pending: map[int64]chan *jsonrpc.Response{}}
}

// Connect implements sdk.Transport.
func (l *link) Connect(context.Context) (sdk.Connection, error) { return l, nil }

// Read implements sdk.Connection: the session's next incoming message.
func (l *link) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-l.in:
		return m, nil
	case <-l.done:
		return nil, errLinkClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements sdk.Connection: a response goes to the call waiting for
// it. The session never needs to reach the client otherwise (the gateway's
// tools neither sample nor elicit, and it declares no list changes), so
// server-initiated messages are dropped.
func (l *link) Write(_ context.Context, m jsonrpc.Message) error {
	r, ok := m.(*jsonrpc.Response)
	if !ok {
		return nil
	}
	n, ok := r.ID.Raw().(int64)
	if !ok {
		return nil
	}
	l.mu.Lock()
	ch := l.pending[n]
	delete(l.pending, n)
	l.mu.Unlock()
	if ch != nil {
		ch <- r
	}
	return nil
}

// Close implements sdk.Connection.
func (l *link) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// SessionID implements sdk.Connection: the SDK's session ids are not used
// (sessions are the gateway's own, see session.go).
func (l *link) SessionID() string { return "" }

// call sends one request to the session and waits for its response. The id
// the session sees is the link's own counter: the client's id is put back by
// the pipeline, byte for byte. When ctx ends first, the session is told to
// cancel the request and ctx's error is returned.
func (l *link) call(ctx context.Context, method string, params json.RawMessage, extra *sdk.RequestExtra) (*jsonrpc.Response, error) {
	n := l.next.Add(1)
	id, err := jsonrpc.MakeID(float64(n))
	if err != nil {
		return nil, err
	}
	ch := make(chan *jsonrpc.Response, 1)
	l.mu.Lock()
	l.pending[n] = ch
	l.mu.Unlock()
	req := &jsonrpc.Request{ID: id, Method: method, Params: params, Extra: extra}
	select {
	case l.in <- req:
	case <-l.done:
		l.forget(n)
		return nil, errLinkClosed
	case <-ctx.Done():
		l.forget(n)
		return nil, ctx.Err()
	}
	select {
	case r := <-ch:
		return r, nil
	case <-l.done:
		l.forget(n)
		return nil, errLinkClosed
	case <-ctx.Done():
		l.forget(n)
		l.cancel(n)
		return nil, ctx.Err()
	}
}

// forget drops a pending call.
func (l *link) forget(n int64) {
	l.mu.Lock()
	delete(l.pending, n)
	l.mu.Unlock()
}

// cancel tells the session that request n is no longer wanted, so that its
// handler's context ends (best effort: a closed link ignores it).
func (l *link) cancel(n int64) {
	params, _ := json.Marshal(map[string]int64{"requestId": n})
	select {
	case l.in <- &jsonrpc.Request{Method: "notifications/cancelled", Params: params}:
	case <-l.done:
	}
}
