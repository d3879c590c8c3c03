package server_test

import (
	"context"
	"net/http"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"ghops.dev/services/github/servicetest"
)

// TestKindMemo: a write to an issue or a pull request reads the number's
// kind first unless an answer of GitHub's said it lately (a list, a
// search, the create, an earlier check): then the write is the only
// request. A number known as the other kind is still read and refused,
// so a refusal always rests on GitHub's answer of the moment.
func TestKindMemo(t *testing.T) {
	type step func(context.Context, ghopsv1.GitHubServiceClient) error
	listIssues := func(ctx context.Context, c ghopsv1.GitHubServiceClient) error {
		_, err := c.ListIssues(ctx, &ghopsv1.ListIssuesRequest{Repo: repo, State: ptr("all")})
		return err
	}
	searchPulls := func(ctx context.Context, c ghopsv1.GitHubServiceClient) error {
		_, err := c.SearchIssues(ctx, &ghopsv1.SearchIssuesRequest{Query: "repo:" + repo + " is:pr"})
		return err
	}
	comment := func(n int32) step {
		return func(ctx context.Context, c ghopsv1.GitHubServiceClient) error {
			_, err := c.AddIssueComment(ctx, &ghopsv1.AddIssueCommentRequest{Repo: repo, IssueNumber: n, Body: "seen"})
			return err
		}
	}
	for _, tc := range []struct {
		name   string
		before []step // their requests are not counted
		call   step
		code   codes.Code
		want   []string // "METHOD route" of every request the call makes
	}{
		{"an unknown number is read first", nil, comment(5), codes.OK,
			[]string{"GET /repos/{owner}/{repo}/issues/{issue_number}", "POST /repos/{owner}/{repo}/issues/{issue_number}/comments"}},
		{"a listed issue is not", []step{listIssues}, comment(5), codes.OK,
			[]string{"POST /repos/{owner}/{repo}/issues/{issue_number}/comments"}},
		{"an issue checked before is not", []step{comment(5)}, func(ctx context.Context, c ghopsv1.GitHubServiceClient) error {
			_, err := c.UpdateIssue(ctx, &ghopsv1.UpdateIssueRequest{Repo: repo, IssueNumber: 5, State: ptr("closed")})
			return err
		}, codes.OK, []string{"PATCH /repos/{owner}/{repo}/issues/{issue_number}"}},
		{"a created issue becomes a sub-issue in one request", nil, func(ctx context.Context, c ghopsv1.GitHubServiceClient) error {
			is, err := c.CreateIssue(ctx, &ghopsv1.CreateIssueRequest{Repo: repo, Title: "part"})
			if err != nil {
				return err
			}
			_, err = c.AddSubIssue(ctx, &ghopsv1.AddSubIssueRequest{Repo: repo, IssueNumber: 7, SubIssue: is.GetIssue().GetNumber()})
			return err
		}, codes.OK, []string{"POST /repos/{owner}/{repo}/issues", "POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues"}},
		{"a pull request found by search takes a comment in one request", []step{searchPulls}, func(ctx context.Context, c ghopsv1.GitHubServiceClient) error {
			_, err := c.AddPullRequestComment(ctx, &ghopsv1.AddPullRequestCommentRequest{Repo: repo, PrNumber: 1, Body: "seen"})
			return err
		}, codes.OK, []string{"POST /repos/{owner}/{repo}/issues/{issue_number}/comments"}},
		{"a listed pull request is still refused to an issue tool, after a read", []step{listIssues}, comment(1), codes.NotFound,
			[]string{"GET /repos/{owner}/{repo}/issues/{issue_number}"}},
		{"a listed issue is still refused to a pull request tool, after a read", []step{listIssues}, func(ctx context.Context, c ghopsv1.GitHubServiceClient) error {
			_, err := c.AddPullRequestComment(ctx, &ghopsv1.AddPullRequestCommentRequest{Repo: repo, PrNumber: 5, Body: "seen"})
			return err
		}, codes.NotFound, []string{"GET /repos/{owner}/{repo}/issues/{issue_number}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := start(t, fakehub.Config{}, servicetest.Options{})
			for _, s := range tc.before {
				if err := s(ctx(t), e.svc.Client); err != nil {
					t.Fatal(err)
				}
			}
			e.hub.ResetStats()
			err := tc.call(ctx(t), e.svc.Client)
			if got := status.Code(err); got != tc.code {
				t.Fatalf("code %v (%v), want %v", got, err, tc.code)
			}
			var got []string
			for _, r := range e.hub.Requests() {
				got = append(got, r.Method+" "+r.Route)
				if r.Method != http.MethodGet && tc.code != codes.OK {
					t.Errorf("a refused call wrote: %s %s", r.Method, r.Path)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("requests %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("request %d: %s, want %s", i+1, got[i], tc.want[i])
				}
			}
		})
	}
}

// knowKinds lists the demo repository's issues and pull requests, after
// which the service knows every number's kind (kindmemo.go): tests that
// count a write's requests call it first, so that the count does not
// depend on which subtests ran before.
func knowKinds(t *testing.T, c ghopsv1.GitHubServiceClient) {
	t.Helper()
	if _, err := c.ListIssues(ctx(t), &ghopsv1.ListIssuesRequest{Repo: repo, State: ptr("all"), PerPage: ptr(int32(100))}); err != nil {
		t.Fatal(err)
	}
}
