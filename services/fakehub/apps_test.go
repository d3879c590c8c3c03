package fakehub_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
)

// clock is a settable time source for the hub.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func rsaKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// appJWT signs claims for an App as GitHub Apps do.
func appJWT(t *testing.T, method jwt.SigningMethod, key any, iss string, iat, exp time.Time) string {
	t.Helper()
	s, err := jwt.NewWithClaims(method, jwt.RegisteredClaims{Issuer: iss, IssuedAt: jwt.NewNumericDate(iat), ExpiresAt: jwt.NewNumericDate(exp)}).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func do(t *testing.T, method, url, auth string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}

func TestAppInstallationTokens(t *testing.T) {
	clk := &clock{now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	key, other := rsaKey(t), rsaKey(t)
	hs := fakehubtest.Start(t, fakehub.Config{Seed: "demo", Now: clk.Now, AppTokenTTL: 10 * time.Minute, Apps: []fakehub.App{
		{ID: 42, PublicKey: &key.PublicKey, Installations: []fakehub.Installation{{ID: 7, Repos: map[string]fakehub.Permission{"octo-org/secret": fakehub.PermRead}}}},
		{ID: 43, PublicKey: &other.PublicKey, Installations: []fakehub.Installation{{ID: 8}}},
	}})
	now := clk.Now()
	good := appJWT(t, jwt.SigningMethodRS256, key, "42", now.Add(-30*time.Second), now.Add(2*time.Minute))
	tokenURL := hs.URL + "app/installations/7/access_tokens"

	refusals := []struct {
		name, url, auth string
		status          int
		msg             string
	}{
		{name: "no credentials", url: tokenURL, status: 401, msg: "could not be decoded"},
		{name: "not a JWT", url: tokenURL, auth: "Bearer nope", status: 401, msg: "could not be decoded"},
		{name: "signed by another key", url: tokenURL, auth: "Bearer " + appJWT(t, jwt.SigningMethodRS256, other, "42", now, now.Add(time.Minute)), status: 401, msg: "could not be decoded"},
		{name: "HMAC instead of RS256", url: tokenURL, auth: "Bearer " + appJWT(t, jwt.SigningMethodHS256, []byte("k"), "42", now, now.Add(time.Minute)), status: 401, msg: "could not be decoded"},
		{name: "unknown app", url: tokenURL, auth: "Bearer " + appJWT(t, jwt.SigningMethodRS256, key, "99", now, now.Add(time.Minute)), status: 401, msg: "could not be decoded"},
		{name: "expired JWT", url: tokenURL, auth: "Bearer " + appJWT(t, jwt.SigningMethodRS256, key, "42", now.Add(-20*time.Minute), now.Add(-10*time.Minute)), status: 401, msg: "Expiration time"},
		{name: "exp too far ahead", url: tokenURL, auth: "Bearer " + appJWT(t, jwt.SigningMethodRS256, key, "42", now, now.Add(time.Hour)), status: 401, msg: "too far in the future"},
		{name: "another app's installation", url: hs.URL + "app/installations/8/access_tokens", auth: "Bearer " + good, status: 404},
		{name: "unknown installation", url: hs.URL + "app/installations/9/access_tokens", auth: "Bearer " + good, status: 404},
		{name: "the JWT is no API token", url: hs.URL + "repos/octo-org/secret", auth: "Bearer " + good, status: 401, msg: "Bad credentials"},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			status, body := do(t, http.MethodPost, tc.url, tc.auth)
			if strings.Contains(tc.url, "/repos/") {
				status, body = do(t, http.MethodGet, tc.url, tc.auth)
			}
			if status != tc.status {
				t.Fatalf("status %d want %d: %v", status, tc.status, body)
			}
			if msg, _ := body["message"].(string); !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q want %q", msg, tc.msg)
			}
		})
	}
	if n := hs.Hub.AppTokensIssued(); n != 0 {
		t.Fatalf("refusals issued %d tokens", n)
	}

	status, body := do(t, http.MethodPost, tokenURL, "Bearer "+good)
	if status != 201 {
		t.Fatalf("exchange: %d %v", status, body)
	}
	tok, _ := body["token"].(string)
	exp, err := time.Parse(time.RFC3339, body["expires_at"].(string))
	if !strings.HasPrefix(tok, "ghs_") || len(tok) != 40 || err != nil || !exp.Equal(now.Add(10*time.Minute)) {
		t.Fatalf("token %q expires_at %v (%v)", tok, body["expires_at"], err)
	}
	steps := []struct {
		name, method, url string
		advance           time.Duration
		status            int
	}{
		{name: "the token reads what the installation may", method: "GET", url: hs.URL + "repos/octo-org/secret", status: 200},
		{name: "and writes nothing it may not", method: "DELETE", url: hs.URL + "repos/octo-org/hello-world/git/refs/heads/main", status: 403},
		{name: "still valid a second before expiry", method: "GET", advance: 10*time.Minute - time.Second, url: hs.URL + "repos/octo-org/secret", status: 200},
		{name: "refused once expired", method: "GET", advance: time.Second, url: hs.URL + "repos/octo-org/secret", status: 401},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			clk.Add(st.advance)
			got, body := do(t, st.method, st.url, "token "+tok)
			if got != st.status {
				t.Fatalf("status %d want %d: %v", got, st.status, body)
			}
		})
	}
}

// FuzzAppTokenExchange sends arbitrary Authorization values to the token
// exchange: no panic, the answer is 401 or 404 with GitHub's error shape,
// and no token is ever issued without a JWT the App's key signed.
func FuzzAppTokenExchange(f *testing.F) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		f.Fatal(err)
	}
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		f.Fatal(err)
	}
	now := time.Now()
	sign := func(m jwt.SigningMethod, k any, iss string) string {
		s, err := jwt.NewWithClaims(m, jwt.RegisteredClaims{Issuer: iss, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Minute))}).SignedString(k)
		if err != nil {
			f.Fatal(err)
		}
		return s
	}
	for _, seed := range []string{"", "Bearer", "Bearer ", "Bearer x.y.z", "bearer a.b", "Basic Zm9vOmJhcg==",
		"Bearer " + sign(jwt.SigningMethodRS256, other, "42"), "Bearer " + sign(jwt.SigningMethodHS256, []byte("k"), "42"),
		"Bearer " + sign(jwt.SigningMethodRS256, other, "x"), "Bearer eyJhbGciOiJub25lIn0.eyJpc3MiOiI0MiJ9."} {
		f.Add(seed)
	}
	h, err := fakehub.New(fakehub.Config{Apps: []fakehub.App{{ID: 42, PublicKey: &key.PublicKey, Installations: []fakehub.Installation{{ID: 7}}}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, auth string) {
		req := httptest.NewRequest(http.MethodPost, "/app/installations/7/access_tokens", nil)
		req.Header["Authorization"] = []string{auth}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 401 && rec.Code != 404 {
			t.Fatalf("status %d for %q: %s", rec.Code, auth, rec.Body)
		}
		var body map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body["message"] == nil {
			t.Fatalf("answer %q is not GitHub's error shape", rec.Body)
		}
		if h.AppTokensIssued() != 0 {
			t.Fatalf("a token was issued for %q", auth)
		}
	})
}
