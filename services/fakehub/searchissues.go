package fakehub

import (
	"sort"
	"strings"

	"ghops.dev/services/fakehub/internal/searchq"
)

// searchWindow refuses a page beyond the first 1000 results, which GitHub's search never serves
// ("Only the first 1000 search results are available", 422).
func (c *reqCtx) searchWindow() *reply {
	page, per := c.paging()
	if (page-1)*per >= 1000 {
		return errReply(422, "Only the first 1000 search results are available", "https://docs.github.com/v3/search/")
	}
	return nil
}

// issueHit is one issue or pull request found by issue search.
type issueHit struct {
	r *repo
	x issueRef
}

// searchIssues answers GET /search/issues over the repositories the caller can read. It honours
// the qualifiers agents use (repo:, user:, org:, is:issue, is:pr, is:open, is:closed, state:,
// type:, label:, author:, assignee:, in:title, in:body, in:comments); words must all occur, case
// folded, in the fields in: names (title and body by default). Results are newest first, which is
// how GitHub orders equally relevant matches.
func (h *Hub) searchIssues(c *reqCtx) *reply {
	q, bad := parseSearch(c)
	if bad != nil {
		return bad
	}
	if bad := c.searchWindow(); bad != nil {
		return bad
	}
	// GitHub also offers semantic and hybrid issue search; fakehub has only the lexical kind, and
	// says so in search_type as GitHub does.
	switch c.r.URL.Query().Get("search_type") {
	case "", "lexical", "semantic", "hybrid":
	default:
		return validation(invalid("Search", "search_type", "invalid", ""))
	}
	repoQ := searchq.Query{Qualifiers: filterQuals(q, "repo", "user", "org")}
	var hits []issueHit
	for _, r := range h.visibleRepos(c) {
		if !repoQualifiersMatch(repoQ, r) {
			continue
		}
		for _, x := range r.allIssues() {
			if issueQualifiersMatch(q, x) && issueWordsMatch(q, x) {
				hits = append(hits, issueHit{r, x})
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].x.fields().created.After(hits[j].x.fields().created) })
	lo, hi, rep := c.pageOf(len(hits))
	items := []obj{}
	for _, x := range hits[lo:hi] {
		o := c.issueObj(x.r, x.x)
		o["score"] = 1.0
		if o["body"] == nil {
			// The description types a search item's body as a string, never null.
			o["body"] = ""
		}
		items = append(items, o)
	}
	rep.body = obj{"total_count": len(hits), "incomplete_results": false, "items": items, "search_type": "lexical"}
	return rep
}

func issueQualifiersMatch(q searchq.Query, x issueRef) bool {
	for _, f := range q.Qualifiers {
		v := strings.ToLower(f.Value)
		var ok bool
		switch f.Key {
		case "is", "type", "state":
			switch v {
			case "issue":
				ok = x.p == nil
			case "pr", "pull-request":
				ok = x.p != nil
			case "open", "closed":
				ok = x.fields().state == v
			case "merged":
				ok = x.p != nil && x.p.merged
			default:
				ok = false
			}
		case "label":
			ok = hasLabels(x.is, []string{f.Value})
		case "author":
			ok = strings.EqualFold(x.fields().user, f.Value)
		case "assignee":
			ok = personMatches(f.Value, x.is.assignees)
		default:
			continue
		}
		if ok == f.Negated {
			return false
		}
	}
	return true
}

func issueWordsMatch(q searchq.Query, x issueRef) bool {
	fields := map[string]bool{"title": true, "body": true}
	if in := q.Values("in"); len(in) > 0 {
		fields = map[string]bool{}
		for _, v := range in {
			for _, f := range strings.Split(strings.ToLower(v), ",") {
				fields[f] = true
			}
		}
	}
	var text []string
	if fields["title"] {
		text = append(text, x.fields().title)
	}
	if fields["body"] {
		text = append(text, x.fields().body)
	}
	if fields["comments"] {
		for _, cm := range x.is.comments {
			text = append(text, cm.body)
		}
	}
	hay := strings.ToLower(strings.Join(text, "\n"))
	for _, w := range q.Words {
		if !strings.Contains(hay, strings.ToLower(w)) {
			return false
		}
	}
	return true
}
