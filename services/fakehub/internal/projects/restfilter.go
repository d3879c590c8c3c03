package projects

import (
	"strconv"
	"strings"
)

// itemFilter is the part of GitHub's project filter syntax the REST items listing's q
// parameter takes here: terms field:value (values comma-separated, any matches), negated with
// a leading -, is:archived, and the iteration shorthands @current, @next and @previous;
// several terms must all match. A word that is no term matches the item's title.
type itemFilter struct {
	terms    []filterTerm
	archived bool
}

type filterTerm struct {
	not    bool
	field  string // "" for a word of the title
	values []string
}

func parseItemFilter(q string) itemFilter {
	var f itemFilter
	for _, w := range filterWords(q) {
		t := filterTerm{}
		if strings.HasPrefix(w, "-") && len(w) > 1 {
			t.not, w = true, w[1:]
		}
		name, val, ok := strings.Cut(w, ":")
		if strings.EqualFold(name, "is") && strings.EqualFold(val, "archived") {
			f.archived = !t.not
			continue
		}
		if ok {
			t.field = name
			for _, v := range strings.Split(val, ",") {
				t.values = append(t.values, strings.Trim(v, `"`))
			}
		} else {
			t.values = []string{w}
		}
		f.terms = append(f.terms, t)
	}
	return f
}

// filterWords splits q at spaces outside double quotes: status:"In Progress" is one word.
func filterWords(q string) []string {
	var words []string
	var cur strings.Builder
	quoted := false
	for _, r := range q {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case r == ' ' && !quoted:
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	return words
}

// match reports whether it passes every term.
func (f itemFilter) match(x *resolver, p *Project, it *Item) bool {
	if it.Archived != f.archived {
		return false
	}
	for _, t := range f.terms {
		if t.matchOne(x, p, it) == t.not {
			return false
		}
	}
	return true
}

func (t filterTerm) matchOne(x *resolver, p *Project, it *Item) bool {
	if t.field == "" {
		return strings.Contains(strings.ToLower(x.title(it)), strings.ToLower(t.values[0]))
	}
	f := p.FieldNamed(t.field)
	if f == nil && strings.EqualFold(t.field, "iteration") { // GitHub's name for the iteration field
		for _, fl := range p.Fields {
			if fl.DataType == TypeIteration && f == nil {
				f = fl
			}
		}
	}
	if f == nil || x.itemType(it) == itemRedacted {
		return false
	}
	if f.DataType == TypeTitle {
		return t.any(x.title(it))
	}
	v := it.Values[f.ID]
	if v == nil {
		return false
	}
	switch f.DataType {
	case TypeText:
		return t.any(v.Text)
	case TypeDate:
		return t.any(v.Date)
	case TypeNumber:
		return t.any(strconv.FormatFloat(v.Number, 'f', -1, 64))
	case TypeSingleSelect:
		if op := optionByID(f, v.OptionID); op != nil {
			return t.any(op.Name)
		}
	case TypeIteration:
		return t.iteration(x, f, v.IterationID)
	}
	return false
}

// any reports whether s equals one of the term's values, ignoring case.
func (t filterTerm) any(s string) bool {
	for _, v := range t.values {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// iteration matches an iteration value by title or by @previous, @current or @next, which
// follow fakehub's clock.
func (t filterTerm) iteration(x *resolver, f *Field, id string) bool {
	iter := iterationByID(f, id)
	if iter == nil {
		return false
	}
	for _, v := range t.values {
		if strings.EqualFold(v, iter.Title) {
			return true
		}
		if rel := relativeIteration(x, f, strings.ToLower(v)); rel != nil && rel.ID == id {
			return true
		}
	}
	return false
}

// relativeIteration is f's iteration before, at or after today for @previous, @current and
// @next, nil for any other value or when there is none.
func relativeIteration(x *resolver, f *Field, v string) *Iteration {
	if f.Iteration == nil {
		return nil
	}
	today := day(x.h.Now())
	its := f.Iteration.Iterations
	cur := -1
	for i, it := range its {
		if !today.Before(it.Start) && today.Before(it.end()) {
			cur = i
		}
	}
	pick := map[string]int{"@previous": cur - 1, "@current": cur, "@next": cur + 1}
	i, ok := pick[v]
	if !ok || cur < 0 || i < 0 || i >= len(its) {
		return nil
	}
	return its[i]
}
