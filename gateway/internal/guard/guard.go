// Package guard keeps browsers from reaching tools on behalf of a web page:
// the HTTP middleware in front of /rpc and /mcp that every request passes
// before authentication.
//
//   - Host (DNS rebinding): the Host must be an IP literal, localhost, the
//     listen address's own name, or a configured name (-allowed-hosts,
//     exact or "*.example.com"). A rebinding attack sends the attacker's
//     domain name, which none of these is; an IP literal or localhost can
//     only be the gateway's own origin. Otherwise 403.
//   - Origin (cross-site requests): absent (not a browser), the gateway's
//     own origin, a configured one (-allowed-origins, "*" for any), or a
//     loopback origin when the gateway itself is reached on loopback (a
//     local inspector calling a local gateway). Otherwise 403.
//   - Content-Type: a POST must be application/json, which no simple
//     cross-site request (form, text/plain) can carry, so the browser
//     always preflights it. Otherwise 415.
//
// Every refusal is a JSON-RPC error object (-32600) with its HTTP status,
// and reaches the error log like any other error answer.
package guard

import (
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/infra/loopback"
)

// Options configure the guard.
type Options struct {
	// ListenAddr is the gateway's listen address (its host name, when it
	// is one, is an allowed Host).
	ListenAddr string
	// AllowedHosts are extra Host names ("name" or "*.suffix").
	AllowedHosts []string
	// AllowedOrigins are extra Origins ("scheme://host[:port]", or "*").
	AllowedOrigins []string
	// Sink reports refusals (one jsonrpc_error line each).
	Sink *rpcerror.Sink
}

// Guard is the middleware. It is safe for concurrent use.
type Guard struct {
	hosts     []string
	origins   map[string]bool
	anyOrigin bool
	sink      *rpcerror.Sink
}

// New returns a guard.
func New(o Options) *Guard {
	g := &Guard{origins: map[string]bool{}, sink: o.Sink}
	for _, h := range o.AllowedHosts {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			g.hosts = append(g.hosts, h)
		}
	}
	if h, _, err := net.SplitHostPort(o.ListenAddr); err == nil && h != "" && net.ParseIP(h) == nil {
		g.hosts = append(g.hosts, strings.ToLower(h))
	}
	for _, o := range o.AllowedOrigins {
		o = strings.ToLower(strings.TrimRight(strings.TrimSpace(o), "/"))
		switch o {
		case "":
		case "*":
			g.anyOrigin = true
		default:
			g.origins[o] = true
		}
	}
	return g
}

// Handler wraps next.
func (g *Guard) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := hostname(r.Host)
		switch {
		case !g.hostAllowed(host):
			g.refuse(w, r, http.StatusForbidden, "Forbidden: Host "+clip(r.Host)+" is not a name of this gateway (DNS rebinding protection; see -allowed-hosts)")
			return
		case !g.originAllowed(r.Header.Get("Origin"), r.Host, host):
			g.refuse(w, r, http.StatusForbidden, "Forbidden: Origin "+clip(r.Header.Get("Origin"))+" may not call this gateway (see -allowed-origins)")
			return
		case r.Method == http.MethodPost && !isJSON(r.Header.Get("Content-Type")):
			g.refuse(w, r, http.StatusUnsupportedMediaType, "Unsupported Media Type: the body must be sent as Content-Type: application/json")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed applies the Host rule.
func (g *Guard) hostAllowed(host string) bool {
	if host == "" || net.ParseIP(host) != nil || host == "localhost" {
		return true
	}
	for _, h := range g.hosts {
		if h == host || strings.HasPrefix(h, "*.") && strings.HasSuffix(host, h[1:]) {
			return true
		}
	}
	return false
}

// originAllowed applies the Origin rule; reqHost is the request's Host as
// sent and host its hostname.
func (g *Guard) originAllowed(origin, reqHost, host string) bool {
	if origin == "" || g.anyOrigin {
		return true
	}
	o := strings.ToLower(strings.TrimRight(origin, "/"))
	if g.origins[o] {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, reqHost) {
		return true // same origin
	}
	return loopback.Host(u.Hostname()) && loopback.Host(host)
}

// refuse answers a refused request with a JSON-RPC error object.
func (g *Guard) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	pipeline.WriteError(w, r, g.sink, status, rpcerror.New(rpcerror.InvalidRequest, msg))
}

// hostname returns the lower-case host of a Host header, without port or
// brackets.
func hostname(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	return strings.ToLower(strings.Trim(h, "[]"))
}

// isJSON reports whether a Content-Type is application/json (parameters
// such as charset allowed).
func isJSON(ct string) bool {
	if ct == "application/json" {
		return true // what every client sends, without parsing it per call
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// clip bounds a client-sent value quoted in a message.
func clip(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return strconv.Quote(s)
}
