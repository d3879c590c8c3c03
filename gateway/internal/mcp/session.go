package mcp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// sessions mints and checks Mcp-Session-Id values without any server-side
// state: an id is "s1.<payload>.<mac>" where payload is
// "<version>.<issued unix seconds>.<nonce>" (base64url) and mac is an
// HMAC-SHA256 of the payload under the shared secret (base64url, 128 bits).
// Any replica holding the same secret accepts an id any other replica minted;
// an id with a bad mac, an unknown version or older than the maximum age is
// refused, which the transport answers with 404 (the client re-initializes).
type sessions struct {
	secret []byte
	maxAge time.Duration
	now    func() time.Time
}

// errBadSession says a session id was forged, garbled, unknown or expired.
var errBadSession = errors.New("mcp: unknown or expired session")

// mint returns a new session id for a session negotiated at version.
func (s *sessions) mint(version string) string {
	var nonce [9]byte
	_, _ = rand.Read(nonce[:])
	payload := version + "." + strconv.FormatInt(s.now().Unix(), 10) + "." + base64.RawURLEncoding.EncodeToString(nonce[:])
	p := base64.RawURLEncoding.EncodeToString([]byte(payload))
	return "s1." + p + "." + base64.RawURLEncoding.EncodeToString(s.mac(p))
}

// mac is the truncated HMAC of the encoded payload.
func (s *sessions) mac(p string) []byte {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte("ghops-mcp-session\x00"))
	m.Write([]byte(p))
	return m.Sum(nil)[:16]
}

// check verifies id and returns the protocol version the session negotiated.
func (s *sessions) check(id string) (string, error) {
	if len(id) > 256 {
		return "", errBadSession
	}
	parts := strings.Split(id, ".")
	if len(parts) != 3 || parts[0] != "s1" {
		return "", errBadSession
	}
	got, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !hmac.Equal(got, s.mac(parts[1])) {
		return "", errBadSession
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "", errBadSession
	}
	fields := strings.Split(string(raw), ".")
	if len(fields) != 3 || !isSupported(fields[0]) || isModern(fields[0]) {
		return "", errBadSession
	}
	issued, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil {
		return "", errBadSession
	}
	if s.maxAge > 0 {
		age := s.now().Sub(time.Unix(issued, 0))
		if age > s.maxAge || age < -time.Minute {
			return "", errBadSession
		}
	}
	return fields[0], nil
}

// randomSecret returns 32 random bytes (a per-process session key).
func randomSecret() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return b
}
