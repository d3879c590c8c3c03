package fakehub_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/graphqlschema"
	"ghops.dev/services/fakehub/internal/graphql"
)

const (
	toDraft = `mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) { pullRequest { id number isDraft } } }`
	toReady = `mutation Ready($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }`
)

type gqlAnswer struct {
	Data   map[string]json.RawMessage `json:"data"`
	Errors []struct {
		Type    string `json:"type"`
		Message string `json:"message"`
		Path    []any  `json:"path"`
		// Locations are set on every refusal of a document GitHub's schema does not accept.
		Locations []struct{ Line, Column int } `json:"locations"`
	} `json:"errors"`
	Message string `json:"message"` // HTTP-level errors
}

// postGraphQL sends a GraphQL request without go-github, as a raw HTTP client would, and checks
// every HTTP 200 answer against GitHub's schema (checkGraphQL).
func postGraphQL(t *testing.T, url, token string, body any) (int, gqlAnswer) {
	t.Helper()
	var raw []byte
	switch b := body.(type) {
	case string:
		raw = []byte(b)
	default:
		raw, _ = json.Marshal(b)
	}
	req, err := http.NewRequest("POST", url, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var a gqlAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		t.Fatalf("answer is not JSON: %s", data)
	}
	if m, ok := body.(map[string]any); ok && resp.StatusCode == 200 {
		checkGraphQL(t, m, data)
	}
	return resp.StatusCode, a
}

// checkGraphQL checks a GraphQL answer against GitHub's schema and the request's selection set,
// as the conformance test checks REST answers against the OpenAPI description.
func checkGraphQL(t testing.TB, request map[string]any, answer []byte) {
	t.Helper()
	schema, err := graphqlschema.Schema()
	if err != nil {
		t.Fatal(err)
	}
	query, _ := request["query"].(string)
	name, _ := request["operationName"].(string)
	vars, _ := request["variables"].(map[string]any)
	// The variables as the server read them: JSON, not the Go values the test built.
	raw, _ := json.Marshal(vars)
	vars = nil
	_ = json.Unmarshal(raw, &vars)
	if err := graphql.CheckResponse(schema, query, name, vars, answer); err != nil {
		t.Errorf("answer does not conform to GitHub's schema: %v\n%s", err, answer)
	}
}

func restPull(t *testing.T, s string, n string) (nodeID string, draft bool) {
	t.Helper()
	req, _ := http.NewRequest("GET", s+"repos/octo-org/hello-world/pulls/"+n, nil)
	req.Header.Set("Authorization", "token "+fakehub.DemoToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var pr struct {
		NodeID string `json:"node_id"`
		Draft  bool   `json:"draft"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&pr); err != nil {
		t.Fatal(err)
	}
	return pr.NodeID, pr.Draft
}

// TestGraphQLDraftMutations drives fakehub's /graphql with raw HTTP: both draft mutations change
// the state REST then reports, on both URL layouts, and every failure is GitHub's 200 with typed
// errors (or its 4xx for authentication and malformed JSON).
func TestGraphQLDraftMutations(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	id1, draft := restPull(t, s.URL, "1")
	if !strings.HasPrefix(id1, "PR_kw") || draft {
		t.Fatalf("pull 1 node_id %q draft %v", id1, draft)
	}
	if again, _ := restPull(t, s.URL, "1"); again != id1 {
		t.Fatalf("node_id not stable: %q then %q", id1, again)
	}
	if id2, _ := restPull(t, s.URL, "2"); id2 == id1 {
		t.Fatalf("two pull requests share node_id %q", id1)
	}
	// Issues and pull requests share one sequence of numbers, so the new pull request's number
	// follows the demo issues'.
	n3, err := s.Hub.CreatePullRequest("octo-org/hello-world", "feature/conflict", "feature/clean", "x", "", false)
	if err != nil {
		t.Fatal(err)
	}
	id3, _ := restPull(t, s.URL, strconv.Itoa(n3))
	if code, a := postGraphQL(t, s.URL+"graphql", fakehub.DemoToken, map[string]any{"query": `mutation { markPullRequestReadyForReview(input:{pullRequestId:"` + id3 + `"}) { clientMutationId } }`}); code != 200 || len(a.Errors) != 0 {
		t.Fatalf("warm-up: %d %+v", code, a)
	}
	closed := func() {
		req, _ := http.NewRequest("PATCH", s.URL+"repos/octo-org/hello-world/pulls/"+strconv.Itoa(n3), strings.NewReader(`{"state":"closed"}`))
		req.Header.Set("Authorization", "token "+fakehub.DemoToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("close: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	closed()
	vars := func(q, id string) map[string]any {
		return map[string]any{"query": q, "variables": map[string]any{"id": id}}
	}
	tests := []struct {
		name, path, token string
		body              any
		status            int
		field             string // data key checked for isDraft
		wantDraft         bool
		errType, errMsg   string
		// invalid marks a document the schema refuses before anything runs: as GitHub does, one
		// error with no type, located in the document, and no data.
		invalid bool
	}{
		{name: "convert to draft", path: "graphql", token: fakehub.DemoToken, body: vars(toDraft, id1), status: 200, field: "convertPullRequestToDraft", wantDraft: true},
		{name: "convert again is a no-op", path: "graphql", token: fakehub.DemoToken, body: vars(toDraft, id1), status: 200, field: "convertPullRequestToDraft", wantDraft: true},
		{name: "ready for review, enterprise layout", path: "api/graphql", token: fakehub.DemoToken, body: vars(toReady, id1), status: 200, field: "markPullRequestReadyForReview"},
		{name: "alias and inline id", path: "graphql", token: fakehub.DemoToken, status: 200, field: "d", wantDraft: true,
			body: map[string]any{"query": "# comment\nmutation {\n  d: convertPullRequestToDraft(input: {pullRequestId: \"" + id1 + "\", clientMutationId: \"c1\"}) { clientMutationId pullRequest { isDraft } }\n}"}},
		{name: "unknown id", path: "graphql", token: fakehub.DemoToken, body: vars(toDraft, "PR_kwnope"), status: 200, errType: "NOT_FOUND", errMsg: "Could not resolve to a node with the global id of 'PR_kwnope'."},
		{name: "read-only token", path: "graphql", token: readOnly, body: vars(toReady, id1), status: 200, errType: "FORBIDDEN", errMsg: "Resource not accessible by personal access token"},
		{name: "closed pull request", path: "graphql", token: fakehub.DemoToken, body: vars(toDraft, id3), status: 200, errType: "UNPROCESSABLE"},
		{name: "missing variable", path: "graphql", token: fakehub.DemoToken, body: map[string]any{"query": toDraft}, status: 200, invalid: true, errMsg: "Variable $id of type ID! was provided invalid value"},
		{name: "a query", path: "graphql", token: fakehub.DemoToken, body: map[string]any{"query": `{ licenses { key } }`}, status: 200, errType: "UNSUPPORTED", errMsg: "fakehub implements only the queries repository, user, organization, repositoryOwner, node, rateLimit and viewer and the mutations convertPullRequestToDraft, markPullRequestReadyForReview, createCommitOnBranch, addPullRequestReview, addPullRequestReviewThread, submitPullRequestReview, deletePullRequestReview, addPullRequestReviewThreadReply, resolveReviewThread, unresolveReviewThread, closeIssue, reopenIssue, updateLabel and those of Projects (v2) (field licenses)"},
		{name: "another mutation", path: "graphql", token: fakehub.DemoToken, body: map[string]any{"query": `mutation { mergePullRequest(input: {pullRequestId: "x"}) { clientMutationId } }`}, status: 200, errType: "UNSUPPORTED"},
		{name: "unimplemented field", path: "graphql", token: fakehub.DemoToken, body: vars(`mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) { pullRequest { author { login } } } }`, id1), status: 200, errType: "UNSUPPORTED"},
		{name: "unknown fragment", path: "graphql", token: fakehub.DemoToken, body: vars(`mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) { ...F } }`, id1), status: 200, invalid: true, errMsg: `Unknown fragment "F".`},
		{name: "fragments", path: "graphql", token: fakehub.DemoToken, status: 200, field: "convertPullRequestToDraft", wantDraft: true,
			body: vars(`mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) { ...P } } fragment P on ConvertPullRequestToDraftPayload { pullRequest { ... on PullRequest { isDraft } } }`, id1)},
		{name: "syntax error", path: "graphql", token: fakehub.DemoToken, body: map[string]any{"query": `mutation {`}, status: 200, invalid: true, errMsg: "Expected Name, found <EOF>"},
		{name: "unknown field", path: "graphql", token: fakehub.DemoToken, body: vars(`mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) { pullRequest { colour } } }`, id1), status: 200, invalid: true, errMsg: `Field 'colour' doesn't exist on type 'PullRequest'`},
		{name: "wrong argument type", path: "graphql", token: fakehub.DemoToken, body: map[string]any{"query": `mutation { convertPullRequestToDraft(input: {pullRequestId: 7, clientMutationId: true}) { clientMutationId } }`}, status: 200, invalid: true},
		{name: "variable of the wrong type", path: "graphql", token: fakehub.DemoToken, body: map[string]any{"query": toDraft, "variables": map[string]any{"id": []int{1}}}, status: 200, invalid: true, errMsg: "Variable $id of type ID! was provided invalid value"},
		{name: "anonymous", path: "graphql", body: vars(toDraft, id1), status: 401},
		{name: "malformed JSON", path: "graphql", token: fakehub.DemoToken, body: `{"query":`, status: 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, a := postGraphQL(t, s.URL+tc.path, tc.token, tc.body)
			if code != tc.status {
				t.Fatalf("status %d, want %d (%+v)", code, tc.status, a)
			}
			if tc.status != 200 {
				if a.Message == "" {
					t.Fatalf("no GitHub error body: %+v", a)
				}
				return
			}
			if tc.invalid {
				if len(a.Errors) != 1 || a.Errors[0].Type != "" || len(a.Errors[0].Locations) == 0 || a.Data != nil || (tc.errMsg != "" && a.Errors[0].Message != tc.errMsg) {
					t.Fatalf("answer %+v, want one untyped located error %q and no data", a, tc.errMsg)
				}
				return
			}
			if tc.errType != "" {
				if len(a.Errors) != 1 || a.Errors[0].Type != tc.errType || (tc.errMsg != "" && a.Errors[0].Message != tc.errMsg) {
					t.Fatalf("errors %+v, want one %s %q", a.Errors, tc.errType, tc.errMsg)
				}
				return
			}
			if len(a.Errors) != 0 {
				t.Fatalf("errors %+v", a.Errors)
			}
			var payload struct {
				ClientMutationID *string `json:"clientMutationId"`
				PullRequest      struct {
					IsDraft bool `json:"isDraft"`
				} `json:"pullRequest"`
			}
			if err := json.Unmarshal(a.Data[tc.field], &payload); err != nil {
				t.Fatalf("data %s: %v", a.Data, err)
			}
			if payload.PullRequest.IsDraft != tc.wantDraft {
				t.Fatalf("isDraft %v, want %v", payload.PullRequest.IsDraft, tc.wantDraft)
			}
			if _, draft := restPull(t, s.URL, "1"); draft != tc.wantDraft {
				t.Fatalf("REST draft %v, want %v", draft, tc.wantDraft)
			}
		})
	}
	if st := s.Hub.Stats(); st.ByRoute["POST /graphql"] == 0 || st.ByRoute["POST /api/graphql"] != 1 {
		t.Errorf("graphql requests not accounted under their routes: %v", st.ByRoute)
	}
}
