// Package ctxkey is the one way the binaries carry a request-scoped value in
// a context.Context: a typed key, so that storing and reading it is one
// call each and the type assertion lives here, not in every package that
// needs a value (the caller in the gateway, the progress reporter in the
// service, ...).
package ctxkey

import "context"

// Key is a context key for values of type T. Keys made by New are distinct
// from each other and from every other key, even for the same T.
type Key[T any] struct {
	// name is for debugging only; a Key is compared by its address.
	name string
}

// New returns a new key; name says what it holds (shown by fmt only).
func New[T any](name string) *Key[T] {
	return &Key[T]{name: name}
}

// String returns the key's name.
func (k *Key[T]) String() string { return k.name }

// With returns ctx carrying v under k.
func (k *Key[T]) With(ctx context.Context, v T) context.Context {
	return context.WithValue(ctx, k, v)
}

// From returns the value under k in ctx, or T's zero value without one.
func (k *Key[T]) From(ctx context.Context) T {
	v, _ := ctx.Value(k).(T)
	return v
}
