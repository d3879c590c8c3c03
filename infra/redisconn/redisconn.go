// Package redisconn is the one connection helper of every ghops binary
// that shares state through Redis (the GitHub service's cache and budget,
// the gateway's quotas): the client, the tight timeout every operation
// runs under, and the outage bookkeeping (one log record when Redis starts
// failing and one when it is back, a hook per failed operation for the
// metric, and a short pause after a failure, a breaker, so that an outage
// costs each call one timeout at most, not one per operation, and calls
// during the pause get their fallback without waiting at all).
package redisconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrDown is returned instead of trying Redis again during the pause that
// follows a failure.
var ErrDown = errors.New("redisconn: redis is unavailable")

// Options configure a Conn.
type Options struct {
	// Timeout bounds each operation (default 50ms): no call waits on Redis
	// longer than that per operation.
	Timeout time.Duration
	// Pause is how long Redis is left alone after a failure (default 1s).
	Pause time.Duration
	// Logger gets the edges of an outage (default: discard).
	Logger *slog.Logger
	// OnError is called with the operation's name for every failure (a
	// metric); nil for none.
	OnError func(op string)
	// DownMessage is the warning logged when Redis starts failing; it says
	// what the binary does meanwhile (default: the service's).
	DownMessage string
	// UpMessage is logged when Redis answers again (default: the service's).
	UpMessage string
}

// Conn is a Redis client with the shared failure policy.
type Conn struct {
	// Client is the go-redis client; run operations through Do.
	Client redis.UniversalClient
	o      Options
	down   atomic.Bool
	until  atomic.Int64 // unix nanos before which Redis is not tried
}

// Dial parses rawURL (redis://host:port/db or rediss://...) and returns a
// Conn; it does not connect yet (go-redis dials lazily), so a Redis that is
// down at start is an outage like any other, not a failure to start.
func Dial(rawURL string, o Options) (*Conn, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		// go-redis's message may quote the URL, password included.
		return nil, fmt.Errorf("redisconn: the Redis URL is not redis://host:port/db or rediss://...")
	}
	if o.Timeout <= 0 {
		o.Timeout = 50 * time.Millisecond
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.PoolTimeout = o.Timeout, o.Timeout, o.Timeout, o.Timeout
	opt.MaxRetries = -1
	opt.ContextTimeoutEnabled = true
	return New(redis.NewClient(opt), o), nil
}

// Validate tells whether rawURL is a Redis URL Dial accepts.
func Validate(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
		return errors.New("must be redis://host:port[/db] or rediss://...")
	}
	if _, err := redis.ParseURL(rawURL); err != nil {
		return errors.New("must be redis://host:port[/db] or rediss://...")
	}
	return nil
}

// quiet is go-redis's logger: it would print every failed dial to stderr,
// outside the service's redacted log; the outage is reported by Do (once,
// and counted) instead.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

var quietOnce sync.Once

// New wraps an existing client.
func New(c redis.UniversalClient, o Options) *Conn {
	quietOnce.Do(func() { redis.SetLogger(quiet{}) })
	if o.Timeout <= 0 {
		o.Timeout = 50 * time.Millisecond
	}
	if o.Pause <= 0 {
		o.Pause = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.DownMessage == "" {
		o.DownMessage = "redis unreachable; reads go on uncached and budgets follow the fail setting"
	}
	if o.UpMessage == "" {
		o.UpMessage = "redis reachable again; shared state back in use"
	}
	return &Conn{Client: c, o: o}
}

// Timeout is the bound of each operation.
func (c *Conn) Timeout() time.Duration { return c.o.Timeout }

// Do runs fn under the timeout unless Redis is paused after a failure, and
// records the outcome under op. A redis.Nil answer (no such key) is not a
// failure.
func (c *Conn) Do(ctx context.Context, op string, fn func(ctx context.Context, r redis.UniversalClient) error) error {
	if time.Now().UnixNano() < c.until.Load() {
		return ErrDown
	}
	octx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	err := fn(octx, c.Client)
	if err != nil && ctx.Err() != nil {
		// The caller's own deadline or cancellation ended the operation
		// (a quota wait giving up, a call going away): Redis did nothing
		// wrong, and the breaker stays closed for everyone else.
		return err
	}
	c.observe(op, err)
	return err
}

func (c *Conn) observe(op string, err error) {
	if err == nil || errors.Is(err, redis.Nil) {
		if c.down.Swap(false) {
			c.o.Logger.Info(c.o.UpMessage)
		}
		return
	}
	c.until.Store(time.Now().Add(c.o.Pause).UnixNano())
	if c.o.OnError != nil {
		c.o.OnError(op)
	}
	if !c.down.Swap(true) {
		c.o.Logger.Warn(c.o.DownMessage, "op", op, "error", err.Error())
	}
}

// Close closes the client.
func (c *Conn) Close() error { return c.Client.Close() }
