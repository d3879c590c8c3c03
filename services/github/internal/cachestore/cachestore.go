// Package cachestore keeps GitHub answers for the conditional cache
// (package httpcache): an in-process LRU bounded by entries and bytes, a
// Redis store shared by every replica (entries expire and each is bounded
// in bytes), and the tiered store that asks the LRU first and Redis
// second. Keys are built by the caller and already hold no token; the
// Redis store hashes them again so that key length is bounded.
package cachestore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
)

// Tier names where an answer came from, for metrics.
const (
	TierLRU   = "lru"
	TierRedis = "redis"
)

// Entry is one cached GitHub answer.
type Entry struct {
	// Status is the HTTP status (200).
	Status int
	// ETag is GitHub's validator, sent back as If-None-Match.
	ETag string
	// Immutable marks an answer addressed by a commit SHA: it is served
	// without asking GitHub again.
	Immutable bool
	// Header is the answer's header.
	Header http.Header
	// Body is the whole body.
	Body []byte
}

// size approximates the memory an entry holds.
func (e *Entry) size() int {
	n := len(e.Body) + len(e.ETag) + 64
	for k, vs := range e.Header {
		n += len(k)
		for _, v := range vs {
			n += len(v)
		}
	}
	return n
}

// Store is a place to keep entries. Get reports the tier that answered;
// neither method fails: a store that cannot answer is a miss.
type Store interface {
	// Get returns the entry of key and the tier that had it.
	Get(ctx context.Context, key string) (*Entry, string, bool)
	// Put keeps e under key (or nothing, when e is over a bound).
	Put(ctx context.Context, key string, e *Entry)
}

// Tiered asks LRU first, then Redis (nil: in-process only); an answer
// found in Redis is kept in the LRU too.
type Tiered struct {
	LRU   *LRU
	Redis *Redis
}

// Get implements Store.
func (t *Tiered) Get(ctx context.Context, key string) (*Entry, string, bool) {
	if e, _, ok := t.LRU.Get(ctx, key); ok {
		return e, TierLRU, true
	}
	if t.Redis == nil {
		return nil, "", false
	}
	e, _, ok := t.Redis.Get(ctx, key)
	if ok {
		t.LRU.Put(ctx, key, e)
		return e, TierRedis, true
	}
	return nil, "", false
}

// Put implements Store.
func (t *Tiered) Put(ctx context.Context, key string, e *Entry) {
	t.LRU.Put(ctx, key, e)
	if t.Redis != nil {
		t.Redis.Put(ctx, key, e)
	}
}

// redisKey hashes a cache key under prefix.
func redisKey(prefix, key string) string {
	sum := sha256.Sum256([]byte(key))
	return prefix + hex.EncodeToString(sum[:])
}
