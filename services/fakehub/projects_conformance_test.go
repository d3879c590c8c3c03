package fakehub_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
)

// TestProjectsGraphQLConformance runs every Projects (v2) query and mutation fakehub serves,
// answered and refused; postGraphQL checks each answer against GitHub's schema and the
// selection set (as TestGraphQLConformance does for the other operations).
func TestProjectsGraphQLConformance(t *testing.T) {
	s := startProjectsHub(t)
	p := readDemoProject(t, s, fakehub.DemoToken)
	statusID, todo := p.fieldID(t, "Status", "Todo")
	sprintID, sprint3 := p.fieldID(t, "Sprint", "Sprint 3")
	estimateID, _ := p.fieldID(t, "Estimate", "")
	dueID, _ := p.fieldID(t, "Due", "")
	_, p0 := p.fieldID(t, "Priority", "P0")
	item := p.itemID(t, "Greeting is always in English")
	draft := p.itemID(t, "Plan the 2.0 greeting")
	issue := restNodeID(t, s, fakehub.DemoToken, "repos/octo-org/hello-world/issues/8")
	private := restNodeID(t, s, writer, "repos/octo-org/secret/issues/1")
	repo := restNodeID(t, s, fakehub.DemoToken, "repos/octo-org/hello-world")
	var org struct{ Organization struct{ ID string } }
	gqlData(t, s, fakehub.DemoToken, `{ organization(login: "octo-org") { id } }`, nil, &org)
	var other struct {
		User struct{ ProjectV2 demoProject }
	}
	gqlData(t, s, fakehub.DemoToken, `{ user(login: "octocat") { projectV2(number: 1) { id fields(first: 5) { nodes { ... on ProjectV2SingleSelectField { id name } } } } } }`, nil, &other)
	otherStatus, _ := other.User.ProjectV2.fieldID(t, "Status", "")

	const itemSel = `id type isArchived fieldValues(first: 10) { totalCount nodes { __typename } }`
	update := func(field string, value map[string]any) map[string]any {
		return mut("UpdateProjectV2ItemFieldValue", map[string]any{"projectId": p.ID, "itemId": item, "fieldId": field, "value": value}, `projectV2Item { `+itemSel+` }`)
	}
	tests := []struct {
		name    string
		token   string
		body    map[string]any
		errType string // the type of the one error wanted; "-" an error without type
		ok      bool
		then    func(t *testing.T, a gqlAnswer) // checks what the type cannot
	}{
		{name: "organization project, every field", body: q(`{ organization(login: "octo-org") { __typename id login projectV2(number: 1) { ` + projectFields + ` } } }`), ok: true},
		{name: "user project", body: q(`{ user(login: "octocat") { login url projectV2(number: 1) { ` + projectFields + ` } } }`), ok: true},
		{name: "projects of an owner, paged and filtered", body: q(`{ repositoryOwner(login: "octo-org") { ... on Organization { projectsV2(first: 1, query: "roadmap is:open", orderBy: {field: TITLE, direction: ASC}) { totalCount pageInfo { hasNextPage endCursor hasPreviousPage startCursor } edges { cursor node { number title } } nodes { number } } } } }`), ok: true},
		{name: "items page after a cursor", body: q(`{ organization(login: "octo-org") { projectV2(number: 1) { items(first: 2, after: "Y3Vyc29yOjI=") { pageInfo { hasNextPage hasPreviousPage } nodes { id } } } } }`), ok: true},
		{name: "last items", body: q(`{ organization(login: "octo-org") { projectV2(number: 1) { items(last: 2) { nodes { id type } } field(name: "Sprint") { ... on ProjectV2IterationField { name } } view(number: 2) { name filter } } } }`), ok: true},
		{name: "node: project", body: q(`query($id: ID!) { node(id: $id) { __typename id ... on ProjectV2 { number title owner { id ... on Organization { login } } } } }`, "id", p.ID), ok: true},
		{name: "node: item", body: q(`query($id: ID!) { node(id: $id) { ... on ProjectV2Item { type content { ... on DraftIssue { title body } } project { number } fieldValueByName(name: "Status") { ... on ProjectV2ItemFieldSingleSelectValue { name } } } } }`, "id", draft), ok: true},
		{name: "node: single-select field", body: q(`query($id: ID!) { node(id: $id) { ... on ProjectV2SingleSelectField { name dataType options(names: ["Todo"]) { id name color } } } }`, "id", statusID), ok: true},
		{name: "node: iteration field", body: q(`query($id: ID!) { node(id: $id) { ... on ProjectV2IterationField { name configuration { iterations { title } completedIterations { title } } } } }`, "id", sprintID), ok: true},
		{name: "node: view", body: q(`query($id: ID!) { node(id: $id) { ... on ProjectV2View { name layout filter number } } }`, "id", p.Views.Nodes[1].ID), ok: true},
		{name: "rate limit", body: q(`{ rateLimit { cost limit remaining resetAt used nodeCount } }`), ok: true},
		{name: "missing project", body: q(`{ organization(login: "octo-org") { projectV2(number: 99) { id } } }`), errType: "NOT_FOUND"},
		{name: "an organization as a user", body: q(`{ user(login: "octo-org") { login } }`), errType: "NOT_FOUND"},
		{name: "unknown owner", body: q(`{ organization(login: "nobody") { login } }`), errType: "NOT_FOUND"},
		{name: "unknown node", body: q(`{ node(id: "PVT_bm9wZQ") { id } }`), errType: "NOT_FOUND"},
		{name: "project outside the token's reach", token: outsider, body: q(`{ organization(login: "octo-org") { projectV2(number: 1) { id } } }`), errType: "NOT_FOUND"},
		{name: "read without read:project", token: noProjectScope, body: q(`{ organization(login: "octo-org") { projectV2(number: 1) { id } } }`), errType: "INSUFFICIENT_SCOPES"},
		{name: "items without first or last", body: q(`{ organization(login: "octo-org") { projectV2(number: 1) { items { totalCount } } } }`), errType: "-"},
		{name: "too many items asked", body: q(`{ organization(login: "octo-org") { projectV2(number: 1) { items(first: 101) { totalCount } } } }`), errType: "EXCESSIVE_PAGINATION"},

		{name: "add an issue", body: mut("AddProjectV2ItemById", map[string]any{"projectId": p.ID, "contentId": issue, "clientMutationId": "a"}, `item { `+itemSel+` content { ... on Issue { number } } }`), ok: true},
		{name: "add an issue the token cannot see", body: mut("AddProjectV2ItemById", map[string]any{"projectId": p.ID, "contentId": private}, `item { id }`), errType: "NOT_FOUND"},
		{name: "add a draft", body: mut("AddProjectV2DraftIssue", map[string]any{"projectId": p.ID, "title": "Draft", "body": "b"}, `projectItem { `+itemSel+` }`), ok: true},
		{name: "add a draft without a title", body: mut("AddProjectV2DraftIssue", map[string]any{"projectId": p.ID, "title": " "}, `projectItem { id }`), errType: "UNPROCESSABLE"},
		{name: "set a single-select value", body: update(statusID, map[string]any{"singleSelectOptionId": todo}), ok: true},
		{name: "set an iteration", body: update(sprintID, map[string]any{"iterationId": sprint3}), ok: true},
		{name: "set a number", body: update(estimateID, map[string]any{"number": 2.5}), ok: true},
		{name: "set a date", body: update(dueID, map[string]any{"date": "2026-12-01"}), ok: true},
		{name: "a text value for a number field", body: update(estimateID, map[string]any{"text": "3"}), errType: "UNPROCESSABLE"},
		{name: "an option of another field", body: update(statusID, map[string]any{"singleSelectOptionId": p0}), errType: "UNPROCESSABLE"},
		{name: "a field of another project", body: update(otherStatus, map[string]any{"singleSelectOptionId": todo}), errType: "NOT_FOUND"},
		{name: "clear a value", body: mut("ClearProjectV2ItemFieldValue", map[string]any{"projectId": p.ID, "itemId": item, "fieldId": dueID}, `projectV2Item { `+itemSel+` }`), ok: true},
		{name: "archive", body: mut("ArchiveProjectV2Item", map[string]any{"projectId": p.ID, "itemId": item}, `item { isArchived }`), ok: true},
		{name: "unarchive", body: mut("UnarchiveProjectV2Item", map[string]any{"projectId": p.ID, "itemId": item}, `item { isArchived }`), ok: true},
		{name: "delete", body: mut("DeleteProjectV2Item", map[string]any{"projectId": p.ID, "itemId": draft}, `deletedItemId`), ok: true},
		{name: "delete a deleted item", body: mut("DeleteProjectV2Item", map[string]any{"projectId": p.ID, "itemId": draft}, `deletedItemId`), errType: "NOT_FOUND"},
		{name: "create a project linked to a repository", body: mut("CreateProjectV2", map[string]any{"ownerId": org.Organization.ID, "title": "Launch", "repositoryId": repo}, `projectV2 { id number title url repositories(first: 5) { nodes { nameWithOwner } } fields(first: 5) { totalCount } }`), ok: true},
		{name: "create a project for someone else", token: outsider, body: mut("CreateProjectV2", map[string]any{"ownerId": org.Organization.ID, "title": "x"}, `projectV2 { id }`), errType: "FORBIDDEN"},
		{name: "create a single-select field", body: mut("CreateProjectV2Field", map[string]any{"projectId": p.ID, "dataType": "SINGLE_SELECT", "name": "Size",
			"singleSelectOptions": []any{map[string]any{"name": "S", "color": "GREEN", "description": ""}, map[string]any{"name": "L", "color": "RED", "description": "big"}}},
			`projectV2Field { ... on ProjectV2SingleSelectField { id name dataType options { id name color description } } }`), ok: true},
		{name: "create an iteration field", body: mut("CreateProjectV2Field", map[string]any{"projectId": p.ID, "dataType": "ITERATION", "name": "Cycle",
			"iterationConfiguration": map[string]any{"startDate": "2026-11-02", "duration": 7, "iterations": []any{}}},
			`projectV2Field { ... on ProjectV2IterationField { id name configuration { duration startDay iterations { id title startDate duration } completedIterations { title } } } }`), ok: true},
		{name: "create a text field", body: mut("CreateProjectV2Field", map[string]any{"projectId": p.ID, "dataType": "TEXT", "name": "Notes"}, `projectV2Field { ... on ProjectV2Field { id name dataType } }`), ok: true},
		{name: "create a field whose name is taken", body: mut("CreateProjectV2Field", map[string]any{"projectId": p.ID, "dataType": "NUMBER", "name": "estimate"}, `projectV2Field { ... on ProjectV2Field { id } }`), errType: "UNPROCESSABLE"},
		{name: "post a status update", body: mut("CreateProjectV2StatusUpdate", map[string]any{"projectId": p.ID, "status": "AT_RISK", "body": "Slipping", "startDate": "2026-11-01", "targetDate": "2026-12-01"},
			`statusUpdate { id status body bodyHTML startDate targetDate createdAt creator { login } project { number } }`), ok: true},
		{name: "write with read:project only", token: readProject, body: mut("ArchiveProjectV2Item", map[string]any{"projectId": p.ID, "itemId": item}, `item { id }`), errType: "INSUFFICIENT_SCOPES"},
		{name: "write with read access", token: readOnly, body: mut("ArchiveProjectV2Item", map[string]any{"projectId": p.ID, "itemId": item}, `item { id }`), errType: "FORBIDDEN"},
		{name: "aliased updates in one document", body: map[string]any{
			"query": `mutation($p: ID!, $i: ID!, $s: ID!, $o: String!, $e: ID!) {
				a: updateProjectV2ItemFieldValue(input: {projectId: $p, itemId: $i, fieldId: $s, value: {singleSelectOptionId: $o}}) { projectV2Item { id } }
				b: updateProjectV2ItemFieldValue(input: {projectId: $p, itemId: $i, fieldId: $e, value: {number: 8}}) { projectV2Item { id } }
				c: clearProjectV2ItemFieldValue(input: {projectId: $p, itemId: $i, fieldId: $e}) { projectV2Item { id } } }`,
			"variables": map[string]any{"p": p.ID, "i": item, "s": statusID, "o": todo, "e": estimateID}}, ok: true},
		{name: "create an iteration field without a configuration", body: mut("CreateProjectV2Field", map[string]any{"projectId": p.ID, "dataType": "ITERATION", "name": "Week"},
			`projectV2Field { ... on ProjectV2IterationField { name configuration { duration iterations { title duration } } } }`), ok: true},
		{name: "reconfigure the Sprint field, dates as timestamps", body: mut("UpdateProjectV2Field", map[string]any{"fieldId": sprintID,
			"iterationConfiguration": map[string]any{"startDate": "2026-11-02T00:00:00Z", "duration": 7, "iterations": []any{
				map[string]any{"title": "W1", "startDate": "2026-11-02T00:00:00Z", "duration": 7}}}},
			`projectV2Field { ... on ProjectV2IterationField { id name configuration { duration iterations { id title startDate duration } } } }`), ok: true},
		{name: "rename a field", body: mut("UpdateProjectV2Field", map[string]any{"fieldId": dueID, "name": "Deadline"}, `projectV2Field { ... on ProjectV2Field { name } }`), ok: true},
		{name: "an iteration configuration for a single-select field", body: mut("UpdateProjectV2Field", map[string]any{"fieldId": statusID,
			"iterationConfiguration": map[string]any{"startDate": "2026-11-02", "duration": 7, "iterations": []any{}}}, `projectV2Field { ... on ProjectV2SingleSelectField { id } }`), errType: "UNPROCESSABLE"},
		{name: "a field rename by a reader", token: readOnly, body: mut("UpdateProjectV2Field", map[string]any{"fieldId": dueID, "name": "x"}, `projectV2Field { ... on ProjectV2Field { id } }`), errType: "FORBIDDEN"},
		{name: "an unknown field on a project field", body: q(`{ organization(login: "octo-org") { projectV2(number: 1) { fields(first: 1) { nodes { ... on ProjectV2Field { isIssueField } } } } } }`), errType: "-",
			then: func(t *testing.T, a gqlAnswer) {
				if a.Errors[0].Message != "Field 'isIssueField' doesn't exist on type 'ProjectV2Field'" {
					t.Errorf("message %q, want GitHub's", a.Errors[0].Message)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			token := tc.token
			if token == "" {
				token = fakehub.DemoToken
			}
			code, a := postGraphQL(t, s.URL+"graphql", token, tc.body)
			if code != 200 {
				t.Fatalf("status %d", code)
			}
			if tc.ok && len(a.Errors) != 0 {
				t.Fatalf("errors %+v", a.Errors)
			}
			want := tc.errType
			if want == "-" {
				want = ""
			}
			if !tc.ok && (len(a.Errors) != 1 || a.Errors[0].Type != want || a.Errors[0].Message == "") {
				t.Fatalf("errors %+v, want one of type %q", a.Errors, want)
			}
			if tc.then != nil {
				tc.then(t, a)
			}
		})
	}
}

// q is a query document with one variable, or none.
func q(query string, nameValue ...string) map[string]any {
	body := map[string]any{"query": query}
	if len(nameValue) == 2 {
		body["variables"] = map[string]any{nameValue[0]: nameValue[1]}
	}
	return body
}

// mut is a document running mutation name (the input type's name less "Input") with input.
func mut(name string, input map[string]any, selection string) map[string]any {
	return map[string]any{"query": `mutation($input: ` + name + `Input!) { __typename ` + lower(name) + `(input: $input) { __typename clientMutationId ` + selection + ` } }`,
		"variables": map[string]any{"input": input}}
}

func lower(s string) string { return string(s[0]+'a'-'A') + s[1:] }

// FuzzProjectsGraphQL sends arbitrary project documents and variables to /graphql: every answer
// is HTTP 200 with JSON that conforms to GitHub's schema, whatever the document.
func FuzzProjectsGraphQL(f *testing.F) {
	for _, seed := range []string{
		`{ organization(login: "octo-org") { projectV2(number: 1) { ` + projectFields + ` } } }`,
		`query($id: ID!) { node(id: $id) { id ... on ProjectV2Item { type } } }`,
		`{ user(login: "octocat") { projectsV2(first: 100, after: "Y3Vyc29yOjE=") { nodes { items(last: 3, before: "x") { totalCount } } } } }`,
		`{ repositoryOwner(login: "octo-org") { ... on Organization { projectsV2(first: -1) { totalCount } } } }`,
		`mutation($id: ID!) { updateProjectV2ItemFieldValue(input: {projectId: $id, itemId: $id, fieldId: $id, value: {number: 1e308}}) { projectV2Item { id } } }`,
		`mutation($id: ID!) { createProjectV2Field(input: {projectId: $id, dataType: ITERATION, name: "I", iterationConfiguration: {startDate: "2026-02-30", duration: 0, iterations: []}}) { clientMutationId } }`,
		`mutation($id: ID!) { a: deleteProjectV2Item(input: {projectId: $id, itemId: $id}) { deletedItemId } b: archiveProjectV2Item(input: {projectId: $id, itemId: $id}) { item { id } } }`,
	} {
		f.Add(seed, `{"id":"PVT_ZmgxMDI0"}`)
		f.Add(seed, `{"id":"PVTI_ZmgxMDQx"}`)
	}
	h, err := fakehub.New(fakehub.Config{Seed: "demo", CoreLimit: 1 << 30, GraphQLLimit: 1 << 30})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, query, variables string) {
		request := map[string]any{"query": query}
		var vars map[string]any
		if json.Unmarshal([]byte(variables), &vars) == nil {
			request["variables"] = vars
		}
		body, _ := json.Marshal(request)
		req := httptest.NewRequest("POST", "http://fakehub.test/graphql", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "token "+fakehub.DemoToken)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("status %d for %s: %s", rec.Code, body, rec.Body.Bytes())
		}
		checkGraphQL(t, request, rec.Body.Bytes())
	})
}
