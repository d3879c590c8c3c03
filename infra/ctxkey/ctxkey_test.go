package ctxkey_test

import (
	"context"
	"testing"

	"ghops.dev/infra/ctxkey"
)

func TestKey(t *testing.T) {
	type caller struct{ name string }
	a := ctxkey.New[*caller]("a")
	b := ctxkey.New[*caller]("b")
	n := ctxkey.New[int]("n")
	alice := &caller{name: "alice"}

	tests := []struct {
		name  string
		ctx   context.Context
		wantA *caller
		wantB *caller
		wantN int
	}{
		{name: "empty context gives zero values", ctx: context.Background()},
		{name: "value under a only", ctx: a.With(context.Background(), alice), wantA: alice},
		{name: "same type, other key does not see it", ctx: b.With(context.Background(), alice), wantB: alice},
		{name: "keys of other types are independent", ctx: n.With(a.With(context.Background(), alice), 7), wantA: alice, wantN: 7},
		{name: "inner value overrides", ctx: n.With(n.With(context.Background(), 1), 2), wantN: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := a.From(tt.ctx); got != tt.wantA {
				t.Errorf("a.From = %v, want %v", got, tt.wantA)
			}
			if got := b.From(tt.ctx); got != tt.wantB {
				t.Errorf("b.From = %v, want %v", got, tt.wantB)
			}
			if got := n.From(tt.ctx); got != tt.wantN {
				t.Errorf("n.From = %d, want %d", got, tt.wantN)
			}
		})
	}
	if a.String() != "a" {
		t.Errorf("String = %q, want %q", a.String(), "a")
	}
}
