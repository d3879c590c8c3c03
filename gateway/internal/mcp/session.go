package mcp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// sessions mints and checks Mcp-Session-Id values without any server-side
// state: an id is "s1.<payload>.<mac>" where payload is
// "<version>.<issued unix seconds>.<nonce>" (base64url) and mac is an
// HMAC-SHA256 of the payload under the shared secret (base64url, 128 bits).
// Any replica holding the same secret accepts an id any other replica minted;
// an id with a bad mac, an unknown version or older than the maximum age is
// refused, which the transport answers with 404 (the client re-initializes).
//
// A session is bound to the principal that initialized it: the MAC also
// covers the principal's kind and name (binding), which the id does not
// carry, so an id presented by another principal fails the check like a
// forged one: it gives no access and its notifications/cancelled reach
// nothing (docs/security.md).
type sessions struct {
	secret []byte
	maxAge time.Duration
	now    func() time.Time

	// verified remembers ids whose MAC was checked (id -> verifiedID), so
	// that a client's every request does not recompute an HMAC; the age is
	// still checked each time. At most maxVerified entries are kept.
	verified sync.Map
	count    atomic.Int64
}

// verifiedID is a checked session id.
type verifiedID struct {
	version string
	issued  time.Time
	elicit  bool // the client declared elicitation (form) in initialize
}

// maxVerified bounds the memory of checked ids.
const maxVerified = 10000

// errBadSession says a session id was forged, garbled, unknown or expired.
var errBadSession = errors.New("mcp: unknown or expired session")

// mint returns a new session id for a session negotiated at version by the
// principal binding names.
func (s *sessions) mint(version, binding string) string { return s.mintWith(version, binding, false) }

// mintWith is mint for a client that declared (elicit) or not the
// elicitation capability: the payload then ends in ".e", under the MAC, so
// that any replica knows the session's client can be asked to confirm a
// call (confirm.go).
func (s *sessions) mintWith(version, binding string, elicit bool) string {
	var nonce [9]byte
	_, _ = rand.Read(nonce[:])
	payload := version + "." + strconv.FormatInt(s.now().Unix(), 10) + "." + base64.RawURLEncoding.EncodeToString(nonce[:])
	if elicit {
		payload += ".e"
	}
	p := base64.RawURLEncoding.EncodeToString([]byte(payload))
	return "s1." + p + "." + base64.RawURLEncoding.EncodeToString(s.mac(p, binding))
}

// mac is the truncated HMAC of the encoded payload and the binding.
func (s *sessions) mac(p, binding string) []byte {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte("ghops-mcp-session\x00"))
	m.Write([]byte(binding))
	m.Write([]byte{0})
	m.Write([]byte(p))
	return m.Sum(nil)[:16]
}

// check verifies id as presented by the principal binding names and returns
// the protocol version the session negotiated.
func (s *sessions) check(id, binding string) (string, error) {
	v, err := s.lookup(id, binding)
	return v.version, err
}

// lookup is check returning all the id says.
func (s *sessions) lookup(id, binding string) (verifiedID, error) {
	key := binding + "\x00" + id
	if v, ok := s.verified.Load(key); ok {
		e := v.(verifiedID)
		if err := s.fresh(e.issued); err != nil {
			return verifiedID{}, err
		}
		return e, nil
	}
	e, err := s.verify(id, binding)
	if err != nil {
		return verifiedID{}, err
	}
	if s.count.Add(1) > maxVerified {
		s.verified.Clear()
		s.count.Store(1)
	}
	s.verified.Store(key, e)
	return e, nil
}

// fresh refuses an id issued longer than maxAge ago (or in the future).
func (s *sessions) fresh(issued time.Time) error {
	if s.maxAge > 0 {
		age := s.now().Sub(issued)
		if age > s.maxAge || age < -time.Minute {
			return errBadSession
		}
	}
	return nil
}

// verify checks id's MAC (under binding) and fields and returns what it
// says.
func (s *sessions) verify(id, binding string) (verifiedID, error) {
	bad := verifiedID{}
	if len(id) > 256 {
		return bad, errBadSession
	}
	parts := strings.Split(id, ".")
	if len(parts) != 3 || parts[0] != "s1" {
		return bad, errBadSession
	}
	got, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !hmac.Equal(got, s.mac(parts[1], binding)) {
		return bad, errBadSession
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return bad, errBadSession
	}
	fields := strings.Split(string(raw), ".")
	elicit := len(fields) == 4 && fields[3] == "e"
	if (len(fields) != 3 && !elicit) || !isSupported(fields[0]) || isModern(fields[0]) {
		return bad, errBadSession
	}
	secs, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil {
		return bad, errBadSession
	}
	issued := time.Unix(secs, 0)
	if err := s.fresh(issued); err != nil {
		return bad, err
	}
	return verifiedID{version: fields[0], issued: issued, elicit: elicit}, nil
}

// randomSecret returns 32 random bytes (a per-process session key).
func randomSecret() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return b
}
