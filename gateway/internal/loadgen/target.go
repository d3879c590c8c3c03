package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"ghops.dev/infra/loopback"
)

// ErrNotLoopback is returned for a target that is not on the loopback range: the load generator
// only ever drives a stack on this machine.
var ErrNotLoopback = errors.New("loadgen: target must be on the loopback range (127.0.0.0/8, ::1 or localhost)")

// CheckLoopback accepts an http(s) URL whose host is localhost, an address in 127.0.0.0/8 or ::1,
// and refuses anything else, including names that merely resolve to loopback and URLs carrying
// credentials.
func CheckLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("loadgen: bad URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("loadgen: URL scheme must be http or https, not %q", u.Scheme)
	}
	if u.User != nil {
		return errors.New("loadgen: URL must not carry credentials")
	}
	if !loopback.Host(u.Hostname()) {
		return ErrNotLoopback
	}
	return nil
}

// newClient returns an HTTP client that can only connect to loopback addresses (checked on the
// resolved address at dial time, so a name resolving elsewhere is refused too) and never follows
// redirects.
func newClient(conns int) *http.Client {
	d := &net.Dialer{
		Timeout: 5 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil || !loopback.Host(host) {
				return ErrNotLoopback
			}
			return nil
		},
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
