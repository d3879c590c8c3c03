// Package budget keeps each token's GitHub budget so that every replica of
// the service spends it as one: the primary rate limit GitHub reported
// (remaining and reset, per resource), the number of requests in flight
// (capped per token, default 50, under GitHub's 100), the pace of
// writes (under GitHub's content-creation limit, 80 a minute), and each
// principal's share of the token's limit (default 50%, share.go). Local keeps
// it in the process; Redis shares it through Redis, falling back to Local
// or refusing while Redis is down (the fail-open setting). Transport
// applies a Budget to every request sent to GitHub.
//
// A request the budget refuses is never sent: the error says so and until
// when, so that nobody reads a refusal as GitHub's answer.
package budget

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Snapshot is GitHub's primary rate-limit state of one token and resource,
// from its x-ratelimit-* headers.
type Snapshot struct {
	// Resource is GitHub's bucket: core, search, code_search, graphql...
	Resource string
	// Limit, Remaining are the bucket's figures.
	Limit, Remaining int
	// Reset is when the bucket refills.
	Reset time.Time
}

// Blocked tells whether the snapshot forbids requests at now.
func (s Snapshot) Blocked(now time.Time) bool {
	return s.Remaining <= 0 && !s.Reset.IsZero() && now.Before(s.Reset)
}

// Limits are the caps a Budget enforces.
type Limits struct {
	// Concurrency caps a token's requests in flight (0: no cap).
	Concurrency int
	// WritesPerMinute caps a token's writes in any minute (0: no pacing).
	WritesPerMinute int
}

// Budget is the shared state; Local and Redis implement it.
type Budget interface {
	// Admit lets one request of token to resource go (write: it creates
	// content) and returns the function that ends it; it waits for a free
	// slot or a write's turn, never past ctx's deadline. The error is an
	// *Exhausted, *Busy, *Paced or ErrUnavailable: the request is then not
	// sent.
	Admit(ctx context.Context, token, resource string, write bool) (release func(), err error)
	// Observe records the figures of an answer GitHub sent for token.
	Observe(ctx context.Context, token string, s Snapshot)
	// Charge counts one request of principal to resource against its
	// share (share requests per window, see ShareWindow) of token's
	// budget; past it the error is a *Spent (or ErrUnavailable) and the
	// request is not sent.
	Charge(ctx context.Context, token, principal, resource string, share int) error
}

// Hooks report what a budget did, for metrics; nil fields are skipped.
type Hooks struct {
	// Wait is called when a request had to wait: "slot" or "pace".
	Wait func(kind string, d time.Duration)
	// Refuse is called for each request not sent: "exhausted", "busy",
	// "paced" or "unavailable".
	Refuse func(reason string)
}

func (h Hooks) wait(kind string, d time.Duration) {
	if h.Wait != nil && d > 0 {
		h.Wait(kind, d)
	}
}

func (h Hooks) refuse(reason string) {
	if h.Refuse != nil {
		h.Refuse(reason)
	}
}

// Exhausted is the refusal of a request while GitHub's primary limit of
// its token and resource is spent.
type Exhausted struct {
	Snapshot
}

// Error implements error; the reset is RFC 3339 in UTC (no monotonic clock).
func (e *Exhausted) Error() string {
	return fmt.Sprintf("GitHub rate limit (%s) is spent until %s; the request was not sent to GitHub",
		e.Resource, e.Reset.UTC().Format(time.RFC3339))
}

// Unretryable tells package retry not to send the request again.
func (e *Exhausted) Unretryable() bool { return true }

// Busy is the refusal of a request that found every concurrency slot of its
// token taken until its deadline.
type Busy struct {
	// Limit is the cap.
	Limit int
}

// Error implements error.
func (e *Busy) Error() string {
	return fmt.Sprintf("all %d concurrent GitHub requests of this token are in use; the request was not sent to GitHub", e.Limit)
}

// Unretryable tells package retry not to send the request again.
func (e *Busy) Unretryable() bool { return true }

// Paced is the refusal of a write whose turn under the content-creation
// pace comes after the call's deadline.
type Paced struct {
	// Wait is how long the write would have had to wait.
	Wait time.Duration
}

// Error implements error.
func (e *Paced) Error() string {
	return fmt.Sprintf("writes are paced under GitHub's content-creation limit: the next turn is in %s, after the call's deadline; the request was not sent to GitHub",
		e.Wait.Round(time.Second))
}

// Unretryable tells package retry not to send the request again.
func (e *Paced) Unretryable() bool { return true }

// ErrUnavailable is the refusal while the shared budget cannot be reached
// and budgets fail closed.
var ErrUnavailable = unavailable{}

type unavailable struct{}

func (unavailable) Error() string {
	return "the shared GitHub budget cannot be reached (budgets fail closed); the request was not sent to GitHub"
}

// Unretryable tells package retry not to send the request again.
func (unavailable) Unretryable() bool { return true }

// IsRefusal tells whether err is a budget's refusal (the request was not
// sent).
func IsRefusal(err error) bool {
	var ex *Exhausted
	var busy *Busy
	var paced *Paced
	var spent *Spent
	return errors.As(err, &ex) || errors.As(err, &busy) || errors.As(err, &paced) || errors.As(err, &spent) || errors.Is(err, ErrUnavailable)
}

// pace returns the GCRA parameters for perMinute writes a minute: the
// interval between writes and the tolerance (a burst of a quarter of the
// minute's writes), chosen so that no minute holds more than perMinute
// writes: (perMinute - burst) paced plus burst at once.
func pace(perMinute int) (interval, tolerance time.Duration) {
	burst := max(perMinute/4, 1)
	rate := max(perMinute-burst, 1)
	interval = time.Minute / time.Duration(rate)
	return interval, time.Duration(burst-1) * interval
}

// backoff is the poll delay while waiting for a slot.
func nextDelay(d time.Duration) time.Duration { return min(2*d, 100*time.Millisecond) }

// remaining is how long ctx has left (a day when it has no deadline).
func remaining(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return time.Until(dl)
	}
	return 24 * time.Hour
}
