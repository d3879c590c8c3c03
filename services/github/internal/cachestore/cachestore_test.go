package cachestore_test

import (
	"bytes"
	"context"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ghops.dev/infra/redisconn"
	"ghops.dev/infra/redistest"
	"ghops.dev/services/github/internal/cachestore"
)

func entry(body string) *cachestore.Entry {
	return &cachestore.Entry{Status: 200, ETag: `"e"`, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body)}
}

func TestLRUBounds(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		entries  int
		bytes    int
		puts     []string
		wantKept []string
		wantGone []string
	}{
		{name: "entry bound evicts the oldest", entries: 2, bytes: 1 << 20, puts: []string{"a", "b", "c"}, wantKept: []string{"b", "c"}, wantGone: []string{"a"}},
		{name: "byte bound evicts the oldest", entries: 100, bytes: 4 * 200, puts: []string{"a", "b", "c", "d", "e", "f"}, wantKept: []string{"f"}, wantGone: []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := cachestore.NewLRU(tt.entries, tt.bytes)
			for _, k := range tt.puts {
				l.Put(ctx, k, entry(strings.Repeat("x", 100)))
			}
			for _, k := range tt.wantKept {
				if _, tier, ok := l.Get(ctx, k); !ok || tier != cachestore.TierLRU {
					t.Errorf("%s gone", k)
				}
			}
			for _, k := range tt.wantGone {
				if _, _, ok := l.Get(ctx, k); ok {
					t.Errorf("%s kept", k)
				}
			}
			if l.Len() > tt.entries || l.Bytes() > tt.bytes {
				t.Errorf("len %d bytes %d over bounds", l.Len(), l.Bytes())
			}
		})
	}
	t.Run("an entry over a quarter of the bytes is not kept", func(t *testing.T) {
		l := cachestore.NewLRU(10, 1000)
		l.Put(ctx, "big", entry(strings.Repeat("x", 400)))
		if l.Len() != 0 {
			t.Error("big entry kept")
		}
	})
}

func TestCodecRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		e    *cachestore.Entry
	}{
		{name: "plain", e: entry(`{"a":1}`)},
		{name: "immutable, binary body, multi-value header", e: &cachestore.Entry{Status: 200, Immutable: true,
			Header: http.Header{"Link": {"<x>; rel=next", "<y>; rel=last"}}, Body: []byte{0, 1, 2, 255}}},
		{name: "empty body", e: &cachestore.Entry{Status: 200, Header: http.Header{}, Body: []byte{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cachestore.Decode(cachestore.Encode(tt.e))
			if err != nil || !reflect.DeepEqual(got, tt.e) {
				t.Errorf("Decode(Encode) = %+v, %v; want %+v", got, err, tt.e)
			}
		})
	}
	bad := []struct {
		name string
		b    []byte
	}{
		{name: "empty", b: nil},
		{name: "other magic", b: []byte("xxxx")},
		{name: "truncated", b: cachestore.Encode(entry("hello"))[:10]},
		{name: "trailing bytes", b: append(cachestore.Encode(entry("hello")), 0)},
	}
	for _, tt := range bad {
		t.Run("refuses "+tt.name, func(t *testing.T) {
			if _, err := cachestore.Decode(tt.b); err == nil {
				t.Error("decoded")
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(cachestore.Encode(entry(`{"a":1}`)))
	f.Add([]byte("ghc1"))
	f.Add([]byte("ghc1\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := cachestore.Decode(b)
		if err != nil {
			return
		}
		again, err := cachestore.Decode(cachestore.Encode(e))
		if err != nil || again.Status != e.Status || !bytes.Equal(again.Body, e.Body) {
			t.Fatalf("round trip of a decoded entry: %v", err)
		}
	})
}

func TestRedisShared(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	var errs atomic.Int32
	newStore := func(o cachestore.RedisOptions) *cachestore.Tiered {
		conn, err := redisconn.Dial(srv.URL, redisconn.Options{Timeout: 50 * time.Millisecond, Pause: 100 * time.Millisecond,
			OnError: func(string) { errs.Add(1) }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		return &cachestore.Tiered{LRU: cachestore.NewLRU(100, 1<<20), Redis: cachestore.NewRedis(conn, o)}
	}
	a := newStore(cachestore.RedisOptions{TTL: time.Minute, MaxEntryBytes: 1000})
	b := newStore(cachestore.RedisOptions{TTL: time.Minute, MaxEntryBytes: 1000})

	t.Run("an entry put by one replica is found by the other in Redis, then in its LRU", func(t *testing.T) {
		a.Put(ctx, "k1", entry("one"))
		e, tier, ok := b.Get(ctx, "k1")
		if !ok || tier != cachestore.TierRedis || string(e.Body) != "one" {
			t.Fatalf("Get = %v %q %v", e, tier, ok)
		}
		if _, tier, _ := b.Get(ctx, "k1"); tier != cachestore.TierLRU {
			t.Errorf("second Get from %q, want lru", tier)
		}
	})
	t.Run("an entry over the per-entry bound stays out of Redis", func(t *testing.T) {
		a.Put(ctx, "big", entry(strings.Repeat("x", 2000)))
		if _, _, ok := b.Get(ctx, "big"); ok {
			t.Error("big entry shared")
		}
	})
	t.Run("entries expire and keys hold no cache key text", func(t *testing.T) {
		keys, err := srv.Client(t).Keys(ctx, "ghops:cache:*").Result()
		if err != nil || len(keys) != 1 {
			t.Fatalf("keys = %v, %v", keys, err)
		}
		if strings.Contains(keys[0], "k1") {
			t.Errorf("key %q holds the cache key", keys[0])
		}
		ttl, err := srv.Client(t).TTL(ctx, keys[0]).Result()
		if err != nil || ttl <= 0 || ttl > time.Minute {
			t.Errorf("ttl = %v, %v", ttl, err)
		}
	})
	t.Run("Redis down: a miss at once, counted", func(t *testing.T) {
		srv.Stop()
		c := newStore(cachestore.RedisOptions{})
		start := time.Now()
		for range 20 {
			if _, _, ok := c.Get(ctx, "k1"); ok {
				t.Fatal("hit with Redis down")
			}
			c.Put(ctx, "k2", entry("two"))
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("40 operations on a dead Redis took %v", d)
		}
		if errs.Load() == 0 {
			t.Error("no failure counted")
		}
		if _, tier, ok := c.Get(ctx, "k2"); !ok || tier != cachestore.TierLRU {
			t.Error("the LRU did not keep working")
		}
	})
}
