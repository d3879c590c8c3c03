package e2e

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ghops.dev/services/fakehub"

	"ghops.dev/gateway/gatewaytest"
	"ghops.dev/gateway/internal/app"
	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/httpcall"
)

// sha256hex is what a policy file stores of an API key.
func sha256hex(k string) string {
	s := sha256.Sum256([]byte(k))
	return hex.EncodeToString(s[:])
}

const (
	keyBot    = "ghk_bot_0123456789abcdef0123456789"
	keyWriter = "ghk_writer_0123456789abcdef012345"
	keyLimit  = "ghk_limited_0123456789abcdef01234"
)

var teamPolicy = `principals:
  - name: ci-bot
    key_sha256: ` + sha256hex(keyBot) + `
    read_only: true
    repos: ["octo-org/hello-world"]
  - name: writer
    key_sha256: ` + sha256hex(keyWriter) + `
    tools: ["read_file", "commit_files", "get_*"]
    repos: ["octo-org/*"]
  - name: limited
    key_sha256: ` + sha256hex(keyLimit) + `
    rate_per_minute: 5
`

// rpcCall posts one /rpc call with headers and decodes the answer.
func rpcCall(t *testing.T, url, method, params string, hdr ...string) (*http.Response, map[string]json.RawMessage) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
	resp, b := httpcall.Do(t, http.MethodPost, url+"/rpc", body, append([]string{"Content-Type", "application/json"}, hdr...)...)
	var out map[string]json.RawMessage
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("answer %d %q: %v", resp.StatusCode, b, err)
	}
	return resp, out
}

// errOf decodes an answer's error.
func errOf(t *testing.T, out map[string]json.RawMessage) (code int, data map[string]json.RawMessage) {
	t.Helper()
	var e struct {
		Code int                        `json:"code"`
		Data map[string]json.RawMessage `json:"data"`
	}
	if out["error"] == nil {
		return 0, nil
	}
	if err := json.Unmarshal(out["error"], &e); err != nil {
		t.Fatal(err)
	}
	return e.Code, e.Data
}

// githubCalls is how many requests fakehub has served.
func githubCalls(st *gatewaytest.Stack) int { return st.Hub.Stats().Total }

// TestCrossSiteWriteIsRefused replays the attack: a web page in the user's
// browser posts text/plain to the local gateway, with its own Origin (and,
// by DNS rebinding, its own Host). Nothing reaches a tool or GitHub.
func TestCrossSiteWriteIsRefused(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{})
	commit := `{"jsonrpc":"2.0","id":1,"method":"commit_files","params":{"repo":"octo-org/hello-world","branch":"main","message":"pwned","files":[{"path":"x","content":"y"}]}}`
	tests := []struct {
		name string
		hdr  []string
		want int
	}{
		{"text/plain from a foreign page", []string{"Content-Type", "text/plain", "Origin", "https://evil.example"}, http.StatusForbidden},
		{"text/plain without Origin", []string{"Content-Type", "text/plain"}, http.StatusUnsupportedMediaType},
		{"rebound Host", []string{"Content-Type", "application/json", "Host", "evil.example:8788"}, http.StatusForbidden},
	}
	before := githubCalls(st)
	for _, path := range []string{"/rpc", "/mcp"} {
		for _, tc := range tests {
			t.Run(path+" "+tc.name, func(t *testing.T) {
				req, _ := http.NewRequest(http.MethodPost, st.URL+path, strings.NewReader(commit))
				for i := 0; i+1 < len(tc.hdr); i += 2 {
					if tc.hdr[i] == "Host" {
						req.Host = tc.hdr[i+1]
						continue
					}
					req.Header.Set(tc.hdr[i], tc.hdr[i+1])
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != tc.want {
					t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
				}
			})
		}
	}
	if n := githubCalls(st) - before; n != 0 {
		t.Fatalf("GitHub was called %d times", n)
	}
}

// TestStartupRefusal: a non-loopback address without authentication is
// refused unless -insecure-no-auth, which warns.
func TestStartupRefusal(t *testing.T) {
	dir := t.TempDir()
	keys := dir + "/policy.yaml"
	if err := writeFile(keys, teamPolicy); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		mutate  func(*config.Config)
		wantErr bool
		warn    bool
		wantMsg string // the refusal names this (else it is ErrNoAuth)
	}{
		{"loopback, no auth", func(c *config.Config) { c.Addr = "127.0.0.1:0" }, false, false, ""},
		{"all interfaces, no auth", func(c *config.Config) { c.Addr = "0.0.0.0:0" }, true, false, ""},
		{"all interfaces, insecure", func(c *config.Config) { c.Addr = "0.0.0.0:0"; c.InsecureNoAuth = true }, false, true, ""},
		{"all interfaces, API keys", func(c *config.Config) { c.Addr = "0.0.0.0:0"; c.PolicyFile = keys }, false, false, ""},
		{"all interfaces, OAuth with its resource URL", func(c *config.Config) {
			c.Addr, c.OAuthIssuer, c.ResourceURL = "0.0.0.0:0", "github", "https://ghops.example/mcp"
		}, false, false, ""},
		{"all interfaces, OAuth without a resource URL", func(c *config.Config) { c.Addr = "0.0.0.0:0"; c.OAuthIssuer = "github" }, true, false, "-resource-url"},
		{"all IPv6 interfaces, OAuth without a resource URL", func(c *config.Config) { c.Addr = "[::]:0"; c.OAuthIssuer = "github" }, true, false, "-resource-url"},
		{"empty host, OAuth without a resource URL", func(c *config.Config) { c.Addr = ":0"; c.OAuthIssuer = "github" }, true, false, "-resource-url"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			tc.mutate(&cfg)
			logs := &gatewaytest.SyncBuffer{}
			a, err := app.New(cfg, logs)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v", err)
			}
			if err != nil && tc.wantMsg != "" {
				if !strings.Contains(err.Error(), tc.wantMsg) {
					t.Fatalf("err = %v, want it to name %s", err, tc.wantMsg)
				}
				return
			}
			if err != nil {
				if !errors.Is(err, app.ErrNoAuth) {
					t.Fatalf("err = %v, want ErrNoAuth", err)
				}
				return
			}
			defer a.Close()
			if warned := strings.Contains(logs.String(), "WITHOUT authentication"); warned != tc.warn {
				t.Errorf("warned %v: %s", warned, logs.String())
			}
		})
	}
}

// TestAPIKeys: no key or an unknown key gets 401 with a challenge, before
// any tool runs; a known key is its principal; no key reaches a log.
func TestAPIKeys(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: teamPolicy})
	before := githubCalls(st)
	// The hint for a missing key reads whole, in the answer and in the
	// jsonrpc_error line, through the redactor of both (issue 23).
	const hint = `Unauthorized: send an Authorization header with the value "Bearer <api key>"`
	for _, tc := range []struct {
		name, auth, wantChallenge, wantMessage string
	}{
		{"no key", "", `Bearer realm="ghops"`, hint},
		{"unknown key", "Bearer ghk_nobody_0123456789abcdef01234", `Bearer realm="ghops", error="invalid_token"`, "Unauthorized: the bearer token is not valid here"},
		{"not bearer", "Basic " + keyBot, `Bearer realm="ghops"`, hint},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.auth != "" {
				hdr = []string{"Authorization", tc.auth}
			}
			resp, out := rpcCall(t, st.URL, "fetch", `{"repo":"octo-org/hello-world"}`, hdr...)
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != tc.wantChallenge {
				t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
			}
			var e struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			}
			if err := json.Unmarshal(out["error"], &e); err != nil || e.Code != -32001 || e.Message != tc.wantMessage {
				t.Fatalf("error %s (%v); want -32001, %q", out["error"], err, tc.wantMessage)
			}
			if line := `msg=` + strconv.QuoteToASCII(tc.wantMessage); !strings.Contains(st.Gateway.Logs(), line) {
				t.Errorf("no jsonrpc_error line with %s in\n%s", line, st.Gateway.Logs())
			}
		})
	}
	if n := githubCalls(st) - before; n != 0 {
		t.Fatalf("GitHub was called %d times for refused callers", n)
	}
	resp, out := rpcCall(t, st.URL, "fetch", `{"repo":"octo-org/hello-world"}`, "Authorization", "Bearer "+keyBot)
	if resp.StatusCode != http.StatusOK || out["result"] == nil {
		t.Fatalf("%d %s", resp.StatusCode, out["error"])
	}
	for _, k := range []string{keyBot, keyWriter, "ghk_nobody"} {
		if strings.Contains(st.Gateway.Logs(), k) {
			t.Errorf("a key reached the logs")
		}
	}
}

// TestAuthorization: each principal's tools/list shows only what it may
// call, and every call outside its rules gets -32001 naming the rule,
// without a GitHub call; the gateway-wide -read-only likewise.
func TestAuthorization(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: teamPolicy})
	tests := []struct {
		name, key, tool, params, rule string
	}{
		{"read-only principal writes", keyBot, "commit_files", `{"repo":"octo-org/hello-world","branch":"main","message":"m","files":[{"path":"a","content":"b"}]}`, "read_only"},
		{"repository outside its globs", keyBot, "fetch", `{"repo":"octo-org/secret"}`, "repos"},
		{"tool outside its list", keyWriter, "merge_pull_request", `{"repo":"octo-org/hello-world","prNumber":1}`, "tools"},
		{"writer outside its owner", keyWriter, "read_file", `{"repo":"other/repo","path":"README.md"}`, "repos"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := githubCalls(st)
			_, out := rpcCall(t, st.URL, tc.tool, tc.params, "Authorization", "Bearer "+tc.key)
			code, data := errOf(t, out)
			var pol struct{ Principal, Rule, Detail string }
			_ = json.Unmarshal(data["policy"], &pol)
			if code != -32001 || pol.Rule != tc.rule || pol.Principal == "" || pol.Detail == "" {
				t.Fatalf("code %d policy %s", code, data["policy"])
			}
			if n := githubCalls(st) - before; n != 0 {
				t.Fatalf("GitHub was called %d times", n)
			}
		})
	}
	for _, tc := range []struct {
		key  string
		want []string
	}{
		// ci-bot is read_only: every tool proto marks read_only.
		{keyBot, gatewaytest.DeclaredTools(true)},
		// writer's tools: read_file, commit_files and get_* (listed on
		// purpose, so the glob's matching is what is checked).
		{keyWriter, []string{"commit_files", "get_branches", "get_checks_for_sha", "get_ci_failures", "get_commit", "get_commits", "get_issue", "get_job_log", "get_me", "get_pr_mergeability", "get_project", "get_pull_request", "get_release", "get_tree", "get_workflow_run", "read_file"}},
	} {
		for _, pin := range []string{"", "2025-06-18"} {
			t.Run("tools/list "+tc.key[:10]+" "+pin, func(t *testing.T) {
				if got := listTools(t, st.URL+"/mcp", tc.key, pin); !slices.Equal(got, tc.want) {
					t.Fatalf("tools %v, want %v", got, tc.want)
				}
			})
		}
	}
	t.Run("gateway read-only", func(t *testing.T) {
		ro := gatewaytest.StartStack(t, gatewaytest.StackOptions{ReadOnly: true})
		before := githubCalls(ro)
		_, out := rpcCall(t, ro.URL, "create_pull_request", `{"repo":"octo-org/hello-world","title":"t","head":"feature/clean","base":"main"}`)
		if code, data := errOf(t, out); code != -32001 || !bytes.Contains(data["policy"], []byte(`"rule":"read_only"`)) {
			t.Fatalf("code %d data %v", code, data)
		}
		if n := githubCalls(ro) - before; n != 0 {
			t.Fatalf("GitHub was called %d times", n)
		}
		if got := listTools(t, ro.URL+"/mcp", "", ""); !slices.Equal(got, gatewaytest.DeclaredTools(true)) {
			t.Fatalf("read-only gateway lists %v", got)
		}
	})
}

// bearerTransport adds an Authorization header.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// listTools lists the tools an MCP client with key sees, sorted.
func listTools(t *testing.T, url, key, pin string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var opts *sdk.ClientSessionOptions
	if pin != "" {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: pin}
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e-policy", Version: "1"}, nil)
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{key}}, DisableStandaloneSSE: true, MaxRetries: -1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var names []string
	for tool, err := range s.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// TestRateQuota: 5 calls a minute, the sixth refused with -32004, its
// retryAfter, the Retry-After header and the rule; GitHub sees five.
func TestRateQuota(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: teamPolicy})
	before := githubCalls(st)
	for i := range 5 {
		if _, out := rpcCall(t, st.URL, "get_branches", `{"repo":"octo-org/hello-world"}`, "Authorization", "Bearer "+keyLimit); out["result"] == nil {
			t.Fatalf("call %d: %s", i, out["error"])
		}
	}
	calls := githubCalls(st) - before
	resp, out := rpcCall(t, st.URL, "get_branches", `{"repo":"octo-org/hello-world"}`, "Authorization", "Bearer "+keyLimit)
	code, data := errOf(t, out)
	if code != -32004 || resp.Header.Get("Retry-After") == "" || data["retryAfter"] == nil || !bytes.Contains(data["policy"], []byte(`"rule":"rate_per_minute"`)) {
		t.Fatalf("code %d Retry-After %q data %v", code, resp.Header.Get("Retry-After"), data)
	}
	if data["github"] != nil || data["rateLimit"] != nil {
		t.Errorf("the gateway's own limit claims GitHub figures: %v", data)
	}
	if n := githubCalls(st) - before; n != calls {
		t.Fatalf("the refused call reached GitHub (%d requests, %d before it)", n, calls)
	}
	if _, out := rpcCall(t, st.URL, "get_branches", `{"repo":"octo-org/hello-world"}`, "Authorization", "Bearer "+keyWriter); out["result"] == nil {
		t.Fatalf("another principal was limited too: %s", out["error"])
	}
}

// TestAudit: one record per write call, with who, what, where, the result
// and the request id; never the key.
func TestAudit(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: teamPolicy})
	_, out := rpcCall(t, st.URL, "commit_files", `{"repo":"octo-org/hello-world","branch":"feature/clean","message":"notes","files":[{"path":"NOTES.md","content":"n\n"}]}`,
		"Authorization", "Bearer "+keyWriter, "X-Request-Id", "audit-1")
	var res struct {
		CommitSHA string `json:"commit_sha"`
	}
	if err := json.Unmarshal(out["result"], &res); err != nil || len(res.CommitSHA) != 40 {
		t.Fatalf("commit: %s %s", out["result"], out["error"])
	}
	_, _ = rpcCall(t, st.URL, "commit_files", `{"repo":"octo-org/nope","branch":"main","message":"m","files":[{"path":"a","content":"b"}]}`,
		"Authorization", "Bearer "+keyWriter, "X-Request-Id", "audit-2")
	_, _ = rpcCall(t, st.URL, "read_file", `{"repo":"octo-org/hello-world","path":"README.md"}`, "Authorization", "Bearer "+keyWriter)
	var records []map[string]string
	for _, line := range strings.Split(st.Gateway.Logs(), "\n") {
		var r map[string]any
		if json.Unmarshal([]byte(line), &r) != nil || r["msg"] != "audit" {
			continue
		}
		m := map[string]string{}
		for k, v := range r {
			if s, ok := v.(string); ok {
				m[k] = s
			}
		}
		records = append(records, m)
	}
	if len(records) != 2 {
		t.Fatalf("%d audit records, want 2 (writes only): %v", len(records), records)
	}
	want := []map[string]string{
		{"principal": "writer", "tool": "commit_files", "repo": "octo-org/hello-world", "branch": "feature/clean", "sha": res.CommitSHA, "outcome": "ok", "request_id": "audit-1"},
		{"principal": "writer", "tool": "commit_files", "repo": "octo-org/nope", "branch": "main", "sha": "", "outcome": "-32002", "request_id": "audit-2"},
	}
	for i, w := range want {
		for k, v := range w {
			if records[i][k] != v {
				t.Errorf("record %d: %s = %q, want %q (%v)", i, k, records[i][k], v, records[i])
			}
		}
	}
	if strings.Contains(st.Gateway.Logs(), keyWriter) {
		t.Error("the key reached the logs")
	}
}

// TestOAuthGitHub: the protected-resource metadata, the challenge, a
// GitHub token verified once and forwarded for its caller's calls only:
// alice's token reads octo-org/secret, which the service's own token (and
// so another caller's) cannot.
func TestOAuthGitHub(t *testing.T) {
	const alice = "ghp_alice0123456789abcdef0123456789abcd"
	const bob = "gho_bob0123456789abcdef0123456789abcdef"
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{GitHubOAuth: true, Hub: &fakehub.Config{Seed: "demo",
		Tokens: []fakehub.Token{
			{Value: alice, Login: "alice", Repos: map[string]fakehub.Permission{"octo-org/secret": fakehub.PermRead}},
			{Value: bob, Login: "bob", Repos: map[string]fakehub.Permission{"octo-org/hello-world": fakehub.PermRead}},
		}}})
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		resp, b := httpcall.Do(t, http.MethodGet, st.URL+path, "")
		var m struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			BearerMethods        []string `json:"bearer_methods_supported"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(b, &m) != nil || !strings.HasSuffix(m.Resource, "/mcp") ||
			!slices.Equal(m.AuthorizationServers, []string{"https://github.com/login/oauth"}) || !slices.Equal(m.BearerMethods, []string{"header"}) {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, b)
		}
	}
	resp, _ := rpcCall(t, st.URL, "fetch", `{"repo":"octo-org/hello-world"}`)
	if ch := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || !strings.Contains(ch, `resource_metadata="http://127.0.0.1:0/.well-known/oauth-protected-resource"`) {
		t.Fatalf("%d %q", resp.StatusCode, ch)
	}
	for i := range 3 {
		if _, out := rpcCall(t, st.URL, "fetch", `{"repo":"octo-org/secret"}`, "Authorization", "Bearer "+alice); out["result"] == nil {
			t.Fatalf("call %d with alice's token: %s", i, out["error"])
		}
	}
	if _, out := rpcCall(t, st.URL, "fetch", `{"repo":"octo-org/secret"}`, "Authorization", "Bearer "+bob); out["result"] != nil {
		t.Fatal("bob read alice's repository: her token was not forwarded for her calls only")
	}
	// Bearers that are not GitHub-shaped (the service's demo token, an API
	// key of this or another gateway) are refused without reaching GitHub.
	for _, foreign := range []string{fakehub.DemoToken, keyBot, "ghk_writer_0123456789abcdef012345"} {
		if resp, out := rpcCall(t, st.URL, "fetch", `{"repo":"octo-org/hello-world"}`, "Authorization", "Bearer "+foreign); resp.StatusCode != 401 || out["result"] != nil {
			t.Fatalf("a non-GitHub bearer got %d %s", resp.StatusCode, out["error"])
		}
	}
	if n := st.Hub.Stats().ByRoute["GET /user"]; n != 2 {
		t.Errorf("GET /user called %d times, want 2 (once per GitHub-shaped token, then cached; never for other bearers)", n)
	}
	if strings.Contains(st.Gateway.Logs(), alice) || strings.Contains(st.Gateway.Logs(), bob) || strings.Contains(st.Gateway.Logs(), fakehub.DemoToken) {
		t.Error("a caller's token reached the logs")
	}
}

// oidcIssuer is a local OIDC issuer: a JWKS endpoint and a signing key.
type oidcIssuer struct {
	url     string
	signer  jose.Signer
	fetches *atomic.Int64 // JWKS requests served
}

func startIssuer(t *testing.T) *oidcIssuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	jwk := jose.JSONWebKey{Key: &key.PublicKey, KeyID: "k1", Algorithm: string(jose.ES256), Use: "sig"}
	fetches := &atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fetches.Add(1)
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{jwk}})
	}))
	t.Cleanup(srv.Close)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: "k1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &oidcIssuer{url: srv.URL, signer: signer, fetches: fetches}
}

// token signs claims with the issuer's key (or signer, when given).
func (i *oidcIssuer) token(t *testing.T, c jwt.Claims, signer jose.Signer) string {
	t.Helper()
	if signer == nil {
		signer = i.signer
	}
	s, err := jwt.Signed(signer).Claims(c).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOIDC: JWTs from a local issuer (its JWKS served on 127.0.0.1) are
// verified for signature, issuer, audience and expiry; the sub claim maps
// to a principal of the policy file, whose rules apply.
func TestOIDC(t *testing.T) {
	iss := startIssuer(t)
	const aud = "https://ghops.example/mcp"
	pol := "principals:\n  - name: alice\n    read_only: true\n"
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: pol, Configure: func(c *config.Config) {
		c.OAuthIssuer, c.OAuthJWKSURL, c.ResourceURL = iss.url, iss.url+"/jwks", aud
	}})
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	otherSigner, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: other, KeyID: "k1"}}, nil)
	now := time.Now()
	good := jwt.Claims{Issuer: iss.url, Subject: "alice", Audience: jwt.Audience{aud}, Expiry: jwt.NewNumericDate(now.Add(time.Hour)), IssuedAt: jwt.NewNumericDate(now)}
	with := func(f func(*jwt.Claims)) jwt.Claims { c := good; f(&c); return c }
	tests := []struct {
		name   string
		token  string
		status int
		code   int
	}{
		{"valid", iss.token(t, good, nil), 200, 0},
		{"wrong audience", iss.token(t, with(func(c *jwt.Claims) { c.Audience = jwt.Audience{"https://other.example"} }), nil), 401, -32001},
		{"wrong issuer", iss.token(t, with(func(c *jwt.Claims) { c.Issuer = "https://evil.example" }), nil), 401, -32001},
		{"expired", iss.token(t, with(func(c *jwt.Claims) { c.Expiry = jwt.NewNumericDate(now.Add(-time.Minute)) }), nil), 401, -32001},
		{"signed by another key", iss.token(t, good, otherSigner), 401, -32001},
		{"not a principal", iss.token(t, with(func(c *jwt.Claims) { c.Subject = "mallory" }), nil), 403, -32001},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, out := rpcCall(t, st.URL, "fetch", `{"repo":"octo-org/hello-world"}`, "Authorization", "Bearer "+tc.token)
			code, _ := errOf(t, out)
			if resp.StatusCode != tc.status || code != tc.code {
				t.Fatalf("%d code %d: %s\n%s", resp.StatusCode, code, out["error"], st.Gateway.Logs())
			}
		})
	}
	t.Run("principal's rules apply", func(t *testing.T) {
		_, out := rpcCall(t, st.URL, "commit_files", `{"repo":"octo-org/hello-world","branch":"main","message":"m","files":[{"path":"a","content":"b"}]}`,
			"Authorization", "Bearer "+iss.token(t, good, nil))
		if code, data := errOf(t, out); code != -32001 || !bytes.Contains(data["policy"], []byte(`"principal":"alice","rule":"read_only"`)) {
			t.Fatalf("code %d data %v", code, data)
		}
	})
}

// writeFile writes a test file.
func writeFile(name, content string) error { return os.WriteFile(name, []byte(content), 0o600) }
