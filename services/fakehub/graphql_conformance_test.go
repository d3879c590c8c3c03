package fakehub_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
)

// TestGraphQLConformance runs each operation fakehub serves with every field it answers,
// through fragments, aliases and __typename, and each kind of refusal; postGraphQL checks every
// answer against GitHub's schema and the selection set.
func TestGraphQLConformance(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	const repo = "octo-org/hello-world"
	id, _ := restPull(t, s.URL, "1")
	head, err := s.Hub.BranchSHA(repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	const pullFields = `__typename id number isDraft state title url closed merged`
	commit := func(expected string) map[string]any {
		in := commitInput(repo, "main", expected, "conform", "body", map[string]string{"c.txt": "c"})
		in["query"] = `mutation Commit($input: CreateCommitOnBranchInput!) { __typename createCommitOnBranch(input: $input) {
			__typename clientMutationId
			commit { __typename oid abbreviatedOid url message messageHeadline messageBody committedDate tree { oid } }
			ref { __typename name prefix target { __typename oid ... on Commit { abbreviatedOid } } } } }`
		in["operationName"] = "Commit"
		return in
	}
	tests := []struct {
		name    string
		body    map[string]any
		errType string
		ok      bool // answered without errors
	}{
		{name: "draft, every field", body: map[string]any{"query": `mutation($id: ID!) { a: convertPullRequestToDraft(input: {pullRequestId: $id, clientMutationId: "m"}) { __typename clientMutationId pullRequest { ` + pullFields + ` } } }`, "variables": map[string]any{"id": id}}, ok: true},
		{name: "ready, through fragments", body: map[string]any{"query": `mutation R($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { ...P } } fragment P on MarkPullRequestReadyForReviewPayload { pullRequest { ... on Node { id } ... on PullRequest { isDraft } isDraft @include(if: true) title @skip(if: true) } }`, "variables": map[string]any{"id": id}}, ok: true},
		{name: "both mutations in one document", body: map[string]any{"query": `mutation($id: ID!) { a: convertPullRequestToDraft(input: {pullRequestId: $id}) { pullRequest { isDraft } } b: markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }`, "variables": map[string]any{"id": id}}, ok: true},
		{name: "commit, every field", body: commit(head), ok: true},
		{name: "commit on a moved head", body: commit(head), errType: "STALE_DATA"},
		{name: "unknown node", body: map[string]any{"query": `mutation { convertPullRequestToDraft(input: {pullRequestId: "PR_kwx"}) { clientMutationId } }`}, errType: "NOT_FOUND"},
		{name: "a query", body: map[string]any{"query": `query { licenses { key } }`}, errType: "UNSUPPORTED"},
		{name: "two operations, none named", body: map[string]any{"query": `query A { viewer { login } } query B { viewer { login } }`}},
		{name: "operation not in the document", body: map[string]any{"query": `query A { viewer { login } }`, "operationName": "B"}},
		{name: "unknown argument", body: map[string]any{"query": `mutation { convertPullRequestToDraft(input: {pullRequestId: "x"}, force: true) { clientMutationId } }`}},
		{name: "missing required argument", body: map[string]any{"query": `mutation { convertPullRequestToDraft { clientMutationId } }`}},
		{name: "selection on a scalar", body: map[string]any{"query": `mutation { convertPullRequestToDraft(input: {pullRequestId: "x"}) { clientMutationId { x } } }`}},
		{name: "object without a selection", body: map[string]any{"query": `mutation { convertPullRequestToDraft(input: {pullRequestId: "x"}) { pullRequest } }`}},
		{name: "undeclared variable", body: map[string]any{"query": `mutation { convertPullRequestToDraft(input: {pullRequestId: $id}) { clientMutationId } }`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, a := postGraphQL(t, s.URL+"graphql", fakehub.DemoToken, tc.body)
			if code != 200 {
				t.Fatalf("status %d", code)
			}
			if tc.ok && len(a.Errors) != 0 {
				t.Fatalf("errors %+v", a.Errors)
			}
			if tc.errType != "" && (len(a.Errors) != 1 || a.Errors[0].Type != tc.errType) {
				t.Fatalf("errors %+v, want one %s", a.Errors, tc.errType)
			}
		})
	}
}

// FuzzGraphQL sends arbitrary documents to /graphql: every answer is HTTP 200 with JSON that
// conforms to GitHub's schema (checkGraphQL), whatever the document.
func FuzzGraphQL(f *testing.F) {
	for _, seed := range []string{
		toDraft, toReady, commitOnBranch, `{ viewer { login } }`, `mutation {`, `}`, ``, `"""`, `query { __typename }`,
		`mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) { ...F } } fragment F on ConvertPullRequestToDraftPayload { ...F }`,
		`mutation { a: convertPullRequestToDraft(input: {pullRequestId: "PR_kwx"}) { pullRequest { isDraft } } a: convertPullRequestToDraft(input: {pullRequestId: "PR_kwy"}) { pullRequest { number } } }`,
		`mutation { convertPullRequestToDraft(input: {pullRequestId: "x"}) { pullRequest { ` + strings.Repeat("... on PullRequest { ", 50) + "id" + strings.Repeat(" }", 50) + ` } } }`,
		`subscription { x }`, `mutation @skip(if: true) { __typename }`, `mutation { __typename @skip(if: true) }`, `{ a: __schema { types { name } } }`,
	} {
		f.Add(seed, `{"id":"PR_kwx"}`)
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
