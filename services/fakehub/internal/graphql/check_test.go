package graphql_test

import (
	"strings"
	"testing"

	"ghops.dev/services/fakehub/graphqlschema"
	"ghops.dev/services/fakehub/internal/graphql"
)

// TestCheckResponse shows the answer checker can fail: each body breaks one rule of the schema
// or of the selection set, and only the faithful ones pass.
func TestCheckResponse(t *testing.T) {
	schema, err := graphqlschema.Schema()
	if err != nil {
		t.Fatal(err)
	}
	const draft = `mutation($id: ID!) { d: convertPullRequestToDraft(input: {pullRequestId: $id}) { __typename pullRequest { number isDraft state ...U } } } fragment U on UniformResourceLocatable { url }`
	const commit = `mutation($in: CreateCommitOnBranchInput!) { createCommitOnBranch(input: $in) { ref { target { oid ... on Commit { abbreviatedOid } } } } }`
	vars := map[string]any{"id": "PR_1"}
	commitVars := map[string]any{"in": map[string]any{"branch": map[string]any{"repositoryNameWithOwner": "o/r", "branchName": "main"}, "expectedHeadOid": "a", "message": map[string]any{"headline": "h"}}}
	tests := []struct {
		name, query, body, want string
		vars                    map[string]any
	}{
		{name: "faithful", query: draft, vars: vars,
			body: `{"data":{"d":{"__typename":"ConvertPullRequestToDraftPayload","pullRequest":{"number":1,"isDraft":true,"state":"OPEN","url":"u"}}}}`},
		{name: "typed error with null payload", query: draft, vars: vars,
			body: `{"data":{"d":null},"errors":[{"type":"NOT_FOUND","path":["d"],"locations":[{"line":1,"column":22}],"message":"no"}]}`},
		{name: "refused document", query: `{`, body: `{"errors":[{"locations":[{"line":1,"column":2}],"message":"Expected Name"}]}`},
		{name: "interface without __typename", query: commit, vars: commitVars,
			body: `{"data":{"createCommitOnBranch":{"ref":{"target":{"oid":"a","abbreviatedOid":"a"}}}}}`},
		{name: "missing field", query: draft, vars: vars, want: `selected field "url" is missing`,
			body: `{"data":{"d":{"__typename":"ConvertPullRequestToDraftPayload","pullRequest":{"number":1,"isDraft":true,"state":"OPEN"}}}}`},
		{name: "extra field", query: draft, vars: vars, want: `key "title" was not selected`,
			body: `{"data":{"d":{"__typename":"ConvertPullRequestToDraftPayload","pullRequest":{"number":1,"isDraft":true,"state":"OPEN","url":"u","title":"t"}}}}`},
		{name: "Int as string", query: draft, vars: vars, want: "is not a Int",
			body: `{"data":{"d":{"__typename":"ConvertPullRequestToDraftPayload","pullRequest":{"number":"1","isDraft":true,"state":"OPEN","url":"u"}}}}`},
		{name: "Int with a fraction", query: draft, vars: vars, want: "is not a Int",
			body: `{"data":{"d":{"__typename":"ConvertPullRequestToDraftPayload","pullRequest":{"number":1.5,"isDraft":true,"state":"OPEN","url":"u"}}}}`},
		{name: "enum value unknown", query: draft, vars: vars, want: "is not a value of enum PullRequestState",
			body: `{"data":{"d":{"__typename":"ConvertPullRequestToDraftPayload","pullRequest":{"number":1,"isDraft":true,"state":"DRAFT","url":"u"}}}}`},
		{name: "null in a non-null field", query: draft, vars: vars, want: "is not nullable",
			body: `{"data":{"d":{"__typename":"ConvertPullRequestToDraftPayload","pullRequest":{"number":null,"isDraft":true,"state":"OPEN","url":"u"}}}}`},
		{name: "wrong __typename", query: draft, vars: vars, want: "__typename is",
			body: `{"data":{"d":{"__typename":"PullRequest","pullRequest":{"number":1,"isDraft":true,"state":"OPEN","url":"u"}}}}`},
		{name: "object where a scalar goes", query: draft, vars: vars, want: "is not a Boolean",
			body: `{"data":{"d":{"__typename":"ConvertPullRequestToDraftPayload","pullRequest":{"number":1,"isDraft":{},"state":"OPEN","url":"u"}}}}`},
		{name: "data for a refused document", query: `{`, want: "does not validate", body: `{"data":{}}`},
		{name: "error without message", query: draft, vars: vars, want: "has no message", body: `{"errors":[{"type":"X"}]}`},
		{name: "bad location", query: draft, vars: vars, want: "no positive line", body: `{"errors":[{"message":"m","locations":[{"line":0,"column":1}]}]}`},
		{name: "unknown top-level key", query: draft, vars: vars, want: `unexpected top-level key "message"`, body: `{"message":"Bad credentials"}`},
		{name: "interface answered by no type", query: commit, vars: commitVars, want: "answers no type of GitObject",
			body: `{"data":{"createCommitOnBranch":{"ref":{"target":{"oid":"a","abbreviatedOid":"a","extra":1}}}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := graphql.CheckResponse(schema, tc.query, "", tc.vars, []byte(tc.body))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("faithful answer refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
