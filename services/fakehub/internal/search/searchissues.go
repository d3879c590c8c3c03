package search

import (
	"sort"
	"strings"

	"ghops.dev/services/fakehub/internal/hub"
	"ghops.dev/services/fakehub/internal/searchq"
)

// issueHit is one issue or pull request found by issue search.
type issueHit struct {
	r *hub.Repo
	x hub.IssueRef
}

// searchIssues answers GET /search/issues over the repositories the caller can read. It honours
// the qualifiers agents use (repo:, user:, org:, is:issue, is:pr, is:open, is:closed, state:,
// type:, label:, author:, assignee:, in:title, in:body, in:comments); words must all occur, case
// folded, in the fields in: names (title and body by default). Results are newest first, which is
// how GitHub orders equally relevant matches.
func (h *api) searchIssues(c *hub.ReqCtx) *hub.Reply {
	q, bad := parseSearch(c)
	if bad != nil {
		return bad
	}
	if bad := c.SearchWindow(); bad != nil {
		return bad
	}
	// GitHub also offers semantic and hybrid issue search; fakehub has only the lexical kind, and
	// says so in search_type as GitHub does.
	switch c.Req.URL.Query().Get("search_type") {
	case "", "lexical", "semantic", "hybrid":
	default:
		return hub.Validation(hub.Invalid("Search", "search_type", "invalid", ""))
	}
	repoQ := searchq.Query{Qualifiers: filterQuals(q, "repo", "user", "org")}
	var hits []issueHit
	for _, r := range h.visibleRepos(c) {
		if !repoQualifiersMatch(repoQ, r) {
			continue
		}
		for _, x := range r.AllIssues() {
			if issueQualifiersMatch(q, x) && issueWordsMatch(q, x) {
				hits = append(hits, issueHit{r, x})
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].x.Fields().Created.After(hits[j].x.Fields().Created) })
	lo, hi, rep := c.PageOf(len(hits))
	items := []hub.Obj{}
	for _, x := range hits[lo:hi] {
		o := c.IssueObj(x.r, x.x)
		o["score"] = 1.0
		if o["body"] == nil {
			// The description types a search item's body as a string, never null.
			o["body"] = ""
		}
		items = append(items, o)
	}
	rep.Body = hub.Obj{"total_count": len(hits), "incomplete_results": false, "items": items, "search_type": "lexical"}
	return rep
}

func issueQualifiersMatch(q searchq.Query, x hub.IssueRef) bool {
	for _, f := range q.Qualifiers {
		v := strings.ToLower(f.Value)
		var ok bool
		switch f.Key {
		case "is", "type", "state":
			switch v {
			case "issue":
				ok = x.P == nil
			case "pr", "pull-request":
				ok = x.P != nil
			case "open", "closed":
				ok = x.Fields().State == v
			case "merged":
				ok = x.P != nil && x.P.Merged
			default:
				ok = false
			}
		case "label":
			ok = hub.HasLabels(x.Is, []string{f.Value})
		case "author":
			ok = strings.EqualFold(x.Fields().User, f.Value)
		case "assignee":
			ok = hub.PersonMatches(f.Value, x.Is.Assignees)
		default:
			continue
		}
		if ok == f.Negated {
			return false
		}
	}
	return true
}

func issueWordsMatch(q searchq.Query, x hub.IssueRef) bool {
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
		text = append(text, x.Fields().Title)
	}
	if fields["body"] {
		text = append(text, x.Fields().Body)
	}
	if fields["comments"] {
		for _, cm := range x.Is.Comments {
			text = append(text, cm.Body)
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
