package projects

import (
	"reflect"
	"testing"
)

// TestParseItemFilter holds the q syntax the REST items listing takes.
func TestParseItemFilter(t *testing.T) {
	tests := []struct {
		name, q string
		want    itemFilter
	}{
		{name: "empty", q: "", want: itemFilter{}},
		{name: "field and negation", q: "sprint:@current -status:Done", want: itemFilter{terms: []filterTerm{
			{field: "sprint", values: []string{"@current"}}, {not: true, field: "status", values: []string{"Done"}}}}},
		{name: "quoted value with a space, several values", q: `status:Todo,"In Progress"`, want: itemFilter{terms: []filterTerm{
			{field: "status", values: []string{"Todo", "In Progress"}}}}},
		{name: "archived", q: "is:archived greeting", want: itemFilter{archived: true, terms: []filterTerm{{values: []string{"greeting"}}}}},
		{name: "lone dash and unbalanced quote", q: `- "open`, want: itemFilter{terms: []filterTerm{{values: []string{"-"}}, {values: []string{`"open`}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseItemFilter(tc.q); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseItemFilter(%q) = %+v, want %+v", tc.q, got, tc.want)
			}
		})
	}
}

// FuzzParseItemFilter: any q parses without panicking, and every term names a value.
func FuzzParseItemFilter(f *testing.F) {
	for _, s := range []string{"sprint:@current -status:Done", `status:"In Progress",Todo`, "-", `"`, "is:archived -is:archived", "a: :b ,,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		for _, term := range parseItemFilter(q).terms {
			if len(term.values) == 0 {
				t.Fatalf("%q: a term without values: %+v", q, term)
			}
		}
	})
}
