package redisconn_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ghops.dev/infra/redisconn"
	"ghops.dev/infra/redistest"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		url string
		ok  bool
	}{
		{"redis://127.0.0.1:6379/0", true},
		{"rediss://user:pw@r.example:6380/1", true},
		{"redis://127.0.0.1:6379/notadb", false},
		{"http://127.0.0.1:6379", false},
		{"127.0.0.1:6379", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			err := redisconn.Validate(tt.url)
			if (err == nil) != tt.ok {
				t.Errorf("Validate = %v", err)
			}
			if err != nil && strings.Contains(err.Error(), "pw") {
				t.Errorf("error shows the URL: %v", err)
			}
		})
	}
}

// TestOutage: one log record per edge of an outage, every failure counted,
// and no operation tried (so none waits) during the pause after a failure.
func TestOutage(t *testing.T) {
	srv := redistest.Start(t)
	var logs bytes.Buffer
	var failures atomic.Int32
	c, err := redisconn.Dial(srv.URL, redisconn.Options{Timeout: 50 * time.Millisecond, Pause: 300 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&logs, nil)), OnError: func(string) { failures.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ping := func() error {
		return c.Do(context.Background(), "ping", func(ctx context.Context, r redis.UniversalClient) error { return r.Ping(ctx).Err() })
	}
	if err := ping(); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	if err := ping(); err == nil || errors.Is(err, redisconn.ErrDown) {
		t.Fatalf("first failure = %v", err)
	}
	for range 5 {
		if err := ping(); !errors.Is(err, redisconn.ErrDown) {
			t.Fatalf("during the pause: %v", err)
		}
	}
	if failures.Load() != 1 {
		t.Errorf("%d failures counted, want 1 (the pause skips Redis)", failures.Load())
	}
	srv.Restart(t)
	// Once the pause is over Redis is used again. On a loaded machine the
	// first reconnect may miss the 50 ms timeout (which pauses Redis once
	// more), so recovery is awaited, not timed: what matters is that it
	// comes, and that the outage is logged once at each edge.
	for attempt := 1; ; attempt++ {
		time.Sleep(350 * time.Millisecond)
		err := ping()
		if err == nil {
			break
		}
		if attempt == 30 {
			t.Fatalf("after the pause: %v", err)
		}
	}
	if n := strings.Count(logs.String(), "redis unreachable"); n != 1 {
		t.Errorf("%d outage records:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "redis reachable again") {
		t.Errorf("no recovery record:\n%s", logs.String())
	}
}

// TestSlowRedis: a Redis that accepts but never answers costs one timeout,
// then nothing during the pause.
func TestSlowRedis(t *testing.T) {
	srv := redistest.Start(t)
	c, err := redisconn.Dial(srv.URL, redisconn.Options{Timeout: 50 * time.Millisecond, Pause: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ping := func() error {
		return c.Do(context.Background(), "ping", func(ctx context.Context, r redis.UniversalClient) error { return r.Ping(ctx).Err() })
	}
	if err := ping(); err != nil {
		t.Fatal(err)
	}
	srv.Freeze(t)
	defer srv.Thaw(t)
	tests := []struct {
		name    string
		wantErr error
	}{
		{name: "the first operation times out"},
		{name: "the next ones do not try", wantErr: redisconn.ErrDown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			err := ping()
			if err == nil || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if d := time.Since(start); d > 500*time.Millisecond {
				t.Errorf("waited %v on a frozen Redis (timeout 50ms)", d)
			}
		})
	}
}
