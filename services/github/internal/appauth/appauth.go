// Package appauth authenticates the service to GitHub as a GitHub App
// installation instead of with a personal token: it signs the App's JWT
// with the private key, exchanges it for an installation token, and renews
// that token before it expires (github.com/bradleyfalzon/ghinstallation/v2
// does the exchange and renews a token a minute before its expires_at).
//
// Installation tokens change every hour, but the conditional-request cache
// (package httpcache) keys its answers on the Authorization header, so that
// an answer never crosses from one credential to another. To keep one cache
// identity per installation across renewals, the service's requests carry
// Identity (which names the App and the installation and holds no secret)
// down through the cache, and Transport, below the cache, swaps it for the
// current token. Requests with any other Authorization (a caller's own token)
// pass through untouched.
package appauth

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/bradleyfalzon/ghinstallation/v2"
)

// scheme is the Authorization scheme of Identity. go-github only ever sends
// "Bearer <token>", so no caller-supplied token can be mistaken for it.
const scheme = "GhopsAppInstallation"

// Transport is the round tripper that authenticates as the installation.
type Transport struct {
	identity string
	itr      *ghinstallation.Transport
	base     http.RoundTripper
}

// New returns a Transport over base (which also carries the token
// exchanges) for the App appID's installation installationID, with the
// App's PEM private key. apiURL is the REST root the service calls
// (https://api.github.com/, or a GitHub Enterprise /api/v3/ root). The
// error never quotes the key.
func New(base http.RoundTripper, apiURL string, appID, installationID int64, keyPEM []byte) (*Transport, error) {
	itr, err := ghinstallation.New(base, appID, installationID, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("github app: private key: %w", err)
	}
	itr.BaseURL = strings.TrimSuffix(apiURL, "/")
	return &Transport{
		identity: scheme + " " + strconv.FormatInt(appID, 10) + "/" + strconv.FormatInt(installationID, 10),
		itr:      itr,
		base:     base,
	}, nil
}

// Identity is the Authorization value of requests that act as the
// installation, from the service's client down to Transport. It is stable
// across token renewals and differs between installations.
func (t *Transport) Identity() string { return t.identity }

// RoundTrip sends req as the installation when it carries Identity, and
// unchanged otherwise.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != t.identity {
		return t.base.RoundTrip(req)
	}
	out := req.Clone(req.Context())
	out.Header.Del("Authorization")
	return t.itr.RoundTrip(out)
}

// Mark returns a round tripper that puts Identity on every request before
// next (the service client's transport, above the cache).
func (t *Transport) Mark(next http.RoundTripper) http.RoundTripper {
	return marker{identity: t.identity, next: next}
}

// marker sets the installation identity on each request.
type marker struct {
	identity string
	next     http.RoundTripper
}

// RoundTrip implements http.RoundTripper on a copy of req (a round tripper
// must not change the caller's request).
func (m marker) RoundTrip(req *http.Request) (*http.Response, error) {
	out := req.Clone(req.Context())
	out.Header.Set("Authorization", m.identity)
	return m.next.RoundTrip(out)
}
