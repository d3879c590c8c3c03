package server_test

import (
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/codes"

	"ghops.dev/services/github/servicetest"
)

// TestGetCommit runs get_commit against fakehub: one GitHub request per
// call whatever the page, stats over every file of the commit, files paged
// and patches capped as ChangedFile says, and the contract's failures.
func TestGetCommit(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	c := e.svc.Client
	if err := e.hub.CreateBranch(repo, "topic/commit", "main"); err != nil {
		t.Fatal(err)
	}
	mainSHA, err := e.hub.BranchSHA(repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat(strings.Repeat("y", 39)+"\n", 300) // 12,000 bytes: over the 8,192-byte patch cap
	sha, err := e.hub.Commit(repo, "topic/commit", "Add three files\n\nWith a body.", map[string]string{
		"a.txt": "a\n", "b.txt": "b\nb\n", "big.txt": big,
	})
	if err != nil {
		t.Fatal(err)
	}
	one := map[string]int{"GET /repos/{owner}/{repo}/commits/{ref}": 1}
	tests := []struct {
		name  string
		req   *ghopsv1.GetCommitRequest
		files []string
		next  bool
	}{
		{name: "by branch", req: &ghopsv1.GetCommitRequest{Repo: repo, Sha: "topic/commit"}, files: []string{"a.txt", "b.txt", "big.txt"}},
		{name: "by sha", req: &ghopsv1.GetCommitRequest{Repo: repo, Sha: sha}, files: []string{"a.txt", "b.txt", "big.txt"}},
		{name: "by short sha", req: &ghopsv1.GetCommitRequest{Repo: repo, Sha: sha[:7]}, files: []string{"a.txt", "b.txt", "big.txt"}},
		{name: "first page of files", req: &ghopsv1.GetCommitRequest{Repo: repo, Sha: sha, PerPage: ptr[int32](2)}, files: []string{"a.txt", "b.txt"}, next: true},
		{name: "last page of files", req: &ghopsv1.GetCommitRequest{Repo: repo, Sha: sha, Page: ptr[int32](2), PerPage: ptr[int32](2)}, files: []string{"big.txt"}},
		{name: "past the files", req: &ghopsv1.GetCommitRequest{Repo: repo, Sha: sha, Page: ptr[int32](3), PerPage: ptr[int32](2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.hub.ResetStats()
			r, err := c.GetCommit(ctx(t), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			assertCalls(t, e.hub, one)
			if r.Sha != sha || r.Message != "Add three files\n\nWith a body." || len(r.Parents) != 1 || r.Parents[0] != mainSHA {
				t.Errorf("commit = %s %q parents %v, want %s with main's head as parent", r.Sha, r.Message, r.Parents, sha)
			}
			if r.Author.GetName() == "" || r.Author.GetDate() == nil || r.Committer.GetName() == "" || r.Committer.GetDate() == nil {
				t.Errorf("author %v, committer %v: want names and dates", r.Author, r.Committer)
			}
			// Stats count the whole commit on every page: 1 + 2 + 300 lines.
			if s := r.Stats; s.GetAdditions() != 303 || s.GetDeletions() != 0 || s.GetTotal() != 303 {
				t.Errorf("stats = %v, want 303 additions", s)
			}
			var got []string
			for _, f := range r.Files {
				got = append(got, f.Path)
				if f.Status != "added" {
					t.Errorf("%s: status %q", f.Path, f.Status)
				}
				switch f.Path {
				case "big.txt":
					if !f.PatchTruncated || len(f.Patch) > 8192 || !strings.HasSuffix(f.Patch, "y") || f.Additions != 300 {
						t.Errorf("big.txt: %d patch bytes, truncated %v, %d additions; want a capped patch cut at a line end", len(f.Patch), f.PatchTruncated, f.Additions)
					}
				case "b.txt":
					if f.PatchTruncated || f.Patch != "@@ -0,0 +1,2 @@\n+b\n+b" || f.Additions != 2 {
						t.Errorf("b.txt: %q truncated %v", f.Patch, f.PatchTruncated)
					}
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.files, ",") || r.Page.GetHasNext() != tt.next {
				t.Errorf("files %v has_next %v, want %v %v", got, r.Page.GetHasNext(), tt.files, tt.next)
			}
		})
	}
}

// TestGetCommitFailures checks the contract's answers: a ref that names no
// commit is -32002 with data.resource commit after one request, a value
// the rules refuse is -32602 before any.
func TestGetCommitFailures(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	c := e.svc.Client
	tests := []struct {
		name    string
		req     *ghopsv1.GetCommitRequest
		code    codes.Code
		resID   string
		calls   map[string]int
		field   string
		resType string
	}{
		{name: "missing ref", req: &ghopsv1.GetCommitRequest{Repo: repo, Sha: "no-such-ref"}, code: codes.NotFound,
			resType: "commit", resID: repo + "@no-such-ref", calls: map[string]int{"GET /repos/{owner}/{repo}/commits/{ref}": 1}},
		{name: "missing sha", req: &ghopsv1.GetCommitRequest{Repo: repo, Sha: strings.Repeat("0", 40)}, code: codes.NotFound,
			resType: "commit", resID: repo + "@" + strings.Repeat("0", 40), calls: map[string]int{"GET /repos/{owner}/{repo}/commits/{ref}": 1}},
		{name: "missing repository", req: &ghopsv1.GetCommitRequest{Repo: "octo-org/nope", Sha: "main"}, code: codes.NotFound,
			resType: "commit", resID: "octo-org/nope@main", calls: map[string]int{"GET /repos/{owner}/{repo}/commits/{ref}": 1}},
		{name: "bad sha", req: &ghopsv1.GetCommitRequest{Repo: repo, Sha: "not a sha!"}, code: codes.InvalidArgument, field: "sha"},
		{name: "dot-dot ref", req: &ghopsv1.GetCommitRequest{Repo: repo, Sha: "main/../x"}, code: codes.InvalidArgument, field: "sha"},
		{name: "no sha", req: &ghopsv1.GetCommitRequest{Repo: repo}, code: codes.InvalidArgument, field: "sha"},
		{name: "page size over 100", req: &ghopsv1.GetCommitRequest{Repo: repo, Sha: "main", PerPage: ptr[int32](101)}, code: codes.InvalidArgument, field: "per_page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.hub.ResetStats()
			_, err := c.GetCommit(ctx(t), tt.req)
			assertCalls(t, e.hub, tt.calls)
			if tt.code == codes.InvalidArgument {
				d := detailsOf(t, err)
				if d.st.Code() != codes.InvalidArgument || d.br == nil || len(d.br.FieldViolations) == 0 || d.br.FieldViolations[0].Field != tt.field {
					t.Fatalf("err = %v, bad request %v; want InvalidArgument on %s", err, d.br, tt.field)
				}
				return
			}
			d := wantStatus(t, err, tt.code, ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND)
			if d.gh.GetResource().GetType() != tt.resType || d.gh.GetResource().GetId() != tt.resID {
				t.Errorf("resource = %v, want %s %s", d.gh.GetResource(), tt.resType, tt.resID)
			}
		})
	}
}
