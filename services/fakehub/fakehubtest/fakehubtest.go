// Package fakehubtest starts a fakehub on a loopback httptest server for the duration of a test.
package fakehubtest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"ghops.dev/services/fakehub"
)

// Server is a running fakehub. URL is the API root with a trailing slash, ready for go-github's
// BaseURL.
type Server struct {
	URL string
	Hub *fakehub.Hub
}

// Start builds a hub from cfg and serves it on 127.0.0.1; t.Cleanup closes it.
func Start(t testing.TB, cfg fakehub.Config) *Server {
	t.Helper()
	return StartWrapped(t, cfg, nil)
}

// StartWrapped is Start with the hub's handler wrapped by wrap (nil: none),
// for a test that must see a request arrive before the hub answers it.
func StartWrapped(t testing.TB, cfg fakehub.Config, wrap func(http.Handler) http.Handler) *Server {
	t.Helper()
	h, err := fakehub.New(cfg)
	if err != nil {
		t.Fatalf("fakehubtest: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fakehubtest: listen: %v", err)
	}
	var handler http.Handler = h
	if wrap != nil {
		handler = wrap(h)
	}
	srv := httptest.NewUnstartedServer(handler)
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return &Server{URL: srv.URL + "/", Hub: h}
}
