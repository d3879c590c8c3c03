package authn

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ghops.dev/gateway/internal/policy"
)

// startUser serves GitHub's GET /user on 127.0.0.1: the login of the one
// token it knows, 401 for any other; it counts the requests.
func startUser(t testing.TB, token, login string) (url string, calls *atomic.Int64) {
	t.Helper()
	calls = &atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/user" || r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, `{"login":"`+login+`"}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, calls
}

// TestOnlyGitHubShapedBearersReachGitHub: a bearer that is not a GitHub
// token (an API key, a JWT, the service's own made-up token) is refused
// without being sent to GitHub's /user; GitHub-shaped ones are verified.
func TestOnlyGitHubShapedBearersReachGitHub(t *testing.T) {
	const good = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	url, calls := startUser(t, good, "octocat")
	a, err := New(context.Background(), Options{Issuer: IssuerGitHub, GitHubAPIURL: url, ResourceURL: "http://127.0.0.1:8788/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		token     string
		sent      bool
		wantLogin string
	}{
		{"classic token", good, true, "github:octocat"},
		{"unknown classic token", "ghp_ffffffffffffffffffffffffffffffffffff", true, ""},
		{"fine-grained token", "github_pat_11ABCDEFG0123456789_abcdefghij", true, ""},
		{"legacy 40 hex", strings.Repeat("ab", 20), true, ""},
		{"API-key shaped", "ghk_bot_0123456789abcdef0123456789", false, ""},
		{"made-up token", "ghops-demo-token", false, ""},
		{"JWT shaped", "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln", false, ""},
		{"prefix alone", "ghp_", false, ""},
		{"token with a space", "ghp_0123456789 abcdef", false, ""},
		{"uppercase hex", strings.Repeat("AB", 20), false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := calls.Load()
			c, err := a.authenticate(context.Background(), tc.token)
			if sent := calls.Load() > before; sent != tc.sent {
				t.Fatalf("sent to /user: %v, want %v", sent, tc.sent)
			}
			switch {
			case tc.wantLogin != "":
				if err != nil || c.Principal == nil || c.Principal.Name != tc.wantLogin || c.Via != policy.KindGitHub {
					t.Fatalf("caller %+v err %v", c, err)
				}
			case err == nil:
				t.Fatalf("accepted: %+v", c)
			}
		})
	}
}

// FuzzBearerNeverLeaves: whatever the bearer, one that is not GitHub-shaped
// never reaches GitHub, and none is accepted but the one GitHub knows.
func FuzzBearerNeverLeaves(f *testing.F) {
	const good = "gho_0123456789abcdefghijABCDEFGHIJ012345"
	for _, s := range []string{good, "ghk_x", "", "a.b.c", "github_pat_", strings.Repeat("0", 40), "ghp_\x00abcdefgh", "ghs_" + strings.Repeat("a", 300)} {
		f.Add(s)
	}
	url, calls := startUser(f, good, "octocat")
	a, err := New(context.Background(), Options{Issuer: IssuerGitHub, GitHubAPIURL: url, ResourceURL: "http://127.0.0.1:8788/mcp"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, token string) {
		before := calls.Load()
		c, err := a.authenticate(context.Background(), token)
		if !githubShaped.MatchString(token) && calls.Load() != before {
			t.Fatalf("%q was sent to GitHub", token)
		}
		if err == nil && token != good {
			t.Fatalf("%q accepted as %+v", token, c)
		}
	})
}

// TestJWKSLimiter: within the interval one request reaches the issuer and
// the others get its answer from memory; a failed fetch is not retried
// within the interval either; after it, the issuer is asked again.
func TestJWKSLimiter(t *testing.T) {
	var hits atomic.Int64
	var fail atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		if fail.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, `{"keys":[]}`)
	}))
	t.Cleanup(srv.Close)
	now := time.Unix(1_800_000_000, 0)
	l := newJWKSLimiter(nil, time.Minute)
	l.now = func() time.Time { return now }
	client := &http.Client{Transport: l}
	get := func() (int, string, error) {
		resp, err := client.Get(srv.URL)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), nil
	}
	steps := []struct {
		name     string
		advance  time.Duration
		fail     bool
		wantHits int64
		wantErr  bool
		wantBody string
	}{
		{"first fetch", 0, false, 1, false, `{"keys":[]}`},
		{"again at once: from memory", time.Second, false, 1, false, `{"keys":[]}`},
		{"many times within the minute", 58 * time.Second, false, 1, false, `{"keys":[]}`},
		{"after the minute: fetched", 2 * time.Second, true, 2, false, ""},
		{"the failure kept the last good set", time.Second, true, 2, false, `{"keys":[]}`},
		{"next minute: fetched again", time.Minute, false, 3, false, `{"keys":[]}`},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			now = now.Add(s.advance)
			fail.Store(s.fail)
			for range 5 {
				status, body, err := get()
				if (err != nil) != s.wantErr {
					t.Fatalf("err %v", err)
				}
				if s.wantBody != "" && (status != 200 || body != s.wantBody) {
					t.Fatalf("%d %q", status, body)
				}
				if s.wantBody == "" {
					break // the failed fetch itself: asked once
				}
			}
			if got := hits.Load(); got != s.wantHits {
				t.Fatalf("issuer asked %d times, want %d", got, s.wantHits)
			}
		})
	}
	t.Run("no good set and a failure: refused within the minute", func(t *testing.T) {
		fresh := newJWKSLimiter(nil, time.Minute)
		fresh.now = func() time.Time { return now }
		fail.Store(true)
		c := &http.Client{Transport: fresh}
		resp, err := c.Get(srv.URL)
		if err != nil || resp.StatusCode != 500 {
			t.Fatalf("first: %v %v", resp, err)
		}
		resp.Body.Close()
		before := hits.Load()
		if _, err := c.Get(srv.URL); err == nil {
			t.Fatal("a second fetch within the minute was allowed")
		}
		if hits.Load() != before {
			t.Fatal("the issuer was asked again")
		}
	})
}

// TestWildcardResourceURL: OAuth on a wildcard address needs -resource-url.
func TestWildcardResourceURL(t *testing.T) {
	tests := []struct {
		resource string
		wantErr  bool
	}{
		{"http://0.0.0.0:8788/mcp", true},
		{"http://[::]:8788/mcp", true},
		{"http://:8788/mcp", true},
		{"http://127.0.0.1:8788/mcp", false},
		{"https://ghops.example/mcp", false},
	}
	for _, tc := range tests {
		t.Run(tc.resource, func(t *testing.T) {
			_, err := New(context.Background(), Options{Issuer: IssuerGitHub, GitHubAPIURL: "https://api.github.com/", ResourceURL: tc.resource})
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, wantErr %v", err, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "-resource-url") {
				t.Fatalf("the error does not name the flag: %v", err)
			}
		})
	}
}
