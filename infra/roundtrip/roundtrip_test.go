package roundtrip_test

import (
	"net/http"
	"testing"

	"ghops.dev/infra/roundtrip"
)

type fixed struct{ http.RoundTripper }

func TestOrDefault(t *testing.T) {
	given := &fixed{}
	tests := []struct {
		name string
		base http.RoundTripper
		want http.RoundTripper
	}{
		{name: "nil falls back to http.DefaultTransport", base: nil, want: http.DefaultTransport},
		{name: "a given base is kept", base: given, want: given},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := roundtrip.OrDefault(tt.base); got != tt.want {
				t.Errorf("OrDefault(%v) = %v, want %v", tt.base, got, tt.want)
			}
		})
	}
}
