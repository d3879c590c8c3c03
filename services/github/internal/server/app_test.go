package server_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/servicetest"
)

const (
	appID          = 42
	installationID = 7
)

// appKey writes a fresh App private key (PKCS#1 PEM, as GitHub hands them
// out) and returns its path and public half.
func appKey(t *testing.T) (string, *rsa.PublicKey) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "app.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, &k.PublicKey
}

// TestGitHubApp runs the service as an App installation against fakehub,
// which issues tokens living ttl: calls work end to end (on a private
// repository only the installation may read), the conditional cache keeps
// one identity per installation across token renewals, and a token is
// renewed before it expires.
func TestGitHubApp(t *testing.T) {
	tests := []struct {
		name string
		// ttl is the life of fakehub's tokens. ghinstallation renews a token
		// a minute before its expiry: with an hour, the first token serves
		// every call; with 30 seconds, every call finds its token inside
		// that minute and renews it first.
		ttl   time.Duration
		calls int
		// renewEach: a token per GitHub request; else one in all.
		renewEach bool
	}{
		{name: "one token serves while fresh", ttl: time.Hour, calls: 3},
		{name: "renewed before expiry", ttl: 30 * time.Second, calls: 3, renewEach: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			keyFile, pub := appKey(t)
			hs := fakehubtest.Start(t, fakehub.Config{Seed: "demo", AppTokenTTL: tc.ttl, Apps: []fakehub.App{{ID: appID, PublicKey: pub,
				Installations: []fakehub.Installation{{ID: installationID, Repos: map[string]fakehub.Permission{"octo-org/secret": fakehub.PermRead}}}}}})
			var logs syncBuffer
			svc := servicetest.Start(t, servicetest.Options{GitHubURL: hs.URL, GitHubAppID: appID, GitHubAppKeyFile: keyFile,
				GitHubAppInstallationID: installationID, Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			for i := range tc.calls {
				r, err := svc.Client.Fetch(ctx(t), &ghopsv1.FetchRequest{Repo: "octo-org/secret"})
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if r.GetRepository().GetFullName() != "octo-org/secret" {
					t.Fatalf("call %d: answer %v", i, r)
				}
			}
			st := hs.Hub.Stats()
			apiCalls := st.Total - st.ByRoute["POST /app/installations/{installation_id}/access_tokens"]
			want := 1
			if tc.renewEach {
				want = apiCalls
			}
			if got := hs.Hub.AppTokensIssued(); got != want || apiCalls < tc.calls {
				t.Errorf("tokens issued = %d for %d GitHub requests, want %d", got, apiCalls, want)
			}
			if n := st.ByStatus[401]; n != 0 {
				t.Errorf("%d requests went out with an expired or bad token", n)
			}
			// Every call after the first was answered 304 from the cache:
			// its key is the installation, whatever token went out.
			if n := st.ByStatus[304]; n == 0 {
				t.Errorf("no conditional hit across %d calls: the cache keys on the rotating token (stats %v)", tc.calls, st.ByStatus)
			}
			if out := logs.String(); strings.Contains(out, "ghs_") || strings.Contains(out, "PRIVATE KEY") {
				t.Errorf("a token or the key reached the log:\n%s", out)
			}
		})
	}
}

// TestGitHubAppRefused: an App fakehub does not trust gets no token, and
// the call fails as an unavailable upstream, not with the service's
// credentials leaking anywhere.
func TestGitHubAppRefused(t *testing.T) {
	keyFile, _ := appKey(t)
	_, otherPub := appKey(t)
	hs := fakehubtest.Start(t, fakehub.Config{Seed: "demo", Apps: []fakehub.App{{ID: appID, PublicKey: otherPub,
		Installations: []fakehub.Installation{{ID: installationID, Repos: map[string]fakehub.Permission{"*": fakehub.PermRead}}}}}})
	svc := servicetest.Start(t, servicetest.Options{GitHubURL: hs.URL, GitHubAppID: appID, GitHubAppKeyFile: keyFile, GitHubAppInstallationID: installationID})
	_, err := svc.Client.Fetch(ctx(t), &ghopsv1.FetchRequest{Repo: "octo-org/hello-world"})
	if err == nil {
		t.Fatal("a call without an installation token succeeded")
	}
	if c := status.Code(err); c == codes.OK || c == codes.InvalidArgument {
		t.Fatalf("code %s: %v", c, err)
	}
	if strings.Contains(err.Error(), "eyJ") {
		t.Errorf("the error holds a JWT: %v", err)
	}
	if hs.Hub.AppTokensIssued() != 0 {
		t.Error("a token was issued to an untrusted key")
	}
}
