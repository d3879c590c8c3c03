package quota

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
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

// startRedis runs a throw-away redis-server on a free 127.0.0.1 port for
// the test; a missing redis-server fails the test (it is not optional).
func startRedis(t *testing.T) (addr string, stop func()) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed: apt-get install -y redis-server")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr = fmt.Sprintf("127.0.0.1:%d", port)
	var once sync.Once
	stop = func() { once.Do(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) }
	t.Cleanup(stop)
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	for i := 0; ; i++ {
		if c.Ping(context.Background()).Err() == nil {
			return addr, stop
		}
		if i > 200 {
			t.Fatal("redis-server did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRedisShared: two quotas on one Redis (two gateway replicas) share a
// rate and the concurrency slots; with Redis gone, fail-open counts per
// replica and fail-closed refuses, within the operation timeout.
func TestRedisShared(t *testing.T) {
	addr, stop := startRedis(t)
	newQ := func(failOpen bool) (*Redis, *int) {
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		t.Cleanup(func() { _ = c.Close() })
		errs := new(int)
		var mu sync.Mutex
		return NewRedis(c, RedisOptions{FailOpen: failOpen, Timeout: 100 * time.Millisecond, Lease: 5 * time.Second,
			OnError: func(string) { mu.Lock(); *errs++; mu.Unlock() }}), errs
	}
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
	stop()
	start := time.Now()
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
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("calls waited %v on a dead Redis", d)
	}
	if *openErrs == 0 {
		t.Error("Redis failures were not counted")
	}
}
