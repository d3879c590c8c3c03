package fakehub

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"ghops.dev/services/fakehub/internal/gitstore"
	"ghops.dev/services/fakehub/internal/router"
	"ghops.dev/services/fakehub/internal/searchq"
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

// visibleRepos lists repositories the caller may read.
func (h *Hub) visibleRepos(c *reqCtx) []*repo {
	var out []*repo
	for _, r := range h.sortedRepos() {
		if h.perm(c.tok, r) != PermNone {
			out = append(out, r)
		}
	}
	return out
}

func parseSearch(c *reqCtx) (searchq.Query, *reply) {
	raw := c.r.URL.Query().Get("q")
	if strings.TrimSpace(raw) == "" {
		return searchq.Query{}, validation(invalid("Search", "q", "missing", ""))
	}
	q, err := searchq.Parse(raw)
	if err != nil {
		return q, validation(&validationError{Message: "Validation Failed", Errors: []fieldError{{Resource: "Search", Field: "q", Code: "invalid", Message: err.Error()}}})
	}
	return q, nil
}

func repoQualifiersMatch(q searchq.Query, r *repo) bool {
	check := func(key string, ok func(v string) bool) bool {
		for _, x := range q.Qualifiers {
			if x.Key == key && ok(x.Value) == x.Negated {
				return false
			}
		}
		return true
	}
	return check("repo", func(v string) bool { return strings.EqualFold(v, r.fullName()) }) &&
		check("user", func(v string) bool { return strings.EqualFold(v, r.opts.Owner) }) &&
		check("org", func(v string) bool { return strings.EqualFold(v, r.opts.Owner) }) &&
		check("language", func(v string) bool { return strings.EqualFold(v, r.opts.Language) }) &&
		check("topic", func(v string) bool {
			for _, t := range r.opts.Topics {
				if strings.EqualFold(t, v) {
					return true
				}
			}
			return false
		})
}

func (h *Hub) searchRepos(c *reqCtx) *reply {
	q, bad := parseSearch(c)
	if bad != nil {
		return bad
	}
	in := q.Values("in")
	fields := map[string]bool{"name": true, "description": true, "topics": true}
	if len(in) > 0 {
		fields = map[string]bool{}
		for _, v := range in {
			for _, f := range strings.Split(strings.ToLower(v), ",") {
				fields[f] = true
			}
		}
	}
	var hits []*repo
	for _, r := range h.visibleRepos(c) {
		if !repoQualifiersMatch(q, r) {
			continue
		}
		ok := true
		for _, w := range q.Words {
			w = strings.ToLower(w)
			m := (fields["name"] && strings.Contains(strings.ToLower(r.opts.Name), w)) ||
				(fields["description"] && strings.Contains(strings.ToLower(r.opts.Description), w))
			if fields["topics"] {
				for _, t := range r.opts.Topics {
					m = m || strings.EqualFold(t, w)
				}
			}
			ok = ok && m
		}
		if ok {
			hits = append(hits, r)
		}
	}
	lo, hi, rep := c.pageOf(len(hits))
	items := []obj{}
	for _, r := range hits[lo:hi] {
		o := c.fullRepo(r)
		o["score"] = 1.0
		items = append(items, o)
	}
	rep.body = obj{"total_count": len(hits), "incomplete_results": false, "items": items}
	return rep
}

func (h *Hub) searchCode(c *reqCtx) *reply {
	if c.tok == nil {
		return errReply(401, "Requires authentication", docRest)
	}
	q, bad := parseSearch(c)
	if bad != nil {
		return bad
	}
	if bad := c.searchWindow(); bad != nil {
		return bad
	}
	type hit struct {
		r    *repo
		path string
		sha  string
	}
	var hits []hit
	for _, r := range h.visibleRepos(c) {
		if !repoQualifiersMatch(searchq.Query{Qualifiers: filterQuals(q, "repo", "user", "org")}, r) {
			continue
		}
		head, ok := r.resolve("")
		if !ok {
			continue
		}
		tree, err := r.git.CommitTree(head)
		if err != nil {
			continue
		}
		files, err := r.git.Flatten(tree)
		if err != nil {
			continue
		}
		paths := make([]string, 0, len(files))
		for p := range files {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			if !codeQualifiersMatch(q, p) {
				continue
			}
			data, err := r.git.Blob(files[p].Hash)
			if err != nil {
				continue
			}
			text := strings.ToLower(string(data))
			ok := true
			for _, w := range q.Words {
				ok = ok && strings.Contains(text, strings.ToLower(w))
			}
			if ok {
				hits = append(hits, hit{r, p, files[p].Hash.String()})
			}
		}
	}
	lo, hi, rep := c.pageOf(len(hits))
	items := []obj{}
	for _, x := range hits[lo:hi] {
		items = append(items, obj{
			"name": path.Base(x.path), "path": x.path, "sha": x.sha,
			"url":        c.repoURL(x.r) + "/contents/" + x.path + "?ref=" + x.sha,
			"git_url":    c.repoURL(x.r) + "/git/blobs/" + x.sha,
			"html_url":   c.web + "/" + x.r.fullName() + "/blob/" + x.sha + "/" + x.path,
			"repository": c.minimalRepo(x.r), "score": 1.0,
		})
	}
	rep.body = obj{"total_count": len(hits), "incomplete_results": false, "items": items}
	return rep
}

func filterQuals(q searchq.Query, keys ...string) []searchq.Qualifier {
	var out []searchq.Qualifier
	for _, x := range q.Qualifiers {
		for _, k := range keys {
			if x.Key == k {
				out = append(out, x)
			}
		}
	}
	return out
}

var extLanguage = map[string]string{".go": "go", ".md": "markdown", ".py": "python", ".js": "javascript", ".ts": "typescript", ".json": "json", ".yml": "yaml", ".yaml": "yaml"}

func codeQualifiersMatch(q searchq.Query, p string) bool {
	for _, x := range q.Qualifiers {
		var ok bool
		switch x.Key {
		case "language":
			ok = strings.EqualFold(extLanguage[path.Ext(p)], x.Value)
		case "path":
			ok = strings.HasPrefix(p, strings.Trim(x.Value, "/")) || strings.Contains(p, x.Value)
		case "filename":
			ok = path.Base(p) == x.Value
		case "extension":
			ok = strings.TrimPrefix(path.Ext(p), ".") == strings.TrimPrefix(x.Value, ".")
		default:
			continue
		}
		if ok == x.Negated {
			return false
		}
	}
	return true
}

// maxContentSize is the largest file whose content the contents API returns inline.
const maxContentSize = 1 << 20

// filesAt resolves the request's `ref` query (default branch when absent)
// and flattens that commit's tree, answering as the contents API does for
// an empty repository or an unknown ref.
func (c *reqCtx) filesAt(r *repo) (sha plumbing.Hash, ref string, files map[string]gitstore.Entry, fail *reply) {
	if r.empty() {
		return sha, "", nil, errReply(404, "This repository is empty.", docRest)
	}
	ref = c.r.URL.Query().Get("ref")
	sha, ok := r.resolve(ref)
	if !ok {
		return sha, ref, nil, errReply(404, "No commit found for the ref "+ref, docRest)
	}
	tree, _ := r.git.CommitTree(sha)
	files, err := r.git.Flatten(tree)
	if err != nil {
		return sha, ref, nil, errReply(500, "Server Error", "")
	}
	return sha, ref, files, nil
}

// fileReply is the contents API's answer for one file: base64 content up
// to maxContentSize, encoding "none" and no content above it.
func (c *reqCtx) fileReply(r *repo, sha plumbing.Hash, ref, p string, e gitstore.Entry) *reply {
	data, err := r.git.Blob(e.Hash)
	if err != nil {
		return notFound()
	}
	o := c.contentEntry(r, sha.String(), ref, p, e, int64(len(data)))
	if len(data) <= maxContentSize {
		o["content"], o["encoding"] = wrap64(data), "base64"
	} else {
		o["content"], o["encoding"] = "", "none"
	}
	return okReply(200, o)
}

func (h *Hub) getContents(c *reqCtx, r *repo) *reply {
	sha, ref, files, fail := c.filesAt(r)
	if fail != nil {
		return fail
	}
	p := strings.Trim(c.p["path"], "/")
	media := mediaParam(c.r.Header.Get("Accept"))
	if e, ok := files[p]; ok && p != "" {
		if e.Mode == filemode.Symlink {
			// GitHub answers a symlink to a file in the repository with that file's content, and
			// any other symlink with an object describing the link (its target included).
			text, err := r.git.Blob(e.Hash)
			if err != nil {
				return notFound()
			}
			if tp, ok := symlinkTarget(p, string(text)); ok {
				if te, ok := files[tp]; ok && te.Mode != filemode.Symlink && te.Mode != filemode.Submodule {
					p, e = tp, te
				}
			}
			if e.Mode == filemode.Symlink {
				o := c.contentEntry(r, sha.String(), ref, p, e, int64(len(text)))
				o["target"] = string(text)
				return okReply(200, o)
			}
		}
		if media == mediaRaw {
			data, err := r.git.Blob(e.Hash)
			if err != nil {
				return notFound()
			}
			return rawReply(data)
		}
		return c.fileReply(r, sha, ref, p, e)
	}
	// Directory: its direct children.
	prefix := ""
	if p != "" {
		prefix = p + "/"
	}
	seen := map[string]bool{}
	var list []obj
	var names []string
	children := map[string]obj{}
	for fp, e := range files {
		if !strings.HasPrefix(fp, prefix) {
			continue
		}
		rest := fp[len(prefix):]
		name, _, isDir := strings.Cut(rest, "/")
		if seen[name] {
			continue
		}
		seen[name] = true
		names = append(names, name)
		if isDir {
			children[name] = c.dirEntry(r, sha, ref, prefix+name)
			continue
		}
		size, _ := r.git.BlobSize(e.Hash)
		children[name] = c.contentEntry(r, sha.String(), ref, fp, e, size)
	}
	if len(names) == 0 {
		return notFound()
	}
	sort.Strings(names)
	for _, n := range names {
		list = append(list, children[n])
	}
	if len(list) > 1000 {
		list = list[:1000]
	}
	if media == mediaObject {
		// The object media type answers a directory as one object with its listing in entries.
		o := c.dirEntry(r, sha, ref, p)
		if p == "" {
			o = c.rootDirEntry(r, sha, ref)
		}
		o["entries"] = list
		return okReply(200, o)
	}
	return okReply(200, list)
}

func wrap64(data []byte) string {
	s := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60])
		b.WriteString("\n")
		s = s[60:]
	}
	b.WriteString(s)
	b.WriteString("\n")
	return b.String()
}

func (c *reqCtx) contentEntry(r *repo, commit, ref, p string, e gitstore.Entry, size int64) obj {
	typ := "file"
	if e.Mode == filemode.Symlink {
		typ = "symlink"
	}
	self := c.repoURL(r) + "/contents/" + p
	if ref != "" {
		self += "?ref=" + ref
	}
	git := c.repoURL(r) + "/git/blobs/" + e.Hash.String()
	html := c.web + "/" + r.fullName() + "/blob/" + firstNonEmpty(ref, r.opts.DefaultBranch) + "/" + p
	return obj{
		"type": typ, "size": size, "name": path.Base(p), "path": p, "sha": e.Hash.String(), "url": self,
		"git_url": git, "html_url": html, "download_url": c.api + "/raw/" + r.fullName() + "/" + commit + "/" + p,
		"_links": obj{"self": self, "git": git, "html": html},
	}
}

func (c *reqCtx) dirEntry(r *repo, commit plumbing.Hash, ref, p string) obj {
	self := c.repoURL(r) + "/contents/" + p
	if ref != "" {
		self += "?ref=" + ref
	}
	html := c.web + "/" + r.fullName() + "/tree/" + firstNonEmpty(ref, r.opts.DefaultBranch) + "/" + p
	var git any
	if tree, err := r.git.CommitTree(commit); err == nil {
		if t, err := r.git.Tree(tree); err == nil {
			if e, err := t.FindEntry(p); err == nil {
				git = c.repoURL(r) + "/git/trees/" + e.Hash.String()
				return obj{"type": "dir", "size": 0, "name": path.Base(p), "path": p, "sha": e.Hash.String(), "url": self,
					"git_url": git, "html_url": html, "download_url": nil, "_links": obj{"self": self, "git": git, "html": html}}
			}
		}
	}
	return obj{"type": "dir", "size": 0, "name": path.Base(p), "path": p, "sha": "", "url": self,
		"git_url": git, "html_url": html, "download_url": nil, "_links": obj{"self": self, "git": git, "html": html}}
}

// rootDirEntry describes the repository's root directory, for the object media type.
func (c *reqCtx) rootDirEntry(r *repo, commit plumbing.Hash, ref string) obj {
	self := c.repoURL(r) + "/contents/"
	if ref != "" {
		self += "?ref=" + ref
	}
	tree, _ := r.git.CommitTree(commit)
	git := c.repoURL(r) + "/git/trees/" + tree.String()
	html := c.web + "/" + r.fullName() + "/tree/" + firstNonEmpty(ref, r.opts.DefaultBranch)
	return obj{"type": "dir", "size": 0, "name": "", "path": "", "sha": tree.String(), "url": self,
		"git_url": git, "html_url": html, "download_url": nil, "_links": obj{"self": self, "git": git, "html": html}}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (h *Hub) raw(c *reqCtx, r *repo) *reply {
	sha, ok := r.resolve(c.p["sha"])
	if !ok {
		return notFound()
	}
	tree, _ := r.git.CommitTree(sha)
	files, err := r.git.Flatten(tree)
	if err != nil {
		return notFound()
	}
	e, ok := files[c.p["path"]]
	if !ok {
		return notFound()
	}
	data, err := r.git.Blob(e.Hash)
	if err != nil {
		return notFound()
	}
	ct := mime.TypeByExtension(path.Ext(c.p["path"]))
	if ct == "" || !strings.HasPrefix(ct, "text/") {
		ct = "text/plain; charset=utf-8"
	}
	return &reply{status: 200, raw: data, ctype: ct}
}

// GitHub's limits of one tree listing (docs.github.com, "Get a tree"): past either, the listing
// stops and says truncated.
const (
	maxTreeEntries = 100000
	maxTreeBytes   = 7 << 20 // the size of the tree array as JSON
)

// treeEntries lists a tree, recursively if asked, in git's order.
func (c *reqCtx) treeEntries(r *repo, h plumbing.Hash, recursive bool) ([]obj, bool, error) {
	var out []obj
	size := 0
	var walk func(h plumbing.Hash, prefix string) error
	walk = func(h plumbing.Hash, prefix string) error {
		t, err := r.git.Tree(h)
		if err != nil {
			return err
		}
		for _, e := range t.Entries {
			if len(out) >= maxTreeEntries {
				return errTruncated
			}
			o := obj{"path": prefix + e.Name, "mode": mode(e.Mode), "sha": e.Hash.String()}
			switch e.Mode {
			case filemode.Dir:
				o["type"], o["url"] = "tree", c.repoURL(r)+"/git/trees/"+e.Hash.String()
			case filemode.Submodule:
				o["type"] = "commit"
			default:
				size, _ := r.git.BlobSize(e.Hash)
				o["type"], o["size"], o["url"] = "blob", size, c.repoURL(r)+"/git/blobs/"+e.Hash.String()
			}
			b, err := json.Marshal(o)
			if err != nil {
				return err
			}
			if size += len(b) + 1; size > maxTreeBytes {
				return errTruncated
			}
			out = append(out, o)
			if recursive && e.Mode == filemode.Dir {
				if err := walk(e.Hash, prefix+e.Name+"/"); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err := walk(h, "")
	if err == errTruncated {
		return out, true, nil
	}
	if out == nil {
		out = []obj{}
	}
	return out, false, err
}

type truncatedError struct{}

func (truncatedError) Error() string { return "truncated" }

var errTruncated error = truncatedError{}

func mode(m filemode.FileMode) string {
	s := m.String()
	if len(s) == 7 && s[0] == '0' && m != filemode.Dir {
		s = s[1:]
	}
	if m == filemode.Dir {
		return "040000"
	}
	return s
}

func (h *Hub) getTree(c *reqCtx, r *repo) *reply {
	if r.empty() {
		return emptyRepo()
	}
	ref := c.p["tree_sha"]
	var tree plumbing.Hash
	if hexSHA.MatchString(ref) {
		if typ, err := r.git.ObjectType(plumbing.NewHash(ref)); err == nil && typ == plumbing.TreeObject {
			tree = plumbing.NewHash(ref)
		}
	}
	if tree.IsZero() {
		sha, ok := r.resolve(ref)
		if !ok {
			return notFound()
		}
		tree, _ = r.git.CommitTree(sha)
	}
	rec := c.r.URL.Query().Get("recursive")
	entries, truncated, err := c.treeEntries(r, tree, rec != "")
	if err != nil {
		return notFound()
	}
	return okReply(200, obj{"sha": tree.String(), "url": c.repoURL(r) + "/git/trees/" + tree.String(), "tree": entries, "truncated": truncated})
}

// treeModes are the modes GitHub accepts in a new tree: file, executable, directory, submodule
// and symlink (docs.github.com, "Create a tree").
var treeModes = map[string]bool{"100644": true, "100755": true, "040000": true, "160000": true, "120000": true}

type treeEntryIn struct {
	Path    string  `json:"path"`
	Mode    string  `json:"mode"`
	Type    string  `json:"type"`
	SHA     *string `json:"sha"`
	Content *string `json:"content"`
	hasSHA  bool
}

func (h *Hub) createTree(c *reqCtx, r *repo) *reply {
	if r.empty() {
		return emptyRepo()
	}
	var in struct {
		BaseTree string            `json:"base_tree"`
		Tree     []json.RawMessage `json:"tree"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if in.Tree == nil {
		return validation(invalid("Tree", "tree", "missing_field", ""))
	}
	files := map[string]gitstore.Entry{}
	if in.BaseTree != "" {
		base := plumbing.NewHash(in.BaseTree)
		if !hexSHA.MatchString(in.BaseTree) {
			return validation(invalid("Tree", "base_tree", "invalid", ""))
		}
		f, err := r.git.Flatten(base)
		if err != nil {
			return validation(invalid("Tree", "base_tree", "invalid", "base_tree is not a valid tree oid"))
		}
		files = f
	}
	for _, raw := range in.Tree {
		var e treeEntryIn
		if err := json.Unmarshal(raw, &e); err != nil {
			return errReply(400, "Problems parsing JSON", docRest)
		}
		var keys map[string]json.RawMessage
		_ = json.Unmarshal(raw, &keys)
		_, e.hasSHA = keys["sha"]
		if e.Path == "" {
			return validation(invalid("Tree", "path", "missing_field", ""))
		}
		p := e.Path
		if !safeTreePath(p) {
			// GitHub refuses a path that would make an unusable tree.
			return validation(invalid("Tree", "path", "invalid", "tree.path contains a malformed path component"))
		}
		if e.hasSHA && e.SHA == nil {
			// sha: null deletes the path (a file or a whole directory).
			delete(files, p)
			for k := range files {
				if strings.HasPrefix(k, p+"/") {
					delete(files, k)
				}
			}
			continue
		}
		fm, err := filemode.New(e.Mode)
		if err != nil || !treeModes[e.Mode] {
			return validation(invalid("Tree", "mode", "invalid", ""))
		}
		switch {
		case e.Content != nil:
			h, err := r.git.WriteBlob([]byte(*e.Content))
			if err != nil {
				return errReply(500, "Server Error", "")
			}
			files[p] = gitstore.Entry{Mode: fm, Hash: h}
		case e.SHA != nil:
			sha := plumbing.NewHash(*e.SHA)
			typ, err := r.git.ObjectType(sha)
			if err != nil || !hexSHA.MatchString(*e.SHA) {
				return validation(&validationError{Message: "Validation Failed", Errors: []fieldError{{Resource: "Tree", Field: "sha", Code: "invalid", Message: "tree.sha " + *e.SHA + " is not a valid blob"}}})
			}
			if typ == plumbing.TreeObject {
				sub, _ := r.git.Flatten(sha)
				for k := range files {
					if strings.HasPrefix(k, p+"/") {
						delete(files, k)
					}
				}
				for k, v := range sub {
					files[p+"/"+k] = v
				}
				continue
			}
			files[p] = gitstore.Entry{Mode: fm, Hash: sha}
		default:
			return validation(invalid("Tree", "sha", "missing_field", "Must supply either tree.sha or tree.content"))
		}
	}
	tree, err := r.git.WriteTree(files)
	if err != nil {
		return validation(invalid("Tree", "path", "invalid", err.Error()))
	}
	entries, truncated, err := c.treeEntries(r, tree, false)
	if err != nil {
		return errReply(500, "Server Error", "")
	}
	return created(obj{"sha": tree.String(), "url": c.repoURL(r) + "/git/trees/" + tree.String(), "tree": entries, "truncated": truncated})
}

func (h *Hub) getBlob(c *reqCtx, r *repo) *reply {
	sha := c.p["file_sha"]
	if !hexSHA.MatchString(sha) {
		return notFound()
	}
	data, err := r.git.Blob(plumbing.NewHash(sha))
	if err != nil {
		return notFound()
	}
	if mediaParam(c.r.Header.Get("Accept")) == mediaRaw {
		return rawReply(data)
	}
	return okReply(200, obj{"sha": sha, "node_id": nodeID("Blob", int64(len(data))), "size": len(data),
		"url": c.repoURL(r) + "/git/blobs/" + sha, "content": wrap64(data), "encoding": "base64"})
}

func (h *Hub) createBlob(c *reqCtx, r *repo) *reply {
	if r.empty() {
		return emptyRepo()
	}
	var in struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if in.Content == nil {
		return validation(invalid("Blob", "content", "missing_field", ""))
	}
	data := []byte(*in.Content)
	switch strings.ToLower(in.Encoding) {
	case "", "utf-8", "utf8":
	case "base64":
		d, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(*in.Content, "\n", ""))
		if err != nil {
			return validation(invalid("Blob", "content", "invalid", "content is not valid Base64"))
		}
		data = d
	default:
		return validation(invalid("Blob", "encoding", "invalid", "encoding must be utf-8 or base64"))
	}
	sha, err := r.git.WriteBlob(data)
	if err != nil {
		return errReply(500, "Server Error", "")
	}
	return created(obj{"sha": sha.String(), "url": c.repoURL(r) + "/git/blobs/" + sha.String()})
}

func (h *Hub) getGitCommit(c *reqCtx, r *repo) *reply {
	if r.empty() {
		return emptyRepo()
	}
	sha := c.p["commit_sha"]
	if !hexSHA.MatchString(sha) {
		return notFound()
	}
	cm, err := r.git.Commit(plumbing.NewHash(sha))
	if err != nil {
		return notFound()
	}
	return okReply(200, c.gitCommit(r, cm))
}

type sigIn struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

func (h *Hub) createGitCommit(c *reqCtx, r *repo) *reply {
	var in struct {
		Message   *string  `json:"message"`
		Tree      string   `json:"tree"`
		Parents   []string `json:"parents"`
		Author    *sigIn   `json:"author"`
		Committer *sigIn   `json:"committer"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if in.Message == nil {
		return validation(invalid("Commit", "message", "missing_field", ""))
	}
	if typ, err := r.git.ObjectType(plumbing.NewHash(in.Tree)); !hexSHA.MatchString(in.Tree) || err != nil || typ != plumbing.TreeObject {
		return validation(invalid("Commit", "tree", "invalid", "Tree SHA does not exist"))
	}
	var parents []plumbing.Hash
	for _, p := range in.Parents {
		if _, err := r.git.Commit(plumbing.NewHash(p)); !hexSHA.MatchString(p) || err != nil {
			return validation(invalid("Commit", "parents", "invalid", "Parent SHA does not exist or is not a commit object"))
		}
		parents = append(parents, plumbing.NewHash(p))
	}
	now := h.stamp()
	login := "fakehub"
	if c.tok != nil {
		login = c.tok.Login
	}
	toSig := func(s *sigIn, def gitstore.Signature) (gitstore.Signature, bool) {
		if s == nil {
			return def, true
		}
		out := gitstore.Signature{Name: s.Name, Email: s.Email, When: now}
		if s.Date != "" {
			t, err := parseTime(s.Date)
			if err != nil {
				return out, false
			}
			out.When = t
		}
		return out, true
	}
	def := gitstore.Signature{Name: login, Email: login + "@users.noreply.github.com", When: now}
	author, ok := toSig(in.Author, def)
	if !ok {
		return validation(invalid("Commit", "author.date", "invalid", ""))
	}
	committer, ok := toSig(in.Committer, author)
	if !ok {
		return validation(invalid("Commit", "committer.date", "invalid", ""))
	}
	msg := *in.Message
	sha, err := r.git.WriteCommit(plumbing.NewHash(in.Tree), parents, msg, author, committer)
	if err != nil {
		return errReply(500, "Server Error", "")
	}
	cm, _ := r.git.Commit(sha)
	return created(c.gitCommit(r, cm))
}

func (c *reqCtx) refObj(r *repo, name string, sha plumbing.Hash) obj {
	return obj{"ref": name, "node_id": nodeID("Ref", int64(len(name))), "url": c.repoURL(r) + "/git/" + name,
		"object": obj{"type": "commit", "sha": sha.String(), "url": c.repoURL(r) + "/git/commits/" + sha.String()}}
}

func (h *Hub) getRef(c *reqCtx, r *repo) *reply {
	if r.empty() {
		return emptyRepo()
	}
	name := "refs/" + strings.TrimPrefix(c.p["ref"], "refs/")
	sha, err := r.git.Ref(name)
	if err != nil {
		return notFound()
	}
	return okReply(200, c.refObj(r, name, sha))
}

func validRefName(name string) bool {
	return strings.HasPrefix(name, "refs/") && strings.Count(name, "/") >= 2 && !strings.Contains(name, "..") &&
		!strings.HasSuffix(name, "/") && !strings.ContainsAny(name, " ~^:?*[\\")
}

func (h *Hub) createRef(c *reqCtx, r *repo) *reply {
	var in struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if !validRefName(in.Ref) {
		return validation(&validationError{Message: "Reference name must start with 'refs/' and have at least two slashes."})
	}
	if _, err := r.git.Ref(in.Ref); err == nil {
		return validation(&validationError{Message: "Reference already exists"})
	}
	if _, err := r.git.Commit(plumbing.NewHash(in.SHA)); !hexSHA.MatchString(in.SHA) || err != nil {
		return validation(&validationError{Message: "Object does not exist"})
	}
	sha := plumbing.NewHash(in.SHA)
	if err := r.git.SetRef(in.Ref, sha); err != nil {
		return errReply(500, "Server Error", "")
	}
	return created(c.refObj(r, in.Ref, sha))
}

func (h *Hub) updateRef(c *reqCtx, r *repo) *reply {
	var in struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	// The path names a ref below refs/ (heads/x): GitHub reads refs/heads/x there as
	// refs/refs/heads/x, which does not exist.
	name := "refs/" + c.p["ref"]
	cur, err := r.git.Ref(name)
	if err != nil {
		return validation(&validationError{Message: "Reference does not exist"})
	}
	if _, err := r.git.Commit(plumbing.NewHash(in.SHA)); !hexSHA.MatchString(in.SHA) || err != nil {
		return validation(&validationError{Message: "Object does not exist"})
	}
	sha := plumbing.NewHash(in.SHA)
	if !in.Force && !r.git.IsAncestor(cur, sha) {
		return validation(&validationError{Message: "Update is not a fast forward"})
	}
	if err := r.git.SetRef(name, sha); err != nil {
		return errReply(500, "Server Error", "")
	}
	r.pushed = h.stamp()
	return okReply(200, c.refObj(r, name, sha))
}

// deleteRef deletes a branch or tag as GitHub does: a missing ref and the default branch are 422s,
// as is a protected branch (fakehub's protection never allows deletions), and open pull requests
// from or into a deleted branch are closed.
func (h *Hub) deleteRef(c *reqCtx, r *repo) *reply {
	name := "refs/" + strings.TrimPrefix(c.p["ref"], "refs/")
	if _, err := r.git.Ref(name); err != nil || !validRefName(name) {
		return validation(&validationError{Message: "Reference does not exist"})
	}
	branch, isBranch := strings.CutPrefix(name, "refs/heads/")
	if isBranch {
		if branch == r.opts.DefaultBranch {
			return validation(&validationError{Message: "Cannot delete the default branch"})
		}
		if _, ok := r.protected[branch]; ok {
			return validation(&validationError{Message: "Cannot delete this protected branch"})
		}
	}
	var closing []*pull
	if isBranch {
		for _, p := range r.pulls {
			if p.state == "open" && (p.head == branch || p.base == branch) {
				closing = append(closing, p)
			}
		}
	}
	t := h.stamp()
	for _, p := range closing {
		// Freeze the SHAs while the branch still resolves, as a closed pull request keeps them.
		p.headSHA, p.baseSHA = r.pullSHAs(p)
		p.state, p.closedAt, p.updated = "closed", t, t
	}
	if err := r.git.DeleteRef(name); err != nil {
		return errReply(500, "Server Error", "")
	}
	r.pushed = t
	return &reply{status: 204}
}

func (h *Hub) listCommits(c *reqCtx, r *repo) *reply {
	if r.empty() {
		return emptyRepo()
	}
	q := c.r.URL.Query()
	start, ok := r.resolve(q.Get("sha"))
	if !ok {
		return notFound()
	}
	log := r.git.Log(start)
	if p := strings.Trim(q.Get("path"), "/"); p != "" {
		var kept []*object.Commit
		for _, cm := range log {
			if touches(r, cm, p) {
				kept = append(kept, cm)
			}
		}
		log = kept
	}
	return pageReply(c, log, func(cm *object.Commit) obj { return c.commit(r, cm) })
}

// touches reports whether a commit changed anything at or below p relative to its first parent.
func touches(r *repo, cm *object.Commit, p string) bool {
	sub := func(tree plumbing.Hash) map[string]gitstore.Entry {
		files, _ := r.git.Flatten(tree)
		out := map[string]gitstore.Entry{}
		for k, v := range files {
			if k == p || strings.HasPrefix(k, p+"/") {
				out[k] = v
			}
		}
		return out
	}
	now := sub(cm.TreeHash)
	var before map[string]gitstore.Entry
	if len(cm.ParentHashes) > 0 {
		pt, _ := r.git.CommitTree(cm.ParentHashes[0])
		before = sub(pt)
	}
	if len(now) != len(before) {
		return true
	}
	for k, v := range now {
		if before[k] != v {
			return true
		}
	}
	return false
}

func (h *Hub) listCheckRuns(c *reqCtx, r *repo) *reply {
	sha, ok := r.resolve(c.p["ref"])
	if !ok {
		return validation(&validationError{Message: "No commit found for SHA: " + c.p["ref"]})
	}
	q := c.r.URL.Query()
	filter := q.Get("filter")
	if filter == "" {
		filter = "latest"
	}
	if filter != "latest" && filter != "all" {
		return validation(&validationError{Message: "Validation Failed", Errors: []fieldError{{Resource: "CheckRun", Field: "filter", Code: "invalid"}}})
	}
	all := r.checks[sha.String()]
	// latest (GitHub's default) keeps only the most recent run of each name, so a re-run
	// replaces the run it repeats; all keeps every run. Runs are recorded in order.
	latest := map[string]*checkRun{}
	for _, cr := range all {
		latest[cr.name] = cr
	}
	var runs []*checkRun
	for _, cr := range all {
		if filter == "latest" && latest[cr.name] != cr {
			continue
		}
		if n := q.Get("check_name"); n != "" && n != cr.name {
			continue
		}
		if s := q.Get("status"); s != "" && s != cr.status {
			continue
		}
		runs = append(runs, cr)
	}
	lo, hi, rep := c.pageOf(len(runs))
	items := []obj{}
	for _, cr := range runs[lo:hi] {
		u := c.repoURL(r) + "/check-runs/" + strconv.FormatInt(cr.id, 10)
		var conclusion any
		if cr.conclusion != "" {
			conclusion = cr.conclusion
		}
		items = append(items, obj{
			"id": cr.id, "node_id": nodeID("CheckRun", cr.id), "head_sha": cr.sha, "name": cr.name, "url": u,
			"html_url": c.web + "/" + r.fullName() + "/runs/" + strconv.FormatInt(cr.id, 10), "details_url": c.checkDetailsURL(r, cr),
			"status": cr.status, "conclusion": conclusion, "started_at": nullTime(cr.started), "completed_at": nullTime(cr.completed),
			"external_id": nil, "check_suite": obj{"id": cr.id}, "pull_requests": []any{},
			"output": obj{"title": nil, "summary": nil, "text": nil, "annotations_count": 0, "annotations_url": u + "/annotations"},
			"app":    c.checkApp(r, cr),
		})
	}
	rep.body = obj{"total_count": len(runs), "check_runs": items}
	return rep
}

func (h *Hub) combinedStatus(c *reqCtx, r *repo) *reply {
	sha, ok := r.resolve(c.p["ref"])
	if !ok {
		return notFound()
	}
	latest := map[string]*commitStatus{}
	var order []string
	for _, s := range r.statuses[sha.String()] {
		if _, ok := latest[s.context]; !ok {
			order = append(order, s.context)
		}
		latest[s.context] = s
	}
	sort.Strings(order)
	state := "success"
	if len(order) == 0 {
		state = "pending"
	}
	statuses := []obj{}
	for _, ctxName := range order {
		s := latest[ctxName]
		switch {
		case s.state == "failure" || s.state == "error":
			state = "failure"
		case s.state == "pending" && state != "failure":
			state = "pending"
		}
		statuses = append(statuses, obj{"id": s.id, "node_id": nodeID("StatusContext", s.id), "url": c.repoURL(r) + "/statuses/" + sha.String(),
			"avatar_url": nil, "state": s.state, "description": nil, "target_url": nil, "context": s.context,
			"created_at": ts(s.at), "updated_at": ts(s.at)})
	}
	return okReply(200, obj{"state": state, "sha": sha.String(), "total_count": len(statuses), "statuses": statuses,
		"repository": c.minimalRepo(r), "commit_url": c.commitURL(r, sha.String()), "url": c.commitURL(r, sha.String()) + "/status"})
}

func (h *Hub) listBranches(c *reqCtx, r *repo) *reply {
	refs, names := r.git.Refs("refs/heads/")
	if p := c.r.URL.Query().Get("protected"); p == "true" || p == "false" {
		var kept []string
		for _, n := range names {
			if _, ok := r.protected[strings.TrimPrefix(n, "refs/heads/")]; ok == (p == "true") {
				kept = append(kept, n)
			}
		}
		names = kept
	}
	lo, hi, rep := c.pageOf(len(names))
	items := []obj{}
	for _, n := range names[lo:hi] {
		b := strings.TrimPrefix(n, "refs/heads/")
		_, prot := r.protected[b]
		items = append(items, obj{"name": b, "commit": obj{"sha": refs[n].String(), "url": c.commitURL(r, refs[n].String())}, "protected": prot})
	}
	rep.body = items
	return rep
}

func (h *Hub) getBranch(c *reqCtx, r *repo) *reply {
	b := c.p["branch"]
	sha, err := r.git.Ref("refs/heads/" + b)
	if err != nil {
		return errReply(404, "Branch not found", docRest)
	}
	cm, err := r.git.Commit(sha)
	if err != nil {
		return notFound()
	}
	checks, prot := r.protected[b]
	u := c.repoURL(r) + "/branches/" + b
	protection := obj{"enabled": false, "required_status_checks": obj{"enforcement_level": "off", "contexts": []string{}, "checks": []any{}}}
	if prot {
		cs := []obj{}
		for _, x := range checks {
			cs = append(cs, obj{"context": x, "app_id": nil})
		}
		protection = obj{"enabled": true, "required_status_checks": obj{"enforcement_level": "everyone", "contexts": append([]string{}, checks...), "checks": cs, "strict": true}}
	}
	return okReply(200, obj{"name": b, "commit": c.commit(r, cm), "_links": obj{"self": u, "html": c.web + "/" + r.fullName() + "/tree/" + b},
		"protected": prot, "protection": protection, "protection_url": u + "/protection"})
}

func (h *Hub) listPulls(c *reqCtx, r *repo) *reply {
	q := c.r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	if state != "open" && state != "closed" && state != "all" {
		return validation(invalid("PullRequest", "state", "invalid", ""))
	}
	head := q.Get("head")
	var prs []*pull
	for i := len(r.pulls) - 1; i >= 0; i-- {
		p := r.pulls[i]
		if state != "all" && p.state != state {
			continue
		}
		if b := q.Get("base"); b != "" && p.base != b {
			continue
		}
		if head != "" {
			owner, branch, ok := strings.Cut(head, ":")
			if !ok {
				owner, branch = r.opts.Owner, head
			}
			if !strings.EqualFold(owner, r.opts.Owner) || branch != p.head {
				continue
			}
		}
		prs = append(prs, p)
	}
	if q.Get("direction") == "asc" {
		for i, j := 0, len(prs)-1; i < j; i, j = i+1, j-1 {
			prs[i], prs[j] = prs[j], prs[i]
		}
	}
	return pageReply(c, prs, func(p *pull) obj { return c.pullObj(r, p, false) })
}

func (h *Hub) createPull(c *reqCtx, r *repo) *reply {
	var in struct {
		Title string `json:"title"`
		Head  string `json:"head"`
		Base  string `json:"base"`
		Body  string `json:"body"`
		Draft bool   `json:"draft"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	p, verr := h.openPullLocked(r, in.Head, in.Base, in.Title, in.Body, in.Draft, c.tok.Login)
	if verr != nil {
		return validation(verr)
	}
	rep := okReply(201, c.pullObj(r, p, true))
	// The creation answer shows mergeable null; the first read after it is still null, as on GitHub.
	p.seenPair = [2]string{}
	rep.setHeader("Location", c.repoURL(r)+"/pulls/"+strconv.Itoa(p.number))
	return rep
}

func (c *reqCtx) pullNumber(r *repo) *pull {
	n, err := strconv.Atoi(c.p["pull_number"])
	if err != nil {
		return nil
	}
	return r.pullByNumber(n)
}

// pullSettled reports whether GET pulls/{pull_number} can be answered without writing, that is
// without computing mergeability; it runs under the shared lock.
func (h *Hub) pullSettled(c *reqCtx) bool {
	r, ok := h.repos[repoKey(c.p["owner"]+"/"+c.p["repo"])]
	if !ok {
		return true
	}
	p := c.pullNumber(r)
	return p == nil || r.mergeabilitySettled(p)
}

func (h *Hub) getPull(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	return okReply(200, c.pullObj(r, p, true))
}

func (h *Hub) updatePull(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	var in struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
		State *string `json:"state"`
		Base  *string `json:"base"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if in.Title != nil {
		p.title = *in.Title
	}
	if in.Body != nil {
		p.body = *in.Body
	}
	if in.Base != nil && *in.Base != p.base {
		if _, err := r.git.Ref("refs/heads/" + *in.Base); err != nil {
			return validation(invalid("PullRequest", "base", "invalid", ""))
		}
		p.base = *in.Base
	}
	if in.State != nil {
		switch *in.State {
		case "closed":
			if p.state == "open" {
				p.headSHA, p.baseSHA = r.pullSHAs(p)
				p.state, p.closedAt = "closed", h.stamp()
			}
		case "open":
			if p.state == "closed" && !p.merged {
				p.state, p.closedAt, p.headSHA, p.baseSHA = "open", timeZero, "", ""
			}
		default:
			return validation(invalid("PullRequest", "state", "invalid", ""))
		}
	}
	p.updated = h.stamp()
	return okReply(200, c.pullObj(r, p, true))
}

func (h *Hub) mergePullHandler(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	var in struct {
		CommitTitle   string `json:"commit_title"`
		CommitMessage string `json:"commit_message"`
		SHA           string `json:"sha"`
		MergeMethod   string `json:"merge_method"`
	}
	if c.r.ContentLength != 0 {
		if bad := decode(c, &in); bad != nil {
			return bad
		}
	}
	if m := in.MergeMethod; m != "" && m != "merge" && m != "squash" && m != "rebase" {
		return validation(invalid("PullRequest", "merge_method", "invalid", ""))
	}
	out := h.mergePull(r, p, in.MergeMethod, in.SHA, in.CommitTitle, in.CommitMessage)
	if out.status != 200 {
		if out.status == 422 {
			return validation(invalid("PullRequest", "merge_method", "invalid", out.message))
		}
		return errReply(out.status, out.message, docRest)
	}
	return okReply(200, obj{"sha": out.sha, "merged": true, "message": out.message})
}

func (h *Hub) checkMerged(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil || !p.merged {
		return &reply{status: 404}
	}
	return &reply{status: 204}
}

// diffStats reports additions, deletions, changed files and commits of head over its merge base.
func (r *repo) diffStats(head, base string) (adds, dels, files, commits int) {
	hh, bh := plumbing.NewHash(head), plumbing.NewHash(base)
	mb := r.git.MergeBase(hh, bh)
	anc := r.git.Ancestors(mb)
	for x := range r.git.Ancestors(hh) {
		if !anc[x] {
			commits++
		}
	}
	var mbTree plumbing.Hash
	if !mb.IsZero() {
		mbTree, _ = r.git.CommitTree(mb)
	}
	ht, _ := r.git.CommitTree(hh)
	a, _ := r.git.Flatten(mbTree)
	b, _ := r.git.Flatten(ht)
	for p, e := range b {
		if old, ok := a[p]; !ok || old != e {
			files++
			adds += lineCount(r, e.Hash)
			if ok {
				dels += lineCount(r, old.Hash)
			}
		}
	}
	for p, e := range a {
		if _, ok := b[p]; !ok {
			files++
			dels += lineCount(r, e.Hash)
		}
	}
	return adds, dels, files, commits
}

func lineCount(r *repo, h plumbing.Hash) int {
	data, err := r.git.Blob(h)
	if err != nil {
		return 0
	}
	return strings.Count(string(data), "\n")
}

// safeTreePath is GitHub's rule for a tree entry's path: no leading or
// trailing "/", no empty, ".", ".." or ".git" segment, no control
// character.
func safeTreePath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return false
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "", ".", "..", ".git":
			return false
		}
	}
	return true
}
