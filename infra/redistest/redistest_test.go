package redistest_test

import (
	"context"
	"testing"
	"time"

	"ghops.dev/infra/redistest"
)

func TestStartStop(t *testing.T) {
	s := redistest.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("set: %v", err)
	}
	if v, err := c.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("get = %q, %v", v, err)
	}
	s.Stop()
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := c.Ping(cctx).Err(); err == nil {
		t.Fatal("ping answered after Stop")
	}
	s.Restart(t)
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("ping after Restart: %v", err)
	}
}
