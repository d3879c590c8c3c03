// Package search serves fakehub's search routes: repositories, code and issues (GitHub's qualifier
// syntax, parsed by package searchq).
package search

import (
	"path"
	"sort"
	"strings"

	"ghops.dev/services/fakehub/internal/hub"
	"ghops.dev/services/fakehub/internal/searchq"
)

// registerSearch adds the search routes.
func (h *api) registerSearch(add hub.AddFunc) {
	add("GET", "/search/repositories", h.searchRepos)
	add("GET", "/search/code", h.searchCode)
	add("GET", "/search/issues", h.searchIssues)
}

// visibleRepos lists repositories the caller may read.
func (h *api) visibleRepos(c *hub.ReqCtx) []*hub.Repo {
	var out []*hub.Repo
	for _, r := range h.SortedRepos() {
		if h.Perm(c.Tok, r) != hub.PermNone {
			out = append(out, r)
		}
	}
	return out
}

func parseSearch(c *hub.ReqCtx) (searchq.Query, *hub.Reply) {
	raw := c.Req.URL.Query().Get("q")
	if strings.TrimSpace(raw) == "" {
		return searchq.Query{}, hub.Validation(hub.Invalid("Search", "q", "missing", ""))
	}
	q, err := searchq.Parse(raw)
	if err != nil {
		return q, hub.Validation(&hub.ValidationError{Message: "Validation Failed", Errors: []hub.FieldError{{Resource: "Search", Field: "q", Code: "invalid", Message: err.Error()}}})
	}
	return q, nil
}

func repoQualifiersMatch(q searchq.Query, r *hub.Repo) bool {
	check := func(key string, ok func(v string) bool) bool {
		for _, x := range q.Qualifiers {
			if x.Key == key && ok(x.Value) == x.Negated {
				return false
			}
		}
		return true
	}
	return check("repo", func(v string) bool { return strings.EqualFold(v, r.FullName()) }) &&
		check("user", func(v string) bool { return strings.EqualFold(v, r.Opts.Owner) }) &&
		check("org", func(v string) bool { return strings.EqualFold(v, r.Opts.Owner) }) &&
		check("language", func(v string) bool { return strings.EqualFold(v, r.Opts.Language) }) &&
		check("topic", func(v string) bool {
			for _, t := range r.Opts.Topics {
				if strings.EqualFold(t, v) {
					return true
				}
			}
			return false
		})
}

func (h *api) searchRepos(c *hub.ReqCtx) *hub.Reply {
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
	var hits []*hub.Repo
	for _, r := range h.visibleRepos(c) {
		if !repoQualifiersMatch(q, r) {
			continue
		}
		ok := true
		for _, w := range q.Words {
			w = strings.ToLower(w)
			m := (fields["name"] && strings.Contains(strings.ToLower(r.Opts.Name), w)) ||
				(fields["description"] && strings.Contains(strings.ToLower(r.Opts.Description), w))
			if fields["topics"] {
				for _, t := range r.Opts.Topics {
					m = m || strings.EqualFold(t, w)
				}
			}
			ok = ok && m
		}
		if ok {
			hits = append(hits, r)
		}
	}
	lo, hi, rep := c.PageOf(len(hits))
	items := []hub.Obj{}
	for _, r := range hits[lo:hi] {
		o := c.FullRepo(r)
		o["score"] = 1.0
		items = append(items, o)
	}
	rep.Body = hub.Obj{"total_count": len(hits), "incomplete_results": false, "items": items}
	return rep
}

func (h *api) searchCode(c *hub.ReqCtx) *hub.Reply {
	if c.Tok == nil {
		return hub.ErrReply(401, "Requires authentication", hub.DocRest)
	}
	q, bad := parseSearch(c)
	if bad != nil {
		return bad
	}
	if bad := c.SearchWindow(); bad != nil {
		return bad
	}
	type hit struct {
		r    *hub.Repo
		path string
		sha  string
	}
	var hits []hit
	for _, r := range h.visibleRepos(c) {
		if !repoQualifiersMatch(searchq.Query{Qualifiers: filterQuals(q, "repo", "user", "org")}, r) {
			continue
		}
		head, ok := r.Resolve("")
		if !ok {
			continue
		}
		tree, err := r.Git.CommitTree(head)
		if err != nil {
			continue
		}
		files, err := r.Git.Flatten(tree)
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
			data, err := r.Git.Blob(files[p].Hash)
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
	lo, hi, rep := c.PageOf(len(hits))
	items := []hub.Obj{}
	for _, x := range hits[lo:hi] {
		items = append(items, hub.Obj{
			"name": path.Base(x.path), "path": x.path, "sha": x.sha,
			"url":        c.RepoURL(x.r) + "/contents/" + x.path + "?ref=" + x.sha,
			"git_url":    c.RepoURL(x.r) + "/git/blobs/" + x.sha,
			"html_url":   c.Web + "/" + x.r.FullName() + "/blob/" + x.sha + "/" + x.path,
			"repository": c.MinimalRepo(x.r), "score": 1.0,
		})
	}
	rep.Body = hub.Obj{"total_count": len(hits), "incomplete_results": false, "items": items}
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

// api serves this area's routes over the shared hub; its methods are the area's handlers.
type api struct{ *hub.Hub }

// Register adds this area's routes to h through add (see hub.New).
func Register(h *hub.Hub, add hub.AddFunc) { (&api{h}).registerSearch(add) }
