package loopback_test

import (
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
