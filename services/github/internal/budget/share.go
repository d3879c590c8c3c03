package budget

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// A principal's share (issue 19, docs/security.md): each request a
// principal's call sends is charged to that principal in the current
// window of its resource (GitHub's: an hour for core and graphql, a minute
// for the search buckets), and refused once the principal has spent its
// share of the token's limit, so that one principal cannot exhaust the
// token for every other. The windows are fixed (aligned on the Unix
// epoch), not GitHub's own: the share is a budget of the service, and a
// fixed window is one counter in Redis.

// Spent is the refusal of a request whose principal has spent its share of
// the token's budget for the window; the request was not sent.
type Spent struct {
	// Principal is who spent it (the gateway's "kind:name").
	Principal string
	// Resource is GitHub's bucket.
	Resource string
	// Share is the principal's limit for the window, Percent the setting
	// it comes from, Limit the token's limit it is a share of.
	Share, Percent, Limit int
	// Reset is when the window ends.
	Reset time.Time
}

// Error names the principal, the limit and its setting.
func (e *Spent) Error() string {
	return fmt.Sprintf("principal %s has spent its share of this service's GitHub budget (%s): %d of the token's %d requests per window (-principal-share %d%%) until %s; the request was not sent to GitHub",
		e.Principal, e.Resource, e.Share, e.Limit, e.Percent, e.Reset.UTC().Format(time.RFC3339))
}

// Unretryable tells package retry not to send the request again.
func (e *Spent) Unretryable() bool { return true }

// ShareWindow is the window a resource's share is counted in.
func ShareWindow(resource string) time.Duration {
	switch resource {
	case "search", "code_search":
		return time.Minute
	}
	return time.Hour
}

// DefaultLimit is GitHub's limit of a resource for an authenticated token,
// used until an answer reports the token's own.
func DefaultLimit(resource string) int {
	switch resource {
	case "search":
		return 30
	case "code_search":
		return 10
	}
	return 5000
}

// windowOf returns the start and end of the window holding now.
func windowOf(now time.Time, window time.Duration) (time.Time, time.Time) {
	start := now.Truncate(window)
	return start, start.Add(window)
}

// Charge implements Budget.
func (b *Local) Charge(_ context.Context, token, principal, resource string, share int) error {
	now := time.Now()
	start, end := windowOf(now, ShareWindow(resource))
	k := token + "\x00" + principal + "\x00" + resource
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.spent[k]
	if !c.start.Equal(start) {
		c = shareCount{start: start, end: end}
	}
	if c.n >= share {
		b.hooks.refuse("share")
		return &Spent{Principal: principal, Resource: resource, Share: share, Reset: end}
	}
	c.n++
	if len(b.spent) >= sweepAt {
		for k, v := range b.spent {
			if !v.end.After(now) {
				delete(b.spent, k)
			}
		}
	}
	b.spent[k] = c
	return nil
}

// shareCount is one principal's requests in one window.
type shareCount struct {
	start, end time.Time
	n          int
}

// chargeScript counts one request in KEYS[1] (expiring after the window)
// unless ARGV[1] are already counted: it returns the count, or -1 when
// the share is spent (counting nothing).
var chargeScript = redis.NewScript(`
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then return -1 end
n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return n
`)

// Charge implements Budget: the count is shared by every replica; while
// Redis is down, the fail setting applies (the replica's own count, or
// ErrUnavailable).
func (r *Redis) Charge(ctx context.Context, token, principal, resource string, share int) error {
	window := ShareWindow(resource)
	start, end := windowOf(time.Now(), window)
	key := r.prefix + "share:" + token + ":" + resource + ":" + strconv.FormatInt(start.Unix(), 10) + ":" + principal
	var n int64
	err := r.conn.Do(ctx, "budget_charge", func(ctx context.Context, c redis.UniversalClient) error {
		var err error
		n, err = chargeScript.Run(ctx, c, []string{key}, share, (window + time.Minute).Milliseconds()).Int64()
		return err
	})
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil && !r.failOpen:
		r.hooks.refuse("unavailable")
		return ErrUnavailable
	case err != nil:
		return r.local.Charge(ctx, token, principal, resource, share)
	case n < 0:
		r.hooks.refuse("share")
		return &Spent{Principal: principal, Resource: resource, Share: share, Reset: end}
	}
	return nil
}

type principalKey struct{}

// WithPrincipal returns ctx naming the principal its requests are charged
// to (the server sets it from the gateway's x-ghops-principal).
func WithPrincipal(ctx context.Context, principal string) context.Context {
	return context.WithValue(ctx, principalKey{}, principal)
}

// PrincipalOf is the principal of ctx ("" when none: nothing is charged).
func PrincipalOf(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}
