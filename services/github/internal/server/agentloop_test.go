package server_test

import (
	"context"
	"fmt"
	"net/http"
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
	// A lightweight tag on feature/clean's head, made as a client would.
	tag, err := http.NewRequest(http.MethodPost, e.url+"repos/"+repo+"/git/refs", strings.NewReader(`{"ref":"refs/tags/loop-tag","sha":"`+cleanSHA+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	tag.Header.Set("Authorization", "token "+fakehub.DemoToken)
	if resp, err := http.DefaultClient.Do(tag); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("tag: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	tests := []callCase{
		{name: "create_branch from a tag", call: func(x context.Context) (proto.Message, error) {
			return c.CreateBranch(x, &ghopsv1.CreateBranchRequest{Repo: repo, Branch: "topic/tagged", From: ptr("loop-tag")})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/commits": 1, "POST /repos/{owner}/{repo}/git/refs": 1}, check: func(t *testing.T, m proto.Message) {
			if r := m.(*ghopsv1.CreateBranchResponse); r.Sha != cleanSHA || r.Branch != "topic/tagged" {
				t.Errorf("got %v, want %s", r, cleanSHA)
			}
		}},
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
	runCallCases(t, e, tests)
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
		{name: "get_tree of a missing branch", call: func(x context.Context) error {
			_, err := c.GetTree(x, &ghopsv1.GetTreeRequest{Repo: repo, Branch: ptr("no-such-branch")})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "branch", resID: repo + "@no-such-branch"},
		{name: "get_tree of a missing ref", call: func(x context.Context) error {
			_, err := c.GetTree(x, &ghopsv1.GetTreeRequest{Repo: repo, Ref: ptr("v9.9.9")})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "ref", resID: repo + "@v9.9.9"},
		{name: "get_commits of a missing branch", call: func(x context.Context) error {
			_, err := c.GetCommits(x, &ghopsv1.GetCommitsRequest{Repo: repo, Branch: ptr("no-such-branch")})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "branch", resID: repo + "@no-such-branch"},
		{name: "get_pull_request missing", call: func(x context.Context) error {
			_, err := c.GetPullRequest(x, &ghopsv1.GetPullRequestRequest{Repo: repo, PrNumber: 99})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "pr", resID: repo + "#99"},
		{name: "list_pull_request_files missing", call: func(x context.Context) error {
			_, err := c.ListPullRequestFiles(x, &ghopsv1.ListPullRequestFilesRequest{Repo: repo, PrNumber: 99})
			return err
		}, code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, resType: "pr", resID: repo + "#99"},
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

// TestPatchCaps checks the documented caps of the diff answers: each patch
// at 8,192 bytes cut at a line end, all patches of an answer at 65,536
// bytes, later files then without patch, every cut flagged.
func TestPatchCaps(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	c := e.svc.Client
	if err := e.hub.CreateBranch(repo, "feature/big", "main"); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"small.txt": "one line\n"}
	line := strings.Repeat("x", 39) + "\n"
	for i := 0; i < 12; i++ {
		files[fmt.Sprintf("big%02d.txt", i)] = strings.Repeat(line, 300) // 12,000 bytes, over the per-file cap
	}
	if _, err := e.hub.Commit(repo, "feature/big", "Add big files", files); err != nil {
		t.Fatal(err)
	}
	n, err := e.hub.CreatePullRequest(repo, "feature/big", "main", "Big", "", false)
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, got []*ghopsv1.ChangedFile) {
		t.Helper()
		if len(got) != 13 {
			t.Fatalf("%d files, want 13", len(got))
		}
		total, without := 0, 0
		for i, f := range got {
			total += len(f.Patch)
			if f.Patch == "" {
				without++
			}
			switch {
			case f.Path == "small.txt": // whole when it fits in what the answer's cap leaves, else left out
				if f.PatchTruncated != (f.Patch == "") || (f.Patch != "" && f.Patch != "@@ -0,0 +1 @@\n+one line") {
					t.Errorf("small.txt: %q truncated %v", f.Patch, f.PatchTruncated)
				}
			case !f.PatchTruncated || len(f.Patch) > 8192 || (f.Patch != "" && !strings.HasSuffix(f.Patch, "x")):
				t.Errorf("file %d %s: %d bytes, truncated %v, ends %q", i, f.Path, len(f.Patch), f.PatchTruncated, f.Patch[max(0, len(f.Patch)-5):])
			}
		}
		if total > 65536 || without == 0 {
			t.Errorf("patches total %d bytes, %d files without patch; want at most 65,536 and some left out", total, without)
		}
	}
	t.Run("list_pull_request_files", func(t *testing.T) {
		r, err := c.ListPullRequestFiles(ctx(t), &ghopsv1.ListPullRequestFilesRequest{Repo: repo, PrNumber: int32(n)})
		if err != nil {
			t.Fatal(err)
		}
		check(t, r.Files)
	})
	t.Run("compare_refs", func(t *testing.T) {
		r, err := c.CompareRefs(ctx(t), &ghopsv1.CompareRefsRequest{Repo: repo, Base: "main", Head: "feature/big"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != "ahead" || r.AheadBy != 1 || r.BehindBy != 0 {
			t.Errorf("got status %s ahead %d behind %d", r.Status, r.AheadBy, r.BehindBy)
		}
		check(t, r.Files)
	})
}
