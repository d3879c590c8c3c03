package server_test

import (
	"context"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"ghops.dev/services/github/servicetest"
)

// TestBranchAndPullRequestTools runs create_branch, get_pull_request,
// list_pull_request_files and compare_refs against fakehub's demo data, with
// the GitHub calls each makes and the contract's failures.
func TestBranchAndPullRequestTools(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	c := e.svc.Client
	mainSHA, err := e.hub.BranchSHA(repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	cleanSHA, err := e.hub.BranchSHA(repo, "feature/clean")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		call  func(ctx context.Context) (proto.Message, error)
		calls map[string]int
		check func(t *testing.T, m proto.Message)
	}{
		{name: "create_branch from the default branch", call: func(x context.Context) (proto.Message, error) {
			return c.CreateBranch(x, &ghopsv1.CreateBranchRequest{Repo: repo, Branch: "topic/one"})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/commits": 1, "POST /repos/{owner}/{repo}/git/refs": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.CreateBranchResponse)
			if r.Branch != "topic/one" || r.Sha != mainSHA {
				t.Errorf("got %v, want topic/one at %s", r, mainSHA)
			}
			if got, _ := e.hub.BranchSHA(repo, "topic/one"); got != mainSHA {
				t.Errorf("fakehub has topic/one at %q", got)
			}
		}},
		{name: "create_branch from a branch", call: func(x context.Context) (proto.Message, error) {
			return c.CreateBranch(x, &ghopsv1.CreateBranchRequest{Repo: repo, Branch: "topic/two", From: ptr("feature/clean")})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/commits": 1, "POST /repos/{owner}/{repo}/git/refs": 1}, check: func(t *testing.T, m proto.Message) {
			if r := m.(*ghopsv1.CreateBranchResponse); r.Sha != cleanSHA {
				t.Errorf("got %v, want %s", r, cleanSHA)
			}
		}},
		{name: "create_branch from a sha", call: func(x context.Context) (proto.Message, error) {
			return c.CreateBranch(x, &ghopsv1.CreateBranchRequest{Repo: repo, Branch: "topic/three", From: ptr(cleanSHA)})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/commits": 1, "POST /repos/{owner}/{repo}/git/refs": 1}, check: func(t *testing.T, m proto.Message) {
			if r := m.(*ghopsv1.CreateBranchResponse); r.Sha != cleanSHA || r.Branch != "topic/three" {
				t.Errorf("got %v, want %s", r, cleanSHA)
			}
		}},
		{name: "create_branch from a short sha", call: func(x context.Context) (proto.Message, error) {
			return c.CreateBranch(x, &ghopsv1.CreateBranchRequest{Repo: repo, Branch: "topic/four", From: ptr(cleanSHA[:7])})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/commits": 1, "POST /repos/{owner}/{repo}/git/refs": 1}, check: func(t *testing.T, m proto.Message) {
			if r := m.(*ghopsv1.CreateBranchResponse); r.Sha != cleanSHA {
				t.Errorf("got %v, want %s", r, cleanSHA)
			}
		}},
		{name: "get_pull_request", call: func(x context.Context) (proto.Message, error) {
			return c.GetPullRequest(x, &ghopsv1.GetPullRequestRequest{Repo: repo, PrNumber: 1})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/pulls/{pull_number}": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.GetPullRequestResponse).PullRequest
			if r.Number != 1 || r.Title != "Document the greet package" || r.Body == "" || r.State != "open" || r.Author != "octocat" ||
				r.Head != "feature/clean" || r.Base != "main" || r.HeadSha != cleanSHA || len(r.BaseSha) != 40 ||
				r.MergeableState != "clean" || r.ChangedFiles != 1 || r.HtmlUrl == "" {
				t.Errorf("got %v", r)
			}
		}},
		{name: "list_pull_request_files", call: func(x context.Context) (proto.Message, error) {
			return c.ListPullRequestFiles(x, &ghopsv1.ListPullRequestFilesRequest{Repo: repo, PrNumber: 1})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/pulls/{pull_number}/files": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.ListPullRequestFilesResponse)
			if len(r.Files) != 1 || r.Page.HasNext {
				t.Fatalf("got %v", r)
			}
			f := r.Files[0]
			if f.Path != "docs/guide.md" || f.Status != "modified" || f.Additions != 4 || f.Deletions != 0 || f.PatchTruncated ||
				!strings.HasPrefix(f.Patch, "@@ ") || !strings.Contains(f.Patch, "\n+## Packages") {
				t.Errorf("got %v", f)
			}
		}},
		{name: "compare_refs", call: func(x context.Context) (proto.Message, error) {
			return c.CompareRefs(x, &ghopsv1.CompareRefsRequest{Repo: repo, Base: "main", Head: "feature/conflict"})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/compare/{basehead}": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.CompareRefsResponse)
			if r.Status != "diverged" || r.AheadBy != 1 || r.BehindBy != 1 || len(r.MergeBaseSha) != 40 || len(r.Commits) != 1 ||
				r.Commits[0].Message != "Greet more casually" || len(r.Files) != 1 || r.Files[0].Path != "internal/greet/greet.go" ||
				!strings.Contains(r.Files[0].Patch, "+\treturn \"Hey there, \"") || r.FilesTruncated {
				t.Errorf("got %v", r)
			}
		}},
		{name: "compare_refs identical", call: func(x context.Context) (proto.Message, error) {
			return c.CompareRefs(x, &ghopsv1.CompareRefsRequest{Repo: repo, Base: "main", Head: mainSHA})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/compare/{basehead}": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.CompareRefsResponse)
			if r.Status != "identical" || r.AheadBy != 0 || len(r.Files) != 0 || r.MergeBaseSha != mainSHA {
				t.Errorf("got %v", r)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.hub.ResetStats()
			m, err := tt.call(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, m)
			assertCalls(t, e.hub, tt.calls)
		})
	}
}

// TestBranchAndPullRequestFailures checks the contract's codes and
// data.resource for what GitHub refuses.
func TestBranchAndPullRequestFailures(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	c := e.svc.Client
	tests := []struct {
		name    string
		call    func(ctx context.Context) error
		code    codes.Code
		reason  ghopsv1.ErrorReason
		resType string
		resID   string
	}{
		{name: "create_branch that exists", call: func(x context.Context) error {
			_, err := c.CreateBranch(x, &ghopsv1.CreateBranchRequest{Repo: repo, Branch: "feature/clean"})
			return err
		}, code: codes.FailedPrecondition, reason: ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION},
		{name: "create_branch from a missing branch", call: func(x context.Context) error {
			_, err := c.CreateBranch(x, &ghopsv1.CreateBranchRequest{Repo: repo, Branch: "x", From: ptr("no-such-branch")})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "ref", resID: repo + "@no-such-branch"},
		{name: "create_branch with a bad name", call: func(x context.Context) error {
			_, err := c.CreateBranch(x, &ghopsv1.CreateBranchRequest{Repo: repo, Branch: "a..b"})
			return err
		}, code: codes.InvalidArgument},
		{name: "get_pull_request missing", call: func(x context.Context) error {
			_, err := c.GetPullRequest(x, &ghopsv1.GetPullRequestRequest{Repo: repo, PrNumber: 99})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "pull_request", resID: repo + "#99"},
		{name: "list_pull_request_files missing", call: func(x context.Context) error {
			_, err := c.ListPullRequestFiles(x, &ghopsv1.ListPullRequestFilesRequest{Repo: repo, PrNumber: 99})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "pull_request", resID: repo + "#99"},
		{name: "compare_refs missing head", call: func(x context.Context) error {
			_, err := c.CompareRefs(x, &ghopsv1.CompareRefsRequest{Repo: repo, Base: "main", Head: "nope"})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "ref", resID: repo + "@main...nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := e.hub.BranchSHA(repo, "feature/clean")
			err := tt.call(ctx(t))
			if tt.code == codes.InvalidArgument {
				if statusCode(err) != codes.InvalidArgument {
					t.Fatalf("err = %v, want InvalidArgument", err)
				}
				return
			}
			d := wantStatus(t, err, tt.code, tt.reason)
			if tt.resType != "" && (d.gh.GetResource().GetType() != tt.resType || d.gh.GetResource().GetId() != tt.resID) {
				t.Errorf("resource = %v, want %s %s", d.gh.GetResource(), tt.resType, tt.resID)
			}
			if after, _ := e.hub.BranchSHA(repo, "feature/clean"); after != before {
				t.Errorf("feature/clean moved from %s to %s", before, after)
			}
		})
	}
}
