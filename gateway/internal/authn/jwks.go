package authn

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// maxJWKSBytes bounds a JWKS document (a few keys are a few KB).
const maxJWKSBytes = 1 << 20

// jwksLimiter is the transport of the JWKS fetches: at most one request
// reaches the issuer per interval, and within it the last good answer is
// served from memory. go-oidc's RemoteKeySet fetches the set again for
// every token it cannot verify with the keys it holds and has no limit of
// its own; wrapping its HTTP client keeps the library's verification (key
// selection, algorithms, claims) and bounds only what an attacker can make
// the gateway send.
type jwksLimiter struct {
	base     http.RoundTripper
	interval time.Duration
	now      func() time.Time

	mu      sync.Mutex
	last    time.Time // the last request sent to the issuer
	body    []byte    // the last 200 answer's body (nil: none yet)
	header  http.Header
	fetches int // requests sent to the issuer (tests read it)
}

// newJWKSLimiter wraps base (nil: http.DefaultTransport).
func newJWKSLimiter(base http.RoundTripper, interval time.Duration) *jwksLimiter {
	if base == nil {
		base = http.DefaultTransport
	}
	return &jwksLimiter{base: base, interval: interval, now: time.Now}
}

// errJWKSLimited refuses a fetch within the interval when no good answer
// is held (the last fetch failed).
var errJWKSLimited = errors.New("authn: the JWKS was fetched moments ago and failed; not fetching again yet")

// RoundTrip implements http.RoundTripper. The lock is held across the
// request so that concurrent refetches become one.
func (l *jwksLimiter) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if !l.last.IsZero() && now.Sub(l.last) < l.interval {
		if l.body == nil {
			return nil, errJWKSLimited
		}
		return l.cached(r), nil
	}
	l.last = now
	l.fetches++
	resp, err := l.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("authn: read JWKS: %w", err)
	}
	if len(b) > maxJWKSBytes {
		return nil, fmt.Errorf("authn: JWKS larger than %d bytes", maxJWKSBytes)
	}
	if resp.StatusCode == http.StatusOK {
		l.body, l.header = b, resp.Header.Clone()
		return l.cached(r), nil
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

// cached answers r with the last good JWKS.
func (l *jwksLimiter) cached(r *http.Request) *http.Response {
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: l.header.Clone(), Body: io.NopCloser(bytes.NewReader(l.body)), ContentLength: int64(len(l.body)), Request: r,
	}
}
