// Package progress reports how far a long call is, to a caller that asked
// (ghops.v1.CallService/Invoke, which the gateway uses when an MCP request
// carries a progressToken: docs/architecture.md, "Progress").
//
// The progress is real, driven by what the call does: Transport, in the
// service's one HTTP client stack, counts each GitHub request of the call
// as it completes, so that every tool that makes several requests reports
// without code of its own. A handler that knows how many requests it will
// make says so once with Expect (commit_files, apply_patch), and the same
// count then runs against that total.
//
// Without a Reporter in the context (every unary call) each function is a
// no-op that costs one context lookup.
package progress

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"ghops.dev/infra/ctxkey"
	"ghops.dev/infra/roundtrip"
)

// Event is one step of a call: Done of Total (0: unknown) with a short
// Message.
type Event struct {
	Done, Total float64
	Message     string
}

// Throttle bounds how often a call's progress is sent: at most one event
// per Interval unless the call advanced by a Step of its known total
// since the last one sent; the last event of a call is always sent
// (Reporter.Finish). A call that makes hundreds of requests in a second
// must not turn into hundreds of notifications.
const (
	Interval = 100 * time.Millisecond
	Step     = 0.10
)

// Reporter is one call's progress: it keeps the count, throttles the
// events and hands them to its send function, one at a time.
type Reporter struct {
	send func(Event) error
	now  func() time.Time

	mu       sync.Mutex
	requests int   // GitHub requests completed
	expected int   // requests the handler expects in all (0: unknown)
	last     Event // last event sent
	lastAt   time.Time
	pending  *Event // newest event held back by the throttle
	sent     bool   // an event was sent
	closed   bool   // Finish ran: nothing more is sent
	err      error  // the first send error: later events are dropped
}

// New returns a Reporter that sends its events with send. send is never
// called concurrently, and never after Finish has returned.
func New(send func(Event) error) *Reporter {
	return &Reporter{send: send, now: time.Now}
}

// reporterKey carries the call's Reporter.
var reporterKey = ctxkey.New[*Reporter]("progress.reporter")

// With returns ctx carrying r.
func With(ctx context.Context, r *Reporter) context.Context {
	return reporterKey.With(ctx, r)
}

// Expect tells the call's Reporter that the call expects to make more
// GitHub requests beyond those it has made so far: the total its progress
// runs against. A call that turns out to need more raises the total as it
// goes (the total never reads below what is done); one that needs fewer
// ends at what it did (Finish).
func Expect(ctx context.Context, more int) {
	if r := reporterKey.From(ctx); r != nil && more > 0 {
		r.mu.Lock()
		r.expected = r.requests + more
		r.mu.Unlock()
	}
}

// Request counts one completed GitHub request of the call (Transport calls
// it).
func Request(ctx context.Context) {
	r := reporterKey.From(ctx)
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	total := 0
	if r.expected > 0 {
		total = max(r.expected, r.requests)
	}
	r.offer(Event{Done: float64(r.requests), Total: float64(total), Message: requestsMessage(r.requests, total)})
}

// Report reports an explicit step of the call, for work that is not GitHub
// requests; done must grow like the request count does (a step below the
// last one sent is dropped).
func Report(ctx context.Context, done, total float64, msg string) {
	if r := reporterKey.From(ctx); r != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.offer(Event{Done: done, Total: total, Message: msg})
	}
}

// requestsMessage is the message of a request count.
func requestsMessage(done, total int) string {
	if total > 0 {
		return strconv.Itoa(done) + " of " + strconv.Itoa(total) + " GitHub requests"
	}
	if done == 1 {
		return "1 GitHub request"
	}
	return strconv.Itoa(done) + " GitHub requests"
}

// offer sends e now or holds it back for the throttle; r.mu is held.
func (r *Reporter) offer(e Event) {
	if r.closed || r.err != nil || (r.sent && e.Done <= r.last.Done) {
		return
	}
	now := r.now()
	if r.sent && now.Sub(r.lastAt) < Interval && !(e.Total > 0 && (e.Done-r.last.Done) >= Step*e.Total) && e.Done != e.Total {
		r.pending = &e
		return
	}
	r.emit(e, now)
}

// emit sends e; r.mu is held.
func (r *Reporter) emit(e Event, now time.Time) {
	r.pending = nil
	r.sent, r.last, r.lastAt = true, e, now
	r.err = r.send(e)
}

// Finish sends the event the throttle held back, if any: when the call
// succeeded (ok), with the total of what was done, since the call is
// complete whatever it expected (an event already sent is not sent again
// to say so: progress must grow from one notification to the next).
// Nothing is sent after Finish.
func (r *Reporter) Finish(ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if e := r.pending; e != nil && r.err == nil {
		if ok && e.Total != e.Done {
			e.Total = e.Done
			if float64(r.requests) == e.Done {
				e.Message = requestsMessage(r.requests, r.requests)
			}
		}
		r.emit(*e, r.now())
	}
	r.closed = true
}

// Transport counts each GitHub request that completes (an answer came
// back, whatever its status) as one step of its call's progress. It sits
// outermost in the client stack but for the repository guard, so that a
// request counts once however many times it was retried or whether the
// cache answered it: progress counts the call's requests, not GitHub's
// traffic (package callcap counts that).
type Transport struct {
	// Base sends the requests (http.DefaultTransport when nil).
	Base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := roundtrip.OrDefault(t.Base).RoundTrip(req)
	if err == nil {
		Request(req.Context())
	}
	return resp, err
}
