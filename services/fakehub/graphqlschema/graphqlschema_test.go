package graphqlschema_test

import (
	"strings"
	"testing"
	"time"

	"ghops.dev/services/fakehub/graphqlschema"
)

// TestSchema loads GitHub's schema (only the known repeated fields dropped, or loading fails)
// and finds the operations ghops relies on; it logs the load time, paid once per process.
func TestSchema(t *testing.T) {
	start := time.Now()
	s, err := graphqlschema.Schema()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("schema loaded in %v: %d types", time.Since(start), len(s.Types))
	for _, name := range []string{"createCommitOnBranch", "convertPullRequestToDraft", "markPullRequestReadyForReview", "addProjectV2ItemById", "resolveReviewThread"} {
		if s.Mutation.Fields.ForName(name) == nil {
			t.Errorf("mutation %s missing", name)
		}
	}
	if again, _ := graphqlschema.Schema(); again != s {
		t.Error("the schema is loaded twice")
	}
}

// TestValidate accepts a document GitHub would run and refuses each one it would not.
func TestValidate(t *testing.T) {
	tests := []struct{ name, query, want string }{
		{name: "valid", query: `mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) { pullRequest { isDraft } } }`},
		{name: "unknown field", query: `{ viewer { colour } }`, want: `Cannot query field "colour" on type "User".`},
		{name: "wrong argument type", query: `{ viewer { repositories(first: "ten") { totalCount } } }`, want: `Int cannot represent non-integer value: "ten"`},
		{name: "undeclared variable", query: `{ repository(owner: $o, name: "x") { id } }`, want: `Variable "$o" is not defined.`},
		{name: "syntax error", query: `mutation {`, want: `Expected Name, found <EOF>`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := graphqlschema.Validate(tc.query)
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
