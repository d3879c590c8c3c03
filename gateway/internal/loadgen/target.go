package loadgen

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"ghops.dev/infra/loopback"
)

// ErrNotLoopback is returned for a target that is not on the loopback range: the load generator
// only ever drives a stack on this machine.
var ErrNotLoopback = loopback.ErrNotLoopback

// CheckLoopback accepts an http(s) URL whose host is localhost, an address in 127.0.0.0/8 or ::1,
// and refuses anything else, including names that merely resolve to loopback and URLs carrying
// credentials (package loopback).
func CheckLoopback(raw string) error {
	if err := loopback.URL(raw); err != nil {
		return fmt.Errorf("loadgen: target %w", err)
	}
	return nil
}

// newClient returns an HTTP client that can only connect to loopback addresses (checked on the
// resolved address at dial time, so a name resolving elsewhere is refused too) and never follows
// redirects.
func newClient(conns int) *http.Client {
	d := &net.Dialer{
		Timeout: 5 * time.Second,
		Control: loopback.DialControl,
	}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		MaxIdleConns:        conns + 4,
		MaxIdleConnsPerHost: conns + 4,
		IdleConnTimeout:     30 * time.Second,
		ForceAttemptHTTP2:   false,
	}
	return &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
