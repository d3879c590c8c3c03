package ctxsleep_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"ghops.dev/infra/ctxsleep"
)

func TestSleep(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		d    time.Duration
		want error
	}{
		{name: "waits out d", ctx: context.Background(), d: time.Millisecond},
		{name: "zero wait", ctx: context.Background(), d: 0},
		// An hour would hang the test if the cancellation were not seen.
		{name: "cancelled call", ctx: cancelled, d: time.Hour, want: context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := ctxsleep.Sleep(tc.ctx, tc.d); !errors.Is(err, tc.want) {
				t.Errorf("Sleep = %v, want %v", err, tc.want)
			}
		})
	}
	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		if err := ctxsleep.Sleep(ctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Sleep = %v, want %v", err, context.DeadlineExceeded)
		}
	})
}
