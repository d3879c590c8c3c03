package app

import (
	"slices"
	"testing"

	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/logtest"
	"ghops.dev/gateway/internal/toolcall"
)

// TestCallLinks: the gateway runs every tool call through callLinks, and
// that order is toolcall's StandardLinks, the one the other packages'
// tests run (a change to one must be made to the other).
func TestCallLinks(t *testing.T) {
	cfg := config.Default()
	cfg.Addr = "127.0.0.1:0"
	cfg.ServiceAddr = "127.0.0.1:1" // dialled lazily: nothing is called
	a, err := New(cfg, &logtest.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	names := func(links []toolcall.Interceptor) []string {
		var n []string
		for _, l := range links {
			n = append(n, l.Name)
		}
		return n
	}
	declared := names(callLinks(a.Caller))
	tests := []struct {
		name string
		got  []string
	}{
		{"the app's caller runs callLinks", a.Caller.Links()},
		{"callLinks is toolcall's standard order", names(a.Caller.StandardLinks())},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !slices.Equal(tc.got, declared) {
				t.Fatalf("%v, want %v", tc.got, declared)
			}
		})
	}
}
