package fakehub_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
)

// Tokens of the project tests: the demo user's access without the project scopes, with only
// read:project, and a user outside octo-org.
const (
	noProjectScope = "fh_noscope"
	readProject    = "fh_readproject"
	outsider       = "fh_outsider"
)

// projectFields is the selection of a project the service asks for, every part of it.
const projectFields = `id number title closed url shortDescription public resourcePath
	items(first: 20) { totalCount pageInfo { hasNextPage endCursor } nodes { id type isArchived
		content { __typename ... on Issue { number title state repository { nameWithOwner } }
			... on PullRequest { number title prState: state repository { nameWithOwner } } ... on DraftIssue { title body } }
		fieldValues(first: 20) { nodes { __typename
			... on ProjectV2ItemFieldSingleSelectValue { name optionId field { ... on ProjectV2SingleSelectField { id name } } }
			... on ProjectV2ItemFieldIterationValue { title iterationId startDate duration field { ... on ProjectV2IterationField { id name } } }
			... on ProjectV2ItemFieldTextValue { text field { ... on ProjectV2Field { name } } }
			... on ProjectV2ItemFieldNumberValue { number } ... on ProjectV2ItemFieldDateValue { date } } } } }
	fields(first: 20) { nodes { __typename ... on ProjectV2Field { id name dataType }
		... on ProjectV2SingleSelectField { id name dataType options { id name } }
		... on ProjectV2IterationField { id name dataType configuration { duration startDay
			iterations { id title startDate duration } completedIterations { id title startDate duration } } } } }
	views(first: 10) { nodes { id name layout filter number } }
	statusUpdates(first: 5, orderBy: {field: CREATED_AT, direction: DESC}) { nodes { id status body startDate targetDate createdAt creator { login } } }`

func startProjectsHub(t *testing.T) *fakehubtest.Server {
	t.Helper()
	return startHub(t, fakehub.Config{Tokens: []fakehub.Token{
		{Value: noProjectScope, Login: "octocat", Repos: map[string]fakehub.Permission{"octo-org/hello-world": fakehub.PermWrite}, Scopes: []string{"repo"}},
		{Value: readProject, Login: "octocat", Repos: map[string]fakehub.Permission{"octo-org/hello-world": fakehub.PermWrite}, Scopes: []string{"repo", "read:project"}},
		{Value: outsider, Login: "stranger", Repos: map[string]fakehub.Permission{}},
	}})
}

// gqlData posts query with variables as token, fails the test on errors, and decodes data.
func gqlData(t *testing.T, s *fakehubtest.Server, token, query string, vars map[string]any, out any) {
	t.Helper()
	code, a := postGraphQL(t, s.URL+"graphql", token, map[string]any{"query": query, "variables": vars})
	if code != 200 || len(a.Errors) != 0 {
		t.Fatalf("status %d, errors %+v", code, a.Errors)
	}
	raw, _ := json.Marshal(a.Data)
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatal(err)
	}
}

// demoProject is what the tests read of octo-org/1.
type demoProject struct {
	ID    string
	Items struct {
		TotalCount int
		Nodes      []struct {
			ID, Type    string
			IsArchived  bool
			Content     map[string]any
			FieldValues struct {
				Nodes []map[string]any
			}
		}
	}
	Fields struct {
		Nodes []struct {
			ID, Name, DataType string
			Options            []struct{ ID, Name string }
			Configuration      struct {
				Iterations, CompletedIterations []struct{ ID, Title, StartDate string }
			}
		}
	}
	Views struct {
		Nodes []struct{ ID, Name, Layout, Filter string }
	}
}

func readDemoProject(t *testing.T, s *fakehubtest.Server, token string) demoProject {
	t.Helper()
	var d struct {
		Organization struct{ ProjectV2 demoProject }
	}
	gqlData(t, s, token, `query { organization(login: "octo-org") { projectV2(number: 1) { `+projectFields+` } } }`, nil, &d)
	return d.Organization.ProjectV2
}

// fieldID is the id of the field named name, and of its option or iteration titled value.
func (p demoProject) fieldID(t *testing.T, name, value string) (string, string) {
	t.Helper()
	for _, f := range p.Fields.Nodes {
		if f.Name != name {
			continue
		}
		for _, o := range f.Options {
			if o.Name == value {
				return f.ID, o.ID
			}
		}
		for _, it := range append(f.Configuration.Iterations, f.Configuration.CompletedIterations...) {
			if it.Title == value {
				return f.ID, it.ID
			}
		}
		return f.ID, ""
	}
	t.Fatalf("no field %s", name)
	return "", ""
}

// restNodeID is the node_id REST gives the object at path (below the API root).
func restNodeID(t *testing.T, s *fakehubtest.Server, token, path string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", s.URL+path, nil)
	req.Header.Set("Authorization", "token "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var o struct {
		NodeID string `json:"node_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&o); err != nil || o.NodeID == "" {
		t.Fatalf("%s: status %d, no node_id (%v)", path, resp.StatusCode, err)
	}
	return o.NodeID
}

// itemID is the id of the item whose content is titled title.
func (p demoProject) itemID(t *testing.T, title string) string {
	t.Helper()
	for _, it := range p.Items.Nodes {
		if it.Content["title"] == title {
			return it.ID
		}
	}
	t.Fatalf("no item %q", title)
	return ""
}
