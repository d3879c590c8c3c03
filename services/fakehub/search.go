package fakehub

import (
	"path"
	"sort"
	"strings"

	"ghops.dev/services/fakehub/internal/searchq"
)

// registerSearch adds the search routes.
func (h *Hub) registerSearch(add addFunc) {
	add("GET", "/search/repositories", h.searchRepos)
	add("GET", "/search/code", h.searchCode)
	add("GET", "/search/issues", h.searchIssues)
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
