package graphqlschema_test

import (
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
