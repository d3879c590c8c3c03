package cachestore

import (
	"container/list"
	"context"
	"sync"
)

// LRU is the in-process tier: at most maxEntries entries and maxBytes
// bytes, least recently used out first. Entries are shared, never copied:
// callers must not change them.
type LRU struct {
	maxEntries, maxBytes int

	mu      sync.Mutex
	lru     *list.List // of *lruItem, front is most recent
	entries map[string]*list.Element
	size    int
}

type lruItem struct {
	key  string
	e    *Entry
	size int
}

// NewLRU returns an empty LRU.
func NewLRU(maxEntries, maxBytes int) *LRU {
	return &LRU{maxEntries: maxEntries, maxBytes: maxBytes, lru: list.New(), entries: map[string]*list.Element{}}
}

// Len reports the number of entries.
func (l *LRU) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lru.Len()
}

// Bytes reports the bytes held.
func (l *LRU) Bytes() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.size
}

// Get implements Store.
func (l *LRU) Get(_ context.Context, key string) (*Entry, string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	el, ok := l.entries[key]
	if !ok {
		return nil, "", false
	}
	l.lru.MoveToFront(el)
	return el.Value.(*lruItem).e, TierLRU, true
}

// Put implements Store; an entry over a quarter of maxBytes is not kept,
// so that one answer cannot empty the cache.
func (l *LRU) Put(_ context.Context, key string, e *Entry) {
	n := e.size()
	if n > l.maxBytes/4 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if el, ok := l.entries[key]; ok {
		l.size -= el.Value.(*lruItem).size
		l.lru.Remove(el)
		delete(l.entries, key)
	}
	l.entries[key] = l.lru.PushFront(&lruItem{key: key, e: e, size: n})
	l.size += n
	for l.lru.Len() > l.maxEntries || l.size > l.maxBytes {
		last := l.lru.Back()
		it := last.Value.(*lruItem)
		l.lru.Remove(last)
		delete(l.entries, it.key)
		l.size -= it.size
	}
}
