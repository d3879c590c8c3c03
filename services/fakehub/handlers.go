package fakehub

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"ghops.dev/services/fakehub/internal/router"
)

func (h *Hub) buildRoutes() {
	h.routes = router.New("path", "ref", "branch", "tree_sha", "basehead")
	h.handle = map[*router.Route]handlerFunc{}
	h.readers = map[*router.Route]func(*reqCtx) bool{}
	always := func(*reqCtx) bool { return true }
	add := func(m, t string, fn handlerFunc) {
		route := h.routes.Add(m, t)
		h.handle[route] = fn
		// Every GET handler only reads, except that a full pull request computes its mergeability
		// lazily; that one reads shared only once the mergeability for its current SHAs is settled.
		switch {
		case m != "GET":
		case t == "/repos/{owner}/{repo}/pulls/{pull_number}":
			h.readers[route] = h.pullSettled
		default:
			h.readers[route] = always
		}
	}
	add("GET", "/rate_limit", h.getRateLimit)
	add("GET", "/user", h.getAuthenticatedUser)
	add("GET", "/search/repositories", h.searchRepos)
	add("GET", "/search/code", h.searchCode)
	add("GET", "/search/issues", h.searchIssues)
	add("GET", "/repos/{owner}/{repo}/issues", h.withRepo(PermRead, h.listIssues))
	add("POST", "/repos/{owner}/{repo}/issues", h.withRepo(PermRead, h.createIssue))
	add("GET", "/repos/{owner}/{repo}/issues/{issue_number}", h.withRepo(PermRead, h.getIssue))
	add("PATCH", "/repos/{owner}/{repo}/issues/{issue_number}", h.withRepo(PermWrite, h.updateIssue))
	add("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments", h.withRepo(PermRead, h.listIssueComments))
	add("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments", h.withRepo(PermRead, h.createIssueComment))
	add("GET", "/repos/{owner}/{repo}/labels", h.withRepo(PermRead, h.listLabels))
	add("GET", "/repos/{owner}/{repo}/milestones", h.withRepo(PermRead, h.listMilestones))
	add("GET", "/repos/{owner}/{repo}", h.withRepo(PermRead, h.getRepo))
	add("GET", "/repos/{owner}/{repo}/contents/{path}", h.withRepo(PermRead, h.getContents))
	add("GET", "/repos/{owner}/{repo}/git/trees/{tree_sha}", h.withRepo(PermRead, h.getTree))
	add("POST", "/repos/{owner}/{repo}/git/trees", h.withRepo(PermWrite, h.createTree))
	add("GET", "/repos/{owner}/{repo}/git/blobs/{file_sha}", h.withRepo(PermRead, h.getBlob))
	add("POST", "/repos/{owner}/{repo}/git/blobs", h.withRepo(PermWrite, h.createBlob))
	add("GET", "/repos/{owner}/{repo}/git/commits/{commit_sha}", h.withRepo(PermRead, h.getGitCommit))
	add("POST", "/repos/{owner}/{repo}/git/commits", h.withRepo(PermWrite, h.createGitCommit))
	add("GET", "/repos/{owner}/{repo}/git/ref/{ref}", h.withRepo(PermRead, h.getRef))
	add("POST", "/repos/{owner}/{repo}/git/refs", h.withRepo(PermWrite, h.createRef))
	add("PATCH", "/repos/{owner}/{repo}/git/refs/{ref}", h.withRepo(PermWrite, h.updateRef))
	add("DELETE", "/repos/{owner}/{repo}/git/refs/{ref}", h.withRepo(PermWrite, h.deleteRef))
	add("GET", "/repos/{owner}/{repo}/readme", h.withRepo(PermRead, h.getReadme))
	add("GET", "/repos/{owner}/{repo}/commits", h.withRepo(PermRead, h.listCommits))
	add("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs", h.withRepo(PermRead, h.listCheckRuns))
	add("GET", "/repos/{owner}/{repo}/commits/{ref}/status", h.withRepo(PermRead, h.combinedStatus))
	add("GET", "/repos/{owner}/{repo}/commits/{ref}", h.withRepo(PermRead, h.getCommit))
	add("GET", "/repos/{owner}/{repo}/branches", h.withRepo(PermRead, h.listBranches))
	add("GET", "/repos/{owner}/{repo}/branches/{branch}", h.withRepo(PermRead, h.getBranch))
	add("GET", "/repos/{owner}/{repo}/pulls", h.withRepo(PermRead, h.listPulls))
	add("POST", "/repos/{owner}/{repo}/pulls", h.withRepo(PermWrite, h.createPull))
	add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}", h.withRepo(PermRead, h.getPull))
	add("PATCH", "/repos/{owner}/{repo}/pulls/{pull_number}", h.withRepo(PermWrite, h.updatePull))
	add("PUT", "/repos/{owner}/{repo}/pulls/{pull_number}/merge", h.withRepo(PermWrite, h.mergePullHandler))
	add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/merge", h.withRepo(PermRead, h.checkMerged))
	add("GET", "/raw/{owner}/{repo}/{sha}/{path}", h.withRepo(PermRead, h.raw))
	add("POST", appTokenRoute, h.createInstallationToken)
	add("POST", "/graphql", h.graphqlHandler)
	add("POST", "/api/graphql", h.graphqlHandler) // GitHub Enterprise Server's layout
	h.agentLoopRoutes(add)
	h.reviewRoutes(add)
}

// perm is a token's permission on a repository; public repositories are readable by anyone.
func (h *Hub) perm(t *tokenInfo, r *repo) Permission {
	p := PermNone
	if t != nil {
		if x, ok := t.Repos[r.fullName()]; ok {
			p = x
		} else if x, ok := t.Repos[strings.ToLower(r.fullName())]; ok {
			p = x
		} else if x, ok := t.Repos["*"]; ok {
			p = x
		}
	}
	if p == PermNone && !r.opts.Private {
		p = PermRead
	}
	return p
}

type repoHandler func(c *reqCtx, r *repo) *reply

// withRepo resolves {owner}/{repo} and enforces access: unknown or invisible repositories are 404
// (never 403), mutations need a token (401) and write permission (403).
func (h *Hub) withRepo(need Permission, fn repoHandler) handlerFunc {
	return func(c *reqCtx) *reply {
		if need == PermWrite && c.tok == nil {
			return errReply(401, "Requires authentication", docRest)
		}
		r, ok := h.repos[repoKey(c.p["owner"]+"/"+c.p["repo"])]
		if !ok {
			return notFound()
		}
		p := h.perm(c.tok, r)
		if p == PermNone {
			return notFound()
		}
		if need == PermWrite && p != PermWrite {
			return errReply(403, "Resource not accessible by personal access token", docRest)
		}
		return fn(c, r)
	}
}

func emptyRepo() *reply { return errReply(409, "Git Repository is empty.", docRest) }

// paging reads page and per_page (default 30, max 100).
func (c *reqCtx) paging() (page, perPage int) {
	q := c.r.URL.Query()
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

// pageOf slices n items for the current page and returns the reply fields for the link header.
func (c *reqCtx) pageOf(n int) (lo, hi int, rep *reply) {
	page, per := c.paging()
	lo = (page - 1) * per
	if lo > n {
		lo = n
	}
	hi = lo + per
	if hi > n {
		hi = n
	}
	return lo, hi, &reply{status: 200, page: page, perPage: per, total: n}
}

// pageReply answers a list request with the requested page of all, each
// item rendered by render (an empty page is [], never null).
func pageReply[T any](c *reqCtx, all []T, render func(T) obj) *reply {
	lo, hi, rep := c.pageOf(len(all))
	items := make([]obj, 0, hi-lo)
	for _, v := range all[lo:hi] {
		items = append(items, render(v))
	}
	rep.body = items
	return rep
}

func decode(c *reqCtx, v any) *reply {
	body, err := io.ReadAll(io.LimitReader(c.r.Body, 64<<20))
	if err != nil {
		return errReply(400, "Problems parsing JSON", docRest)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return errReply(400, "Problems parsing JSON", docRest)
	}
	return nil
}

func (h *Hub) getRateLimit(c *reqCtx) *reply {
	res := obj{}
	names := []string{"core", "search"}
	for _, rr := range rateResources {
		names = append(names, rr.name)
	}
	for _, resource := range names {
		id, limit, window := h.bucketFor(c, resource)
		s := h.limiter.Peek(id, resource, limit, window)
		res[resource] = obj{"limit": s.Limit, "remaining": s.Remaining, "used": s.Used, "reset": s.Reset.Unix(), "resource": resource}
	}
	return okReply(200, obj{"resources": res, "rate": res["core"]})
}

func (h *Hub) getRepo(c *reqCtx, r *repo) *reply { return okReply(200, c.fullRepo(r)) }

// getAuthenticatedUser answers GET /user: the token's user, 401 without a
// token (as GitHub: "Requires authentication").
func (h *Hub) getAuthenticatedUser(c *reqCtx) *reply {
	if c.tok == nil {
		return errReply(401, "Requires authentication", docRest)
	}
	if c.tok.installation {
		// An installation token acts as the App, not as a user.
		return errReply(403, "Resource not accessible by integration", "https://docs.github.com/rest/users/users#get-the-authenticated-user")
	}
	return okReply(200, c.privateUser(c.tok.Login))
}
