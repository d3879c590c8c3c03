package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/servicetest"

	"ghops.dev/gateway/gatewaytest"
	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/httpcall"
)

// Tests of issue 19 (authorization at the point of use), gateway side;
// docs/security.md says what each one shows.

// GitHub-shaped tokens fakehub knows, for the OAuth tests.
const (
	ghAlice = "ghp_alice0123456789abcdef0123456789abcd"
	ghBob   = "gho_bob0123456789abcdef0123456789abcdef"
	keyAPIA = "ghk_alice_0123456789abcdef01234567"
)

// TestIdentitiesDoNotCollide: a GitHub login equal to an API-key
// principal's name gets neither that principal's rules nor its quota; an
// explicit github: entry gives a login its own rules.
func TestIdentitiesDoNotCollide(t *testing.T) {
	pol := `principals:
  - name: alice
    key_sha256: ` + sha256hex(keyAPIA) + `
    tools: ["commit_files", "get_branches"]
    rate_per_minute: 1
  - name: github:Bob
    repos: ["octo-org/hello-world"]
default:
  read_only: true
`
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{GitHubOAuth: true, Policy: pol, Hub: &fakehub.Config{Seed: "demo", Tokens: []fakehub.Token{
		{Value: ghAlice, Login: "alice", Repos: map[string]fakehub.Permission{"*": fakehub.PermWrite}},
		{Value: ghBob, Login: "bob", Repos: map[string]fakehub.Permission{"*": fakehub.PermRead}},
	}}})
	key := []string{"Authorization", "Bearer " + keyAPIA}
	gh := []string{"Authorization", "Bearer " + ghAlice}
	commit := `{"repo":"octo-org/hello-world","branch":"main","message":"m","files":[{"path":"a","content":"b"}]}`
	steps := []struct {
		name, tool, args string
		hdr              []string
		wantCode         int
		wantPolicy       string // in data.policy
	}{
		{"API key spends its one call", "get_branches", `{"repo":"octo-org/hello-world"}`, key, 0, ""},
		{"API key is then limited", "get_branches", `{"repo":"octo-org/hello-world"}`, key, -32004, `"principal":"alice"`},
		{"GitHub alice is not limited by the API key's quota", "get_branches", `{"repo":"octo-org/hello-world"}`, gh, 0, ""},
		{"GitHub alice has the default rules, not the API key's", "commit_files", commit, gh, -32001, `"principal":"github:alice","rule":"read_only"`},
		{"GitHub alice may call a tool the API key may not", "fetch", `{"repo":"octo-org/hello-world"}`, gh, 0, ""},
		{"github:Bob's own entry applies (any case)", "fetch", `{"repo":"octo-org/secret"}`, []string{"Authorization", "Bearer " + ghBob}, -32001, `"principal":"github:Bob","rule":"repos"`},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			_, out := rpcCall(t, st.URL, s.tool, s.args, s.hdr...)
			code, data := errOf(t, out)
			if code != s.wantCode || s.wantPolicy != "" && !strings.Contains(string(data["policy"]), s.wantPolicy) {
				t.Fatalf("code %d policy %s, want %d %s", code, data["policy"], s.wantCode, s.wantPolicy)
			}
		})
	}
}

// TestCallerTokenNeedsTheServiceFlag: a gateway that forwards its callers'
// GitHub tokens (-oauth-issuer github) in front of a service started
// without -allow-caller-token: the call is refused with -32001 naming the
// flag, and GitHub sees nothing but the token check (the service's own
// token is never used for a signed-in user).
func TestCallerTokenNeedsTheServiceFlag(t *testing.T) {
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo", Tokens: []fakehub.Token{
		{Value: ghAlice, Login: "alice", Repos: map[string]fakehub.Permission{"octo-org/hello-world": fakehub.PermRead}}}})
	svc := servicetest.Start(t, servicetest.Options{GitHubURL: hub.URL, Token: fakehub.DemoToken})
	gw := gatewaytest.StartGateway(t, svc.Addr, gatewaytest.StackOptions{GitHubOAuth: true, GitHubURL: hub.URL})
	_, out := rpcCall(t, gw.URL, "fetch", `{"repo":"octo-org/hello-world"}`, "Authorization", "Bearer "+ghAlice)
	code, _ := errOf(t, out)
	if code != -32001 || !strings.Contains(string(out["error"]), "-allow-caller-token") {
		t.Fatalf("code %d: %s", code, out["error"])
	}
	stats := hub.Hub.Stats()
	if stats.Total != stats.ByRoute["GET /user"] {
		t.Fatalf("GitHub saw %d requests besides the token check: %v", stats.Total-stats.ByRoute["GET /user"], stats.ByRoute)
	}
	if strings.Contains(gw.Logs(), ghAlice) {
		t.Error("the caller's token reached the logs")
	}
}

// TestJWKSFetchesAreLimited: forged tokens (a known kid signed by another
// key, an unknown kid) are refused without fetching the issuer's JWKS
// again within -oauth-jwks-min-interval.
func TestJWKSFetchesAreLimited(t *testing.T) {
	iss := startIssuer(t)
	const aud = "https://ghops.example/mcp"
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: "principals:\n  - name: alice\n", Configure: func(c *config.Config) {
		c.OAuthIssuer, c.OAuthJWKSURL, c.ResourceURL = iss.url, iss.url+"/jwks", aud
		c.JWKSMinInterval = time.Hour // so that the count cannot depend on the machine's speed
	}})
	now := time.Now()
	claims := jwt.Claims{Issuer: iss.url, Subject: "alice", Audience: jwt.Audience{aud}, Expiry: jwt.NewNumericDate(now.Add(time.Hour))}
	if _, out := rpcCall(t, st.URL, "fetch", `{"repo":"octo-org/hello-world"}`, "Authorization", "Bearer "+iss.token(t, claims, nil)); out["result"] == nil {
		t.Fatalf("a valid token: %s", out["error"])
	}
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, kid := range []string{"k1", "k2"} {
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: other, KeyID: kid}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			if resp, _ := rpcCall(t, st.URL, "fetch", `{"repo":"octo-org/hello-world"}`, "Authorization", "Bearer "+iss.token(t, claims, signer)); resp.StatusCode != 401 {
				t.Fatalf("forged token %s/%d: %d", kid, i, resp.StatusCode)
			}
		}
	}
	if n := iss.fetches.Load(); n != 1 {
		t.Fatalf("the JWKS was fetched %d times, want 1 (20 forged tokens must not refetch it)", n)
	}
}

// mcpPost posts one MCP message to /mcp.
func mcpPost(t *testing.T, url, body string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	return httpcall.Do(t, http.MethodPost, url+"/mcp", body, append([]string{
		"Content-Type", "application/json", "Accept", "application/json, text/event-stream", "MCP-Protocol-Version", "2025-11-25",
	}, hdr...)...)
}

// TestSessionBoundToPrincipal: a session id minted for one principal gives
// another principal no access, and its notifications/cancelled is refused.
func TestSessionBoundToPrincipal(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: teamPolicy})
	resp, body := mcpPost(t, st.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		"Authorization", "Bearer "+keyBot)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	tests := []struct {
		name, key, body string
		want            int
	}{
		{"owner lists tools", keyBot, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 200},
		{"another principal lists tools", keyWriter, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 404},
		{"another principal calls a tool", keyWriter, mcpWrap("get_branches", `{"repo":"octo-org/hello-world"}`), 404},
		{"another principal cancels", keyWriter, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, 404},
		{"owner cancels (nothing in flight)", keyBot, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, 202},
		{"owner still served", keyBot, mcpWrap("get_branches", `{"repo":"octo-org/hello-world"}`), 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := mcpPost(t, st.URL, tc.body, "Authorization", "Bearer "+tc.key, "Mcp-Session-Id", sid)
			if resp.StatusCode != tc.want {
				t.Fatalf("%d, want %d: %s", resp.StatusCode, tc.want, body)
			}
		})
	}
}

// TestUnknownToolListsOnlyVisibleTools: the unknown-tool error's allowed
// values are the caller's tools/list, never its hidden tools.
func TestUnknownToolListsOnlyVisibleTools(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: teamPolicy})
	tests := []struct {
		name, key string
		want      []string
	}{
		{"read-only ci-bot", keyBot, listTools(t, st.URL+"/mcp", keyBot, "")},
		{"writer", keyWriter, listTools(t, st.URL+"/mcp", keyWriter, "")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := mcpPost(t, st.URL, mcpWrap("no_such_tool", `{}`), "Authorization", "Bearer "+tc.key)
			var out struct {
				Error struct {
					Code int `json:"code"`
					Data struct {
						ValidationErrors []struct {
							Params struct {
								AllowedValues []string `json:"allowedValues"`
							} `json:"params"`
						} `json:"validation_errors"`
					} `json:"data"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &out); err != nil || out.Error.Code != -32602 || len(out.Error.Data.ValidationErrors) != 1 {
				t.Fatalf("%d %s (%v)", resp.StatusCode, body, err)
			}
			got := out.Error.Data.ValidationErrors[0].Params.AllowedValues
			slices.Sort(got)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("allowed values %v, want its tools %v", got, want)
			}
		})
	}
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// TestMetricsNeedCredentials: /metrics on an authenticated listener asks
// for the same credentials; with -metrics-addr it is served there only.
func TestMetricsNeedCredentials(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: teamPolicy})
	metricsAddr := freeAddr(t)
	own := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: teamPolicy, Configure: func(c *config.Config) { c.MetricsAddr = metricsAddr }})
	tests := []struct {
		name, url string
		hdr       []string
		want      int
	}{
		{"anonymous", st.URL + "/metrics", nil, 401},
		{"unknown key", st.URL + "/metrics", []string{"Authorization", "Bearer ghk_nobody_0123456789abcdef01234"}, 401},
		{"a principal's key", st.URL + "/metrics", []string{"Authorization", "Bearer " + keyBot}, 200},
		{"moved off the main listener", own.URL + "/metrics", []string{"Authorization", "Bearer " + keyBot}, 404},
		{"on its own address", "http://" + metricsAddr + "/metrics", nil, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := httpcall.Do(t, http.MethodGet, tc.url, "", tc.hdr...)
			if resp.StatusCode != tc.want {
				t.Fatalf("%d, want %d: %.200s", resp.StatusCode, tc.want, body)
			}
			if tc.want == 200 && !strings.Contains(string(body), "# HELP") {
				t.Fatalf("not metrics: %.200s", body)
			}
		})
	}
}

// TestSearchIsConfined: a principal limited to some repositories finds
// only those in search results, and total_count counts only what it may
// see; an unconfined principal gets GitHub's answer. A repository named in
// another case is the same repository to the policy.
func TestSearchIsConfined(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: teamPolicy})
	type result struct {
		TotalCount   int `json:"total_count"`
		Repositories []struct {
			FullName string `json:"full_name"`
		} `json:"repositories"`
	}
	tests := []struct {
		name, key string
		want      []string
	}{
		{"ci-bot sees its one repository", keyBot, []string{"octo-org/hello-world"}},
		{"unconfined principal sees every match", keyLimit, []string{"octo-org/empty", "octo-org/hello-world"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, out := rpcCall(t, st.URL, "search", `{"query":"repository"}`, "Authorization", "Bearer "+tc.key)
			var r result
			if err := json.Unmarshal(out["result"], &r); err != nil {
				t.Fatalf("%s (%v)", out["error"], err)
			}
			var names []string
			for _, x := range r.Repositories {
				names = append(names, x.FullName)
			}
			slices.Sort(names)
			if !slices.Equal(names, tc.want) || r.TotalCount != len(tc.want) {
				t.Fatalf("got %v total %d, want %v", names, r.TotalCount, tc.want)
			}
			if tc.key == keyBot && (strings.Contains(string(out["result"]), "octo-org/empty") || strings.Contains(st.Gateway.Logs(), "octo-org/empty")) {
				t.Fatal("a hidden repository reached the answer or the log")
			}
		})
	}
	t.Run("another case of a hidden repository", func(t *testing.T) {
		before := githubCalls(st)
		_, out := rpcCall(t, st.URL, "fetch", `{"repo":"Octo-Org/Secret"}`, "Authorization", "Bearer "+keyBot)
		if code, data := errOf(t, out); code != -32001 || !strings.Contains(string(data["policy"]), `"rule":"repos"`) {
			t.Fatalf("code %d %s", code, out["error"])
		}
		if githubCalls(st) != before {
			t.Error("a refused call reached GitHub")
		}
	})
}
