package projectfilter

import (
	"reflect"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Term
		err      bool
	}{
		{name: "empty", in: "  "},
		{name: "qualifiers", in: "status:Todo iteration:@current assignee:octocat", want: []Term{
			{Key: "status", Values: []string{"Todo"}}, {Key: "iteration", Values: []string{"@current"}}, {Key: "assignee", Values: []string{"octocat"}}}},
		{name: "quoted value", in: `status:"In progress"`, want: []Term{{Key: "status", Values: []string{"In progress"}}}},
		{name: "quoted key", in: `"Due date":>=2026-01-01`, want: []Term{{Key: "due date", Values: []string{">=2026-01-01"}}}},
		{name: "negation and or", in: "-label:bug,wontfix", want: []Term{{Negated: true, Key: "label", Values: []string{"bug", "wontfix"}}}},
		{name: "bare words", in: `login "sign up"`, want: []Term{{Values: []string{"login"}}, {Values: []string{"sign up"}}}},
		{name: "unterminated", in: `status:"In`, err: true},
		{name: "no value", in: "status:", err: true},
		{name: "empty key", in: ":x", err: true},
		{name: "junk after quote", in: `"a"b`, err: true},
		{name: "too many terms", in: "a b c d e f g h i j k l m n o p q r s t u", err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse(tc.in)
			if tc.err {
				if err == nil {
					t.Fatalf("Parse(%q) = %+v, want an error", tc.in, f)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(f.Terms, tc.want) {
				t.Fatalf("Parse(%q) = %+v, want %+v", tc.in, f.Terms, tc.want)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	env := Env{
		Today:  day("2026-11-27"),
		Viewer: "octocat",
		Iterations: map[string][]Iteration{"sprint": {
			{Title: "Sprint 1", Start: day("2026-11-09"), Days: 14},
			{Title: "Sprint 2", Start: day("2026-11-23"), Days: 14},
			{Title: "Sprint 3", Start: day("2026-12-07"), Days: 14},
		}},
		Numeric: map[string]bool{"estimate": true},
		Dates:   map[string]bool{"due date": true},
	}
	item := Item{Title: "Fix login page", Type: "issue", State: "open", Values: map[string][]string{
		"status": {"In progress"}, "sprint": {"Sprint 2"}, "assignees": {"octocat"}, "labels": {"bug", "ui"},
		"estimate": {"3"}, "due date": {"2026-12-01"},
	}}
	tests := []struct {
		filter string
		want   bool
	}{
		{"", true},
		{`status:"in progress"`, true},
		{"-status:Done", true},
		{"status:Todo,Done", false},
		{"sprint:@current", true},
		{"sprint:@next", false},
		{"sprint:@previous", false},
		{"-sprint:@current", false},
		{"assignee:@me", true},
		{"label:bug", true},
		{"-label:ui", false},
		{"estimate:>2", true},
		{"estimate:4..8", false},
		{"due-date:<@today+7d", true},
		{`"due date":2026-12-01`, true},
		{"is:open is:issue", true},
		{"is:closed", false},
		{"no:assignee", false},
		{"has:label", true},
		{"no:milestone", true},
		{"login", true},
		{"logout", false},
		{"status:*progress*", true},
	}
	for _, tc := range tests {
		t.Run(tc.filter, func(t *testing.T) {
			f, err := Parse(tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Match(item, env); got != tc.want {
				t.Fatalf("Match(%q) = %v, want %v", tc.filter, got, tc.want)
			}
		})
	}
}

func TestRelative(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	its := []Iteration{{Title: "B", Start: day("2026-12-07"), Days: 7}, {Title: "A", Start: day("2026-11-23"), Days: 7}}
	tests := []struct {
		name, rel, today, want string
		ok                     bool
	}{
		{"current", "@current", "2026-11-25", "A", true},
		{"gap current", "@current", "2026-12-02", "", false},
		{"gap next", "@next", "2026-12-02", "B", true},
		{"gap previous", "@previous", "2026-12-02", "A", true},
		{"next of last", "@next", "2026-12-08", "", false},
		{"offset", "@current+1", "2026-11-23", "B", true},
		{"bad", "@later", "2026-11-23", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Relative(its, tc.rel, day(tc.today))
			if got != tc.want || ok != tc.ok {
				t.Fatalf("Relative(%s, %s) = %q, %v; want %q, %v", tc.rel, tc.today, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// FuzzParse feeds untrusted filters (a caller's text) to the parser and the
// matcher: neither may panic, and a parsed filter stays within its bounds.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"status:Todo", `-status:"In progress" iteration:@current`, "estimate:1..3", "due:<@today-7d", `"a b":"c,d",e`, "::", `"`, "-", "- x", "a:,", "sprint:@current+99999999999"} {
		f.Add(s)
	}
	env := Env{Today: time.Now(), Iterations: map[string][]Iteration{"sprint": {{Title: "S", Start: time.Now(), Days: 7}}}, Numeric: map[string]bool{"estimate": true}, Dates: map[string]bool{"due": true}}
	item := Item{Title: "t", Type: "issue", State: "open", Values: map[string][]string{"status": {"Todo"}, "sprint": {"S"}, "estimate": {"2"}, "due": {"2026-01-01"}}}
	f.Fuzz(func(t *testing.T, s string) {
		flt, err := Parse(s)
		if err != nil {
			return
		}
		if len(flt.Terms) > MaxTerms {
			t.Fatalf("%d terms", len(flt.Terms))
		}
		for _, term := range flt.Terms {
			if len(term.Values) > MaxValues || len(term.Values) == 0 {
				t.Fatalf("%d values", len(term.Values))
			}
		}
		flt.Match(item, env)
		_ = flt.Keys()
	})
}
