// Package httpcache is an http.RoundTripper that makes GitHub reads
// conditional: it remembers each GET answer that carried an ETag and asks
// again with If-None-Match, so that an unchanged resource is answered by a
// 304, which costs no rate limit. Entries are keyed by a hash of the
// caller's Authorization header as well as the URL, so an answer never
// crosses from one token to another, and the cache is a bounded LRU (by
// entry count and by body bytes). Every request still reaches GitHub: the
// cache saves rate limit, not round trips, so it is never stale.
package httpcache

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"sync"
)

// FromCacheHeader is set on answers rebuilt from the cache after a 304;
// go-github then leaves its rate-limit state untouched.
const FromCacheHeader = "X-From-Cache"

// Transport is the caching round tripper; create it with New.
type Transport struct {
	base       http.RoundTripper
	maxEntries int
	maxBytes   int

	mu      sync.Mutex
	lru     *list.List // of *entry, front is most recent
	entries map[string]*list.Element
	size    int
}

type entry struct {
	key    string
	etag   string
	status int
	header http.Header
	body   []byte
}

// New returns a Transport over base (http.DefaultTransport when nil) holding
// at most maxEntries answers and maxBytes bytes of bodies.
func New(base http.RoundTripper, maxEntries, maxBytes int) *Transport {
	if base == nil {
		base = http.DefaultTransport
	}
	return &Transport{base: base, maxEntries: maxEntries, maxBytes: maxBytes, lru: list.New(), entries: map[string]*list.Element{}}
}

// Key is the cache key of req: the token identity (a SHA-256 of the
// Authorization header, never the token itself), the Accept header and the URL.
func Key(req *http.Request) string {
	sum := sha256.Sum256([]byte(req.Header.Get("Authorization")))
	return hex.EncodeToString(sum[:]) + " " + req.Header.Get("Accept") + " " + req.URL.String()
}

// Len reports the number of cached answers.
func (t *Transport) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lru.Len()
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || req.Header.Get("Range") != "" {
		return t.base.RoundTrip(req)
	}
	key := Key(req)
	cached := t.get(key)
	out := req
	if cached != nil && req.Header.Get("If-None-Match") == "" {
		out = req.Clone(req.Context())
		out.Header.Set("If-None-Match", cached.etag)
	}
	resp, err := t.base.RoundTrip(out)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotModified && cached != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		_ = resp.Body.Close()
		h := cached.header.Clone()
		for k, v := range resp.Header {
			if strings.HasPrefix(strings.ToLower(k), "x-ratelimit-") || k == "Date" {
				h[k] = v
			}
		}
		h.Set(FromCacheHeader, "1")
		return &http.Response{
			Status: "200 OK", StatusCode: cached.status, Proto: resp.Proto, ProtoMajor: resp.ProtoMajor, ProtoMinor: resp.ProtoMinor,
			Header: h, Body: io.NopCloser(bytes.NewReader(cached.body)), ContentLength: int64(len(cached.body)), Request: req,
		}, nil
	}
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != http.StatusOK || etag == "" {
		return resp, nil
	}
	limit := t.maxBytes / 4
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		_ = resp.Body.Close()
		return nil, err
	}
	if len(body) > limit {
		// Too big to cache: hand the answer on whole without remembering it.
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
		return resp, nil
	}
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	t.put(&entry{key: key, etag: etag, status: resp.StatusCode, header: resp.Header.Clone(), body: body})
	return resp, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

func (t *Transport) get(key string) *entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	el, ok := t.entries[key]
	if !ok {
		return nil
	}
	t.lru.MoveToFront(el)
	return el.Value.(*entry)
}

func (t *Transport) put(e *entry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if el, ok := t.entries[e.key]; ok {
		t.size -= len(el.Value.(*entry).body)
		t.lru.Remove(el)
		delete(t.entries, e.key)
	}
	t.entries[e.key] = t.lru.PushFront(e)
	t.size += len(e.body)
	for t.lru.Len() > t.maxEntries || t.size > t.maxBytes {
		last := t.lru.Back()
		old := last.Value.(*entry)
		t.lru.Remove(last)
		delete(t.entries, old.key)
		t.size -= len(old.body)
	}
}
