package fakehub_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
)

// TestReviewThreadsGraphQLConformance runs the review thread queries and mutations through
// aliases, fragments and variables, and each refusal GitHub gives them; postGraphQL checks every
// answer against GitHub's schema and the selection set.
func TestReviewThreadsGraphQLConformance(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	open := threads(t, s.URL, fakehub.DemoToken, 3)[0]
	vars := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	const repoQ = `query($n: Int!) { repository(owner: "octo-org", name: "hello-world") { pullRequest(number: $n) { number reviewThreads(first: 5) { totalCount } } } }`
	tests := []struct {
		name    string
		query   string
		vars    map[string]any
		errType string
		// path is where the error sits when not on the root field: a nullable field answers
		// null beside it, its parents as usual.
		path string
	}{
		{name: "threads through a fragment and aliases", query: `query { r: repository(owner: "octo-org", name: "hello-world") { ...P } }
			fragment P on Repository { pr: pullRequest(number: 3) { t: reviewThreads(first: 2) { nodes { ... on PullRequestReviewThread { id isResolved } c: comments(first: 1) { nodes { body } } } } } }`},
		// The documents the GitHub service sends for list_review_threads and its id check.
		{name: "the service's thread list", query: `query($owner: String!, $name: String!, $number: Int!, $first: Int!, $after: String) { repository(owner: $owner, name: $name) { pullRequest(number: $number) { reviewThreads(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { id path line startLine diffSide isResolved isOutdated comments(first: 20) { totalCount nodes { databaseId author { login } authorAssociation body createdAt diffHunk } } } } } } }`,
			vars: vars("owner", "octo-org", "name", "hello-world", "number", 3, "first", 50, "after", nil)},
		{name: "the service's thread owner check", query: `query($id: ID!) { node(id: $id) { ... on PullRequestReviewThread { id isResolved pullRequest { number repository { nameWithOwner } } } } }`, vars: vars("id", open.ID)},
		{name: "rate limit", query: `{ rateLimit { cost limit remaining used resetAt nodeCount } }`},
		{name: "thread node", query: `query($id: ID!) { node(id: $id) { __typename ... on PullRequestReviewThread { isOutdated line originalLine } } }`, vars: vars("id", open.ID)},
		{name: "resolve twice in one document", query: `mutation($id: ID!) { a: resolveReviewThread(input: {threadId: $id}) { thread { isResolved } } b: resolveReviewThread(input: {threadId: $id}) { thread { isResolved resolvedBy { login } } } }`, vars: vars("id", open.ID)},
		{name: "unresolve", query: `mutation($id: ID!) { unresolveReviewThread(input: {threadId: $id, clientMutationId: "u"}) { clientMutationId thread { id isResolved } } }`, vars: vars("id", open.ID)},
		{name: "reply", query: replyDoc, vars: vars("id", open.ID, "body", "noted")},
		{name: "missing pull request", query: repoQ, vars: vars("n", 99), errType: "NOT_FOUND", path: "repository.pullRequest"},
		{name: "missing repository", query: `{ repository(owner: "octo-org", name: "nope") { nameWithOwner } }`, errType: "NOT_FOUND"},
		{name: "private repository it cannot see", query: `{ repository(owner: "octo-org", name: "secret") { nameWithOwner } }`, errType: "NOT_FOUND"},
		{name: "threads without first", query: `{ repository(owner: "octo-org", name: "hello-world") { pullRequest(number: 3) { reviewThreads { totalCount } } } }`, errType: "MISSING_PAGINATION_BOUNDARIES"},
		{name: "threads beyond 100", query: `{ repository(owner: "octo-org", name: "hello-world") { pullRequest(number: 3) { reviewThreads(first: 101) { totalCount } } } }`, errType: "EXCESSIVE_PAGINATION"},
		{name: "threads after a bad cursor", query: `{ repository(owner: "octo-org", name: "hello-world") { pullRequest(number: 3) { reviewThreads(first: 1, after: "bm9wZQ") { totalCount } } } }`, errType: "INVALID_CURSOR_ARGUMENTS"},
		{name: "unknown node", query: `{ node(id: "PRRT_kwAAAA") { id } }`, errType: "NOT_FOUND"},
		{name: "unresolve an unknown thread", query: `mutation { unresolveReviewThread(input: {threadId: "x"}) { thread { id } } }`, errType: "NOT_FOUND"},
		{name: "a thread field fakehub does not model", query: `query($id: ID!) { node(id: $id) { ... on PullRequestReviewThread { viewerCanReply isCollapsed comments(first: 1) { nodes { reactionGroups { content } } } } } }`, vars: vars("id", open.ID), errType: "UNSUPPORTED"},
		{name: "reply with a wrong type", query: `mutation { addPullRequestReviewThreadReply(input: {pullRequestReviewThreadId: "x", body: 3}) { comment { id } } }`},
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
			switch {
			case tc.errType != "" && (len(a.Errors) != 1 || a.Errors[0].Type != tc.errType):
				t.Fatalf("errors %+v, want one %s", a.Errors, tc.errType)
			case tc.errType == "" && strings.Contains(tc.name, "wrong type") && (len(a.Errors) == 0 || a.Data != nil):
				t.Fatalf("an invalid document ran: %+v", a)
			case tc.errType == "" && !strings.Contains(tc.name, "wrong type") && len(a.Errors) != 0:
				t.Fatalf("errors %+v", a.Errors)
			case tc.path != "" && (fmt.Sprint(a.Errors[0].Path) != "["+strings.ReplaceAll(tc.path, ".", " ")+"]" || string(a.Data["repository"]) != `{"pullRequest":null}`):
				t.Fatalf("error at %v with data %s, want it at %s beside a null", a.Errors[0].Path, a.Data["repository"], tc.path)
			}
		})
	}
}

// TestReviewThreadsRateLimitHeaders: GraphQL answers carry the rate-limit headers of the graphql
// bucket, which rateLimit reports too.
func TestReviewThreadsRateLimitHeaders(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	req, _ := http.NewRequest("POST", s.URL+"graphql", strings.NewReader(`{"query":"{ rateLimit { remaining limit cost } }"}`))
	req.Header.Set("Authorization", "bearer "+fakehub.DemoToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a struct {
		Data struct {
			RateLimit struct{ Remaining, Limit, Cost int } `json:"rateLimit"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatal(err)
	}
	if got := resp.Header.Get("X-RateLimit-Resource"); got != "graphql" {
		t.Errorf("X-RateLimit-Resource %q, want graphql", got)
	}
	if got := resp.Header.Get("X-RateLimit-Remaining"); got == "" || got != jsonInt(a.Data.RateLimit.Remaining) {
		t.Errorf("X-RateLimit-Remaining %q, rateLimit.remaining %d", got, a.Data.RateLimit.Remaining)
	}
	if a.Data.RateLimit.Cost != 1 || a.Data.RateLimit.Limit != 5000 {
		t.Errorf("rateLimit %+v", a.Data.RateLimit)
	}
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }

// FuzzReviewThreadsQuery sends review thread documents with arbitrary variables: every answer
// is HTTP 200 and conforms to GitHub's schema.
func FuzzReviewThreadsQuery(f *testing.F) {
	f.Add(threadsQuery, `{"owner":"octo-org","name":"hello-world","n":3,"after":"Y3Vyc29yOnYyOjA="}`)
	f.Add(threadsQuery, `{"owner":"octo-org","name":"hello-world","n":3,"after":"Y3Vyc29yOnYyOi05"}`)
	f.Add(threadsQuery, `{"owner":"octo-org","name":"hello-world","n":-1}`)
	f.Add(resolveDoc, `{"id":"PRRT_kwb2N0by1vcmcvaGVsbG8td29ybGQ6Mzox"}`)
	f.Add(replyDoc, `{"id":"PRRT_kw!!","body":""}`)
	f.Add(`query($id: ID!) { node(id: $id) { id } }`, `{"id":"PRR_kwb2N0by1vcmcvaGVsbG8td29ybGQ6Mzo6"}`)
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
		req.Header.Set("Authorization", "token "+fakehub.DemoReviewerToken)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("status %d for %s: %s", rec.Code, body, rec.Body.Bytes())
		}
		checkGraphQL(t, request, rec.Body.Bytes())
	})
}
