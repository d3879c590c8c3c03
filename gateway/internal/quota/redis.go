package quota

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"ghops.dev/infra/redisconn"
)

// ErrStore says the shared store could not be reached in time and the
// quota fails closed.
var ErrStore = errors.New("quota: the shared quota store cannot be reached")

// RedisOptions configure the shared quota.
type RedisOptions struct {
	// Prefix starts every key (default "ghops:quota:").
	Prefix string
	// FailOpen decides what happens while Redis is down: true, the
	// in-process quota counts instead (the limits then hold per replica);
	// false, calls are refused with ErrStore.
	FailOpen bool
	// Lease is how long a concurrency slot is held at most, so that the
	// slots of a replica that died are freed (default 1 minute; set it
	// above the call timeout).
	Lease time.Duration
}

// Redis is the Quota shared by every gateway replica through one Redis: a
// GCRA rate per principal and a sorted set of leased concurrency slots,
// each updated by one Lua script, on Redis's own clock so that replicas'
// clocks do not matter. Every operation goes through the shared
// connection helper (ghops.dev/infra/redisconn), as the service's do: each
// is bounded by its timeout (-redis-timeout), and after a failure Redis is
// left alone for a pause, during which calls get the fail-open or
// fail-closed answer at once, so a hung Redis costs a call at most one
// timeout.
type Redis struct {
	c     *redisconn.Conn
	o     RedisOptions
	local *Local
}

// DownMessage is the warning the gateway's Redis connection logs when Redis
// starts failing, given the fail setting.
func DownMessage(failOpen bool) string {
	if failOpen {
		return "quota store unreachable; quotas now fail open (counted per replica)"
	}
	return "quota store unreachable; quotas now fail closed"
}

// UpMessage is logged when the quota store answers again.
const UpMessage = "quota store reachable again"

// NewRedis returns the shared quota over c.
func NewRedis(c *redisconn.Conn, o RedisOptions) *Redis {
	if o.Prefix == "" {
		o.Prefix = "ghops:quota:"
	}
	if o.Lease <= 0 {
		o.Lease = time.Minute
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
			if ctx.Err() != nil {
				// The caller's wait ended, not Redis: the slots are
				// still all taken.
				return nil, time.Second, ErrConcurrency
			}
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
	var n int64
	err := q.c.Do(ctx, "rate", func(ctx context.Context, r redis.UniversalClient) error {
		var err error
		n, err = rateScript.Run(ctx, r, []string{q.o.Prefix + "rate:" + key}, interval, tolerance).Int64()
		return err
	})
	return n, err
}

// slot runs the slot script.
func (q *Redis) slot(ctx context.Context, key string, limit int, member string) (bool, error) {
	var n int64
	err := q.c.Do(ctx, "slot", func(ctx context.Context, r redis.UniversalClient) error {
		var err error
		n, err = slotScript.Run(ctx, r, []string{key}, limit, member, q.o.Lease.Milliseconds()).Int64()
		return err
	})
	return n == 1, err
}

// release gives a slot back; if that fails its lease frees it later.
func (q *Redis) release(key, member string) {
	_ = q.c.Do(context.Background(), "release", func(ctx context.Context, r redis.UniversalClient) error {
		return r.ZRem(ctx, key, member).Err()
	})
}

// fallback applies the fail-open or fail-closed setting after a Redis
// failure (or during the pause that follows one).
func (q *Redis) fallback(ctx context.Context, key string, l Limits, _ error) (func(), time.Duration, error) {
	if !q.o.FailOpen {
		return nil, time.Second, ErrStore
	}
	return q.local.Take(ctx, key, l)
}

// randomMember names one slot lease.
func randomMember() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:]) + strconv.FormatInt(time.Now().UnixNano()%1000, 10)
}
