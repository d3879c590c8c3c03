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
	"regexp"
)

// Header is the HTTP header carrying the id both ways.
const Header = "X-Request-Id"

// plain is what a client-chosen id may look like.
var plain = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// New returns a fresh random id (32 hex digits).
func New() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Accept returns the client's id when it is plain and not secret-shaped,
// otherwise a fresh one.
func Accept(client string) string {
	if plain.MatchString(client) && !redact.Contains(client) {
		return client
	}
	return New()
}
