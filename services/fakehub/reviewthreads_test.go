package fakehub_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
)

// threadsQuery reads every field of pull request 3's review threads that fakehub answers.
const threadsQuery = `query Threads($owner: String!, $name: String!, $n: Int!, $after: String) {
  __typename
  rateLimit { cost remaining resetAt limit used }
  repository(owner: $owner, name: $name) { nameWithOwner pullRequest(number: $n) { number headRefOid
    reviewThreads(first: 1, after: $after) { totalCount pageInfo { hasNextPage endCursor startCursor hasPreviousPage }
      edges { cursor }
      nodes { __typename id path line startLine originalLine diffSide startDiffSide isResolved isOutdated isCollapsed subjectType
        viewerCanResolve viewerCanUnresolve viewerCanReply resolvedBy { login }
        pullRequest { number repository { nameWithOwner } }
        comments(first: 10) { totalCount nodes { id databaseId author { __typename login } body createdAt diffHunk path line originalLine
          outdated state url replyTo { databaseId } pullRequestReview { databaseId state author { login } } } } } } } } }`

type threadJSON struct {
	ID         string `json:"id"`
	Path       string `json:"path"`
	Line       *int   `json:"line"`
	IsResolved bool   `json:"isResolved"`
	IsOutdated bool   `json:"isOutdated"`
	ResolvedBy *struct {
		Login string `json:"login"`
	} `json:"resolvedBy"`
	PullRequest struct {
		Number     int `json:"number"`
		Repository struct {
			NameWithOwner string `json:"nameWithOwner"`
		} `json:"repository"`
	} `json:"pullRequest"`
	Comments struct {
		TotalCount int `json:"totalCount"`
		Nodes      []struct {
			DatabaseID int64 `json:"databaseId"`
			Author     struct {
				Login string `json:"login"`
			} `json:"author"`
			Body     string `json:"body"`
			DiffHunk string `json:"diffHunk"`
			State    string `json:"state"`
		} `json:"nodes"`
	} `json:"comments"`
}

// threads reads all review threads of pull request n as token sees them, page by page.
func threads(t *testing.T, url, token string, n int) []threadJSON {
	t.Helper()
	var out []threadJSON
	var after any
	for page := 0; page < 20; page++ {
		code, a := postGraphQL(t, url+"graphql", token, map[string]any{"query": threadsQuery, "operationName": "Threads",
			"variables": map[string]any{"owner": "octo-org", "name": "hello-world", "n": n, "after": after}})
		if code != 200 || len(a.Errors) != 0 {
			t.Fatalf("threads: %d %+v", code, a.Errors)
		}
		var repo struct {
			PullRequest struct {
				ReviewThreads struct {
					TotalCount int `json:"totalCount"`
					PageInfo   struct {
						HasNextPage bool   `json:"hasNextPage"`
						EndCursor   string `json:"endCursor"`
					} `json:"pageInfo"`
					Nodes []threadJSON `json:"nodes"`
				} `json:"reviewThreads"`
			} `json:"pullRequest"`
		}
		if err := json.Unmarshal(a.Data["repository"], &repo); err != nil {
			t.Fatal(err)
		}
		rt := repo.PullRequest.ReviewThreads
		out = append(out, rt.Nodes...)
		if !rt.PageInfo.HasNextPage {
			if len(out) != rt.TotalCount {
				t.Fatalf("read %d threads, totalCount %d", len(out), rt.TotalCount)
			}
			return out
		}
		after = rt.PageInfo.EndCursor
	}
	t.Fatal("threads never end")
	return nil
}

// gqlMutate runs one mutation and returns its answer.
func gqlMutate(t *testing.T, url, token, query string, vars map[string]any) gqlAnswer {
	t.Helper()
	code, a := postGraphQL(t, url+"graphql", token, map[string]any{"query": query, "variables": vars})
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	return a
}

const (
	resolveDoc   = `mutation($id: ID!) { resolveReviewThread(input: {threadId: $id, clientMutationId: "r"}) { clientMutationId thread { id isResolved resolvedBy { login } viewerCanUnresolve } } }`
	unresolveDoc = `mutation($id: ID!) { unresolveReviewThread(input: {threadId: $id}) { thread { id isResolved resolvedBy { login } } } }`
	replyDoc     = `mutation($id: ID!, $body: String!) { addPullRequestReviewThreadReply(input: {pullRequestReviewThreadId: $id, body: $body}) { comment { id databaseId body author { login } replyTo { databaseId } state path } } }`
)

// TestDemoReviewThreads: the demo's pull request 3 carries one open and one resolved thread of
// monalisa's review, read through GraphQL with every field fakehub answers, one thread a page.
func TestDemoReviewThreads(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	got := threads(t, s.URL, fakehub.DemoToken, 3)
	if len(got) != 2 {
		t.Fatalf("%d threads, want 2", len(got))
	}
	open, resolved := got[0], got[1]
	if open.IsResolved || open.Comments.TotalCount != 1 || open.Comments.Nodes[0].Author.Login != "monalisa" || open.Line == nil || *open.Line != 7 {
		t.Errorf("open thread %+v", open)
	}
	if !resolved.IsResolved || resolved.ResolvedBy == nil || resolved.ResolvedBy.Login != "octocat" || resolved.Comments.TotalCount != 2 {
		t.Errorf("resolved thread %+v", resolved)
	}
	if open.PullRequest.Number != 3 || open.PullRequest.Repository.NameWithOwner != "octo-org/hello-world" || open.Path != demoTestFile {
		t.Errorf("thread's pull request %+v", open.PullRequest)
	}
	if h := open.Comments.Nodes[0].DiffHunk; !strings.HasPrefix(h, "@@ -0,0 +1,") || !strings.HasSuffix(h, `{"world", "world", "Hello, world!"},`) {
		t.Errorf("diff hunk %q", h)
	}
}

// TestReviewThreadMutations: reply, resolve and unresolve change what REST and GraphQL read, and
// each refusal is GitHub's typed error with nothing written.
func TestReviewThreadMutations(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	open := threads(t, s.URL, fakehub.DemoToken, 3)[0]
	a := gqlMutate(t, s.URL, fakehub.DemoToken, replyDoc, map[string]any{"id": open.ID, "body": "Fixed in the next push."})
	if len(a.Errors) != 0 || !strings.Contains(string(a.Data["addPullRequestReviewThreadReply"]), `"state":"SUBMITTED"`) {
		t.Fatalf("reply: %+v %s", a.Errors, a.Data["addPullRequestReviewThreadReply"])
	}
	a = gqlMutate(t, s.URL, fakehub.DemoToken, resolveDoc, map[string]any{"id": open.ID})
	if len(a.Errors) != 0 || !strings.Contains(string(a.Data["resolveReviewThread"]), `"isResolved":true`) {
		t.Fatalf("resolve: %+v %s", a.Errors, a.Data["resolveReviewThread"])
	}
	after := threads(t, s.URL, writer, 3)[0]
	if !after.IsResolved || after.Comments.TotalCount != 2 || after.Comments.Nodes[1].Body != "Fixed in the next push." {
		t.Fatalf("after reply and resolve: %+v", after)
	}
	var comments []map[string]any
	getJSON(t, s.URL+reviewedPull+"comments", writer, &comments)
	if last := comments[len(comments)-1]; last["body"] != "Fixed in the next push." || last["in_reply_to_id"] != float64(after.Comments.Nodes[0].DatabaseID) {
		t.Errorf("REST sees the reply as %v", last)
	}
	a = gqlMutate(t, s.URL, writer, unresolveDoc, map[string]any{"id": open.ID})
	if len(a.Errors) != 0 || threads(t, s.URL, writer, 3)[0].IsResolved {
		t.Fatalf("unresolve: %+v", a.Errors)
	}

	for _, tc := range []struct {
		name, token, doc string
		vars             map[string]any
		errType          string
	}{
		{name: "resolve an unknown thread", token: writer, doc: resolveDoc, vars: map[string]any{"id": "PRRT_kwnope"}, errType: "NOT_FOUND"},
		{name: "resolve a pull request's id", token: writer, doc: resolveDoc, vars: map[string]any{"id": "PR_kwx"}, errType: "NOT_FOUND"},
		{name: "resolve without write access or authorship", token: readOnly, doc: resolveDoc, vars: map[string]any{"id": open.ID}, errType: "FORBIDDEN"},
		{name: "reply with an empty body", token: writer, doc: replyDoc, vars: map[string]any{"id": open.ID, "body": "  "}, errType: "UNPROCESSABLE"},
		{name: "reply in an unknown thread", token: writer, doc: replyDoc, vars: map[string]any{"id": "PRRT_kwAAAA", "body": "x"}, errType: "NOT_FOUND"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := threads(t, s.URL, writer, 3)
			a := gqlMutate(t, s.URL, tc.token, tc.doc, tc.vars)
			if len(a.Errors) != 1 || a.Errors[0].Type != tc.errType {
				t.Fatalf("errors %+v, want one %s", a.Errors, tc.errType)
			}
			if after := threads(t, s.URL, writer, 3); asJSON(t, after) != asJSON(t, before) {
				t.Errorf("a refused mutation changed the threads:\n%+v\n%+v", before, after)
			}
		})
	}
}

// TestReviewNodes: node(id:) finds a thread, review and comment by id, with the pull request and
// repository they belong to; a private repository's ids do not resolve for a token that cannot see it.
func TestReviewNodes(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	open := threads(t, s.URL, fakehub.DemoToken, 3)[0]
	const doc = `query($id: ID!) { node(id: $id) { __typename id
		... on PullRequestReviewThread { path isResolved pullRequest { number repository { nameWithOwner } } }
		... on PullRequestReview { databaseId state author { login } pullRequest { number } }
		... on PullRequestReviewComment { databaseId body pullRequest { number } } } }`
	code, a := postGraphQL(t, s.URL+"graphql", writer, map[string]any{"query": doc, "variables": map[string]any{"id": open.ID}})
	if code != 200 || len(a.Errors) != 0 || !strings.Contains(string(a.Data["node"]), `"nameWithOwner":"octo-org/hello-world"`) {
		t.Fatalf("thread node: %+v %s", a.Errors, a.Data["node"])
	}
	var reviews []struct {
		NodeID string `json:"node_id"`
	}
	getJSON(t, s.URL+reviewedPull+"reviews", writer, &reviews)
	code, a = postGraphQL(t, s.URL+"graphql", writer, map[string]any{"query": doc, "variables": map[string]any{"id": reviews[0].NodeID}})
	if code != 200 || len(a.Errors) != 0 || !strings.Contains(string(a.Data["node"]), `"state":"CHANGES_REQUESTED"`) {
		t.Fatalf("review node: %+v %s", a.Errors, a.Data["node"])
	}
	code, a = postGraphQL(t, s.URL+"graphql", writer, map[string]any{"query": doc, "variables": map[string]any{"id": "PRRT_kwbm9wZQ"}})
	if code != 200 || len(a.Errors) != 1 || a.Errors[0].Type != "NOT_FOUND" {
		t.Fatalf("unknown node: %+v", a.Errors)
	}

	// A thread of a private repository: its id resolves for a token that sees the repository only.
	const secret = "octo-org/secret"
	if _, err := s.Hub.Commit(secret, "feature/s", "s", map[string]string{"s.txt": "s\n"}); err != nil {
		t.Fatal(err)
	}
	n, err := s.Hub.CreatePullRequest(secret, "feature/s", "main", "S", "", false)
	if err != nil {
		t.Fatal(err)
	}
	do2(t, s, "POST", fmt.Sprintf("repos/%s/pulls/%d/reviews", secret, n), `{"event":"COMMENT","body":"b","comments":[{"path":"s.txt","line":1,"body":"c"}]}`, writer)
	const threadsDoc = `query($n: Int!) { repository(owner: "octo-org", name: "secret") { pullRequest(number: $n) { reviewThreads(first: 1) { nodes { id } } } } }`
	code, a = postGraphQL(t, s.URL+"graphql", writer, map[string]any{"query": threadsDoc, "variables": map[string]any{"n": n}})
	var repo struct {
		PullRequest struct {
			ReviewThreads struct {
				Nodes []struct{ ID string } `json:"nodes"`
			} `json:"reviewThreads"`
		} `json:"pullRequest"`
	}
	if err := json.Unmarshal(a.Data["repository"], &repo); code != 200 || err != nil || len(repo.PullRequest.ReviewThreads.Nodes) != 1 {
		t.Fatalf("private thread: %d %v %s", code, err, a.Data["repository"])
	}
	private := repo.PullRequest.ReviewThreads.Nodes[0].ID
	for _, tc := range []struct {
		name, token string
		found       bool
	}{{"a token that sees it", writer, true}, {"a token that does not", fakehub.DemoToken, false}} {
		t.Run(tc.name, func(t *testing.T) {
			_, a := postGraphQL(t, s.URL+"graphql", tc.token, map[string]any{"query": doc, "variables": map[string]any{"id": private}})
			if found := len(a.Errors) == 0 && strings.Contains(string(a.Data["node"]), `"nameWithOwner":"octo-org/secret"`); found != tc.found {
				t.Fatalf("found %v, want %v: %+v %s", found, tc.found, a.Errors, a.Data["node"])
			}
			if !tc.found && (len(a.Errors) != 1 || a.Errors[0].Type != "NOT_FOUND") {
				t.Fatalf("errors %+v, want NOT_FOUND", a.Errors)
			}
		})
	}
}

// TestPendingReviewVisibleToAuthorOnly: a pending review, its comments and its threads are
// seen by their author alone, through REST and GraphQL; submitting shows them to everyone.
func TestPendingReviewVisibleToAuthorOnly(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	_, rv := do2(t, s, "POST", reviewedPull+"reviews", `{"body":"draft","comments":[{"path":"`+demoTestFile+`","line":12,"body":"pending note"}]}`, writer)
	id := fmt.Sprint(int64(rv["id"].(float64)))
	count := func(token string) (reviews, comments, threadCount int) {
		var rs, cs []any
		getJSON(t, s.URL+reviewedPull+"reviews", token, &rs)
		getJSON(t, s.URL+reviewedPull+"comments", token, &cs)
		return len(rs), len(cs), len(threads(t, s.URL, token, 3))
	}
	for _, tc := range []struct {
		name, token     string
		reviews, c, thr int
	}{
		// The pull request's comment list holds published comments only, for the author too.
		{"author sees it", writer, 3, 3, 3},
		{"another user does not", fakehub.DemoToken, 2, 3, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r, c, th := count(tc.token); r != tc.reviews || c != tc.c || th != tc.thr {
				t.Errorf("reviews %d comments %d threads %d, want %d %d %d", r, c, th, tc.reviews, tc.c, tc.thr)
			}
		})
	}
	req, _ := http.NewRequest("GET", s.URL+reviewedPull+"reviews/"+id, nil)
	req.Header.Set("Authorization", "token "+fakehub.DemoToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("another user's GET of a pending review: %d, want 404", resp.StatusCode)
	}
	do2(t, s, "POST", reviewedPull+"reviews/"+id+"/events", `{"event":"COMMENT"}`, writer)
	if r, c, th := count(fakehub.DemoToken); r != 3 || c != 4 || th != 3 {
		t.Errorf("after submitting: reviews %d comments %d threads %d, want 3 4 3", r, c, th)
	}
}

// TestDeleteOnlyPendingReview: a pending review goes with its comments; a submitted one stays.
func TestDeleteOnlyPendingReview(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	_, rv := do2(t, s, "POST", reviewedPull+"reviews", `{"comments":[{"path":"`+demoTestFile+`","line":12,"body":"to drop"}]}`, writer)
	id := fmt.Sprint(int64(rv["id"].(float64)))
	del := func(token, id string) int {
		req, _ := http.NewRequest("DELETE", s.URL+reviewedPull+"reviews/"+id, nil)
		req.Header.Set("Authorization", "token "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	var reviews []struct {
		ID int64 `json:"id"`
	}
	getJSON(t, s.URL+reviewedPull+"reviews", fakehub.DemoReviewerToken, &reviews)
	submitted := fmt.Sprint(reviews[0].ID)
	for _, tc := range []struct {
		name, token, id string
		want            int
	}{
		{"another user's pending review", fakehub.DemoToken, id, 404},
		{"a submitted review", fakehub.DemoReviewerToken, submitted, 422},
		{"one's own pending review", writer, id, 200},
		{"again", writer, id, 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := del(tc.token, tc.id); got != tc.want {
				t.Fatalf("DELETE: %d, want %d", got, tc.want)
			}
		})
	}
	var comments []map[string]any
	getJSON(t, s.URL+reviewedPull+"comments", writer, &comments)
	for _, c := range comments {
		if c["body"] == "to drop" {
			t.Errorf("the deleted review's comment is still there: %v", c)
		}
	}
}

// TestThreadOutdatedAfterPush: a push that rewrites a commented line makes its thread outdated
// (GraphQL isOutdated, REST line null with original_line kept); a thread on a line the push only
// moved follows it.
func TestThreadOutdatedAfterPush(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	const repo = "octo-org/hello-world"
	// An import line above shifts every line by two; line 7 (the "world" case) changes.
	test := "package greet\n\nimport \"testing\"\n\n// TestHello checks the greeting.\n//\nfunc TestHello(t *testing.T) {\n\tfor _, tc := range []struct{ name, in, want string }{\n" +
		"\t\t{\"world\", \"world\", \"Good day, world.\"},\n\t\t{\"empty name\", \"\", \"Hello, !\"},\n\t} {\n\t\tt.Run(tc.name, func(t *testing.T) {\n" +
		"\t\t\tif got := Hello(tc.in); got != tc.want {\n\t\t\t\tt.Errorf(\"Hello(%q) = %q, want %q\", tc.in, got, tc.want)\n\t\t\t}\n\t\t})\n\t}\n}\n"
	if _, err := s.Hub.Commit(repo, "feature/greet-test", "Follow main's greeting", map[string]string{demoTestFile: test}); err != nil {
		t.Fatal(err)
	}
	got := threads(t, s.URL, fakehub.DemoToken, 3)
	if !got[0].IsOutdated || got[0].Line != nil {
		t.Errorf("thread on the rewritten line: outdated %v line %v, want outdated and no line", got[0].IsOutdated, got[0].Line)
	}
	if got[1].IsOutdated || got[1].Line == nil || *got[1].Line != 10 {
		t.Errorf("thread on the moved line: outdated %v line %v, want line 10", got[1].IsOutdated, got[1].Line)
	}
	var comments []map[string]any
	getJSON(t, s.URL+reviewedPull+"comments", writer, &comments)
	if c := comments[0]; c["line"] != nil || c["original_line"] != float64(7) || c["position"] != nil {
		t.Errorf("outdated REST comment: line %v original_line %v position %v", c["line"], c["original_line"], c["position"])
	}
	// The file is new in the pull request, so its position is its line (one hunk from line 1).
	if c := comments[1]; c["line"] != float64(10) || c["original_line"] != float64(8) || c["position"] != float64(10) || c["original_position"] != float64(8) {
		t.Errorf("moved REST comment: line %v original_line %v position %v original_position %v", c["line"], c["original_line"], c["position"], c["original_position"])
	}
}

// TestUpdateBranchMergesBase: update-branch merges the base into the head branch (the head and
// the base as parents), and the head sha guard refuses a stale head without writing.
func TestUpdateBranchMergesBase(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	const repo = "octo-org/hello-world"
	if _, err := s.Hub.Commit(repo, "main", "Move main", map[string]string{"NOTES.md": "notes\n"}); err != nil {
		t.Fatal(err)
	}
	head, _ := s.Hub.BranchSHA(repo, "feature/greet-test")
	base, _ := s.Hub.BranchSHA(repo, "main")
	req, _ := http.NewRequest("PUT", s.URL+reviewedPull+"update-branch", strings.NewReader(`{"expected_head_sha":"`+base+`"}`))
	req.Header.Set("Authorization", "token "+writer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if now, _ := s.Hub.BranchSHA(repo, "feature/greet-test"); resp.StatusCode != 422 || now != head {
		t.Fatalf("stale head: %d, head moved %v", resp.StatusCode, now != head)
	}
	if st, _ := do2(t, s, "PUT", reviewedPull+"update-branch", `{"expected_head_sha":"`+head+`"}`, writer); st != 202 {
		t.Fatalf("update-branch: %d", st)
	}
	now, _ := s.Hub.BranchSHA(repo, "feature/greet-test")
	_, commit := do2(t, s, "GET", "repos/"+repo+"/git/commits/"+now, "", writer)
	parents, _ := commit["parents"].([]any)
	if len(parents) != 2 || parents[0].(map[string]any)["sha"] != head || parents[1].(map[string]any)["sha"] != base {
		t.Errorf("merge commit parents %v, want head %s then base %s", parents, head, base)
	}
	// The threads were made on lines the merge does not touch: they follow the new head.
	for _, th := range threads(t, s.URL, fakehub.DemoToken, 3) {
		if th.IsOutdated {
			t.Errorf("thread %s outdated by a merge that did not touch its file", th.ID)
		}
	}
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
