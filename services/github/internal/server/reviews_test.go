package server_test

import (
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/codes"

	"ghops.dev/services/github/servicetest"
)

// GitHub request routes of the review tools, as fakehub counts them.
const (
	routePull           = "GET /repos/{owner}/{repo}/pulls/{pull_number}"
	routeReviews        = "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews"
	routeCreateReview   = "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews"
	routeReview         = "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}"
	routeSubmitReview   = "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/events"
	routeDeleteReview   = "DELETE /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}"
	routeAskReviewers   = "POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers"
	routeUnaskReviewers = "DELETE /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers"
	routePullCommits    = "GET /repos/{owner}/{repo}/pulls/{pull_number}/commits"
	routeUpdateBranch   = "PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch"
	routeGraphQL        = "POST /graphql"
)

// TestReviewTools runs the review tools against fakehub's demo, whose
// "Test the greeting" pull request carries monalisa's review with one open
// and one resolved thread: the answers, the GitHub requests of each call
// (one REST request for a review, one GraphQL request per page of threads,
// the owner's read before each thread mutation), and the contract's
// failures, each before anything is written.
func TestReviewTools(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	author := e.svc.Client // octocat, the demo token
	reviewer := servicetest.Start(t, servicetest.Options{GitHubURL: e.url, Token: fakehub.DemoReviewerToken}).Client
	thread, n := demoThread(t, author)
	pr, err := author.GetPullRequest(ctx(t), &ghopsv1.GetPullRequestRequest{Repo: repo, PrNumber: n})
	if err != nil {
		t.Fatal(err)
	}
	head := pr.PullRequest.HeadSha

	t.Run("list_review_threads by state", func(t *testing.T) {
		for _, tc := range []struct {
			state    *string
			resolved []bool
		}{
			{nil, []bool{false}},
			{ptr("unresolved"), []bool{false}},
			{ptr("resolved"), []bool{true}},
			{ptr("all"), []bool{false, true}},
		} {
			e.hub.ResetStats()
			r, err := author.ListReviewThreads(ctx(t), &ghopsv1.ListReviewThreadsRequest{Repo: repo, PrNumber: n, State: tc.state})
			if err != nil {
				t.Fatal(err)
			}
			assertCalls(t, e.hub, map[string]int{routeGraphQL: 1})
			var got []bool
			for _, th := range r.Threads {
				got = append(got, th.IsResolved)
				if th.Path != "internal/greet/greet_test.go" || th.Line == 0 || th.Side != "RIGHT" || th.DiffHunk == "" || th.Comments[0].Author != "monalisa" ||
					th.Comments[0].AuthorAssociation == "" || th.Comments[0].Id == 0 || th.Comments[0].CreatedAt == nil {
					t.Errorf("thread %v", th)
				}
			}
			if len(got) != len(tc.resolved) || (len(got) > 0 && got[0] != tc.resolved[0]) {
				t.Errorf("state %v: resolved %v, want %v", tc.state, got, tc.resolved)
			}
			if r.Page.GetPage() != 1 || r.Page.GetHasNext() {
				t.Errorf("page %v", r.Page)
			}
		}
	})

	t.Run("list_pull_request_reviews", func(t *testing.T) {
		e.hub.ResetStats()
		r, err := author.ListPullRequestReviews(ctx(t), &ghopsv1.ListPullRequestReviewsRequest{Repo: repo, PrNumber: n})
		if err != nil {
			t.Fatal(err)
		}
		assertCalls(t, e.hub, map[string]int{routeReviews: 1})
		if len(r.Reviews) < 2 || r.Reviews[0].State != "changes_requested" || r.Reviews[0].Author != "monalisa" || r.Reviews[0].CommitSha != head ||
			r.Reviews[0].SubmittedAt == nil || r.Reviews[0].Body == "" || r.Reviews[1].State != "commented" {
			t.Fatalf("reviews %v", r.Reviews)
		}
	})

	t.Run("create_review at a moved head is -32006, nothing written", func(t *testing.T) {
		e.hub.ResetStats()
		_, err := reviewer.CreateReview(ctx(t), &ghopsv1.CreateReviewRequest{Repo: repo, PrNumber: n, CommitSha: strings.Repeat("0", 40), Event: ptr("approve")})
		d := wantStatus(t, err, codes.Aborted, ghopsv1.ErrorReason_ERROR_REASON_HEAD_SHA_MISMATCH)
		if d.gh.GetActualSha() != head || d.gh.GetExpectedSha() != strings.Repeat("0", 40) {
			t.Errorf("expected %q actual %q, want the head %s", d.gh.GetExpectedSha(), d.gh.GetActualSha(), head)
		}
		assertCalls(t, e.hub, map[string]int{routePull: 1})
	})

	t.Run("a line outside the diff is -32003 naming comments", func(t *testing.T) {
		e.hub.ResetStats()
		_, err := reviewer.CreateReview(ctx(t), &ghopsv1.CreateReviewRequest{Repo: repo, PrNumber: n, CommitSha: head[:7], Event: ptr("comment"),
			Comments: []*ghopsv1.ReviewLineComment{{Path: "internal/greet/greet_test.go", Line: 900, Body: "far away"}}})
		d := wantStatus(t, err, codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION)
		if len(d.br.GetFieldViolations()) == 0 || d.br.GetFieldViolations()[0].GetField() != "comments" || d.gh.GetStatus() != 422 {
			t.Errorf("violations %v, github %v", d.br.GetFieldViolations(), d.gh)
		}
		assertCalls(t, e.hub, map[string]int{routePull: 1, routeCreateReview: 1})
	})

	t.Run("a pending review, submitted", func(t *testing.T) {
		e.hub.ResetStats()
		created, err := reviewer.CreateReview(ctx(t), &ghopsv1.CreateReviewRequest{Repo: repo, PrNumber: n, CommitSha: head,
			Comments: []*ghopsv1.ReviewLineComment{{Path: "internal/greet/greet_test.go", Line: 7, Body: "one more"}}})
		if err != nil {
			t.Fatal(err)
		}
		assertCalls(t, e.hub, map[string]int{routePull: 1, routeCreateReview: 1})
		if created.State != "pending" || created.CommitSha != head || created.Id == 0 {
			t.Fatalf("created %v", created)
		}
		e.hub.ResetStats()
		sub, err := reviewer.SubmitReview(ctx(t), &ghopsv1.SubmitReviewRequest{Repo: repo, PrNumber: n, ReviewId: created.Id, Event: "comment", Body: ptr("see the line")})
		if err != nil {
			t.Fatal(err)
		}
		assertCalls(t, e.hub, map[string]int{routeReview: 1, routeSubmitReview: 1})
		if sub.Id != created.Id || sub.State != "commented" {
			t.Fatalf("submitted %v", sub)
		}
	})

	t.Run("a pending review, deleted", func(t *testing.T) {
		created, err := reviewer.CreateReview(ctx(t), &ghopsv1.CreateReviewRequest{Repo: repo, PrNumber: n, CommitSha: head, Body: ptr("draft")})
		if err != nil {
			t.Fatal(err)
		}
		e.hub.ResetStats()
		del, err := reviewer.DeletePendingReview(ctx(t), &ghopsv1.DeletePendingReviewRequest{Repo: repo, PrNumber: n, ReviewId: created.Id})
		if err != nil || !del.Deleted {
			t.Fatalf("delete: %v, %v", del, err)
		}
		assertCalls(t, e.hub, map[string]int{routeReview: 1, routeDeleteReview: 1})
		e.hub.ResetStats()
		_, err = reviewer.DeletePendingReview(ctx(t), &ghopsv1.DeletePendingReviewRequest{Repo: repo, PrNumber: n, ReviewId: created.Id})
		d := wantStatus(t, err, codes.NotFound, ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND)
		if d.gh.GetResource().GetType() != "review" {
			t.Errorf("resource %v, want a review", d.gh.GetResource())
		}
		assertCalls(t, e.hub, map[string]int{routeReview: 1})
	})

	t.Run("reply and resolve", func(t *testing.T) {
		e.hub.ResetStats()
		reply, err := author.ReplyToReviewThread(ctx(t), &ghopsv1.ReplyToReviewThreadRequest{Repo: repo, PrNumber: n, ThreadId: thread, Body: "Fixed."})
		if err != nil || reply.Id == 0 {
			t.Fatalf("reply: %v, %v", reply, err)
		}
		assertCalls(t, e.hub, map[string]int{routeGraphQL: 2})
		for _, tc := range []struct {
			resolved bool
			calls    int
		}{{true, 2}, {true, 1}, {false, 2}, {true, 2}} {
			e.hub.ResetStats()
			r, err := author.ResolveReviewThread(ctx(t), &ghopsv1.ResolveReviewThreadRequest{Repo: repo, PrNumber: n, ThreadId: thread, Resolved: ptr(tc.resolved)})
			if err != nil || r.IsResolved != tc.resolved {
				t.Fatalf("resolve %v: %v, %v", tc.resolved, r, err)
			}
			assertCalls(t, e.hub, map[string]int{routeGraphQL: tc.calls})
		}
		// Open now: only the thread of the review submitted above.
		open, err := author.ListReviewThreads(ctx(t), &ghopsv1.ListReviewThreadsRequest{Repo: repo, PrNumber: n})
		if err != nil || len(open.Threads) != 1 || open.Threads[0].Id == thread || open.Threads[0].Comments[0].Body != "one more" {
			t.Fatalf("unresolved after resolving: %v, %v", open, err)
		}
		all, err := author.ListReviewThreads(ctx(t), &ghopsv1.ListReviewThreadsRequest{Repo: repo, PrNumber: n, State: ptr("all")})
		if err != nil || len(all.Threads) != 3 || all.Threads[0].Id != thread || all.Threads[0].Comments[len(all.Threads[0].Comments)-1].Body != "Fixed." {
			t.Fatalf("threads after the reply: %v, %v", all, err)
		}
	})

	t.Run("review text is cleaned and reported", func(t *testing.T) {
		body := "Fixed\u200b; my token " + hostileToken + " \x1b[31mred\x1b[0m"
		if _, err := author.ReplyToReviewThread(ctx(t), &ghopsv1.ReplyToReviewThreadRequest{Repo: repo, PrNumber: n, ThreadId: thread, Body: body}); err != nil {
			t.Fatal(err)
		}
		all, err := author.ListReviewThreads(ctx(t), &ghopsv1.ListReviewThreadsRequest{Repo: repo, PrNumber: n, State: ptr("all")})
		if err != nil {
			t.Fatal(err)
		}
		comments := all.Threads[0].Comments
		got := comments[len(comments)-1].Body
		if got != "Fixed; my token [REDACTED] red" {
			t.Errorf("body %q, want it cleaned and redacted", got)
		}
		rep := all.ContentReport
		if rep.GetSecretsRedacted() != 1 || rep.GetInvisibleRemoved() != 1 || rep.GetControlsRemoved() != 2 || len(rep.GetFields()) != 1 ||
			!strings.HasPrefix(rep.GetFields()[0], "threads[0].comments[") {
			t.Errorf("content report %v", rep)
		}
	})

	t.Run("an unknown thread is -32002 thread", func(t *testing.T) {
		e.hub.ResetStats()
		_, err := author.ReplyToReviewThread(ctx(t), &ghopsv1.ReplyToReviewThreadRequest{Repo: repo, PrNumber: n, ThreadId: "PRRT_kwDOnothing", Body: "x"})
		d := wantStatus(t, err, codes.NotFound, ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND)
		if d.gh.GetResource().GetType() != "thread" {
			t.Errorf("resource %v, want a thread", d.gh.GetResource())
		}
		assertCalls(t, e.hub, map[string]int{routeGraphQL: 1})
	})

	t.Run("request and withdraw a review", func(t *testing.T) {
		e.hub.ResetStats()
		r, err := author.RequestReviewers(ctx(t), &ghopsv1.RequestReviewersRequest{Repo: repo, PrNumber: n, Reviewers: []string{"monalisa"}})
		if err != nil || len(r.Reviewers) != 1 || r.Reviewers[0] != "monalisa" {
			t.Fatalf("request: %v, %v", r, err)
		}
		assertCalls(t, e.hub, map[string]int{routeAskReviewers: 1})
		e.hub.ResetStats()
		r, err = author.RequestReviewers(ctx(t), &ghopsv1.RequestReviewersRequest{Repo: repo, PrNumber: n, Reviewers: []string{"monalisa"}, Remove: ptr(true)})
		if err != nil || len(r.Reviewers) != 0 {
			t.Fatalf("withdraw: %v, %v", r, err)
		}
		assertCalls(t, e.hub, map[string]int{routeUnaskReviewers: 1})
		e.hub.ResetStats()
		_, err = author.RequestReviewers(ctx(t), &ghopsv1.RequestReviewersRequest{Repo: repo, PrNumber: n})
		wantStatus(t, err, codes.InvalidArgument, ghopsv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT)
		assertCalls(t, e.hub, map[string]int{})
	})

	t.Run("list_pull_request_commits", func(t *testing.T) {
		e.hub.ResetStats()
		r, err := author.ListPullRequestCommits(ctx(t), &ghopsv1.ListPullRequestCommitsRequest{Repo: repo, PrNumber: n})
		if err != nil {
			t.Fatal(err)
		}
		assertCalls(t, e.hub, map[string]int{routePullCommits: 1})
		if len(r.Commits) == 0 || r.Commits[len(r.Commits)-1].Sha != head || r.Commits[0].Message == "" || r.Commits[0].Date == nil {
			t.Fatalf("commits %v, want the head last", r.Commits)
		}
	})

	t.Run("update_pull_request_branch", func(t *testing.T) {
		e.hub.ResetStats()
		_, err := author.UpdatePullRequestBranch(ctx(t), &ghopsv1.UpdatePullRequestBranchRequest{Repo: repo, PrNumber: n, ExpectedHeadSha: strings.Repeat("1", 40)})
		d := wantStatus(t, err, codes.Aborted, ghopsv1.ErrorReason_ERROR_REASON_HEAD_SHA_MISMATCH)
		if d.gh.GetActualSha() != head {
			t.Errorf("actual %q, want %s", d.gh.GetActualSha(), head)
		}
		assertCalls(t, e.hub, map[string]int{routeUpdateBranch: 1, routePull: 1})
		e.hub.ResetStats()
		_, err = author.UpdatePullRequestBranch(ctx(t), &ghopsv1.UpdatePullRequestBranchRequest{Repo: repo, PrNumber: n, ExpectedHeadSha: head})
		d = wantStatus(t, err, codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION)
		if !strings.Contains(d.st.Message(), "no new commits") {
			t.Errorf("message %q", d.st.Message())
		}
		if _, err := e.hub.Commit(repo, "main", "Main moves on", map[string]string{"NOTES.md": "notes\n"}); err != nil {
			t.Fatal(err)
		}
		e.hub.ResetStats()
		r, err := author.UpdatePullRequestBranch(ctx(t), &ghopsv1.UpdatePullRequestBranchRequest{Repo: repo, PrNumber: n, ExpectedHeadSha: head})
		if err != nil || r.Message == "" {
			t.Fatalf("update: %v, %v", r, err)
		}
		assertCalls(t, e.hub, map[string]int{routeUpdateBranch: 1})
	})
}

// TestReviewThreadsGraphQLRateLimit: the thread tools spend GitHub's
// GraphQL bucket, not core's; once it is spent the answer is -32004 with
// data.rateLimit naming the graphql resource, and the next call is not
// sent to GitHub at all.
func TestReviewThreadsGraphQLRateLimit(t *testing.T) {
	e := start(t, fakehub.Config{GraphQLLimit: 1}, servicetest.Options{})
	c := e.svc.Client
	req := &ghopsv1.ListReviewThreadsRequest{Repo: repo, PrNumber: 3, State: ptr("all")}
	if _, err := c.ListReviewThreads(ctx(t), req); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"GitHub's refusal", "the budget's refusal, unsent"} {
		t.Run(name, func(t *testing.T) {
			e.hub.ResetStats()
			_, err := c.ListReviewThreads(ctx(t), req)
			d := wantStatus(t, err, codes.ResourceExhausted, ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED)
			if r := d.gh.GetRateLimit(); r.GetResource() != "graphql" || r.GetRetryAfterSeconds() <= 0 {
				t.Errorf("rate limit %v, want the graphql resource and a wait", r)
			}
			if name != "GitHub's refusal" {
				assertCalls(t, e.hub, map[string]int{})
			}
		})
	}
	if _, err := c.ListPullRequestReviews(ctx(t), &ghopsv1.ListPullRequestReviewsRequest{Repo: repo, PrNumber: 3}); err != nil {
		t.Errorf("a REST read after the GraphQL bucket is spent: %v", err)
	}
}
