package hub

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"ghops.dev/services/fakehub/internal/ratelimit"
	"ghops.dev/services/fakehub/internal/router"
)

// Documentation URLs GitHub sends in error bodies; go-github recognises secondary limits by theirs.
const (
	DocRest          = "https://docs.github.com/rest"
	docPrimaryRate   = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit"
	docSecondaryRate = "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	msgSecondaryRate = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)

// Obj is a JSON object of a reply body.
type Obj = map[string]any

// Reply is what a handler answers; the serving layer adds headers, ETags and accounting.
type Reply struct {
	Status  int
	Body    any // marshalled as JSON unless raw is set
	Raw     []byte
	Ctype   string
	headers http.Header
	// paging
	page, perPage, total int
}

type handlerFunc func(c *ReqCtx) *Reply

// ReqCtx is one API request being served.
type ReqCtx struct {
	h      *Hub
	Req    *http.Request
	Params router.Params
	Tok    *tokenInfo
	api    string // absolute API root without trailing slash, keeping /api/v3 when used
	Web    string // absolute web root without trailing slash
	prefix string
}

// ErrReply is GitHub's error body (message, documentation_url, status) with status; doc defaults to
// DocRest.
func ErrReply(status int, msg, doc string) *Reply {
	if doc == "" {
		doc = DocRest
	}
	return &Reply{Status: status, Body: Obj{"message": msg, "documentation_url": doc, "status": strconv.Itoa(status)}}
}

// NotFound is GitHub's 404, which also stands for a repository the token may not see.
func NotFound() *Reply { return ErrReply(404, "Not Found", "") }

// Validation is GitHub's 422 body for v.
func Validation(v *ValidationError) *Reply {
	errs := make([]Obj, len(v.Errors))
	for i, e := range v.Errors {
		// GitHub leaves out what does not apply: custom errors name no field.
		o := Obj{"resource": e.Resource, "code": e.Code}
		if e.Field != "" {
			o["field"] = e.Field
		}
		if e.Message != "" {
			o["message"] = e.Message
		}
		errs[i] = o
	}
	body := Obj{"message": v.Message, "documentation_url": DocRest, "status": "422"}
	if len(errs) > 0 {
		// A ref error is a bare message; GitHub sends no empty errors list.
		body["errors"] = errs
	}
	return &Reply{Status: 422, Body: body}
}

// OkReply answers status with body.
func OkReply(status int, body any) *Reply { return &Reply{Status: status, Body: body} }

// Created answers 201 with a Location header naming the new object, as GitHub does for git
// objects and refs: the object's own url.
func Created(body Obj) *Reply {
	rep := OkReply(201, body)
	if u, ok := body["url"].(string); ok {
		rep.SetHeader("Location", u)
	}
	return rep
}

// ServeHTTP serves the API under / and /api/v3/, and the admin API under /_fakehub/.
func (h *Hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			h.log.Error("fakehub: handler panic", "panic", fmt.Sprint(v), "method", r.Method, "path", r.URL.Path)
			writeJSON(w, 500, Obj{"message": "Server Error", "documentation_url": DocRest, "status": "500"})
		}
	}()
	p := r.URL.EscapedPath()
	if strings.HasPrefix(p, "/_fakehub/") || p == "/_fakehub" {
		h.serveAdmin(w, r, strings.TrimPrefix(p, "/_fakehub"))
		return
	}
	prefix := ""
	if p == "/api/v3" || strings.HasPrefix(p, "/api/v3/") {
		prefix = "/api/v3"
		p = strings.TrimPrefix(p, "/api/v3")
		if p == "" {
			p = "/"
		}
	}
	h.serveAPI(w, r, prefix, p)
}

func (h *Hub) serveAPI(w http.ResponseWriter, r *http.Request, prefix, path string) {
	host := r.Host
	c := &ReqCtx{h: h, Req: r, api: "http://" + host + prefix, Web: "http://" + host, prefix: prefix}
	route, params, _ := h.routes.Match(r.Method, path)
	template := ""
	if route != nil {
		template = route.Template
		c.Params = params
	}
	resource := resourceOf(template)
	rec := RequestRecord{Method: r.Method, Path: r.URL.Path, Route: template, Resource: resource}
	if template == "/raw/{owner}/{repo}/{sha}/{path}" {
		// Raw downloads live outside the API's rate limits, like raw.githubusercontent.com.
		rep := h.call(c, route)
		h.write(w, r, c, rep, nil)
		return
	}

	if !h.authenticate(w, r, c, &rec, template, resource) {
		return
	}
	b := bucket{resource: resource}
	b.identity, b.limit, b.window = h.bucketFor(c, resource)
	// The App token exchange is limited per App on GitHub, not per client
	// address; it is not counted here.
	counted := template != "/rate_limit" && template != appTokenRoute
	if h.injectFault(w, r, c, &rec, b, template, path, counted) {
		return
	}
	h.answer(w, r, c, &rec, b, route, counted)
}

// resourceOf is the rate limit bucket a route counts against.
func resourceOf(template string) string {
	switch {
	case template == "/search/code":
		// GitHub counts code search in its own bucket, 10 requests a minute.
		return "code_search"
	case strings.HasPrefix(template, "/search/"):
		return "search"
	case strings.HasSuffix(template, "/graphql"):
		return "graphql"
	}
	return "core"
}

// authenticate resolves the Authorization header to c.tok; it answers bad credentials itself
// and then reports false.
func (h *Hub) authenticate(w http.ResponseWriter, r *http.Request, c *ReqCtx, rec *RequestRecord, template, resource string) bool {
	// Authentication. The App token exchange carries a JWT, which its
	// handler verifies.
	if auth := r.Header.Get("Authorization"); auth != "" && template != appTokenRoute {
		scheme, val, _ := strings.Cut(strings.TrimSpace(auth), " ")
		val = strings.TrimSpace(val)
		if s := strings.ToLower(scheme); s == "token" || s == "bearer" {
			c.Tok = h.tokens[val]
			if c.Tok == nil {
				c.Tok = h.appTokenInfo(val)
			}
		}
		if c.Tok == nil {
			// GitHub answers bad credentials with the anonymous limit's headers and counts the
			// request against it, so a client retrying a revoked token runs into 403s.
			id, limit, window := h.bucketFor(c, resource)
			snap, _ := h.limiter.Spend(id, resource, limit, window, 1)
			rec.Status, rec.Counted = 401, true
			h.record(*rec)
			h.write(w, r, c, ErrReply(401, "Bad credentials", DocRest), &snap)
			return false
		}
	}
	return true
}

// bucket is the rate limit bucket a request counts against.
type bucket struct {
	identity, resource string
	limit              int
	window             time.Duration
}

// injectFault applies the faults set for the request (latency, a dropped connection, a rate
// limit, an error status) and the primary rate limit; it reports whether it answered.
func (h *Hub) injectFault(w http.ResponseWriter, r *http.Request, c *ReqCtx, rec *RequestRecord, b bucket, template, path string, counted bool) bool {
	// Fault injection.
	act := h.faults.Decide(r.Method, template, path)
	if act.Latency > 0 {
		select {
		case <-time.After(act.Latency):
		case <-r.Context().Done():
		}
	}
	if act.Drop {
		rec.Status = 0
		h.record(*rec)
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return true
			}
		}
		panic(http.ErrAbortHandler)
	}
	limitStatus := http.StatusForbidden
	if act.RateLimitStatus == http.StatusTooManyRequests {
		limitStatus = http.StatusTooManyRequests
	}
	if act.RateLimit == "secondary" {
		snap := h.limiter.Peek(b.identity, b.resource, b.limit, b.window)
		rep := ErrReply(limitStatus, msgSecondaryRate, docSecondaryRate)
		retry := act.RetryAfter
		if retry <= 0 {
			retry = 60
		}
		rep.headers = http.Header{"Retry-After": {strconv.Itoa(retry)}}
		rec.Status = limitStatus
		h.record(*rec)
		h.write(w, r, c, rep, &snap)
		return true
	}
	if act.RateLimit == "primary" {
		h.limiter.Exhaust(b.identity, b.resource, b.limit, b.window)
	}
	if counted {
		if snap := h.limiter.Peek(b.identity, b.resource, b.limit, b.window); snap.Remaining <= 0 {
			var msg string
			if c.Tok != nil {
				msg = fmt.Sprintf("API rate limit exceeded for user ID %d.", c.Tok.id)
			} else {
				msg = fmt.Sprintf("API rate limit exceeded for %s. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)", clientIP(r))
			}
			rep := ErrReply(limitStatus, msg, docPrimaryRate)
			if b.resource == "graphql" {
				// GitHub's GraphQL API answers an exceeded primary limit with HTTP 200, a
				// RATE_LIMITED error and x-ratelimit-remaining 0 ("Rate limits and query
				// limits for the GraphQL API").
				rep = OkReply(200, Obj{"errors": []Obj{{"type": "RATE_LIMITED", "message": msg}}})
			}
			rec.Status = rep.Status
			h.record(*rec)
			h.write(w, r, c, rep, &snap)
			return true
		}
	}
	if act.Status != 0 {
		if act.Status < 400 || act.Status > 599 {
			act.Status = http.StatusInternalServerError // SetFaults does not validate; never hand WriteHeader a bad code
		}
		snap, _ := h.limiter.Spend(b.identity, b.resource, b.limit, b.window, 1)
		rec.Status, rec.Counted = act.Status, true
		h.record(*rec)
		h.write(w, r, c, ErrReply(act.Status, http.StatusText(act.Status), ""), &snap)
		return true
	}
	return false
}

// answer runs the route's handler and writes its reply, with an ETag on a successful GET and a
// 304 when it matches If-None-Match, and counts the request.
func (h *Hub) answer(w http.ResponseWriter, r *http.Request, c *ReqCtx, rec *RequestRecord, b bucket, route *router.Route, counted bool) {
	var rep *Reply
	if route == nil {
		rep = NotFound()
	} else {
		rep = h.call(c, route)
	}
	body := h.encode(c, rep)
	if r.Method == http.MethodGet && rep.Status == 200 {
		sum := sha256.Sum256(body)
		etag := `"` + hex.EncodeToString(sum[:16]) + `"`
		rep.SetHeader("ETag", etag)
		if etagMatch(r.Header.Get("If-None-Match"), etag) {
			snap := h.limiter.Peek(b.identity, b.resource, b.limit, b.window)
			rec.Status = 304
			h.record(*rec)
			rep.Status, rep.Raw, rep.Body = 304, nil, nil
			h.write(w, r, c, rep, &snap)
			return
		}
	}
	var snap = h.limiter.Peek(b.identity, b.resource, b.limit, b.window)
	if counted {
		snap, _ = h.limiter.Spend(b.identity, b.resource, b.limit, b.window, 1)
	}
	rec.Status, rec.Counted = rep.Status, counted
	h.record(*rec)
	rep.Raw = body
	h.write(w, r, c, rep, &snap)
}

// SetHeader sets a response header of the reply.
func (rep *Reply) SetHeader(k, v string) {
	if rep.headers == nil {
		rep.headers = http.Header{}
	}
	rep.headers.Set(k, v)
}

func etagMatch(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, part := range strings.Split(header, ",") {
		part = strings.TrimPrefix(strings.TrimSpace(part), "W/")
		if part == etag || part == "*" {
			return true
		}
	}
	return false
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// bucketFor picks the rate-limit bucket: per token identity, or per client address when anonymous
// (60/hour core, 10/minute search, as GitHub grants unauthenticated clients). Resources other than
// core, search and code_search get GitHub's published limits (rateResources).
func (h *Hub) bucketFor(c *ReqCtx, resource string) (identity string, limit int, window time.Duration) {
	if c.Tok != nil {
		identity = "user:" + strconv.FormatInt(c.Tok.id, 10)
		switch resource {
		case "search":
			return identity, h.cfg.SearchLimit, time.Minute
		case "core":
			return identity, h.cfg.CoreLimit, time.Hour
		case "graphql":
			if h.cfg.GraphQLLimit > 0 {
				return identity, h.cfg.GraphQLLimit, time.Hour
			}
		}
	} else {
		identity = "ip:" + clientIP(c.Req)
		switch resource {
		case "search":
			return identity, 10, time.Minute
		case "core":
			return identity, 60, time.Hour
		}
	}
	for _, rr := range rateResources {
		if rr.name == resource {
			if c.Tok == nil {
				return identity, rr.anonymous, rr.window
			}
			return identity, rr.authenticated, rr.window
		}
	}
	return identity, h.cfg.CoreLimit, time.Hour
}

// rateResource is one bucket GET /rate_limit lists.
type rateResource struct {
	name                     string
	authenticated, anonymous int
	window                   time.Duration
}

// rateResources are the buckets GitHub's /rate_limit lists beside core and search (its OpenAPI
// description's rate-limit-overview), with the limits GitHub documents for a user token
// (docs.github.com, "Rate limits for the REST API"; graphql counts points, here requests).
// fakehub counts requests in core, search, code_search and graphql; the others are listed unused.
var rateResources = []rateResource{
	{"graphql", 5000, 60, time.Hour}, // anonymous GraphQL is refused (401) before it counts
	{"code_search", 10, 10, time.Minute},
	{"integration_manifest", 5000, 5000, time.Hour},
	{"source_import", 100, 100, time.Minute},
	{"actions_runner_registration", 10000, 10000, time.Hour},
	{"scim", 15000, 15000, time.Hour},
	{"dependency_snapshots", 100, 100, time.Minute},
	{"dependency_sbom", 100, 100, time.Hour},
	{"code_scanning_autofix", 10, 10, time.Minute},
	{"copilot_usage_records", 10, 10, time.Minute},
}

// call runs a route's handler under the hub lock: shared when the route is registered as a reader
// and its predicate, checked under the shared lock, says the handler will not write; exclusive
// otherwise. State may change between dropping the shared lock and taking the exclusive one, which
// is harmless: the handler then runs from scratch under the exclusive lock.
func (h *Hub) call(c *ReqCtx, route *router.Route) *Reply {
	fn := h.Handle[route]
	if canRead := h.readers[route]; canRead != nil && !h.ExclusiveReads {
		h.Mu.RLock()
		if canRead(c) {
			defer h.Mu.RUnlock()
			return orNotFound(fn(c))
		}
		h.Mu.RUnlock()
	}
	h.Mu.Lock()
	defer h.Mu.Unlock()
	return orNotFound(fn(c))
}

func orNotFound(rep *Reply) *Reply {
	if rep == nil {
		return NotFound()
	}
	return rep
}

func (h *Hub) encode(c *ReqCtx, rep *Reply) []byte {
	if rep.Raw != nil || rep.Body == nil {
		return rep.Raw
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rep.Body); err != nil {
		h.log.Error("fakehub: encode", "err", err)
		return []byte(`{"message":"Server Error","documentation_url":"https://docs.github.com/rest","status":"500"}`)
	}
	return buf.Bytes()
}

func (h *Hub) write(w http.ResponseWriter, r *http.Request, c *ReqCtx, rep *Reply, s *ratelimit.Snapshot) {
	hdr := w.Header()
	for k, v := range rep.headers {
		hdr[k] = v
	}
	if s != nil {
		hdr.Set("X-RateLimit-Limit", strconv.Itoa(s.Limit))
		hdr.Set("X-RateLimit-Remaining", strconv.Itoa(s.Remaining))
		hdr.Set("X-RateLimit-Used", strconv.Itoa(s.Used))
		hdr.Set("X-RateLimit-Reset", strconv.FormatInt(s.Reset.Unix(), 10))
		hdr.Set("X-RateLimit-Resource", s.Resource)
	}
	hdr.Set("X-GitHub-Api-Version-Selected", "2022-11-28")
	if c.Tok != nil && c.Tok.Scopes != nil && !c.Tok.installation {
		// A classic token's scopes, on every answer (GitHub's "Scopes for OAuth apps"); tokens
		// without a scope list model fine-grained ones, which GitHub sends no scopes for.
		hdr.Set("X-OAuth-Scopes", strings.Join(c.Tok.Scopes, ", "))
	}
	if rep.page > 0 {
		if link := c.linkHeader(rep.page, rep.perPage, rep.total); link != "" {
			hdr.Set("Link", link)
		}
	}
	body := rep.Raw
	if body == nil && rep.Body != nil {
		body = h.encode(c, rep)
	}
	if rep.Status == 304 || rep.Status == 204 {
		w.WriteHeader(rep.Status)
		return
	}
	if body != nil {
		ct := rep.Ctype
		if ct == "" {
			ct = "application/json; charset=utf-8"
		}
		hdr.Set("Content-Type", ct)
		hdr.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(rep.Status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
