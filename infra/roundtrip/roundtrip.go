// Package roundtrip holds what the HTTP client layers of the binaries share
// (the GitHub service stacks a cache, metrics, a budget, a per-call cap and
// progress counting around one transport): each layer wraps a Base that may
// be left nil, and the rule for nil is decided here once.
package roundtrip

import "net/http"

// OrDefault returns base, or http.DefaultTransport when base is nil: the
// base a layer sends through when none was given.
func OrDefault(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		return http.DefaultTransport
	}
	return base
}
