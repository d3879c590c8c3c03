package hub

import (
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// App is a GitHub App the hub knows: the public key its JWTs are checked
// against (RS256, as GitHub) and its installations. An installation token
// is had from POST /app/installations/{installation_id}/access_tokens with
// the App's JWT, as on GitHub, and is then accepted like any token until it
// expires.
type App struct {
	ID            int64
	PublicKey     *rsa.PublicKey
	Installations []Installation
}

// Installation is an App's installation: its id and what its tokens may
// touch ("owner/repo" or "*" to a permission, as Token.Repos). Login
// defaults to "app<ID>[bot]".
type Installation struct {
	ID    int64
	Login string
	Repos map[string]Permission
}

// DefaultAppTokenTTL is how long an installation token lives (GitHub: one hour).
const DefaultAppTokenTTL = time.Hour

// maxJWTLife is the longest exp - now GitHub accepts in an App's JWT.
const maxJWTLife = 10 * time.Minute

// jwtLeeway absorbs clock drift between the App and GitHub on iat and exp.
const jwtLeeway = 30 * time.Second

// appTokenRoute is the token exchange; the App's JWT is not a token, so the
// generic token lookup skips this route.
const appTokenRoute = "/app/installations/{installation_id}/access_tokens"

// apps holds the configured Apps and the installation tokens issued; its
// own lock, because tokens are looked up before a handler takes the hub's.
type apps struct {
	mu     sync.Mutex
	byID   map[int64]*App
	inst   map[int64]*Installation // by installation id
	owner  map[int64]int64         // installation id -> app id
	tokens map[string]*appToken
	issued int
}

type appToken struct {
	info    *tokenInfo
	expires time.Time
}

// AppTokensIssued reports how many installation tokens the hub has issued.
func (h *Hub) AppTokensIssued() int {
	h.apps.mu.Lock()
	defer h.apps.mu.Unlock()
	return h.apps.issued
}

func (h *Hub) initApps(list []App) error {
	h.apps.byID, h.apps.inst, h.apps.owner, h.apps.tokens = map[int64]*App{}, map[int64]*Installation{}, map[int64]int64{}, map[string]*appToken{}
	for i := range list {
		a := &list[i]
		if a.ID <= 0 || a.PublicKey == nil {
			return fmt.Errorf("fakehub: app %d needs an id and a public key", i)
		}
		h.apps.byID[a.ID] = a
		for j := range a.Installations {
			in := &a.Installations[j]
			if in.ID <= 0 {
				return fmt.Errorf("fakehub: app %d: installation %d has no id", a.ID, j)
			}
			if in.Login == "" {
				in.Login = "app" + strconv.FormatInt(a.ID, 10) + "[bot]"
			}
			h.apps.inst[in.ID] = in
			h.apps.owner[in.ID] = a.ID
		}
	}
	return nil
}

// appTokenInfo returns the live installation token val, or nil; expired
// tokens are forgotten.
func (h *Hub) appTokenInfo(val string) *tokenInfo {
	h.apps.mu.Lock()
	defer h.apps.mu.Unlock()
	t := h.apps.tokens[val]
	if t == nil {
		return nil
	}
	if !h.now().Before(t.expires) {
		delete(h.apps.tokens, val)
		return nil
	}
	return t.info
}

// errJWT is GitHub's answer to a JWT it cannot use.
var errJWT = errors.New("A JSON web token could not be decoded")

// createInstallationToken answers POST /app/installations/{id}/access_tokens:
// the bearer must be a JWT the installation's App signed (RS256, iss the
// App id, exp at most ten minutes ahead); the answer is a new token with
// its expires_at.
func (h *Hub) createInstallationToken(c *ReqCtx) *Reply {
	id, err := strconv.ParseInt(c.Params["installation_id"], 10, 64)
	if err != nil {
		return NotFound()
	}
	scheme, raw, _ := cutAuth(c.Req.Header.Get("Authorization"))
	if scheme != "bearer" || raw == "" {
		return ErrReply(401, "A JSON web token could not be decoded", DocRest)
	}
	app, err := h.verifyAppJWT(raw)
	if err != nil {
		return ErrReply(401, err.Error(), DocRest)
	}
	h.apps.mu.Lock()
	defer h.apps.mu.Unlock()
	in := h.apps.inst[id]
	if in == nil || h.apps.owner[id] != app.ID {
		return NotFound()
	}
	ttl := h.cfg.AppTokenTTL
	if ttl <= 0 {
		ttl = DefaultAppTokenTTL
	}
	now := h.now()
	for v, t := range h.apps.tokens {
		if !now.Before(t.expires) {
			delete(h.apps.tokens, v)
		}
	}
	val := "ghs_" + (rand.Text() + rand.Text())[:36]
	exp := now.Add(ttl)
	h.apps.tokens[val] = &appToken{
		info:    &tokenInfo{Token: Token{Value: val, Login: in.Login, Repos: in.Repos}, id: 1_000_000 + in.ID, installation: true},
		expires: exp,
	}
	h.apps.issued++
	perms := Obj{"contents": "write", "pull_requests": "write", "metadata": "read"}
	return OkReply(201, Obj{
		"token":                val,
		"expires_at":           exp.UTC().Format(time.RFC3339),
		"permissions":          perms,
		"repository_selection": "selected",
	})
}

// verifyAppJWT checks raw as GitHub does and returns its App.
func (h *Hub) verifyAppJWT(raw string) (*App, error) {
	var app *App
	claims := &jwt.RegisteredClaims{}
	_, err := jwt.ParseWithClaims(raw, claims, func(*jwt.Token) (any, error) {
		id, err := strconv.ParseInt(claims.Issuer, 10, 64)
		if err != nil {
			return nil, errJWT
		}
		h.apps.mu.Lock()
		app = h.apps.byID[id]
		h.apps.mu.Unlock()
		if app == nil {
			return nil, errJWT
		}
		return app.PublicKey, nil
	}, jwt.WithValidMethods([]string{"RS256"}), jwt.WithTimeFunc(h.now), jwt.WithIssuedAt(), jwt.WithExpirationRequired(), jwt.WithLeeway(jwtLeeway))
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return nil, errors.New("'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires")
	case err != nil:
		return nil, errJWT
	case claims.ExpiresAt.Sub(h.now()) > maxJWTLife+jwtLeeway:
		return nil, errors.New("'Expiration time' claim ('exp') is too far in the future")
	}
	return app, nil
}

// cutAuth splits an Authorization value into its lower-case scheme and
// credential.
func cutAuth(v string) (scheme, cred string, ok bool) {
	s, c, ok := strings.Cut(strings.TrimSpace(v), " ")
	return strings.ToLower(s), strings.TrimSpace(c), ok
}
