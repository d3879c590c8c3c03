// Package projectfilter parses GitHub Projects' filter syntax and matches
// project items against it. GitHub's GraphQL API lists a project's items
// without a filter argument, so the service pages through the items and
// applies the filter a caller gave itself, as GitHub's project views do:
//
//	status:Todo iteration:@current assignee:octocat   qualifiers are ANDed
//	label:bug,feature                                 commas OR the values
//	-status:Done  -label:wontfix                      a leading - negates
//	status:"In progress"  "due date":>=2026-01-01     quotes keep spaces
//	estimate:>3  estimate:1..5  due:<@today           comparisons and ranges
//	iteration:@current  iteration:@next  @previous    sprints by position
//	assignee:@me  no:assignee  has:label              presence
//	is:open is:closed is:merged is:draft is:issue is:pr is:archived
//	login page                                        bare words match the title
//
// A qualifier names a field by its name, case-insensitively, with hyphens
// standing for spaces where the name has them. Parse bounds the filter's
// size so that evaluating it stays cheap.
package projectfilter

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bounds of one filter: longer ones are refused, not truncated.
const (
	// MaxTerms caps the terms (qualifiers and words) of a filter.
	MaxTerms = 20
	// MaxValues caps the comma-separated values of one qualifier.
	MaxValues = 20
)

// Term is one part of a filter: a qualifier with its values, or a bare
// word (Key empty) matched against the title.
type Term struct {
	// Negated is set by a leading "-".
	Negated bool
	// Key is the qualifier (a field name, or is, no, has), lower-cased.
	Key string
	// Values are the alternatives (any one matches), as written.
	Values []string
}

// Filter is a parsed filter: every term must match.
type Filter struct {
	Terms []Term
}

// Error is a filter the parser refused, with the offset of the problem.
type Error struct {
	// Offset is the byte offset in the filter.
	Offset int
	// Reason says what is wrong.
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("filter at byte %d: %s", e.Offset, e.Reason) }

// Parse reads a filter. An empty filter matches every item.
func Parse(s string) (*Filter, error) {
	f := &Filter{}
	i := 0
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			return f, nil
		}
		if len(f.Terms) == MaxTerms {
			return nil, &Error{Offset: i, Reason: fmt.Sprintf("more than %d terms", MaxTerms)}
		}
		start := i
		t := Term{}
		if s[i] == '-' && i+1 < len(s) && !isSpace(s[i+1]) {
			t.Negated = true
			i++
		}
		first, next, quoted, err := token(s, i)
		if err != nil {
			return nil, err
		}
		i = next
		if i < len(s) && s[i] == ':' {
			t.Key = strings.ToLower(strings.TrimSpace(first))
			if t.Key == "" {
				return nil, &Error{Offset: start, Reason: "empty qualifier"}
			}
			i++
			for {
				v, n, _, err := token(s, i)
				if err != nil {
					return nil, err
				}
				if v == "" && (n >= len(s) || s[n] != ',') && len(t.Values) == 0 {
					return nil, &Error{Offset: i, Reason: "qualifier " + strconv.Quote(t.Key) + " without a value"}
				}
				if len(t.Values) == MaxValues {
					return nil, &Error{Offset: i, Reason: fmt.Sprintf("more than %d values", MaxValues)}
				}
				t.Values = append(t.Values, v)
				i = n
				if i < len(s) && s[i] == ',' {
					i++
					continue
				}
				break
			}
		} else {
			if first == "" && !quoted {
				return nil, &Error{Offset: start, Reason: "unexpected " + strconv.Quote(string(s[start]))}
			}
			t.Values = []string{first}
		}
		if i < len(s) && !isSpace(s[i]) {
			return nil, &Error{Offset: i, Reason: "unexpected " + strconv.Quote(string(s[i]))}
		}
		f.Terms = append(f.Terms, t)
	}
}

// token reads a word or a quoted string at i, stopping at space, ':' or ','.
func token(s string, i int) (text string, next int, quoted bool, err error) {
	if i < len(s) && s[i] == '"' {
		end := strings.IndexByte(s[i+1:], '"')
		if end < 0 {
			return "", 0, false, &Error{Offset: i, Reason: "unterminated quote"}
		}
		return s[i+1 : i+1+end], i + 2 + end, true, nil
	}
	j := i
	for j < len(s) && !isSpace(s[j]) && s[j] != ':' && s[j] != ',' && s[j] != '"' {
		j++
	}
	return s[i:j], j, false, nil
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// Iteration is one sprint of an iteration field, in the field's order.
type Iteration struct {
	Title string
	Start time.Time
	Days  int
}

// Item is what a filter looks at of one project item.
type Item struct {
	// Title is the item's title.
	Title string
	// Type is "issue", "pull_request" or "draft".
	Type string
	// State is "open", "closed" or "merged" ("" for a draft).
	State string
	// Archived is true for an archived item.
	Archived bool
	// Values are the item's field values by lower-cased field name: an
	// option's name, a sprint's title, a number, a date (YYYY-MM-DD), text,
	// or several (labels, assignees).
	Values map[string][]string
}

// Env is what relative values are resolved against.
type Env struct {
	// Today is the date of @today.
	Today time.Time
	// Viewer is the login of @me.
	Viewer string
	// Iterations are each iteration field's sprints by lower-cased name.
	Iterations map[string][]Iteration
	// Numeric are the lower-cased names of number fields, Dates of date
	// fields: their values compare as numbers and dates.
	Numeric, Dates map[string]bool
}

// Match reports whether item matches every term of f.
func (f *Filter) Match(item Item, env Env) bool {
	for _, t := range f.Terms {
		if t.match(item, env) == t.Negated {
			return false
		}
	}
	return true
}

// builtins are the qualifiers that name no field of the project.
var builtins = []string{"is", "no", "has", "type", "title", "assignee", "label", "repo", "state"}

// Keys returns the field names f's qualifiers name (not is, no, has), and
// the field names no: and has: name, lower-cased, for the caller to check
// against the project's fields.
func (f *Filter) Keys() []string {
	var out []string
	for _, t := range f.Terms {
		switch t.Key {
		case "":
		case "no", "has":
			out = append(out, t.Values...)
		default:
			if !slices.Contains(builtins, t.Key) {
				out = append(out, t.Key)
			}
		}
	}
	return out
}

func (t Term) match(item Item, env Env) bool {
	switch t.Key {
	case "":
		return strings.Contains(strings.ToLower(item.Title), strings.ToLower(t.Values[0]))
	case "is":
		return slices.ContainsFunc(t.Values, func(v string) bool { return isMatch(item, strings.ToLower(v)) })
	case "type":
		return slices.ContainsFunc(t.Values, func(v string) bool { return isMatch(item, strings.ToLower(v)) })
	case "no":
		return slices.ContainsFunc(t.Values, func(v string) bool { return len(values(item, v)) == 0 })
	case "has":
		return slices.ContainsFunc(t.Values, func(v string) bool { return len(values(item, v)) > 0 })
	case "state":
		return slices.ContainsFunc(t.Values, func(v string) bool { return strings.EqualFold(item.State, v) })
	}
	have := values(item, t.Key)
	key := fieldKey(item, t.Key)
	return slices.ContainsFunc(t.Values, func(v string) bool { return valueMatch(key, have, v, env) })
}

// isMatch is one is: value.
func isMatch(item Item, v string) bool {
	switch v {
	case "open", "closed", "merged":
		return item.State == v
	case "draft":
		return item.Type == "draft"
	case "issue":
		return item.Type == "issue"
	case "pr", "pull_request", "pullrequest":
		return item.Type == "pull_request"
	case "archived":
		return item.Archived
	}
	return false
}

// fieldKey finds the item's key for a qualifier: the name itself, or with
// hyphens read as spaces, or a plural built-in (label, assignee).
func fieldKey(item Item, key string) string {
	for _, k := range []string{key, strings.ReplaceAll(key, "-", " "), key + "s"} {
		if _, ok := item.Values[k]; ok {
			return k
		}
	}
	return key
}

func values(item Item, key string) []string { return item.Values[fieldKey(item, strings.ToLower(key))] }

// valueMatch compares one wanted value with what the item has.
func valueMatch(key string, have []string, want string, env Env) bool {
	if its, ok := env.Iterations[key]; ok && strings.HasPrefix(want, "@") {
		if title, ok := Relative(its, want, env.Today); ok {
			return slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, title) })
		}
		return false
	}
	if want == "@me" && env.Viewer != "" {
		want = env.Viewer
	}
	if env.Numeric[key] || env.Dates[key] {
		return slices.ContainsFunc(have, func(h string) bool { return compare(h, want, env.Dates[key], env.Today) })
	}
	if strings.HasPrefix(want, "*") || strings.HasSuffix(want, "*") {
		core := strings.ToLower(strings.Trim(want, "*"))
		return slices.ContainsFunc(have, func(h string) bool { return strings.Contains(strings.ToLower(h), core) })
	}
	return slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, want) })
}

// Relative resolves @current, @next and @previous (also @current+1 style
// offsets) to a sprint's title; ok is false for anything else or a sprint
// that does not exist.
func Relative(its []Iteration, rel string, today time.Time) (string, bool) {
	rel = strings.ToLower(rel)
	base, off := rel, 0
	if i := strings.IndexAny(rel, "+-"); i > 0 {
		n, err := strconv.Atoi(rel[i:])
		if err != nil || n < -50 || n > 50 {
			return "", false
		}
		base, off = rel[:i], n
	}
	switch base {
	case "@current":
	case "@next":
		off++
	case "@previous":
		off--
	default:
		return "", false
	}
	sorted := slices.Clone(its)
	slices.SortFunc(sorted, func(a, b Iteration) int { return a.Start.Compare(b.Start) })
	day := dateOnly(today)
	cur := -1
	for i, it := range sorted {
		if !day.Before(dateOnly(it.Start)) && day.Before(dateOnly(it.Start).AddDate(0, 0, it.Days)) {
			cur = i
		}
	}
	if cur < 0 {
		// Between sprints: the next one to start is @next, the last ended @previous.
		cur = len(sorted)
		for i, it := range sorted {
			if dateOnly(it.Start).After(day) {
				cur = i
				break
			}
		}
		if base == "@current" && off == 0 {
			return "", false
		}
		// The gap sits between cur-1 and cur: +1 is cur, -1 is cur-1.
		cur--
		if off < 0 {
			off++
		}
	}
	i := cur + off
	if i < 0 || i >= len(sorted) {
		return "", false
	}
	return sorted[i].Title, true
}

func dateOnly(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// compare matches a number or date value against want: a plain value, a
// comparison (>, >=, <, <=) or a range a..b, with @today(+/-Nd) for dates.
func compare(have, want string, date bool, today time.Time) bool {
	parse := func(s string) (float64, bool) {
		if date {
			d, ok := parseDate(s, today)
			return float64(d.Unix()), ok
		}
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	}
	h, ok := parse(have)
	if !ok {
		return false
	}
	if lo, hi, found := strings.Cut(want, ".."); found {
		l, ok1 := parse(lo)
		u, ok2 := parse(hi)
		return (lo == "*" || ok1 && h >= l) && (hi == "*" || ok2 && h <= u)
	}
	for _, op := range []string{">=", "<=", ">", "<"} {
		if rest, found := strings.CutPrefix(want, op); found {
			w, ok := parse(rest)
			if !ok {
				return false
			}
			switch op {
			case ">=":
				return h >= w
			case "<=":
				return h <= w
			case ">":
				return h > w
			}
			return h < w
		}
	}
	w, ok := parse(want)
	return ok && h == w
}

// parseDate reads YYYY-MM-DD or @today with an optional +Nd/-Nd offset.
func parseDate(s string, today time.Time) (time.Time, bool) {
	if rest, ok := strings.CutPrefix(strings.ToLower(s), "@today"); ok {
		if rest == "" {
			return dateOnly(today), true
		}
		n, err := strconv.Atoi(strings.TrimSuffix(rest, "d"))
		if err != nil || !strings.HasSuffix(rest, "d") || n < -3650 || n > 3650 {
			return time.Time{}, false
		}
		return dateOnly(today).AddDate(0, 0, n), true
	}
	d, err := time.Parse(time.DateOnly, s)
	return d, err == nil
}
