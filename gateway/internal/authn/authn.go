// Package authn authenticates the gateway's HTTP callers and hands the
// rest of the request its policy.Caller. Three ways, chosen by
// configuration and usable together (an API key is tried first):
//
//   - API keys: "Authorization: Bearer <key>" whose SHA-256 is a
//     principal's key_sha256 in the policy file.
//   - OAuth 2.1 resource server, as the MCP authorization specification
//     describes (RFC 9728 metadata at /.well-known/oauth-protected-resource,
//     401 with WWW-Authenticate: Bearer resource_metadata="..."), with one
//     of two issuers:
//   - GitHub: the caller's GitHub token is verified once (GET /user),
//     cached briefly by its hash, forwarded to the service for that
//     caller's calls only, and its login names the principal
//     ("github:<login>"). Only GitHub-shaped bearers are ever sent there.
//   - any OIDC issuer: a JWT access token verified against the issuer's
//     JWKS (signature, iss, aud, exp; github.com/coreos/go-oidc), whose
//     configured claim names the principal ("oidc:<value>"). The JWKS is
//     fetched at most once per JWKSMinInterval (jwks.go).
//
// Principals are keyed by kind (policy.ForIdentity): an identity never
// takes an API-key principal's rules or quota. OAuth on a wildcard address
// needs an explicit resource URL (docs/security.md).
//
// A missing or invalid credential gets 401 with WWW-Authenticate; an
// identity the policy file does not admit gets 403. Both carry a JSON-RPC
// error object (-32001), never the credential. The SDK's
// auth.RequireBearerToken is not used because it answers in plain text;
// its metadata handler and types are.
package authn

import (
	"ghops.dev/infra/loopback"
	"ghops.dev/redact"

	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/rpcerror"
)

// IssuerGitHub names GitHub as the OAuth issuer.
const IssuerGitHub = "github"

// GitHubAuthorizationServer is GitHub's OAuth authorization server, as the
// metadata document names it.
const GitHubAuthorizationServer = "https://github.com/login/oauth"

// DefaultJWKSMinInterval is the least time between two JWKS fetches when
// none is configured (-oauth-jwks-min-interval): a key rotated in at the
// issuer is accepted at most this long after the last fetch.
const DefaultJWKSMinInterval = 30 * time.Second

// MetadataPath is where the RFC 9728 metadata is served; the same document
// is also served at MetadataPath + the resource's path (/mcp), where MCP
// clients look first.
const MetadataPath = "/.well-known/oauth-protected-resource"

// Options configure authentication.
type Options struct {
	// Policy holds the principals (API keys and identity mappings); nil
	// means no policy file.
	Policy *policy.Policy
	// Issuer is "" (no OAuth), IssuerGitHub, or an OIDC issuer URL.
	Issuer string
	// JWKSURL is the OIDC issuer's key set.
	JWKSURL string
	// Audience is the aud an OIDC token must carry (default: ResourceURL).
	Audience string
	// Claim names the principal in an OIDC token (default "sub").
	Claim string
	// GitHubAPIURL is GitHub's REST root, for verifying GitHub tokens.
	GitHubAPIURL string
	// CacheTTL is how long a verified GitHub token is trusted (default 60s).
	CacheTTL time.Duration
	// ResourceURL is the canonical URL of the MCP endpoint.
	ResourceURL string
	// HTTPClient calls GitHub and the JWKS (default: 10 s timeout).
	HTTPClient *http.Client
	// JWKSMinInterval is the least time between two fetches of the JWKS
	// (default DefaultJWKSMinInterval): a token whose key is unknown makes
	// go-oidc fetch the set again, and a stream of forged tokens must not
	// become a stream of fetches. Within the interval the last set fetched
	// is used again.
	JWKSMinInterval time.Duration
	// Sink reports refusals; Logger gets the rest.
	Sink   *rpcerror.Sink
	Logger *slog.Logger
}

// Authenticator is the authentication middleware. It is safe for
// concurrent use.
type Authenticator struct {
	o        Options
	oidc     *oidc.IDTokenVerifier
	github   *githubVerifier
	metadata *oauthex.ProtectedResourceMetadata
	metaURL  string
}

// New returns an authenticator, or an error for an unusable configuration.
func New(ctx context.Context, o Options) (*Authenticator, error) {
	if o.Claim == "" {
		o.Claim = "sub"
	}
	if o.CacheTTL <= 0 {
		o.CacheTTL = time.Minute
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	a := &Authenticator{o: o}
	switch o.Issuer {
	case "":
	case IssuerGitHub:
		u, err := url.Parse(o.GitHubAPIURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("authn: GitHub API URL %q is not an http(s) URL", o.GitHubAPIURL)
		}
		a.github = &githubVerifier{client: o.HTTPClient, userURL: strings.TrimRight(o.GitHubAPIURL, "/") + "/user", ttl: o.CacheTTL, cache: map[[32]byte]ghEntry{}, now: time.Now}
	default:
		// An issuer on loopback may be plain http: a test or a local
		// development IdP.
		u, err := url.Parse(o.Issuer)
		if err != nil || u.Scheme != "https" && !(u.Scheme == "http" && loopback.Host(u.Hostname())) {
			return nil, fmt.Errorf("authn: OIDC issuer %q must be an https URL", o.Issuer)
		}
		if o.JWKSURL == "" {
			return nil, errors.New("authn: an OIDC issuer needs its JWKS URL (-oauth-jwks-url)")
		}
		aud := o.Audience
		if aud == "" {
			aud = o.ResourceURL
		}
		if o.JWKSMinInterval <= 0 {
			o.JWKSMinInterval = DefaultJWKSMinInterval
		}
		jwksClient := &http.Client{Timeout: o.HTTPClient.Timeout, Transport: newJWKSLimiter(o.HTTPClient.Transport, o.JWKSMinInterval)}
		keys := oidc.NewRemoteKeySet(oidc.ClientContext(ctx, jwksClient), o.JWKSURL)
		a.oidc = oidc.NewVerifier(o.Issuer, keys, &oidc.Config{ClientID: aud, SupportedSigningAlgs: []string{
			oidc.RS256, oidc.RS384, oidc.RS512, oidc.ES256, oidc.ES384, oidc.ES512, oidc.PS256, oidc.PS384, oidc.PS512, oidc.EdDSA,
		}})
	}
	if o.Issuer != "" {
		if err := checkResourceURL(o.ResourceURL); err != nil {
			return nil, err
		}
		as := o.Issuer
		if o.Issuer == IssuerGitHub {
			as = GitHubAuthorizationServer
		}
		a.metadata = &oauthex.ProtectedResourceMetadata{
			Resource:               o.ResourceURL,
			AuthorizationServers:   []string{as},
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "ghops",
		}
		if u, err := url.Parse(o.ResourceURL); err == nil {
			a.metaURL = u.Scheme + "://" + u.Host + MetadataPath
		}
	}
	return a, nil
}

// Enabled reports whether any authentication is configured.
func (a *Authenticator) Enabled() bool { return a.o.Policy.HasKeys() || a.o.Issuer != "" }

// Mode names what is configured, for logs and diagnostics: "none",
// "api-keys", "oauth-github", "oauth-oidc" or "api-keys+oauth-...".
func (a *Authenticator) Mode() string {
	var m []string
	if a.o.Policy.HasKeys() {
		m = append(m, "api-keys")
	}
	switch {
	case a.github != nil:
		m = append(m, "oauth-github")
	case a.oidc != nil:
		m = append(m, "oauth-oidc")
	}
	if len(m) == 0 {
		return "none"
	}
	return strings.Join(m, "+")
}

// MetadataHandler serves the RFC 9728 document (nil without OAuth).
func (a *Authenticator) MetadataHandler() http.Handler {
	if a.metadata == nil {
		return nil
	}
	return sdkauth.ProtectedResourceMetadataHandler(a.metadata)
}

// ResourcePath is the path part of the resource URL ("/mcp").
func (a *Authenticator) ResourcePath() string {
	u, err := url.Parse(a.o.ResourceURL)
	if err != nil {
		return ""
	}
	return u.Path
}

// Handler authenticates every request before next; without any
// configuration it passes requests through with no caller.
func (a *Authenticator) Handler(next http.Handler) http.Handler {
	if !a.Enabled() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearer(r.Header.Get("Authorization"))
		if !ok {
			a.unauthorized(w, r, a.missingHint(), "")
			return
		}
		c, err := a.authenticate(r.Context(), token)
		switch {
		case errors.Is(err, errInvalid):
			// Why a token was refused helps the operator, not the caller.
			a.o.Logger.LogAttrs(r.Context(), slog.LevelInfo, "bearer token refused", slog.String("reason", redact.String(err.Error())))
			a.unauthorized(w, r, "Unauthorized: the bearer token is not valid here", "invalid_token")
			return
		case err != nil:
			a.o.Logger.LogAttrs(r.Context(), slog.LevelWarn, "cannot verify a bearer token", slog.String("error", redact.String(err.Error())))
			a.refuse(w, r, http.StatusServiceUnavailable, rpcerror.InternalError, "Service unavailable: the token cannot be verified now")
			return
		case c.Principal == nil:
			a.refuse(w, r, http.StatusForbidden, rpcerror.PermissionDenied,
				"Permission denied: "+string(c.Via)+" identity is not a principal of the policy", rpcerror.Refusal("", "principals", "no entry and no default in the policy file"))
			return
		}
		next.ServeHTTP(w, r.WithContext(policy.WithCaller(r.Context(), c)))
	})
}

// githubShaped is what a GitHub token looks like: the prefixed shapes
// (ghp_ classic, gho_ OAuth, ghu_ user-to-server, ghs_ server-to-server,
// ghr_ refresh, github_pat_ fine-grained) and the 40-hex-digit OAuth tokens
// of before 2021. Any other bearer (a mistyped or foreign API key, a
// token meant for another service) is refused without being sent to
// GitHub: a secret is never shown to a party it was not made for.
var githubShaped = regexp.MustCompile(`^(?:gh[pousr]_[A-Za-z0-9_]{8,251}|github_pat_[A-Za-z0-9_]{8,251}|[0-9a-f]{40})$`)

// errInvalid marks a credential that is wrong (401), as opposed to one that
// cannot be checked now.
var errInvalid = errors.New("authn: invalid credential")

// authenticate maps a bearer token to a caller. The returned caller has a
// nil Principal when the identity is valid but the policy admits nobody of
// that name.
func (a *Authenticator) authenticate(ctx context.Context, token string) (*policy.Caller, error) {
	if pr := a.o.Policy.ByKey(token); pr != nil {
		return &policy.Caller{Principal: pr, Via: policy.KindAPIKey}, nil
	}
	switch {
	case a.oidc != nil && strings.Count(token, ".") == 2:
		t, err := a.oidc.Verify(ctx, token)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errInvalid, err)
		}
		var claims map[string]any
		if err := t.Claims(&claims); err != nil {
			return nil, fmt.Errorf("%w: %v", errInvalid, err)
		}
		id, _ := claims[a.o.Claim].(string)
		if id == "" {
			return nil, fmt.Errorf("%w: no %q claim", errInvalid, a.o.Claim)
		}
		return &policy.Caller{Principal: a.o.Policy.ForIdentity(policy.KindOIDC, id), Via: policy.KindOIDC}, nil
	case a.github != nil && githubShaped.MatchString(token):
		login, err := a.github.verify(ctx, token)
		if err != nil {
			return nil, err
		}
		return &policy.Caller{Principal: a.o.Policy.ForIdentity(policy.KindGitHub, login), Via: policy.KindGitHub, GitHubToken: token}, nil
	}
	return nil, errInvalid
}

// missingHint is the 401 message for a request without a bearer token: it
// names the header and the credential this gateway takes. Its wording keeps
// it intact through package redact (every answer and log line is redacted):
// "Authorization:" or "Bearer" followed by a value read as a credential would
// become [REDACTED], so the header is named in prose and the placeholder
// starts with '<', which no credential shape does.
func (a *Authenticator) missingHint() string {
	cred := "access token"
	switch {
	case a.o.Policy.HasKeys() && (a.github != nil || a.oidc != nil):
		cred = "api key or access token"
	case a.o.Policy.HasKeys():
		cred = "api key"
	}
	return `Unauthorized: send an Authorization header with the value "Bearer <` + cred + `>"`
}

// unauthorized answers 401 with the challenge.
func (a *Authenticator) unauthorized(w http.ResponseWriter, r *http.Request, msg, errCode string) {
	ch := `Bearer realm="ghops"`
	if a.metaURL != "" {
		ch += `, resource_metadata="` + a.metaURL + `"`
	}
	if errCode != "" {
		ch += `, error="` + errCode + `"`
	}
	w.Header().Set("WWW-Authenticate", ch)
	a.refuse(w, r, http.StatusUnauthorized, rpcerror.PermissionDenied, msg)
}

// refuse answers with a JSON-RPC error object and status.
func (a *Authenticator) refuse(w http.ResponseWriter, r *http.Request, status, code int, msg string, opts ...rpcerror.Option) {
	pipeline.WriteError(w, r, a.o.Sink, status, rpcerror.New(code, msg, opts...))
}

// bearer extracts the token of an "Authorization: Bearer <token>" header.
func bearer(h string) (string, bool) {
	const prefix = "bearer "
	if len(h) <= len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", false
	}
	t := strings.TrimSpace(h[len(prefix):])
	return t, t != ""
}

// checkResourceURL refuses a resource URL on a wildcard host: the metadata
// would send clients to http://0.0.0.0:P/mcp (or [::]), which names no
// server, and tokens would be minted for that audience.
func checkResourceURL(resource string) error {
	u, err := url.Parse(resource)
	if err != nil {
		return fmt.Errorf("authn: resource URL %q: %w", resource, err)
	}
	if loopback.Wildcard(u.Hostname()) {
		return fmt.Errorf("authn: OAuth on a wildcard address needs -resource-url (GHOPS_RESOURCE_URL), the URL clients reach the MCP endpoint at; %q names no server", resource)
	}
	return nil
}

// githubVerifier checks GitHub tokens against GET /user and remembers the
// answer, keyed by the token's SHA-256, for a short while: a valid token
// for the TTL, an invalid one for a tenth of it (so that a flood of bad
// tokens does not become a flood of GitHub calls).
type githubVerifier struct {
	client  *http.Client
	userURL string
	ttl     time.Duration
	now     func() time.Time

	mu    sync.Mutex
	cache map[[32]byte]ghEntry
}

// ghEntry is one remembered verification.
type ghEntry struct {
	login   string // "" for an invalid token
	expires time.Time
}

// maxCachedTokens bounds the verifier's memory.
const maxCachedTokens = 10000

// verify returns the token's login, errInvalid for a token GitHub refuses,
// or another error when GitHub cannot be asked.
func (v *githubVerifier) verify(ctx context.Context, token string) (string, error) {
	key := sha256.Sum256([]byte(token))
	now := v.now()
	v.mu.Lock()
	e, ok := v.cache[key]
	v.mu.Unlock()
	if ok && now.Before(e.expires) {
		if e.login == "" {
			return "", errInvalid
		}
		return e.login, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.userURL, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/vnd.github+json")
	resp, err := v.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("GitHub /user: %w", err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		var u struct {
			Login string `json:"login"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(&u); err != nil || u.Login == "" {
			return "", errors.New("GitHub /user answered without a login")
		}
		v.remember(key, u.Login, now.Add(v.ttl))
		return u.Login, nil
	case http.StatusUnauthorized, http.StatusForbidden:
		v.remember(key, "", now.Add(v.ttl/10))
		return "", errInvalid
	}
	return "", fmt.Errorf("GitHub /user answered %d", resp.StatusCode)
}

// remember stores one verification, dropping expired entries (and, if
// still full, everything) when the cache is full.
func (v *githubVerifier) remember(key [32]byte, login string, expires time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.cache) >= maxCachedTokens {
		now := v.now()
		for k, e := range v.cache {
			if !now.Before(e.expires) {
				delete(v.cache, k)
			}
		}
		if len(v.cache) >= maxCachedTokens {
			clear(v.cache)
		}
	}
	v.cache[key] = ghEntry{login: login, expires: expires}
}
