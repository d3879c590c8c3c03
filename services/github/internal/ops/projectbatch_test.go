package ops

import (
	"strings"
	"testing"

	"ghops.dev/services/fakehub/graphqlschema"
)

// TestBatchDocument validates the built mutation documents against GitHub's schema for the
// sizes and mixes update_project_items sends, and shows every value travels as a variable.
func TestBatchDocument(t *testing.T) {
	set := map[string]any{"text": "x\" } evil"}
	many := func(n int, clearEvery int) []fieldChange {
		var out []fieldChange
		for i := range n {
			ch := fieldChange{item: "PVTI_" + string(rune('a'+i%26)), field: "PVTF_1", value: set}
			if clearEvery > 0 && i%clearEvery == 0 {
				ch.value = nil
			}
			out = append(out, ch)
		}
		return out
	}
	tests := []struct {
		name    string
		changes []fieldChange
		err     bool
	}{
		{name: "one set", changes: many(1, 0)},
		{name: "one clear", changes: many(1, 1)},
		{name: "fifty sets", changes: many(50, 0)},
		{name: "mixed hundred", changes: many(maxBatchAliases, 3)},
		{name: "too many", changes: many(maxBatchAliases+1, 0), err: true},
		{name: "none", err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, vars, err := batchDocument("PVT_1", tc.changes)
			if tc.err {
				if err == nil {
					t.Fatal("want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := graphqlschema.Validate(doc); err != nil {
				t.Fatalf("GitHub would refuse:\n%s\n%v", doc, err)
			}
			if strings.Contains(doc, "evil") {
				t.Fatalf("a value reached the document:\n%s", doc)
			}
			if got := strings.Count(doc, "c"+"0:") + strings.Count(doc, "projectV2Item"); got != len(tc.changes)+1 {
				t.Fatalf("%d aliases or payloads, want %d:\n%s", got, len(tc.changes)+1, doc)
			}
			if vars["project"] != "PVT_1" || len(vars) < 1+2*len(tc.changes) {
				t.Fatalf("variables %v", vars)
			}
		})
	}
}
