package quota

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"ghops.dev/infra/redisconn"
	"ghops.dev/infra/redistest"
)

// TestLocalRate: a minute's burst, then refusals telling how long until
// the next unit, then refill with time.
func TestLocalRate(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	q := NewLocal()
	q.now = func() time.Time { return now }
	l := Limits{PerMinute: 5}
	for i := range 5 {
		if _, _, err := q.Take(context.Background(), "p", l); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	_, retry, err := q.Take(context.Background(), "p", l)
	if !errors.Is(err, ErrRate) || retry != 12*time.Second {
		t.Fatalf("6th call: %v, retry %v", err, retry)
	}
	if _, _, err := q.Take(context.Background(), "other", l); err != nil {
		t.Fatalf("another principal: %v", err)
	}
	now = now.Add(12 * time.Second)
	if _, _, err := q.Take(context.Background(), "p", l); err != nil {
		t.Fatalf("after the refill: %v", err)
	}
}

// TestLocalConcurrency: slots are held until released; a waiter gets one
// when it is freed, or gives up with its context.
func TestLocalConcurrency(t *testing.T) {
	q := NewLocal()
	l := Limits{Concurrency: 1}
	release, _, err := q.Take(context.Background(), "p", l)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := q.Take(ctx, "p", l); !errors.Is(err, ErrConcurrency) {
		t.Fatalf("second slot: %v", err)
	}
	release()
	release() // twice is harmless
	if r, _, err := q.Take(context.Background(), "p", l); err != nil {
		t.Fatalf("after release: %v", err)
	} else {
		r()
	}
}

// newRedisQuota is a shared quota over srv through the shared connection
// helper, as the gateway builds it, with a counter of the Redis operations
// that failed (each one a call that waited on Redis).
func newRedisQuota(t *testing.T, srv *redistest.Server, failOpen bool, pause time.Duration) (*Redis, *atomic.Int32) {
	t.Helper()
	errs := new(atomic.Int32)
	// A generous operation timeout: the assertions count operations, and a
	// loaded machine (-race, every package at once) must not turn a healthy
	// Redis into a failed one; a hung Redis costs one timeout either way.
	c, err := redisconn.Dial(srv.URL, redisconn.Options{Timeout: time.Second, Pause: pause,
		OnError: func(string) { errs.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return NewRedis(c, RedisOptions{FailOpen: failOpen, Lease: 5 * time.Second}), errs
}

// TestRedisShared: two quotas on one Redis (two gateway replicas) share a
// rate and the concurrency slots; with Redis gone, fail-open counts per
// replica and fail-closed refuses.
func TestRedisShared(t *testing.T) {
	srv := redistest.Start(t)
	newQ := func(failOpen bool) (*Redis, *atomic.Int32) { return newRedisQuota(t, srv, failOpen, time.Second) }
	a, _ := newQ(true)
	b, _ := newQ(true)
	l := Limits{PerMinute: 5}
	for i := range 5 {
		q := []*Redis{a, b}[i%2]
		if _, _, err := q.Take(context.Background(), "p", l); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	for _, q := range []*Redis{a, b} {
		if _, retry, err := q.Take(context.Background(), "p", l); !errors.Is(err, ErrRate) || retry <= 0 || retry > 12*time.Second {
			t.Fatalf("6th call: %v retry %v", err, retry)
		}
	}
	slots := Limits{Concurrency: 2}
	r1, _, err := a.Take(context.Background(), "c", slots)
	if err != nil {
		t.Fatal(err)
	}
	r2, _, err := b.Take(context.Background(), "c", slots)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	if _, _, err := a.Take(ctx, "c", slots); !errors.Is(err, ErrConcurrency) {
		t.Fatalf("third slot across replicas: %v", err)
	}
	cancel()
	r1()
	r3, _, err := b.Take(context.Background(), "c", slots)
	if err != nil {
		t.Fatalf("after a release on the other replica: %v", err)
	}
	r2()
	r3()

	open, openErrs := newQ(true)
	closed, _ := newQ(false)
	srv.Stop()
	if r, _, err := open.Take(context.Background(), "p2", Limits{PerMinute: 1, Concurrency: 1}); err != nil {
		t.Fatalf("fail-open with Redis down: %v", err)
	} else {
		r()
	}
	if _, _, err := open.Take(context.Background(), "p2", Limits{PerMinute: 1}); !errors.Is(err, ErrRate) {
		t.Fatalf("fail-open still counts locally: %v", err)
	}
	if _, _, err := closed.Take(context.Background(), "p3", Limits{PerMinute: 1}); !errors.Is(err, ErrStore) {
		t.Fatalf("fail-closed with Redis down: %v", err)
	}
	if openErrs.Load() == 0 {
		t.Error("Redis failures were not counted")
	}
}

// TestRedisHung: with Redis hung (SIGSTOP: connections are accepted, never
// answered), the first call waits one operation timeout, and every call
// after it gets the configured answer from the breaker without touching
// Redis: fail-closed refuses with ErrStore, fail-open counts in process.
// Counted, not timed: the connection's failure hook fires once per
// operation that actually waited on Redis.
func TestRedisHung(t *testing.T) {
	const calls = 20
	tests := []struct {
		name     string
		failOpen bool
		l        Limits
		check    func(t *testing.T, i int, err error)
	}{
		{"fail closed", false, Limits{PerMinute: 1000, Concurrency: 5}, func(t *testing.T, i int, err error) {
			if !errors.Is(err, ErrStore) {
				t.Fatalf("call %d: %v, want ErrStore", i, err)
			}
		}},
		{"fail open counts in process", true, Limits{PerMinute: calls / 2}, func(t *testing.T, i int, err error) {
			// Every call, the first (which waited on Redis) included, is
			// counted by the in-process fallback.
			if wantErr := i >= calls/2; errors.Is(err, ErrRate) != wantErr || (err != nil && !errors.Is(err, ErrRate)) {
				t.Fatalf("call %d: %v", i, err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t)
			// A pause longer than the test: the breaker stays open for
			// every call after the first.
			q, hits := newRedisQuota(t, srv, tc.failOpen, time.Hour)
			if r, _, err := q.Take(context.Background(), "warm", Limits{PerMinute: 10, Concurrency: 1}); err != nil {
				t.Fatalf("before the freeze: %v", err)
			} else {
				r()
			}
			srv.Freeze(t)
			t.Cleanup(func() { srv.Thaw(t) })
			for i := range calls {
				r, _, err := q.Take(context.Background(), "p", tc.l)
				tc.check(t, i, err)
				if r != nil {
					r()
				}
			}
			if n := hits.Load(); n != 1 {
				t.Fatalf("%d Redis operations waited on the hung Redis for %d calls, want 1 (then the breaker)", n, calls)
			}
		})
	}
}
