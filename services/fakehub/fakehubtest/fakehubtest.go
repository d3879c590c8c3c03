// Package fakehubtest starts a fakehub on a loopback httptest server for the duration of a test.
package fakehubtest

import (
	"net"
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
	h, err := fakehub.New(cfg)
	if err != nil {
		t.Fatalf("fakehubtest: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fakehubtest: listen: %v", err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return &Server{URL: srv.URL + "/", Hub: h}
}
