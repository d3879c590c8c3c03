// Package quota holds the gateway's per-principal limits behind one small
// interface: a rate (a token bucket refilled per minute, whose burst is one
// minute's worth) and a number of calls in flight. The in-process
// implementation here serves one replica; a shared one (Redis) makes the
// limits hold across replicas.
package quota

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limits are one principal's limits; zero means unlimited.
type Limits struct {
	// PerMinute is the sustained rate and the burst.
	PerMinute int
	// Concurrency is the number of calls in flight at once.
	Concurrency int
}

// Quota admits calls.
type Quota interface {
	// Take admits one call of key under l: it spends one unit of the rate
	// (or refuses with ErrRate and how long until a unit is free) and then
	// waits for one of the concurrency slots until ctx ends (ErrConcurrency).
	// The caller must call release once the call is over.
	Take(ctx context.Context, key string, l Limits) (release func(), retryAfter time.Duration, err error)
}

// Refusals of Take.
var (
	// ErrRate says the rate is spent.
	ErrRate = errors.New("quota: rate limit")
	// ErrConcurrency says no slot became free in time.
	ErrConcurrency = errors.New("quota: concurrency limit")
)

// Local is the in-process Quota. It is safe for concurrent use.
type Local struct {
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	slots   map[string]chan struct{}
	now     func() time.Time
}

// NewLocal returns an in-process Quota.
func NewLocal() *Local {
	return &Local{buckets: map[string]*rate.Limiter{}, slots: map[string]chan struct{}{}, now: time.Now}
}

// Take implements Quota.
func (q *Local) Take(ctx context.Context, key string, l Limits) (func(), time.Duration, error) {
	if l.PerMinute > 0 {
		r := q.bucket(key, l.PerMinute).ReserveN(q.now(), 1)
		if d := r.DelayFrom(q.now()); d > 0 {
			r.CancelAt(q.now())
			return nil, d, ErrRate
		}
	}
	if l.Concurrency <= 0 {
		return func() {}, 0, nil
	}
	sem := q.semaphore(key, l.Concurrency)
	select {
	case sem <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-sem }) }, 0, nil
	case <-ctx.Done():
		return nil, time.Second, ErrConcurrency
	}
}

// bucket returns key's token bucket, made (or remade when the rate changed).
func (q *Local) bucket(key string, perMinute int) *rate.Limiter {
	q.mu.Lock()
	defer q.mu.Unlock()
	limit := rate.Limit(float64(perMinute) / 60)
	b := q.buckets[key]
	if b == nil || b.Limit() != limit || b.Burst() != perMinute {
		b = rate.NewLimiter(limit, perMinute)
		q.buckets[key] = b
	}
	return b
}

// semaphore returns key's concurrency slots.
func (q *Local) semaphore(key string, n int) chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.slots[key]
	if s == nil || cap(s) != n {
		s = make(chan struct{}, n)
		q.slots[key] = s
	}
	return s
}
