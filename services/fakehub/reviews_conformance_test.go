package fakehub_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
)

// The review cases of the conformance test run on the demo's "Test the greeting" pull request
// (number 3), which the demo gives a review with two threads; reviewCases writes the pending
// reviews they need first and names them.
const reviewedPull = "repos/octo-org/hello-world/pulls/3/"

// demoTestFile is the file pull request 3 adds, the one its threads comment on.
const demoTestFile = "internal/greet/greet_test.go"

func (f *conformanceFixture) reviewCases(t *testing.T) []conformanceCase {
	t.Helper()
	s := f.srv
	w, ro, demo, rev := "token "+writer, "token "+readOnly, "token "+fakehub.DemoToken, "token "+fakehub.DemoReviewerToken
	_, pending := do2(t, s, "POST", reviewedPull+"reviews", `{"body":"first look","comments":[{"path":"`+demoTestFile+`","line":12,"body":"why not t.Fatalf?"}]}`, writer)
	mine := fmt.Sprint(int64(pending["id"].(float64)))
	_, other := do2(t, s, "POST", reviewedPull+"reviews", `{"body":"the reader's"}`, readOnly)
	theirs := fmt.Sprint(int64(other["id"].(float64)))
	demoReview, root := demoReviewIDs(t, f)
	head, err := s.Hub.BranchSHA("octo-org/hello-world", "feature/greet-test")
	if err != nil {
		t.Fatal(err)
	}
	const pr = reviewedPull
	const (
		opReviews  = "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews"
		opCreate   = "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews"
		opReview   = "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}"
		opUpdate   = "PUT /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}"
		opDelete   = "DELETE /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}"
		opSubmit   = "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/events"
		opDismiss  = "PUT /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/dismissals"
		opRComms   = "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments"
		opComments = "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments"
		opComment  = "POST /repos/{owner}/{repo}/pulls/{pull_number}/comments"
		opReqs     = "GET /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers"
		opRequest  = "POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers"
		opUnreq    = "DELETE /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers"
		opCommits  = "GET /repos/{owner}/{repo}/pulls/{pull_number}/commits"
		opUpdateBr = "PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch"
	)
	const missingPull = "GitHub answers 404 for a pull request that does not exist"
	comment := func(line int) string {
		return fmt.Sprintf(`{"path":%q,"line":%d,"body":"c"}`, demoTestFile, line)
	}
	return []conformanceCase{
		{name: "reviews", op: opReviews, path: pr + "reviews", token: w, status: 200, then: wantReviewStates("CHANGES_REQUESTED", "COMMENTED", "PENDING")},
		{name: "reviews, another's pending review unseen", op: opReviews, path: pr + "reviews", token: demo, status: 200, then: wantReviewStates("CHANGES_REQUESTED", "COMMENTED")},
		{name: "reviews of a missing pull request", op: opReviews, path: "repos/octo-org/hello-world/pulls/99/reviews", token: w, status: 404, undocumented: missingPull},
		{name: "review with a multi-line comment", op: opCreate, path: pr + "reviews", token: rev, status: 200,
			body: `{"event":"COMMENT","body":"nit","comments":[{"path":"` + demoTestFile + `","start_line":10,"line":11,"body":"one t.Run per case"}]}`,
			then: wantFields(map[string]any{"state": "COMMENTED"})},
		{name: "review on a line outside the diff", op: opCreate, path: pr + "reviews", token: rev, status: 422,
			body: `{"event":"COMMENT","body":"x","comments":[` + comment(99) + `]}`, then: wantErrors("Line could not be resolved")},
		{name: "review on a path outside the diff", op: opCreate, path: pr + "reviews", token: rev, status: 422,
			body: `{"event":"COMMENT","body":"x","comments":[{"path":"README.md","line":1,"body":"c"}]}`, then: wantErrors("Path could not be resolved")},
		{name: "approve one's own pull request", op: opCreate, path: pr + "reviews", token: demo, status: 422,
			body: `{"event":"APPROVE"}`, then: wantErrors("Review Can not approve your own pull request")},
		{name: "a second pending review", op: opCreate, path: pr + "reviews", token: w, status: 422,
			body: `{"body":"again"}`, then: wantErrors("User can only have one pending review per pull request")},
		{name: "review", op: opReview, path: pr + "reviews/" + mine, token: w, status: 200, then: wantFields(map[string]any{"state": "PENDING"})},
		{name: "another's pending review", op: opReview, path: pr + "reviews/" + theirs, token: w, status: 404},
		{name: "review comments", op: opRComms, path: pr + "reviews/" + mine + "/comments", token: w, status: 200},
		{name: "comments of another's pending review", op: opRComms, path: pr + "reviews/" + theirs + "/comments", token: w, status: 404},
		{name: "update review", op: opUpdate, path: pr + "reviews/" + mine, token: w, status: 200, body: `{"body":"second look"}`,
			then: wantFields(map[string]any{"body": "second look"})},
		{name: "update review without a body", op: opUpdate, path: pr + "reviews/" + mine, token: w, status: 422, body: `{}`, then: noEmptyField},
		{name: "submit review", op: opSubmit, path: pr + "reviews/" + mine + "/events", token: w, status: 200,
			body: `{"event":"REQUEST_CHANGES","body":"please use t.Fatalf"}`, then: wantFields(map[string]any{"state": "CHANGES_REQUESTED"})},
		{name: "submit a submitted review", op: opSubmit, path: pr + "reviews/" + mine + "/events", token: w, status: 422,
			body: `{"event":"APPROVE"}`, then: wantErrors("Can not submit a non-pending pull request review")},
		{name: "submit a missing review", op: opSubmit, path: pr + "reviews/1/events", token: w, status: 404, body: `{"event":"APPROVE"}`},
		{name: "delete a submitted review", op: opDelete, path: pr + "reviews/" + demoReview, token: rev, status: 422,
			then: wantErrors("Can not delete a non-pending pull request review")},
		{name: "delete pending review", op: opDelete, path: pr + "reviews/" + theirs, token: ro, status: 200, then: wantFields(map[string]any{"state": "PENDING"})},
		{name: "delete a deleted review", op: opDelete, path: pr + "reviews/" + theirs, token: ro, status: 404},
		{name: "dismiss review", op: opDismiss, path: pr + "reviews/" + demoReview + "/dismissals", token: w, status: 200,
			body: `{"message":"superseded","event":"DISMISS"}`, then: wantFields(map[string]any{"state": "DISMISSED"})},
		{name: "dismiss a dismissed review", op: opDismiss, path: pr + "reviews/" + demoReview + "/dismissals", token: w, status: 422,
			body: `{"message":"again"}`, then: wantMessage("Can not dismiss a dismissed pull request review")},
		{name: "dismiss a missing review", op: opDismiss, path: pr + "reviews/1/dismissals", token: w, status: 404, body: `{"message":"x"}`},

		{name: "review comments of a pull request", op: opComments, path: pr + "comments", token: w, status: 200},
		{name: "review comments of a missing pull request", op: opComments, path: "repos/octo-org/hello-world/pulls/99/comments", token: w, status: 404, undocumented: missingPull},
		{name: "reply in a thread", op: opComment, path: pr + "comments", token: ro, status: 201, body: `{"body":"+1","in_reply_to":` + root + `}`,
			then: wantFields(map[string]any{"in_reply_to_id": jsonNumber(root), "path": demoTestFile})},
		{name: "line comment", op: opComment, path: pr + "comments", token: w, status: 201,
			body: fmt.Sprintf(`{"body":"c","commit_id":%q,"path":%q,"line":14,"side":"RIGHT"}`, head, demoTestFile), then: wantFields(map[string]any{"line": float64(14)})},
		{name: "line comment outside the diff", op: opComment, path: pr + "comments", token: w, status: 422,
			body: fmt.Sprintf(`{"body":"c","commit_id":%q,"path":%q,"line":99}`, head, demoTestFile), then: noEmptyField},

		{name: "requested reviewers", op: opReqs, path: pr + "requested_reviewers", token: w, status: 200},
		{name: "requested reviewers of a missing pull request", op: opReqs, path: "repos/octo-org/hello-world/pulls/99/requested_reviewers", token: w, status: 404, undocumented: missingPull},
		{name: "request reviewers", op: opRequest, path: pr + "requested_reviewers", token: w, status: 201, body: `{"reviewers":["writer"],"team_reviewers":["core"]}`,
			then: wantRequested("writer")},
		{name: "request a review from the author", op: opRequest, path: pr + "requested_reviewers", token: w, status: 422, body: `{"reviewers":["octocat"]}`,
			then: wantErrors("Review cannot be requested from pull request author.")},
		{name: "request reviewers without write access", op: opRequest, path: pr + "requested_reviewers", token: ro, status: 403, body: `{"reviewers":["writer"]}`},
		{name: "remove requested reviewers", op: opUnreq, path: pr + "requested_reviewers", token: w, status: 200, body: `{"reviewers":["writer"],"team_reviewers":["core"]}`,
			then: wantRequested()},
		{name: "remove requested reviewers without reviewers", op: opUnreq, path: pr + "requested_reviewers", token: w, status: 422, body: `{}`, then: noEmptyField},

		{name: "pull request commits", op: opCommits, path: pr + "commits", token: w, status: 200},
		{name: "commits of a missing pull request", op: opCommits, path: "repos/octo-org/hello-world/pulls/99/commits", token: w, status: 404, undocumented: missingPull},

		{name: "update branch from a stale head", op: opUpdateBr, path: pr + "update-branch", token: w, status: 422,
			body: fmt.Sprintf(`{"expected_head_sha":%q}`, strings.Repeat("1", 40))},
		{name: "update branch without write access", op: opUpdateBr, path: pr + "update-branch", token: ro, status: 403, body: `{}`},
		{name: "update branch", op: opUpdateBr, path: pr + "update-branch", token: w, status: 202, body: fmt.Sprintf(`{"expected_head_sha":%q}`, head)},
		{name: "update an up-to-date branch", op: opUpdateBr, path: pr + "update-branch", token: w, status: 422, body: `{}`,
			then: wantMessage("There are no new commits on the base branch.")},
	}
}

// demoReviewIDs reads the demo review's id and its first thread's root comment id.
func demoReviewIDs(t *testing.T, f *conformanceFixture) (review, root string) {
	t.Helper()
	var reviews []struct {
		ID    int64  `json:"id"`
		State string `json:"state"`
	}
	getJSON(t, f.srv.URL+reviewedPull+"reviews", writer, &reviews)
	var comments []struct {
		ID        int64 `json:"id"`
		InReplyTo int64 `json:"in_reply_to_id"`
	}
	getJSON(t, f.srv.URL+reviewedPull+"comments", writer, &comments)
	if len(reviews) == 0 || reviews[0].State != "CHANGES_REQUESTED" || len(comments) == 0 {
		t.Fatalf("demo review data: %+v %+v", reviews, comments)
	}
	return fmt.Sprint(reviews[0].ID), fmt.Sprint(comments[0].ID)
}

func getJSON(t *testing.T, url, token string, v any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

func jsonNumber(s string) float64 {
	var f float64
	_, _ = fmt.Sscan(s, &f)
	return f
}

// wantErrors requires GitHub's plain-string errors list of the reviews API.
func wantErrors(want ...string) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, _ *http.Response, body []byte) {
		t.Helper()
		var e struct {
			Errors []string `json:"errors"`
		}
		if err := json.Unmarshal(body, &e); err != nil || strings.Join(e.Errors, "|") != strings.Join(want, "|") {
			t.Errorf("errors %s, want %q", body, want)
		}
	}
}

func wantReviewStates(want ...string) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, _ *http.Response, body []byte) {
		t.Helper()
		var list []struct {
			State string `json:"state"`
		}
		_ = json.Unmarshal(body, &list)
		var got []string
		for _, x := range list {
			got = append(got, x.State)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("review states %v, want %v", got, want)
		}
	}
}

func wantRequested(logins ...string) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, _ *http.Response, body []byte) {
		t.Helper()
		var p struct {
			Requested []struct {
				Login string `json:"login"`
			} `json:"requested_reviewers"`
		}
		_ = json.Unmarshal(body, &p)
		var got []string
		for _, u := range p.Requested {
			got = append(got, u.Login)
		}
		if strings.Join(got, ",") != strings.Join(logins, ",") {
			t.Errorf("requested reviewers %v, want %v", got, logins)
		}
	}
}
