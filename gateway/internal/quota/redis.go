package quota

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrStore says the shared store could not be reached in time and the
// quota fails closed.
var ErrStore = errors.New("quota: the shared quota store cannot be reached")

// RedisOptions configure the shared quota.
type RedisOptions struct {
	// Prefix starts every key (default "ghops:quota:").
	Prefix string
	// Timeout bounds each Redis operation (default 50 ms): no call waits
	// on Redis longer.
	Timeout time.Duration
	// FailOpen decides what happens while Redis is down: true, the
	// in-process quota counts instead (the limits then hold per replica);
	// false, calls are refused with ErrStore.
	FailOpen bool
	// Lease is how long a concurrency slot is held at most, so that the
	// slots of a replica that died are freed (default 1 minute; set it
	// above the call timeout).
	Lease time.Duration
	// Logger gets one record when Redis starts failing and one when it is
	// back.
	Logger *slog.Logger
	// OnError is called for every failed Redis operation (a metric).
	OnError func(op string)
}

// Redis is the Quota shared by every gateway replica through one Redis: a
// GCRA rate per principal and a sorted set of leased concurrency slots,
// each updated by one Lua script, on Redis's own clock so that replicas'
// clocks do not matter.
type Redis struct {
	c     redis.UniversalClient
	o     RedisOptions
	local *Local
	down  atomic.Bool
}

// NewRedis returns the shared quota over c.
func NewRedis(c redis.UniversalClient, o RedisOptions) *Redis {
	if o.Prefix == "" {
		o.Prefix = "ghops:quota:"
	}
	if o.Timeout <= 0 {
		o.Timeout = 50 * time.Millisecond
	}
	if o.Lease <= 0 {
		o.Lease = time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Redis{c: c, o: o, local: NewLocal()}
}

// rateScript is GCRA: the theoretical arrival time (tat) of the next call
// is stored per key; a call is allowed while tat - now <= tolerance, where
// the tolerance lets a whole minute's burst through at once.
var rateScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
if tat - now > tolerance then return tat - now - tolerance end
redis.call('SET', KEYS[1], tat + interval, 'PX', tat + interval - now + 1000)
return 0
`)

// slotScript takes one leased slot of KEYS[1] when fewer than ARGV[1] are
// taken; expired leases are dropped first.
var slotScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`)

// Take implements Quota.
func (q *Redis) Take(ctx context.Context, key string, l Limits) (func(), time.Duration, error) {
	if l.PerMinute > 0 {
		interval := 60000 / int64(l.PerMinute)
		wait, err := q.rate(ctx, key, interval, interval*int64(l.PerMinute-1))
		if err != nil {
			return q.fallback(ctx, key, l, err)
		}
		if wait > 0 {
			return nil, time.Duration(wait) * time.Millisecond, ErrRate
		}
	}
	if l.Concurrency <= 0 {
		return func() {}, 0, nil
	}
	member := randomMember()
	slots := q.o.Prefix + "slots:" + key
	for delay := 10 * time.Millisecond; ; delay = min(2*delay, 200*time.Millisecond) {
		ok, err := q.slot(ctx, slots, l.Concurrency, member)
		if err != nil {
			// The rate was already counted in Redis: only the slot is
			// taken locally.
			return q.fallback(ctx, key, Limits{Concurrency: l.Concurrency}, err)
		}
		if ok {
			return func() { q.release(slots, member) }, 0, nil
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil, time.Second, ErrConcurrency
		}
	}
}

// rate runs the GCRA script; it returns the wait in milliseconds (0:
// allowed).
func (q *Redis) rate(ctx context.Context, key string, interval, tolerance int64) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, q.o.Timeout)
	defer cancel()
	n, err := rateScript.Run(ctx, q.c, []string{q.o.Prefix + "rate:" + key}, interval, tolerance).Int64()
	q.observe("rate", err)
	return n, err
}

// slot runs the slot script.
func (q *Redis) slot(ctx context.Context, key string, limit int, member string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, q.o.Timeout)
	defer cancel()
	n, err := slotScript.Run(ctx, q.c, []string{key}, limit, member, q.o.Lease.Milliseconds()).Int64()
	q.observe("slot", err)
	return n == 1, err
}

// release gives a slot back; if that fails its lease frees it later.
func (q *Redis) release(key, member string) {
	ctx, cancel := context.WithTimeout(context.Background(), q.o.Timeout)
	defer cancel()
	q.observe("release", q.c.ZRem(ctx, key, member).Err())
}

// fallback applies the fail-open or fail-closed setting after a Redis
// failure.
func (q *Redis) fallback(ctx context.Context, key string, l Limits, _ error) (func(), time.Duration, error) {
	if !q.o.FailOpen {
		return nil, time.Second, ErrStore
	}
	return q.local.Take(ctx, key, l)
}

// observe counts a failure and logs the edges of an outage, once each.
func (q *Redis) observe(op string, err error) {
	if err != nil && !errors.Is(err, redis.Nil) {
		if q.o.OnError != nil {
			q.o.OnError(op)
		}
		if !q.down.Swap(true) {
			q.o.Logger.Warn("quota store unreachable; quotas now fail "+map[bool]string{true: "open (counted per replica)", false: "closed"}[q.o.FailOpen],
				"op", op, "error", err.Error())
		}
		return
	}
	if q.down.Swap(false) {
		q.o.Logger.Info("quota store reachable again")
	}
}

// randomMember names one slot lease.
func randomMember() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:]) + strconv.FormatInt(time.Now().UnixNano()%1000, 10)
}
