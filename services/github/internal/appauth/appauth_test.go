package appauth_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"ghops.dev/services/fakehub"

	"ghops.dev/services/github/internal/appauth"
)

// TestTransport sends requests through a Transport to fakehub and records
// the Authorization each one arrived with.
func TestTransport(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	hub, err := fakehub.New(fakehub.Config{Seed: "demo", Apps: []fakehub.App{{ID: 1, PublicKey: &key.PublicKey,
		Installations: []fakehub.Installation{{ID: 2, Repos: map[string]fakehub.Permission{"*": fakehub.PermRead}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/access_tokens") {
			mu.Lock()
			seen = append(seen, r.Header.Get("Authorization"))
			mu.Unlock()
		}
		hub.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	tr, err := appauth.New(http.DefaultTransport, srv.URL+"/", 1, 2, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	other, err := appauth.New(http.DefaultTransport, srv.URL+"/", 1, 3, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Identity() == other.Identity() || strings.Contains(tr.Identity(), "ghs_") {
		t.Fatalf("identities %q and %q", tr.Identity(), other.Identity())
	}
	tests := []struct {
		name   string
		rt     http.RoundTripper
		auth   string
		want   func(string) bool
		status int
	}{
		{name: "marked requests go out with an installation token", rt: tr.Mark(tr), status: 200,
			want: func(a string) bool { return strings.HasPrefix(a, "token ghs_") }},
		{name: "a caller's own token passes untouched", rt: tr, auth: "Bearer ghops-demo-token", status: 200,
			want: func(a string) bool { return a == "Bearer ghops-demo-token" }},
		{name: "anonymous stays anonymous", rt: tr, status: 200,
			want: func(a string) bool { return a == "" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/repos/octo-org/hello-world", nil)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := tc.rt.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			mu.Lock()
			last := seen[len(seen)-1]
			mu.Unlock()
			if resp.StatusCode != tc.status || !tc.want(last) {
				t.Fatalf("status %d, Authorization %q", resp.StatusCode, last)
			}
			if req.Header.Get("Authorization") != tc.auth {
				t.Errorf("the caller's request was changed: %q", req.Header.Get("Authorization"))
			}
		})
	}
}

func TestBadKey(t *testing.T) {
	_, err := appauth.New(http.DefaultTransport, "https://api.github.com/", 1, 2, []byte("-----BEGIN RSA PRIVATE KEY-----\nc2VjcmV0\n-----END RSA PRIVATE KEY-----\n"))
	if err == nil || strings.Contains(err.Error(), "c2VjcmV0") {
		t.Fatalf("err = %v", err)
	}
}
