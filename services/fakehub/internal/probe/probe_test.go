package probe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestTarget(t *testing.T) {
	tests := []struct{ listen, want, wantErr string }{
		{listen: "0.0.0.0:8789", want: "127.0.0.1:8789"},
		{listen: ":8789", want: "127.0.0.1:8789"},
		{listen: "[::]:8789", want: "[::1]:8789"},
		{listen: "127.0.0.1:8789", want: "127.0.0.1:8789"},
		{listen: "fakehub:8789", want: "fakehub:8789"},
		{listen: "8789", wantErr: "missing port"},
	}
	for _, tc := range tests {
		t.Run(tc.listen, func(t *testing.T) {
			got, err := Target(tc.listen)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Target(%q) = %q, %v; want %q", tc.listen, got, err, tc.want)
			}
		})
	}
}

// TestHandlerAndCheck serves the probe in front of a stand-in hub that
// counts what reaches it: /healthz never does, everything else does.
func TestHandlerAndCheck(t *testing.T) {
	var reached []string
	hub := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached = append(reached, r.Method+" "+r.URL.Path)
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(Handler(hub))
	t.Cleanup(srv.Close)
	listen := strings.TrimPrefix(srv.URL, "http://")
	if err := Check(context.Background(), listen); err != nil {
		t.Fatalf("Check: %v", err)
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
	if err := Check(context.Background(), strings.TrimPrefix(down.URL, "http://")); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("Check of a server without /healthz: %v", err)
	}
}
