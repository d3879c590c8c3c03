// Package ratelimit provides GitHub-style fixed-window rate-limit buckets, one per identity and
// resource (core, search), with the numbers GitHub reports in its x-ratelimit-* headers.
package ratelimit

import (
	"sync"
	"time"
)

// Snapshot is a bucket's state as reported to the client.
type Snapshot struct {
	Resource               string
	Limit, Remaining, Used int
	Reset                  time.Time
}

type bucket struct {
	limit  int
	used   int
	window time.Duration
	reset  time.Time
}

// Limiter tracks buckets. It is safe for concurrent use.
type Limiter struct {
	mu      sync.Mutex
	now     func() time.Time
	buckets map[string]*bucket
}

// New returns a limiter reading time from now.
func New(now func() time.Time) *Limiter {
	return &Limiter{now: now, buckets: map[string]*bucket{}}
}

func (l *Limiter) get(identity, resource string, limit int, window time.Duration) *bucket {
	key := identity + "\x00" + resource
	now := l.now()
	b, ok := l.buckets[key]
	if !ok || !now.Before(b.reset) {
		b = &bucket{limit: limit, window: window, reset: now.Add(window).Truncate(time.Second)}
		l.buckets[key] = b
	}
	b.limit = limit
	return b
}

func snap(resource string, b *bucket) Snapshot {
	rem := b.limit - b.used
	if rem < 0 {
		rem = 0
	}
	return Snapshot{Resource: resource, Limit: b.limit, Remaining: rem, Used: b.used, Reset: b.reset}
}

// Peek returns the bucket's state without spending.
func (l *Limiter) Peek(identity, resource string, limit int, window time.Duration) Snapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	return snap(resource, l.get(identity, resource, limit, window))
}

// Spend takes n units if available and reports whether it could.
func (l *Limiter) Spend(identity, resource string, limit int, window time.Duration, n int) (Snapshot, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.get(identity, resource, limit, window)
	if b.used+n > b.limit {
		return snap(resource, b), false
	}
	b.used += n
	return snap(resource, b), true
}

// Exhaust spends everything left in a bucket, as a forced primary rate limit does.
func (l *Limiter) Exhaust(identity, resource string, limit int, window time.Duration) Snapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.get(identity, resource, limit, window)
	if b.used < b.limit {
		b.used = b.limit
	}
	return snap(resource, b)
}

// Reset forgets every bucket.
func (l *Limiter) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buckets = map[string]*bucket{}
}
