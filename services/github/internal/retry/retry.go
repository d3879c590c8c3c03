// Package retry is an http.RoundTripper that retries GitHub reads (GET and
// HEAD only) on 5xx answers and connection failures, with exponential
// backoff and jitter, and waits out a secondary rate limit whose
// retry-after is short. Mutations pass through untouched: a POST that may
// have reached GitHub is never sent twice blindly. No wait outlasts the
// request's deadline. A request refused before it was sent (an error with
// Unretryable() true) is not retried.
package retry

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"ghops.dev/infra/ctxsleep"
)

// Transport is the retrying round tripper.
type Transport struct {
	// Base sends the requests (http.DefaultTransport when nil).
	Base http.RoundTripper
	// Retries is the number of retries after the first attempt.
	Retries int
	// BaseDelay is the first backoff, doubled on each retry.
	BaseDelay time.Duration
	// MaxRetryAfter is the longest secondary-limit retry-after waited out.
	MaxRetryAfter time.Duration
}

func (t *Transport) base() http.RoundTripper {
	if t.Base == nil {
		return http.DefaultTransport
	}
	return t.Base
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		return t.base().RoundTrip(req)
	}
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		resp, err := t.base().RoundTrip(req.Clone(ctx))
		if ctx.Err() != nil {
			if resp != nil {
				_ = resp.Body.Close()
			}
			return nil, ctx.Err()
		}
		last := attempt >= t.Retries
		var wait time.Duration
		switch {
		case err != nil:
			if last || unretryable(err) {
				return nil, err
			}
			wait = t.backoff(attempt)
		case resp.StatusCode >= 500:
			if last {
				return resp, nil
			}
			wait = t.backoff(attempt)
		case resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests:
			ra, secondary := secondaryWait(resp)
			if !secondary || last || ra > t.MaxRetryAfter {
				return resp, nil
			}
			wait = ra + time.Duration(rand.Int64N(int64(50*time.Millisecond)))
		default:
			return resp, nil
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			// Waiting would outlast the call: answer with what we have.
			if err != nil {
				return nil, err
			}
			return resp, nil
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			_ = resp.Body.Close()
		}
		if err := ctxsleep.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// unretryable tells whether err says the request must not be sent again
// (a budget's refusal: it was not sent, and sending it would break the
// budget).
func unretryable(err error) bool {
	var u interface{ Unretryable() bool }
	return errors.As(err, &u) && u.Unretryable()
}

// backoff is exponential with equal jitter: between half and all of base·2^n.
func (t *Transport) backoff(attempt int) time.Duration {
	d := t.BaseDelay << attempt
	if d <= 0 {
		d = time.Millisecond
	}
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// secondaryWait tells whether resp is a secondary rate limit and how long it
// asks to wait. A primary limit (remaining 0, no retry-after) is not waited out.
func secondaryWait(resp *http.Response) (time.Duration, bool) {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	rest := resp.Body
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), rest), rest}
	ra := strings.TrimSpace(resp.Header.Get("Retry-After"))
	secs, raErr := strconv.Atoi(ra)
	secondary := strings.Contains(strings.ToLower(string(body)), "secondary rate limit") ||
		(raErr == nil && resp.Header.Get("X-Ratelimit-Remaining") != "0")
	if !secondary || raErr != nil || secs < 0 {
		return 0, false
	}
	return time.Duration(secs) * time.Second, true
}
