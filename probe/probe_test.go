package probe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestTarget(t *testing.T) {
	tests := []struct{ listen, want string }{
		{"0.0.0.0:8788", "127.0.0.1:8788"},
		{":8788", "127.0.0.1:8788"},
		{"[::]:8788", "[::1]:8788"},
		{"127.0.0.1:8788", "127.0.0.1:8788"},
		{"gateway:8788", "gateway:8788"},
	}
	for _, tc := range tests {
		t.Run(tc.listen, func(t *testing.T) {
			if got, err := Target(tc.listen); err != nil || got != tc.want {
				t.Fatalf("Target(%q) = %q, %v; want %q", tc.listen, got, err, tc.want)
			}
		})
	}
	if _, err := Target("8788"); err == nil {
		t.Error("Target accepted an address without a port")
	}
}

func TestHTTP(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		wantErr string
	}{
		{"ready", http.StatusOK, ""},
		{"not ready", http.StatusServiceUnavailable, "503"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var path string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				path = r.URL.Path
				w.WriteHeader(tc.status)
			}))
			defer srv.Close()
			err := HTTP(context.Background(), strings.TrimPrefix(srv.URL, "http://"), "/readyz")
			if path != "/readyz" {
				t.Errorf("probed %q, want /readyz", path)
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("Ready = %v, want %q", err, tc.wantErr)
			}
		})
	}
}
