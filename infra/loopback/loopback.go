// Package loopback is the one answer to "does this stay on this machine?"
// for every binary: the gateway and the service refuse to serve a
// non-loopback address without authentication, the gateway's browser guard
// trusts loopback Hosts and Origins, and ghops-load only ever targets
// loopback. Each used to carry its own copy of the test.
//
// Only the literal name localhost (any case) and IP literals in
// 127.0.0.0/8 or ::1 count: a name that merely resolves to loopback does
// not, since what it resolves to can change after the check.
package loopback

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// ErrNotLoopback is the refusal of a host or address that is not on
// loopback.
var ErrNotLoopback = errors.New("must be on loopback (127.0.0.0/8, ::1 or localhost)")

// Host reports whether host, a name or an IP literal (IPv6 with or without
// brackets), is localhost or a loopback IP.
func Host(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Wildcard reports whether host, a listen address's host, is empty or an
// unspecified IP (0.0.0.0, ::): such an address listens on every interface
// and names no server a client could be sent to.
func Wildcard(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	ip := net.ParseIP(host)
	return host == "" || ip != nil && ip.IsUnspecified()
}

// Addr reports whether addr, a host:port listen or dial address, is on
// loopback only. An address without a port, or with an empty host (which
// listens on every interface), is not.
func Addr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && Host(host)
}

// URL accepts an http(s) URL whose host is on loopback (Host) and that
// carries no credentials; anything else is an error, ErrNotLoopback when
// only the host is wrong.
func URL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("bad URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("URL scheme must be http or https, not %q", u.Scheme)
	}
	if u.User != nil {
		return errors.New("URL must not carry credentials")
	}
	if !Host(u.Hostname()) {
		return ErrNotLoopback
	}
	return nil
}

// DialControl is a net.Dialer Control function that refuses to connect
// anywhere but loopback: it sees the resolved address, so a name that
// resolves elsewhere is refused too.
func DialControl(_, address string, _ syscall.RawConn) error {
	if !Addr(address) {
		return ErrNotLoopback
	}
	return nil
}
