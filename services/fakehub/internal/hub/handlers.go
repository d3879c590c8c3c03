package hub

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"ghops.dev/services/fakehub/internal/router"
)

// AddFunc registers a route's handler with the hub, in order (the first matching route wins). A GET
// handler runs under the shared lock; settled, when given, decides per request whether it may (see
// call), for GET handlers that sometimes write.
type AddFunc func(method, template string, fn handlerFunc, settled ...func(*ReqCtx) bool)

// buildRoutes registers the routes of every area, in the order given.
func (h *Hub) buildRoutes(areas []func(*Hub, AddFunc)) {
	h.routes = router.New("path", "ref", "branch", "tree_sha", "basehead")
	h.Handle = map[*router.Route]handlerFunc{}
	h.readers = map[*router.Route]func(*ReqCtx) bool{}
	always := func(*ReqCtx) bool { return true }
	add := func(m, t string, fn handlerFunc, settled ...func(*ReqCtx) bool) {
		route := h.routes.Add(m, t)
		h.Handle[route] = fn
		switch {
		case m != "GET":
		case len(settled) > 0:
			h.readers[route] = settled[0]
		default:
			h.readers[route] = always
		}
	}
	for _, a := range areas {
		a(h, add)
	}
}

// RegisterCore adds the routes every area shares: the rate limit, the user, the repository and the
// App token exchange.
func RegisterCore(h *Hub, add AddFunc) {
	add("GET", "/rate_limit", h.getRateLimit)
	add("GET", "/user", h.getAuthenticatedUser)
	add("GET", "/repos/{owner}/{repo}", h.WithRepo(PermRead, h.getRepo))
	add("POST", appTokenRoute, h.createInstallationToken)
}

// Perm is a token's permission on a repository; public repositories are readable by anyone.
func (h *Hub) Perm(t *tokenInfo, r *Repo) Permission {
	p := PermNone
	if t != nil {
		if x, ok := t.Repos[r.FullName()]; ok {
			p = x
		} else if x, ok := t.Repos[strings.ToLower(r.FullName())]; ok {
			p = x
		} else if x, ok := t.Repos["*"]; ok {
			p = x
		}
	}
	if p == PermNone && !r.Opts.Private {
		p = PermRead
	}
	return p
}

type repoHandler func(c *ReqCtx, r *Repo) *Reply

// WithRepo resolves {owner}/{repo} and enforces access: unknown or invisible repositories are 404
// (never 403), mutations need a token (401) and write permission (403).
func (h *Hub) WithRepo(need Permission, fn repoHandler) handlerFunc {
	return func(c *ReqCtx) *Reply {
		if need == PermWrite && c.Tok == nil {
			return ErrReply(401, "Requires authentication", DocRest)
		}
		r, ok := h.Repos[RepoKey(c.Params["owner"]+"/"+c.Params["repo"])]
		if !ok {
			return NotFound()
		}
		p := h.Perm(c.Tok, r)
		if p == PermNone {
			return NotFound()
		}
		if need == PermWrite && p != PermWrite {
			return ErrReply(403, "Resource not accessible by personal access token", DocRest)
		}
		return fn(c, r)
	}
}

// EmptyRepo answers 409 for git data asked of a repository without commits, as GitHub does.
func EmptyRepo() *Reply { return ErrReply(409, "Git Repository is empty.", DocRest) }

// paging reads page and per_page (default 30, max 100).
func (c *ReqCtx) paging() (page, perPage int) {
	q := c.Req.URL.Query()
	page, _ = strconv.Atoi(q.Get("page"))
	perPage, _ = strconv.Atoi(q.Get("per_page"))
	if page < 1 {
		page = 1
	}
	if perPage < 1 {
		perPage = 30
	}
	if perPage > 100 {
		perPage = 100
	}
	return page, perPage
}

// PageOf slices n items for the current page and returns the reply fields for the link header.
func (c *ReqCtx) PageOf(n int) (lo, hi int, rep *Reply) {
	page, per := c.paging()
	lo = (page - 1) * per
	if lo > n {
		lo = n
	}
	hi = lo + per
	if hi > n {
		hi = n
	}
	return lo, hi, &Reply{Status: 200, page: page, perPage: per, total: n}
}

// PageReply answers a list request with the requested page of all, each
// item rendered by render (an empty page is [], never null).
func PageReply[T any](c *ReqCtx, all []T, render func(T) Obj) *Reply {
	lo, hi, rep := c.PageOf(len(all))
	items := make([]Obj, 0, hi-lo)
	for _, v := range all[lo:hi] {
		items = append(items, render(v))
	}
	rep.Body = items
	return rep
}

// Decode reads the request's JSON body into v; it answers 400 when the body is not JSON.
func Decode(c *ReqCtx, v any) *Reply {
	body, err := io.ReadAll(io.LimitReader(c.Req.Body, 64<<20))
	if err != nil {
		return ErrReply(400, "Problems parsing JSON", DocRest)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return ErrReply(400, "Problems parsing JSON", DocRest)
	}
	return nil
}

func (h *Hub) getRateLimit(c *ReqCtx) *Reply {
	res := Obj{}
	names := []string{"core", "search"}
	for _, rr := range rateResources {
		names = append(names, rr.name)
	}
	for _, resource := range names {
		id, limit, window := h.bucketFor(c, resource)
		s := h.limiter.Peek(id, resource, limit, window)
		res[resource] = Obj{"limit": s.Limit, "remaining": s.Remaining, "used": s.Used, "reset": s.Reset.Unix(), "resource": resource}
	}
	return OkReply(200, Obj{"resources": res, "rate": res["core"]})
}

func (h *Hub) getRepo(c *ReqCtx, r *Repo) *Reply { return OkReply(200, c.FullRepo(r)) }

// getAuthenticatedUser answers GET /user: the token's user, 401 without a
// token (as GitHub: "Requires authentication").
func (h *Hub) getAuthenticatedUser(c *ReqCtx) *Reply {
	if c.Tok == nil {
		return ErrReply(401, "Requires authentication", DocRest)
	}
	if c.Tok.installation {
		// An installation token acts as the App, not as a user.
		return ErrReply(403, "Resource not accessible by integration", "https://docs.github.com/rest/users/users#get-the-authenticated-user")
	}
	return OkReply(200, c.privateUser(c.Tok.Login))
}

// SearchWindow refuses a page beyond the first 1000 results, which GitHub's search never serves
// ("Only the first 1000 search results are available", 422).
func (c *ReqCtx) SearchWindow() *Reply {
	page, per := c.paging()
	if (page-1)*per >= 1000 {
		return ErrReply(422, "Only the first 1000 search results are available", "https://docs.github.com/v3/search/")
	}
	return nil
}
