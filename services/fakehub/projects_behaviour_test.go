package fakehub_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"ghops.dev/services/fakehub"
)

// TestProjectRedactedItem: an item of a private repository the token cannot read is REDACTED,
// with no content, creator or field value, and nothing of it in the answer; a token that reads
// the repository sees the issue.
func TestProjectRedactedItem(t *testing.T) {
	s := startProjectsHub(t)
	const doc = `{ organization(login: "octo-org") { projectV2(number: 1) { ` + projectFields + ` } } }`
	for _, tc := range []struct {
		name, token, wantType string
	}{
		{name: "token without the repository", token: fakehub.DemoToken, wantType: "REDACTED"},
		{name: "token with every repository", token: writer, wantType: "ISSUE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, a := postGraphQL(t, s.URL+"graphql", tc.token, map[string]any{"query": doc})
			raw := string(a.Data["organization"])
			p := readDemoProject(t, s, tc.token)
			var types []string
			for _, it := range p.Items.Nodes {
				types = append(types, it.Type)
				if it.Type == "REDACTED" && (it.Content != nil || len(it.FieldValues.Nodes) != 0) {
					t.Errorf("redacted item carries content %v or values %v", it.Content, it.FieldValues.Nodes)
				}
			}
			if p.Items.TotalCount != 8 || !strings.Contains(strings.Join(types, ","), tc.wantType) {
				t.Errorf("%d items of types %v, want 8 with a %s", p.Items.TotalCount, types, tc.wantType)
			}
			if leaked := strings.Contains(raw, "signing key"); leaked != (tc.wantType == "ISSUE") {
				t.Errorf("private title in the answer: %v", leaked)
			}
		})
	}
}

// TestProjectIterationsFollowClock: the demo sprint field has one completed iteration, the
// current one (holding today on fakehub's clock) and the next.
func TestProjectIterationsFollowClock(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	s := startHub(t, fakehub.Config{Now: func() time.Time { return now }})
	p := readDemoProject(t, s, fakehub.DemoToken)
	for _, f := range p.Fields.Nodes {
		if f.Name != "Sprint" {
			continue
		}
		c := f.Configuration
		got := fmt.Sprintf("%v / %v", c.CompletedIterations, c.Iterations)
		if len(c.CompletedIterations) != 1 || c.CompletedIterations[0].Title != "Sprint 1" || len(c.Iterations) != 2 ||
			c.Iterations[0].Title != "Sprint 2" || c.Iterations[0].StartDate != "2026-03-07" {
			t.Fatalf("iterations %s, want Sprint 1 completed, Sprint 2 from 2026-03-07 current, Sprint 3 next", got)
		}
		return
	}
	t.Fatal("no Sprint field")
}

// TestProjectFiftyAliasedUpdates: fifty drafts added in one document and fifty values set in
// another are two GitHub requests, and every value reads back.
func TestProjectFiftyAliasedUpdates(t *testing.T) {
	s := startProjectsHub(t)
	p := readDemoProject(t, s, fakehub.DemoToken)
	estimate, _ := p.fieldID(t, "Estimate", "")
	var adds strings.Builder
	adds.WriteString("mutation($p: ID!) {")
	for i := range 50 {
		fmt.Fprintf(&adds, ` d%d: addProjectV2DraftIssue(input: {projectId: $p, title: "Task %d"}) { projectItem { id } }`, i, i)
	}
	adds.WriteString(" }")
	s.Hub.ResetStats()
	var added map[string]struct{ ProjectItem struct{ ID string } }
	gqlData(t, s, fakehub.DemoToken, adds.String(), map[string]any{"p": p.ID}, &added)
	var sets strings.Builder
	sets.WriteString("mutation($p: ID!, $f: ID!) {")
	for i := range 50 {
		fmt.Fprintf(&sets, ` u%d: updateProjectV2ItemFieldValue(input: {projectId: $p, itemId: %q, fieldId: $f, value: {number: %d}}) { projectV2Item { id } }`,
			i, added[fmt.Sprintf("d%d", i)].ProjectItem.ID, i)
	}
	sets.WriteString(" }")
	var updated map[string]any
	gqlData(t, s, fakehub.DemoToken, sets.String(), map[string]any{"p": p.ID, "f": estimate}, &updated)
	if st := s.Hub.Stats(); st.Total != 2 || len(updated) != 50 {
		t.Fatalf("%d requests, %d updates answered; want 2 and 50", st.Total, len(updated))
	}
	var d struct {
		Organization struct {
			ProjectV2 struct {
				Items struct {
					Nodes []struct {
						FieldValueByName *struct{ Number float64 }
						Content          struct{ Title string }
					}
				}
			}
		}
	}
	gqlData(t, s, fakehub.DemoToken, `{ organization(login: "octo-org") { projectV2(number: 1) { items(first: 100) { nodes {
		content { ... on DraftIssue { title } } fieldValueByName(name: "Estimate") { ... on ProjectV2ItemFieldNumberValue { number } } } } } } }`, nil, &d)
	set := 0
	for _, it := range d.Organization.ProjectV2.Items.Nodes {
		var n int
		if _, err := fmt.Sscanf(it.Content.Title, "Task %d", &n); err == nil && it.FieldValueByName != nil && it.FieldValueByName.Number == float64(n) {
			set++
		}
	}
	if set != 50 {
		t.Fatalf("%d of 50 values read back", set)
	}
}

// TestProjectWrongValueKind: a value of another kind than the field's is refused in GitHub's
// words and changes nothing.
func TestProjectWrongValueKind(t *testing.T) {
	s := startProjectsHub(t)
	p := readDemoProject(t, s, fakehub.DemoToken)
	estimate, _ := p.fieldID(t, "Estimate", "")
	item := p.itemID(t, "Greeting ignores empty names")
	tests := []struct {
		name  string
		value map[string]any
		want  string
	}{
		{name: "a date", value: map[string]any{"date": "2026-12-01"}, want: "Did not receive a number value to update a field of type number"},
		{name: "a text", value: map[string]any{"text": "3"}, want: "Did not receive a number value to update a field of type number"},
		{name: "nothing", value: map[string]any{}, want: "Did not receive a number value to update a field of type number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, a := postGraphQL(t, s.URL+"graphql", fakehub.DemoToken, mut("UpdateProjectV2ItemFieldValue",
				map[string]any{"projectId": p.ID, "itemId": item, "fieldId": estimate, "value": tc.value}, `projectV2Item { id }`))
			if len(a.Errors) != 1 || a.Errors[0].Message != tc.want {
				t.Fatalf("errors %+v, want %q", a.Errors, tc.want)
			}
		})
	}
	after := readDemoProject(t, s, fakehub.DemoToken)
	for _, it := range after.Items.Nodes {
		if it.ID != item {
			continue
		}
		for _, v := range it.FieldValues.Nodes {
			if v["__typename"] == "ProjectV2ItemFieldNumberValue" && v["number"] != 3.0 {
				t.Fatalf("estimate changed to %v", v["number"])
			}
		}
	}
}

// TestProjectArchivedItemsListed: GitHub's items connection lists archived items too, marked
// isArchived; archiving and unarchiving flip the mark.
func TestProjectArchivedItemsListed(t *testing.T) {
	s := startProjectsHub(t)
	p := readDemoProject(t, s, fakehub.DemoToken)
	archived := map[bool]int{}
	for _, it := range p.Items.Nodes {
		archived[it.IsArchived]++
	}
	if archived[true] != 1 || p.Items.TotalCount != len(p.Items.Nodes) {
		t.Fatalf("archived %v of %d", archived, p.Items.TotalCount)
	}
	item := p.itemID(t, "Greeting ignores empty names")
	var out map[string]struct{ Item struct{ IsArchived bool } }
	gqlData(t, s, fakehub.DemoToken, `mutation($p: ID!, $i: ID!) { a: archiveProjectV2Item(input: {projectId: $p, itemId: $i}) { item { isArchived } } }`,
		map[string]any{"p": p.ID, "i": item}, &out)
	if after := readDemoProject(t, s, fakehub.DemoToken); !out["a"].Item.IsArchived || after.Items.TotalCount != p.Items.TotalCount {
		t.Fatalf("archived %v; %d items after, %d before", out["a"].Item.IsArchived, after.Items.TotalCount, p.Items.TotalCount)
	}
}

// TestProjectScopes: read:project reads but does not write; no project scope reads nothing.
func TestProjectScopes(t *testing.T) {
	s := startProjectsHub(t)
	p := readDemoProject(t, s, readProject)
	_, a := postGraphQL(t, s.URL+"graphql", readProject, mut("AddProjectV2DraftIssue", map[string]any{"projectId": p.ID, "title": "x"}, `projectItem { id }`))
	if len(a.Errors) != 1 || a.Errors[0].Type != "INSUFFICIENT_SCOPES" || !strings.Contains(a.Errors[0].Message, "['project']") {
		t.Fatalf("errors %+v", a.Errors)
	}
	_, a = postGraphQL(t, s.URL+"graphql", noProjectScope, map[string]any{"query": `{ user(login: "octocat") { projectsV2(first: 5) { totalCount } } }`})
	if len(a.Errors) != 1 || a.Errors[0].Type != "INSUFFICIENT_SCOPES" || !strings.Contains(a.Errors[0].Message, "['read:project']") {
		t.Fatalf("errors %+v", a.Errors)
	}
}

// TestGraphQLRateLimited: once the GraphQL bucket is empty, GitHub answers HTTP 200 with a
// RATE_LIMITED error and the graphql bucket's headers at zero; REST's core bucket is untouched.
func TestGraphQLRateLimited(t *testing.T) {
	s := startHub(t, fakehub.Config{GraphQLLimit: 2})
	doc := `{"query":"{ rateLimit { remaining } }"}`
	for i, want := range []string{"", "", "RATE_LIMITED"} {
		req, _ := http.NewRequest("POST", s.URL+"graphql", strings.NewReader(doc))
		req.Header.Set("Authorization", "bearer "+fakehub.DemoToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var a gqlAnswer
		err = json.NewDecoder(resp.Body).Decode(&a)
		resp.Body.Close()
		got := ""
		if len(a.Errors) == 1 {
			got = a.Errors[0].Type
		}
		remaining := resp.Header.Get("X-RateLimit-Remaining")
		if err != nil || resp.StatusCode != 200 || got != want || resp.Header.Get("X-RateLimit-Resource") != "graphql" || (want != "" && remaining != "0") {
			t.Fatalf("request %d: status %d, error %q (want %q), remaining %s, resource %s, %v", i+1, resp.StatusCode, got, want,
				remaining, resp.Header.Get("X-RateLimit-Resource"), err)
		}
	}
}
