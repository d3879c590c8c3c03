// Package callcap bounds how many requests one RPC may send to GitHub
// (issue 19, docs/security.md): the server's interceptor gives each
// call's context a Counter, and Transport, in the service's one HTTP
// client stack, counts every request that leaves for GitHub under the
// context it is sent with. The request that would go past the cap is not
// sent; it fails with *Exceeded, which names the limit, so that one call
// can never spend the token's budget for everyone.
//
// The count lives in the context, not in the handlers, so that a new RPC
// is bounded without code, and every request is counted: retries and
// revalidations included (each is a request GitHub sees), answers served
// from the cache excluded (they never leave the process).
package callcap

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"

	"ghops.dev/infra/ctxkey"
	"ghops.dev/infra/roundtrip"
)

// Counter is one call's count of GitHub requests against its cap.
type Counter struct {
	limit int64
	sent  atomic.Int64
}

// Sent is the number of requests the call has sent (refused ones excluded).
func (c *Counter) Sent() int { return int(c.sent.Load()) }

// Limit is the cap.
func (c *Counter) Limit() int { return int(c.limit) }

// counterKey carries the call's Counter.
var counterKey = ctxkey.New[*Counter]("callcap.counter")

// With returns ctx carrying a fresh Counter capped at limit (limit <= 0:
// ctx unchanged, no cap) and that Counter (nil without a cap).
func With(ctx context.Context, limit int) (context.Context, *Counter) {
	if limit <= 0 {
		return ctx, nil
	}
	c := &Counter{limit: int64(limit)}
	return counterKey.With(ctx, c), c
}

// From returns the Counter of ctx, nil when the call has none.
func From(ctx context.Context) *Counter {
	return counterKey.From(ctx)
}

// Exceeded is the refusal of the request that would have gone past the
// call's cap; it was not sent.
type Exceeded struct {
	// Limit is the cap (the -max-requests-per-call setting).
	Limit int
}

// Error names the limit and its setting.
func (e *Exceeded) Error() string {
	return fmt.Sprintf("the call needs more than %d GitHub requests (the per-call limit, -max-requests-per-call); the request was not sent to GitHub", e.Limit)
}

// Unretryable tells package retry not to send the request again.
func (e *Exceeded) Unretryable() bool { return true }

// Transport counts each request against the Counter of its context; a
// request past the cap is refused with *Exceeded and not sent. Requests
// whose context has no Counter (start-up, the App token exchange outside
// a call) pass uncounted.
type Transport struct {
	// Base sends the requests (http.DefaultTransport when nil).
	Base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := roundtrip.OrDefault(t.Base)
	if c := From(req.Context()); c != nil {
		if n := c.sent.Add(1); n > c.limit {
			c.sent.Add(-1)
			if req.Body != nil {
				_ = req.Body.Close()
			}
			return nil, &Exceeded{Limit: int(c.limit)}
		}
	}
	return base.RoundTrip(req)
}
