package budget

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"ghops.dev/infra/ctxsleep"
	"ghops.dev/infra/redisconn"
)

// Redis is the Budget shared by every replica through Redis. Each token's
// primary-limit state is a hash per resource that expires at the reset, its
// in-flight requests a sorted set of leases (a lease expires, so that a
// replica that died does not keep its slots), and its write pace a GCRA
// timestamp; each check is one Lua script on Redis's clock. What a replica
// learns is kept locally as well, so that a known block is refused without
// asking Redis, and so that fail-open has something to go on.
type Redis struct {
	conn     *redisconn.Conn
	local    *Local
	limits   Limits
	hooks    Hooks
	prefix   string
	lease    time.Duration
	failOpen bool

	mu        sync.Mutex
	published map[string]time.Time // key -> last time a non-blocking snapshot was published
}

// RedisOptions configure the shared budget.
type RedisOptions struct {
	// Prefix starts every key (default "ghops:budget:").
	Prefix string
	// Lease is the longest a slot is held (default 2 minutes; above the
	// call timeout).
	Lease time.Duration
	// FailOpen decides what happens while Redis is down: true, the
	// replica's own budget applies (caps then hold per replica); false,
	// requests are refused with ErrUnavailable.
	FailOpen bool
}

// NewRedis returns the shared budget over conn.
func NewRedis(conn *redisconn.Conn, l Limits, h Hooks, o RedisOptions) *Redis {
	if o.Prefix == "" {
		o.Prefix = "ghops:budget:"
	}
	if o.Lease <= 0 {
		o.Lease = 2 * time.Minute
	}
	return &Redis{conn: conn, local: NewLocal(l, h), limits: l, hooks: h, prefix: o.Prefix, lease: o.Lease,
		failOpen: o.FailOpen, published: map[string]time.Time{}}
}

// admitScript refuses while the primary limit is spent (returning its
// figures), else takes a leased slot when fewer than ARGV[1] are taken.
// Returns {0} admitted, {1, limit, remaining, reset} spent, {2} no slot.
var admitScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'limit', 'remaining', 'reset')
if b[2] and tonumber(b[2]) <= 0 and tonumber(b[3]) * 1000 > now then
  return {1, tonumber(b[1]), tonumber(b[2]), tonumber(b[3])}
end
local max = tonumber(ARGV[1])
if max > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if redis.call('ZCARD', KEYS[2]) >= max then return {2} end
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
return {0}
`)

// learnScript stores a snapshot unless Redis knows a later window; within
// one window the lowest remaining wins. The hash expires at the reset.
var learnScript = redis.NewScript(`
local lim, rem, rst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local cur = redis.call('HMGET', KEYS[1], 'remaining', 'reset')
if cur[2] then
  local crem, crst = tonumber(cur[1]), tonumber(cur[2])
  if rst < crst then return 0 end
  if rst == crst and crem < rem then rem = crem end
end
redis.call('HSET', KEYS[1], 'limit', lim, 'remaining', rem, 'reset', rst)
redis.call('PEXPIREAT', KEYS[1], rst * 1000 + 1000)
return 1
`)

// paceScript reserves a write's turn (GCRA): it returns the wait in
// milliseconds, or minus the wait, reserving nothing, when it is over
// ARGV[3].
var paceScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval, tol, maxwait = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local wait = tat - now - tol
if wait < 0 then wait = 0 end
if wait > maxwait then return -wait end
redis.call('SET', KEYS[1], tat + interval, 'PX', tat + interval - now + 1000)
return wait
`)

func (r *Redis) blockKey(token, resource string) string {
	return r.prefix + "limit:" + token + ":" + resource
}

// Observe implements Budget: always locally; in Redis at once when the
// limit is spent, else at most once a second per token and resource.
func (r *Redis) Observe(ctx context.Context, token string, s Snapshot) {
	r.local.Observe(ctx, token, s)
	if s.Reset.IsZero() || s.Limit <= 0 {
		return
	}
	key := r.blockKey(token, s.Resource)
	if s.Remaining > 0 {
		r.mu.Lock()
		last := r.published[key]
		due := time.Since(last) >= time.Second
		if due {
			r.published[key] = time.Now()
			for k, v := range r.published {
				if time.Since(v) > time.Minute {
					delete(r.published, k)
				}
			}
		}
		r.mu.Unlock()
		if !due {
			return
		}
	}
	_ = r.conn.Do(context.WithoutCancel(ctx), "budget_learn", func(ctx context.Context, c redis.UniversalClient) error {
		return learnScript.Run(ctx, c, []string{key}, s.Limit, s.Remaining, s.Reset.Unix()).Err()
	})
}

// Admit implements Budget.
func (r *Redis) Admit(ctx context.Context, token, resource string, write bool) (func(), error) {
	if s, ok := r.local.Blocked(token, resource); ok {
		r.hooks.refuse("exhausted")
		return nil, &Exhausted{s}
	}
	if write && r.limits.WritesPerMinute > 0 {
		if err := r.pace(ctx, token); err != nil {
			return r.fallback(ctx, token, resource, write, err)
		}
	}
	member := randomMember()
	slots := r.prefix + "slots:" + token
	start, waited := time.Now(), false
	for d := time.Millisecond; ; d = nextDelay(d) {
		var res []any
		err := r.conn.Do(ctx, "budget_admit", func(ctx context.Context, c redis.UniversalClient) error {
			var err error
			res, err = admitScript.Run(ctx, c, []string{r.blockKey(token, resource), slots},
				r.limits.Concurrency, member, r.lease.Milliseconds()).Slice()
			return err
		})
		if err != nil {
			// Pacing, if any, was already done in Redis.
			return r.fallback(ctx, token, resource, false, err)
		}
		code, _ := res[0].(int64)
		switch code {
		case 0:
			if waited {
				r.hooks.wait("slot", time.Since(start))
			}
			var once sync.Once
			return func() { once.Do(func() { r.release(ctx, slots, member) }) }, nil
		case 1:
			s := Snapshot{Resource: resource, Limit: int(num(res, 1)), Remaining: int(num(res, 2)), Reset: time.Unix(num(res, 3), 0)}
			r.local.Observe(ctx, token, s)
			r.hooks.refuse("exhausted")
			return nil, &Exhausted{s}
		}
		waited = true
		if d > remaining(ctx) || ctxsleep.Sleep(ctx, d) != nil {
			r.hooks.refuse("busy")
			return nil, &Busy{Limit: r.limits.Concurrency}
		}
	}
}

func num(res []any, i int) int64 {
	if i < len(res) {
		if n, ok := res[i].(int64); ok {
			return n
		}
	}
	return 0
}

func (r *Redis) pace(ctx context.Context, token string) error {
	interval, tol := pace(r.limits.WritesPerMinute)
	var wait int64
	err := r.conn.Do(ctx, "budget_pace", func(ctx context.Context, c redis.UniversalClient) error {
		var err error
		wait, err = paceScript.Run(ctx, c, []string{r.prefix + "pace:" + token},
			interval.Milliseconds(), tol.Milliseconds(), remaining(ctx).Milliseconds()).Int64()
		return err
	})
	if err != nil {
		return err
	}
	if wait < 0 {
		r.hooks.refuse("paced")
		return &Paced{Wait: time.Duration(-wait) * time.Millisecond}
	}
	d := time.Duration(wait) * time.Millisecond
	r.hooks.wait("pace", d)
	if d > 0 {
		return ctxsleep.Sleep(ctx, d)
	}
	return nil
}

// fallback applies the fail setting after err; refusals pass unchanged.
func (r *Redis) fallback(ctx context.Context, token, resource string, write bool, err error) (func(), error) {
	if IsRefusal(err) || ctx.Err() != nil {
		if ctx.Err() != nil && !IsRefusal(err) {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if !r.failOpen {
		r.hooks.refuse("unavailable")
		return nil, ErrUnavailable
	}
	return r.local.Admit(ctx, token, resource, write)
}

// release gives a slot back; if that fails its lease frees it later.
func (r *Redis) release(ctx context.Context, key, member string) {
	_ = r.conn.Do(context.WithoutCancel(ctx), "budget_release", func(ctx context.Context, c redis.UniversalClient) error {
		return c.ZRem(ctx, key, member).Err()
	})
}

func randomMember() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
