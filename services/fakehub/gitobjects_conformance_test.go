package fakehub_test

import (
	"encoding/json"
	"testing"

	"ghops.dev/services/fakehub"
)

// TestGitObjectsGraphQLConformance reads commits and trees through repository.object(expression:)
// with every field fakehub answers, through fragments, aliases and variables; postGraphQL checks
// every answer against GitHub's schema and the selection set. A revision that names nothing is a
// null object without an error, as on GitHub.
func TestGitObjectsGraphQLConformance(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	const repo = "octo-org/hello-world"
	head, err := s.Hub.BranchSHA(repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	const entryFields = `__typename name path nameRaw pathRaw type size mode oid`
	const tree = `query($expr: String!) { repository(owner: "octo-org", name: "hello-world") { isEmpty object(expression: $expr) {
		__typename id oid abbreviatedOid
		... on Commit { tree { __typename id oid abbreviatedOid entries { ` + entryFields + `
			object { __typename id oid ... on Blob { byteSize abbreviatedOid } ... on Tree { entries { ` + entryFields + ` object { ... on Tree { entries { name type size } } } } } } } } } } } }`
	tests := []struct {
		name    string
		query   string
		vars    map[string]any
		errType string
		// object is the commit id object answers ("" for null).
		object string
	}{
		{name: "a branch, every field", query: tree, vars: map[string]any{"expr": "main"}, object: head},
		{name: "HEAD, the default branch", query: tree, vars: map[string]any{"expr": "HEAD"}, object: head},
		{name: "a full commit id", query: tree, vars: map[string]any{"expr": head}, object: head},
		{name: "a short commit id", query: tree, vars: map[string]any{"expr": head[:7]}, object: head},
		{name: "a missing branch", query: tree, vars: map[string]any{"expr": "no-such-branch"}},
		{name: "through a fragment and aliases", query: `query { r: repository(owner: "octo-org", name: "hello-world") { o: object(expression: "main") { ...C } } }
			fragment C on Commit { oid t: tree { e: entries { n: name ... on TreeEntry { type } } } }`, object: head},
		{name: "the empty repository", query: `{ repository(owner: "octo-org", name: "empty") { isEmpty object(expression: "HEAD") { oid } } }`},
		{name: "an entry field fakehub does not model", query: `{ repository(owner: "octo-org", name: "hello-world") { object(expression: "main") { ... on Commit { tree { entries { language { name } } } } } } }`, errType: "UNSUPPORTED"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"query": tc.query}
			if tc.vars != nil {
				body["variables"] = tc.vars
			}
			code, a := postGraphQL(t, s.URL+"graphql", fakehub.DemoToken, body)
			if code != 200 {
				t.Fatalf("status %d", code)
			}
			if tc.errType != "" {
				if len(a.Errors) != 1 || a.Errors[0].Type != tc.errType {
					t.Fatalf("errors %+v, want one %s", a.Errors, tc.errType)
				}
				return
			}
			if len(a.Errors) != 0 {
				t.Fatalf("errors %+v", a.Errors)
			}
			repoKey := "repository"
			if _, ok := a.Data["r"]; ok {
				repoKey = "r"
			}
			var r struct {
				IsEmpty *bool `json:"isEmpty"`
				Object  *struct {
					Oid string `json:"oid"`
				} `json:"object"`
				O *struct {
					Oid string `json:"oid"`
				} `json:"o"`
			}
			if err := json.Unmarshal(a.Data[repoKey], &r); err != nil {
				t.Fatal(err)
			}
			obj := r.Object
			if obj == nil {
				obj = r.O
			}
			switch {
			case tc.object == "" && obj != nil:
				t.Fatalf("object %+v, want null", obj)
			case tc.object != "" && (obj == nil || obj.Oid != tc.object):
				t.Fatalf("object %+v, want commit %s", obj, tc.object)
			case r.IsEmpty != nil && *r.IsEmpty != (tc.name == "the empty repository"):
				t.Fatalf("isEmpty %v", *r.IsEmpty)
			}
		})
	}
}
