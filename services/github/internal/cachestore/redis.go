package cachestore

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"ghops.dev/infra/redisconn"
)

// Redis is the shared tier: each entry is one string key that expires
// after TTL and is at most MaxEntryBytes long once encoded (bigger ones
// stay in the replica's LRU only). A failing Redis is a miss, never an
// error: reads go on without it.
type Redis struct {
	conn          *redisconn.Conn
	prefix        string
	ttl           time.Duration
	maxEntryBytes int
}

// RedisOptions configure the shared tier.
type RedisOptions struct {
	// Prefix starts every key (default "ghops:cache:").
	Prefix string
	// TTL is how long an entry lives (default 24h).
	TTL time.Duration
	// MaxEntryBytes bounds one encoded entry (default 1 MiB).
	MaxEntryBytes int
}

// NewRedis returns the shared tier over conn.
func NewRedis(conn *redisconn.Conn, o RedisOptions) *Redis {
	if o.Prefix == "" {
		o.Prefix = "ghops:cache:"
	}
	if o.TTL <= 0 {
		o.TTL = 24 * time.Hour
	}
	if o.MaxEntryBytes <= 0 {
		o.MaxEntryBytes = 1 << 20
	}
	return &Redis{conn: conn, prefix: o.Prefix, ttl: o.TTL, maxEntryBytes: o.MaxEntryBytes}
}

// Get implements Store. An entry that does not decode (written by another
// version, or damaged) is a miss.
func (r *Redis) Get(ctx context.Context, key string) (*Entry, string, bool) {
	var b []byte
	err := r.conn.Do(ctx, "cache_get", func(ctx context.Context, c redis.UniversalClient) error {
		var err error
		b, err = c.Get(ctx, redisKey(r.prefix, key)).Bytes()
		return err
	})
	if err != nil {
		return nil, "", false
	}
	e, err := Decode(b)
	if err != nil {
		return nil, "", false
	}
	return e, TierRedis, true
}

// Put implements Store.
func (r *Redis) Put(ctx context.Context, key string, e *Entry) {
	b := Encode(e)
	if len(b) > r.maxEntryBytes {
		return
	}
	_ = r.conn.Do(ctx, "cache_put", func(ctx context.Context, c redis.UniversalClient) error {
		return c.Set(ctx, redisKey(r.prefix, key), b, r.ttl).Err()
	})
}

// errCodec is every decoding failure; the entry is then a miss.
var errCodec = errors.New("cachestore: not an encoded entry")
