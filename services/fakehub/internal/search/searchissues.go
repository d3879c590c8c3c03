package search

import (
	"sort"
	"strings"
	"time"

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
// type:, label:, author:, assignee:, milestone:, no:milestone, no:label, no:assignee, created: and
// updated: with a date or a range, in:title, in:body, in:comments); words must all occur, case
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
			if issueQualifiersMatch(q, r, x) && issueWordsMatch(q, x) {
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

// issueQualifiersMatch says whether issue x of repository r meets q's qualifiers; one fakehub does
// not know (or a malformed date) is ignored, as GitHub ignores what it cannot parse.
func issueQualifiersMatch(q searchq.Query, r *hub.Repo, x hub.IssueRef) bool {
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
		case "milestone":
			ok = x.Is.Milestone != 0 && strings.EqualFold(milestoneTitle(r, x.Is.Milestone), f.Value)
		case "no":
			switch v {
			case "milestone":
				ok = x.Is.Milestone == 0
			case "label":
				ok = len(x.Is.Labels) == 0
			case "assignee":
				ok = len(x.Is.Assignees) == 0
			default:
				continue
			}
		case "created", "updated":
			t := x.Fields().Created
			if f.Key == "updated" {
				t = x.Fields().Updated
			}
			var known bool
			ok, known = dateMatches(f.Value, t)
			if !known {
				continue
			}
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

// milestoneTitle is the title of milestone number n of r ("" when there is none).
func milestoneTitle(r *hub.Repo, n int) string {
	for _, m := range r.Milestones {
		if m.Number == n {
			return m.Title
		}
	}
	return ""
}

// dateMatches applies a created: or updated: qualifier's value to t: a day or an RFC 3339 time,
// after <, <=, > or >=, or a range a..b (either end may be *). Days compare whole: <2026-01-30 is
// before that day began, >2026-01-30 after it ended. known is false for a value it cannot parse.
func dateMatches(v string, t time.Time) (ok, known bool) {
	if a, b, isRange := strings.Cut(v, ".."); isRange {
		lo, okA := dateBound(a, false)
		hi, okB := dateBound(b, true)
		if !okA || !okB {
			return false, false
		}
		return (a == "*" || !t.Before(lo)) && (b == "*" || !t.After(hi)), true
	}
	op := ""
	for _, p := range []string{"<=", ">=", "<", ">"} {
		if strings.HasPrefix(v, p) {
			op, v = p, v[len(p):]
			break
		}
	}
	start, okS := dateBound(v, false)
	end, okE := dateBound(v, true)
	if !okS || !okE {
		return false, false
	}
	switch op {
	case "<":
		return t.Before(start), true
	case "<=":
		return !t.After(end), true
	case ">":
		return t.After(end), true
	case ">=":
		return !t.Before(start), true
	}
	return !t.Before(start) && !t.After(end), true
}

// dateBound parses a qualifier's date: a day (its first or, with end, its last instant) or an
// RFC 3339 time; "*" is an open end.
func dateBound(v string, end bool) (time.Time, bool) {
	if v == "*" {
		return time.Time{}, true
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, true
	}
	d, err := time.Parse("2006-01-02", v)
	if err != nil {
		return time.Time{}, false
	}
	if end {
		return d.Add(24*time.Hour - time.Nanosecond), true
	}
	return d, true
}
