// Package requestid names requests: the id that ties a call's log records,
// its error data and the service's logs together. A client may bring its own
// (X-Request-Id) when it is short and plain; anything else, including a
// value that looks like a credential, is replaced by a fresh random id so
// that no secret is ever echoed in a header, a log line or error data.
package requestid

import (
	"ghops.dev/redact"

	"crypto/rand"
	"encoding/hex"
	mrand "math/rand/v2"
	"sync"
)

// Header is the HTTP header carrying the id both ways.
const Header = "X-Request-Id"

// generators hold ChaCha8 generators, each seeded from crypto/rand: ids
// stay unguessable (ChaCha8 is a cryptographically strong generator)
// without a read of the system's randomness on every request, which the
// gateway's profile showed on its hottest path (docs/benchmarks.md). A
// generator is used by one goroutine at a time.
var generators = sync.Pool{New: func() any {
	var seed [32]byte
	_, _ = rand.Read(seed[:])
	return mrand.NewChaCha8(seed)
}}

// New returns a fresh random id (32 hex digits).
func New() string {
	var b [16]byte
	g := generators.Get().(*mrand.ChaCha8)
	_, _ = g.Read(b[:])
	generators.Put(g)
	var out [32]byte
	hex.Encode(out[:], b[:])
	return string(out[:])
}

// Accept returns the client's id when it is plain and not secret-shaped,
// otherwise a fresh one.
func Accept(client string) string {
	if plain(client) && !redact.Contains(client) {
		return client
	}
	return New()
}

// plain reports whether a client-chosen id may be kept: 1 to 64 of
// [A-Za-z0-9._-] (a loop, not a regular expression: it runs on every
// request).
func plain(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
