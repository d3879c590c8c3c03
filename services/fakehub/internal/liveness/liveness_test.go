package liveness

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"ghops.dev/probe"
)

// TestHandler serves the endpoint in front of a stand-in hub that counts
// what reaches it: /healthz never does, everything else does; the binary's
// probe (ghops.dev/probe) sees 200 from it and an error from a server
// without it.
func TestHandler(t *testing.T) {
	var reached []string
	hub := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached = append(reached, r.Method+" "+r.URL.Path)
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(Handler(hub))
	t.Cleanup(srv.Close)
	listen := strings.TrimPrefix(srv.URL, "http://")
	if err := probe.HTTP(context.Background(), listen, Path); err != nil {
		t.Fatalf("probe: %v", err)
	}
	resp, err := http.Post(srv.URL+Path, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(reached) != 1 || reached[0] != "POST /healthz" {
		t.Errorf("requests that reached the hub: %q (want only the POST)", reached)
	}

	down := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(down.Close)
	if err := probe.HTTP(context.Background(), strings.TrimPrefix(down.URL, "http://"), Path); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("probe of a server without /healthz: %v", err)
	}
}
