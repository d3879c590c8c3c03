// Package router matches request paths against OpenAPI-style route templates such as
// /repos/{owner}/{repo}/commits/{ref}/check-runs, where some parameters (a file path, a ref, a branch)
// may span several segments because clients do not escape their slashes.
package router

import (
	"net/url"
	"strings"
)

// Route is a method and template, e.g. GET /repos/{owner}/{repo}.
type Route struct {
	Method, Template string
	segs             []string
}

// Name is the route's name as used in statistics: "GET /repos/{owner}/{repo}".
func (r *Route) Name() string { return r.Method + " " + r.Template }

// Params are the matched template parameters, unescaped.
type Params map[string]string

// Router is an ordered set of routes; the first match wins.
type Router struct {
	routes []*Route
	// greedy names the parameters that may span segments.
	greedy map[string]bool
}

// New returns a router whose listed parameters may contain slashes.
func New(greedy ...string) *Router {
	g := map[string]bool{}
	for _, n := range greedy {
		g[n] = true
	}
	return &Router{greedy: g}
}

// Add registers a route and returns it.
func (rt *Router) Add(method, template string) *Route {
	r := &Route{Method: method, Template: template, segs: strings.Split(strings.Trim(template, "/"), "/")}
	rt.routes = append(rt.routes, r)
	return r
}

// Match finds the route for a method and escaped path. It reports methodMismatch when some route has
// the path but not the method.
func (rt *Router) Match(method, escapedPath string) (route *Route, p Params, methodMismatch bool) {
	trailing := strings.HasSuffix(escapedPath, "/") && len(escapedPath) > 1
	segs := strings.Split(strings.Trim(escapedPath, "/"), "/")
	if trailing {
		// "/contents/" addresses the root: keep an empty last segment for a greedy parameter.
		segs = append(segs, "")
	}
	for _, r := range rt.routes {
		p := Params{}
		if !rt.match(r.segs, segs, p) {
			continue
		}
		if r.Method != method {
			methodMismatch = true
			continue
		}
		return r, p, false
	}
	return nil, nil, methodMismatch
}

func (rt *Router) match(tmpl, segs []string, p Params) bool {
	if len(tmpl) == 0 {
		return len(segs) == 0 || (len(segs) == 1 && segs[0] == "")
	}
	t := tmpl[0]
	name, isParam := strings.CutPrefix(t, "{")
	name = strings.TrimSuffix(name, "}")
	if !isParam {
		return len(segs) > 0 && segs[0] == t && rt.match(tmpl[1:], segs[1:], p)
	}
	if !rt.greedy[name] {
		if len(segs) == 0 || segs[0] == "" {
			return false
		}
		v, err := url.PathUnescape(segs[0])
		if err != nil {
			return false
		}
		if !rt.match(tmpl[1:], segs[1:], p) {
			return false
		}
		p[name] = v
		return true
	}
	// Greedy: take as many segments as still lets the rest of the template match, longest first.
	rest := len(tmpl) - 1
	for n := len(segs) - rest; n >= 0; n-- {
		if n < 0 {
			break
		}
		if !rt.match(tmpl[1:], segs[n:], p) {
			continue
		}
		v, err := url.PathUnescape(strings.Join(segs[:n], "/"))
		if err != nil {
			return false
		}
		if v == "" && len(tmpl) > 1 {
			continue
		}
		p[name] = strings.TrimSuffix(v, "/")
		return true
	}
	return false
}
