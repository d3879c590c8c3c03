// Package jsonmemo decodes each distinct JSON answer from GitHub once.
//
// Most reads are answered from the cache (package httpcache) with a body
// already seen, and decoding go-github's large structs again was most of
// the service's CPU per call (docs/benchmarks.md, "where the service's CPU
// goes"). The cache stamps each body it keeps with its SHA-256 (DigestHeader);
// Decode keeps the values decoded from stamped bodies, keyed by the Go type
// and the digest, in a byte-bounded LRU. go-github decodes inside Client.Do
// with no hook for this, so the handlers that matter fetch with BareDo and
// decode here; no library offers a decode cache keyed by content.
//
// Values are shared between calls: callers must treat them as read-only.
// They are keyed by content, not by token: a value is shared only with a
// caller that received the very same bytes.
package jsonmemo

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"sync"
)

// DigestHeader carries the hex SHA-256 of a cached body. Only the cache
// sets it: it strips the header from GitHub's own answers.
const DigestHeader = "X-Ghops-Body-Digest"

// Digest returns the value of DigestHeader for body.
func Digest(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// Memo is a byte-bounded LRU of decoded values; the zero value is not
// usable, create it with New. A nil *Memo decodes every time.
type Memo struct {
	maxBytes int

	mu    sync.Mutex
	lru   *list.List // of *item, front is most recent
	items map[key]*list.Element
	size  int
	hits  uint64
}

type key struct {
	t      reflect.Type
	digest string
}

type item struct {
	k    key
	v    any
	size int
}

// New returns an empty Memo holding values decoded from at most maxBytes
// bytes of JSON (a decoded value takes a small multiple of its JSON). A
// body over a quarter of maxBytes is decoded but not kept.
func New(maxBytes int) *Memo {
	return &Memo{maxBytes: maxBytes, lru: list.New(), items: map[key]*list.Element{}}
}

// Len reports the number of values held.
func (m *Memo) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lru.Len()
}

// Hits reports how many decodes were answered from the memo.
func (m *Memo) Hits() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hits
}

// Decode reads and closes resp.Body and returns its JSON decoded as a T,
// from the memo when a body with the same digest was decoded as a T
// before. An empty body decodes as T's zero value, as go-github's Do does.
func Decode[T any](m *Memo, resp *http.Response) (T, error) {
	defer resp.Body.Close()
	var zero T
	digest := ""
	if m != nil {
		digest = resp.Header.Get(DigestHeader)
	}
	k := key{t: reflect.TypeFor[T](), digest: digest}
	if digest != "" {
		if v, ok := m.get(k); ok {
			return v.(T), nil
		}
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return zero, err
	}
	var v T
	if len(body) > 0 {
		if err := json.Unmarshal(body, &v); err != nil {
			return zero, err
		}
	}
	if digest != "" {
		m.put(k, v, len(body))
	}
	return v, nil
}

func (m *Memo) get(k key) (any, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.items[k]
	if !ok {
		return nil, false
	}
	m.lru.MoveToFront(el)
	m.hits++
	return el.Value.(*item).v, true
}

func (m *Memo) put(k key, v any, size int) {
	if size > m.maxBytes/4 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.items[k]; ok {
		return // decoded concurrently by another call: keep the first
	}
	m.items[k] = m.lru.PushFront(&item{k: k, v: v, size: size})
	m.size += size
	for m.size > m.maxBytes {
		last := m.lru.Back()
		it := last.Value.(*item)
		m.lru.Remove(last)
		delete(m.items, it.k)
		m.size -= it.size
	}
}
