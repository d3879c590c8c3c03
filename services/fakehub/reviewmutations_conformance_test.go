package fakehub_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
)

// TestReviewMutationsGraphQLConformance walks a review through GraphQL alone, in order, as a
// client that reviews without REST does (the documents are those github-mcp-server sends):
// the viewer, the pull request's id, a pending review, line threads on it, submission, an
// approval at a given commit, a pending review deleted, and each refusal GitHub gives on the
// way. postGraphQL checks every answer against GitHub's schema and the selection set; check
// reads what the step must have changed.
func TestReviewMutationsGraphQLConformance(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	head, err := s.Hub.BranchSHA("octo-org/hello-world", "feature/clean")
	if err != nil {
		t.Fatal(err)
	}
	pullID, _ := restPull(t, s.URL, "1")
	got := map[string]string{} // ids read from earlier answers
	const (
		viewerDoc  = `query { viewer { login } }`
		pullIDDoc  = `query($owner:String!$repo:String!$prNum:Int!){repository(owner: $owner, name: $repo){pullRequest(number: $prNum){id}}}`
		latestDoc  = `query($author:String!$name:String!$owner:String!$prNum:Int!){repository(owner: $owner, name: $name){pullRequest(number: $prNum){reviews(first: 1, author: $author){nodes{id,state,url}}}}}`
		pendingDoc = `query { repository(owner: "octo-org", name: "hello-world") { pullRequest(number: 1) { reviews(first: 10, states: [PENDING]) { totalCount nodes { id author { login } } } } } }`
		addDoc     = `mutation($input:AddPullRequestReviewInput!){addPullRequestReview(input: $input){pullRequestReview{id}}}`
		threadDoc  = `mutation($input:AddPullRequestReviewThreadInput!){addPullRequestReviewThread(input: $input){thread{id}}}`
		submitDoc  = `mutation($input:SubmitPullRequestReviewInput!){submitPullRequestReview(input: $input){pullRequestReview{id}}}`
		deleteDoc  = `mutation($input:DeletePullRequestReviewInput!){deletePullRequestReview(input: $input){pullRequestReview{id}}}`
	)
	input := func(kv ...any) func() map[string]any {
		return func() map[string]any {
			m := map[string]any{}
			for i := 0; i+1 < len(kv); i += 2 {
				v := kv[i+1]
				if ref, ok := v.(idOf); ok {
					v = got[string(ref)]
				}
				m[kv[i].(string)] = v
			}
			return map[string]any{"input": m}
		}
	}
	thread := func(path string, line int, more ...any) func() map[string]any {
		return input(append([]any{"path", path, "line", line, "side", "RIGHT", "subjectType", "LINE", "body", "say more", "pullRequestReviewId", idOf("pending")}, more...)...)
	}
	const reviewer, author = fakehub.DemoReviewerToken, fakehub.DemoToken
	tests := []struct {
		name, token, query string
		vars               func() map[string]any
		errType            string
		keep               string // the name in got of the id this answer gives
		want               string // a fragment the answer's data must hold
	}{
		{name: "viewer", token: reviewer, query: viewerDoc, want: `"login":"monalisa"`},
		{name: "the pull request's id", token: reviewer, query: pullIDDoc, vars: func() map[string]any {
			return map[string]any{"owner": "octo-org", "repo": "hello-world", "prNum": 1}
		}, want: pullID},
		{name: "pending review", token: reviewer, query: addDoc, vars: input("pullRequestId", pullID, "commitOID", head), keep: "pending"},
		{name: "a second pending review", token: reviewer, query: addDoc, vars: input("pullRequestId", pullID), errType: "UNPROCESSABLE"},
		{name: "the viewer's latest review", token: reviewer, query: latestDoc, vars: func() map[string]any {
			return map[string]any{"author": "monalisa", "owner": "octo-org", "name": "hello-world", "prNum": 1}
		}, want: `"state":"PENDING"`},
		{name: "pending reviews, by their author", token: reviewer, query: pendingDoc, want: `"totalCount":1`},
		{name: "pending reviews, by another", token: author, query: pendingDoc, want: `"totalCount":0`},
		{name: "a line thread", token: reviewer, query: threadDoc, vars: thread("docs/guide.md", 11), keep: "thread"},
		{name: "a multi-line thread", token: reviewer, query: threadDoc, vars: thread("docs/guide.md", 11, "startLine", 9, "startSide", "RIGHT")},
		{name: "a thread outside the diff", token: reviewer, query: threadDoc, vars: thread("docs/guide.md", 3), errType: "UNPROCESSABLE"},
		{name: "a thread on a file outside the diff", token: reviewer, query: threadDoc, vars: thread("README.md", 1), errType: "UNPROCESSABLE"},
		{name: "a thread starting after its line", token: reviewer, query: threadDoc, vars: thread("docs/guide.md", 9, "startLine", 11), errType: "UNPROCESSABLE"},
		{name: "a thread on a file", token: reviewer, query: threadDoc, vars: input("path", "docs/guide.md", "subjectType", "FILE", "body", "b", "pullRequestReviewId", idOf("pending")), errType: "UNSUPPORTED"},
		{name: "a thread in another's pending review", token: author, query: threadDoc, vars: thread("docs/guide.md", 11), errType: "NOT_FOUND"},
		{name: "the thread as the author sees it", token: author, query: `query($id: ID!) { node(id: $id) { id } }`, vars: func() map[string]any { return map[string]any{"id": got["thread"]} }, errType: "NOT_FOUND"},
		{name: "requesting changes without a body", token: reviewer, query: submitDoc, vars: input("pullRequestReviewId", idOf("pending"), "event", "REQUEST_CHANGES"), errType: "UNPROCESSABLE"},
		{name: "dismissing as a submission", token: reviewer, query: submitDoc, vars: input("pullRequestReviewId", idOf("pending"), "event", "DISMISS", "body", "b"), errType: "UNPROCESSABLE"},
		{name: "submit", token: reviewer, query: `mutation($input:SubmitPullRequestReviewInput!){submitPullRequestReview(input: $input){clientMutationId pullRequestReview{id state body submittedAt author{login}}}}`,
			vars: input("pullRequestReviewId", idOf("pending"), "event", "REQUEST_CHANGES", "body", "Please say more.", "clientMutationId", "s"), want: `"state":"CHANGES_REQUESTED"`},
		{name: "the threads, now seen by the author", token: author, query: `query($id: ID!) { node(id: $id) { ... on PullRequestReviewThread { isResolved comments(first: 5) { totalCount } } } }`,
			vars: func() map[string]any { return map[string]any{"id": got["thread"]} }, want: `"totalCount":1`},
		{name: "submit again", token: reviewer, query: submitDoc, vars: input("pullRequestReviewId", idOf("pending"), "event", "COMMENT", "body", "b"), errType: "UNPROCESSABLE"},
		{name: "delete a submitted review", token: reviewer, query: deleteDoc, vars: input("pullRequestReviewId", idOf("pending")), errType: "UNPROCESSABLE"},
		{name: "submit another's review", token: author, query: submitDoc, vars: input("pullRequestReviewId", idOf("pending"), "event", "COMMENT", "body", "b"), errType: "FORBIDDEN"},
		{name: "a thread in a submitted review", token: reviewer, query: threadDoc, vars: thread("docs/guide.md", 11), errType: "UNPROCESSABLE"},
		{name: "approving one's own pull request", token: author, query: addDoc, vars: input("pullRequestId", pullID, "event", "APPROVE"), errType: "UNPROCESSABLE"},
		{name: "a commit not in the pull request", token: reviewer, query: addDoc, vars: input("pullRequestId", pullID, "event", "APPROVE", "commitOID", strings.Repeat("0", 40)), errType: "UNPROCESSABLE"},
		{name: "an unknown pull request", token: reviewer, query: addDoc, vars: input("pullRequestId", "PR_kwx", "event", "APPROVE"), errType: "NOT_FOUND"},
		{name: "position-based comments", token: reviewer, query: addDoc, vars: input("pullRequestId", pullID, "comments", []any{map[string]any{"path": "docs/guide.md", "position": 1, "body": "b"}}), errType: "UNSUPPORTED"},
		{name: "approve at the head with a thread", token: reviewer, query: `mutation($input:AddPullRequestReviewInput!){addPullRequestReview(input: $input){pullRequestReview{state databaseId url} reviewEdge{cursor node{id}}}}`,
			vars: input("pullRequestId", pullID, "event", "APPROVE", "body", "Thanks.", "commitOID", head, "threads", []any{map[string]any{"path": "docs/guide.md", "line": 9, "body": "nice"}}), want: `"state":"APPROVED"`},
		{name: "a thread without a review begins one", token: reviewer, query: threadDoc, vars: input("pullRequestId", pullID, "path", "docs/guide.md", "line", 11, "body", "later"), keep: "thread2"},
		{name: "its pending review", token: reviewer, query: `query { repository(owner: "octo-org", name: "hello-world") { pullRequest(number: 1) { reviews(first: 1, states: [PENDING]) { nodes { id } } } } }`, keep: "pending2"},
		{name: "delete another's pending review", token: author, query: deleteDoc, vars: input("pullRequestReviewId", idOf("pending2")), errType: "NOT_FOUND"},
		{name: "delete the pending review", token: reviewer, query: deleteDoc, vars: input("pullRequestReviewId", idOf("pending2")), want: `"deletePullRequestReview":{"pullRequestReview":{"id":`},
		{name: "its thread went with it", token: reviewer, query: `query($id: ID!) { node(id: $id) { id } }`, vars: func() map[string]any { return map[string]any{"id": got["thread2"]} }, errType: "NOT_FOUND"},
		{name: "no pending review left", token: reviewer, query: pendingDoc, want: `"totalCount":0`},
		{name: "submit with no pending review", token: reviewer, query: submitDoc, vars: input("pullRequestId", pullID, "event", "COMMENT", "body", "b"), errType: "UNPROCESSABLE"},
		{name: "reviews of every state", token: reviewer, query: `query { repository(owner: "octo-org", name: "hello-world") { pullRequest(number: 1) { reviews(first: 10, author: "monalisa", states: [APPROVED, CHANGES_REQUESTED]) { totalCount nodes { state } } } } }`,
			want: `"nodes":[{"state":"CHANGES_REQUESTED"},{"state":"APPROVED"}]`},
	}
	for _, tc := range tests {
		ok := t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"query": tc.query}
			if tc.vars != nil {
				body["variables"] = tc.vars()
			}
			code, a := postGraphQL(t, s.URL+"graphql", tc.token, body)
			if code != 200 {
				t.Fatalf("status %d", code)
			}
			data, _ := json.Marshal(a.Data)
			switch {
			case tc.errType != "" && (len(a.Errors) != 1 || a.Errors[0].Type != tc.errType):
				t.Fatalf("errors %+v, want one %s", a.Errors, tc.errType)
			case tc.errType == "" && len(a.Errors) != 0:
				t.Fatalf("errors %+v", a.Errors)
			case !strings.Contains(string(data), tc.want):
				t.Fatalf("data %s, want it to hold %s", data, tc.want)
			}
			if tc.keep != "" {
				if got[tc.keep] = firstID(data); got[tc.keep] == "" {
					t.Fatalf("no id in %s", data)
				}
			}
		})
		if !ok {
			break // later steps build on this one
		}
	}
}

// idOf names an id an earlier step kept.
type idOf string

// firstID is the first "id" string in a JSON document.
func firstID(data []byte) string {
	_, rest, ok := strings.Cut(string(data), `"id":"`)
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, `"`)
	return id
}

// FuzzReviewMutations sends review mutation documents with arbitrary variables, as the monalisa
// reviewer: every answer is HTTP 200 and conforms to GitHub's schema, whatever the ids, lines and
// events.
func FuzzReviewMutations(f *testing.F) {
	const (
		add    = `mutation($input:AddPullRequestReviewInput!){addPullRequestReview(input: $input){pullRequestReview{id state} reviewEdge{cursor}}}`
		thread = `mutation($input:AddPullRequestReviewThreadInput!){addPullRequestReviewThread(input: $input){thread{id line isOutdated}}}`
		submit = `mutation($input:SubmitPullRequestReviewInput!){submitPullRequestReview(input: $input){pullRequestReview{id state}}}`
		del    = `mutation($input:DeletePullRequestReviewInput!){deletePullRequestReview(input: $input){pullRequestReview{id}}}`
		latest = `query($a:String!){viewer{login} repository(owner:"octo-org",name:"hello-world"){pullRequest(number:1){reviews(first:1,author:$a,states:[PENDING]){nodes{id state url}}}}}`
	)
	pr1 := "PR_kwb2N0by1vcmcvaGVsbG8td29ybGQ6MQ" // octo-org/hello-world:1
	f.Add(add, `{"input":{"pullRequestId":"`+pr1+`"}}`)
	f.Add(add, `{"input":{"pullRequestId":"`+pr1+`","event":"APPROVE","commitOID":"zz","threads":[{"path":"docs/guide.md","line":-1,"body":"x"}]}}`)
	f.Add(thread, `{"input":{"pullRequestId":"`+pr1+`","path":"docs/guide.md","line":11,"startLine":11,"body":"x"}}`)
	f.Add(thread, `{"input":{"pullRequestReviewId":"PRR_kw!!","path":"../x","line":1e9,"body":""}}`)
	f.Add(submit, `{"input":{"pullRequestId":"`+pr1+`","event":"DISMISS"}}`)
	f.Add(del, `{"input":{"pullRequestReviewId":"PRR_kwb2N0by1vcmcvaGVsbG8td29ybGQ6MTo5OQ"}}`)
	f.Add(latest, `{"a":"monalisa"}`)
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
