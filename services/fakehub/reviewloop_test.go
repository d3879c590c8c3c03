package fakehub_test

import (
	"context"
	"testing"

	"github.com/google/go-github/v66/github"

	"ghops.dev/services/fakehub"
)

// TestReviewLoop runs the review loop through go-github (every REST answer checked against
// GitHub's description) and GraphQL: monalisa requests changes with two line comments; octocat
// lists the open threads, pushes a fix, replies to both and resolves them; monalisa sees no open
// thread, approves at the new head, and octocat merges with the head sha guard.
func TestReviewLoop(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	ctx := context.Background()
	const owner, name, repo = "octo-org", "hello-world", "octo-org/hello-world"
	author, reviewer := client(t, s, fakehub.DemoToken, ""), client(t, s, fakehub.DemoReviewerToken, "")
	shout := "package greet\n\nimport \"strings\"\n\n// Shout returns the greeting in capitals.\nfunc Shout(name string) string {\n\treturn strings.ToUpper(Hello(name))\n}\n"
	if _, err := s.Hub.Commit(repo, "feature/shout", "Add Shout", map[string]string{"internal/greet/shout.go": shout}); err != nil {
		t.Fatal(err)
	}
	pr, _, err := author.PullRequests.Create(ctx, owner, name, &github.NewPullRequest{Title: github.String("Shout"), Head: github.String("feature/shout"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	n := pr.GetNumber()
	first := pr.GetHead().GetSHA()

	review, _, err := reviewer.PullRequests.CreateReview(ctx, owner, name, n, &github.PullRequestReviewRequest{
		CommitID: github.String(first), Event: github.String("REQUEST_CHANGES"), Body: github.String("Two things."),
		Comments: []*github.DraftReviewComment{
			{Path: github.String("internal/greet/shout.go"), Line: github.Int(5), Body: github.String("Say why, not what.")},
			{Path: github.String("internal/greet/shout.go"), Line: github.Int(7), Side: github.String("RIGHT"), Body: github.String("Use strings.ToTitle?")},
		},
	})
	if err != nil || review.GetState() != "CHANGES_REQUESTED" {
		t.Fatalf("request changes: %v %v", review.GetState(), err)
	}
	open := unresolved(threads(t, s.URL, fakehub.DemoToken, n))
	if len(open) != 2 {
		t.Fatalf("%d open threads, want 2", len(open))
	}
	fixed := "package greet\n\nimport \"strings\"\n\n// Shout is Hello for readers across the room.\nfunc Shout(name string) string {\n\treturn strings.ToTitle(Hello(name))\n}\n"
	second, err := s.Hub.Commit(repo, "feature/shout", "Address the review", map[string]string{"internal/greet/shout.go": fixed})
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range unresolved(threads(t, s.URL, fakehub.DemoToken, n)) {
		if !th.IsOutdated {
			t.Errorf("thread on %s:%v not outdated by the fix", th.Path, th.Line)
		}
		if a := gqlMutate(t, s.URL, fakehub.DemoToken, replyDoc, map[string]any{"id": th.ID, "body": "Done."}); len(a.Errors) != 0 {
			t.Fatalf("reply: %+v", a.Errors)
		}
		if a := gqlMutate(t, s.URL, fakehub.DemoToken, resolveDoc, map[string]any{"id": th.ID}); len(a.Errors) != 0 {
			t.Fatalf("resolve: %+v", a.Errors)
		}
	}
	if left := unresolved(threads(t, s.URL, fakehub.DemoReviewerToken, n)); len(left) != 0 {
		t.Fatalf("%d threads still open", len(left))
	}
	approval, _, err := reviewer.PullRequests.CreateReview(ctx, owner, name, n, &github.PullRequestReviewRequest{CommitID: github.String(second), Event: github.String("APPROVE")})
	if err != nil || approval.GetState() != "APPROVED" || approval.GetCommitID() != second {
		t.Fatalf("approve: %v %v %v", approval.GetState(), approval.GetCommitID(), err)
	}
	if _, _, err := author.PullRequests.Merge(ctx, owner, name, n, "", &github.PullRequestOptions{SHA: first}); status(err) != 409 {
		t.Fatalf("merge at the reviewed-before head: %v, want 409", err)
	}
	merged, _, err := author.PullRequests.Merge(ctx, owner, name, n, "", &github.PullRequestOptions{SHA: second})
	if err != nil || !merged.GetMerged() {
		t.Fatalf("merge: %v", err)
	}
	reviews, _, err := author.PullRequests.ListReviews(ctx, owner, name, n, nil)
	if err != nil || len(reviews) != 4 {
		t.Fatalf("reviews %d (%v), want the request for changes, two replies' reviews and the approval", len(reviews), err)
	}
}

func unresolved(all []threadJSON) []threadJSON {
	var out []threadJSON
	for _, th := range all {
		if !th.IsResolved {
			out = append(out, th)
		}
	}
	return out
}
