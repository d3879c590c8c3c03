package loopback_test

import (
	"errors"
	"strings"
	"testing"

	"ghops.dev/infra/loopback"
)

func TestHostAndAddr(t *testing.T) {
	tests := []struct {
		name string
		host string
		addr string
		want bool
	}{
		{name: "localhost", host: "localhost", addr: "localhost:8788", want: true},
		{name: "localhost in capitals", host: "LocalHost", addr: "LOCALHOST:1", want: true},
		{name: "127.0.0.1", host: "127.0.0.1", addr: "127.0.0.1:50051", want: true},
		{name: "anywhere in 127/8", host: "127.3.2.1", addr: "127.3.2.1:80", want: true},
		{name: "IPv6 loopback", host: "::1", addr: "[::1]:80", want: true},
		{name: "IPv6 loopback in brackets", host: "[::1]", addr: "[::1]:0", want: true},
		{name: "every interface", host: "0.0.0.0", addr: "0.0.0.0:8788"},
		{name: "empty host", host: "", addr: ":8788"},
		{name: "public address", host: "192.0.2.1", addr: "192.0.2.1:443"},
		{name: "name resolving anywhere", host: "localhost.example.com", addr: "localhost.example.com:80"},
		{name: "IPv6 unspecified", host: "::", addr: "[::]:80"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := loopback.Host(tc.host); got != tc.want {
				t.Errorf("Host(%q) = %v, want %v", tc.host, got, tc.want)
			}
			if got := loopback.Addr(tc.addr); got != tc.want {
				t.Errorf("Addr(%q) = %v, want %v", tc.addr, got, tc.want)
			}
		})
	}
	t.Run("address without a port", func(t *testing.T) {
		if loopback.Addr("127.0.0.1") {
			t.Error(`Addr("127.0.0.1") = true, want false: a listen address names a port`)
		}
	})
}

func TestURLAndDialControl(t *testing.T) {
	tests := []struct {
		name    string
		url     string
		wantErr string // "" accepts
		notLoop bool   // the error is ErrNotLoopback
	}{
		{name: "loopback http", url: "http://127.0.0.1:8788"},
		{name: "localhost https", url: "https://localhost/mcp"},
		{name: "IPv6 loopback", url: "http://[::1]:80/"},
		{name: "remote address", url: "http://192.0.2.1:8788", wantErr: "must be on loopback", notLoop: true},
		{name: "name resolving anywhere", url: "http://gateway.example:8788", wantErr: "must be on loopback", notLoop: true},
		{name: "credentials", url: "http://u:p@127.0.0.1:1", wantErr: "must not carry credentials"},
		{name: "other scheme", url: "ftp://127.0.0.1/", wantErr: `not "ftp"`},
		{name: "not a URL", url: "http://[::1", wantErr: "bad URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := loopback.URL(tc.url)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("URL(%q) = %v, want nil", tc.url, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("URL(%q) = %v, want %q", tc.url, err, tc.wantErr)
			}
			if errors.Is(err, loopback.ErrNotLoopback) != tc.notLoop {
				t.Errorf("errors.Is(%v, ErrNotLoopback) = %v, want %v", err, !tc.notLoop, tc.notLoop)
			}
		})
	}
	t.Run("dial control", func(t *testing.T) {
		for addr, want := range map[string]error{"127.0.0.1:80": nil, "[::1]:443": nil, "192.0.2.1:80": loopback.ErrNotLoopback, "0.0.0.0:80": loopback.ErrNotLoopback} {
			if err := loopback.DialControl("tcp", addr, nil); !errors.Is(err, want) || (want == nil && err != nil) {
				t.Errorf("DialControl(%q) = %v, want %v", addr, err, want)
			}
		}
	})
}

func TestWildcard(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{host: "", want: true},
		{host: "0.0.0.0", want: true},
		{host: "::", want: true},
		{host: "[::]", want: true},
		{host: "127.0.0.1"},
		{host: "localhost"},
		{host: "192.0.2.1"},
		{host: "gateway.example"},
	}
	for _, tc := range tests {
		t.Run("host "+tc.host, func(t *testing.T) {
			if got := loopback.Wildcard(tc.host); got != tc.want {
				t.Errorf("Wildcard(%q) = %v, want %v", tc.host, got, tc.want)
			}
		})
	}
}
