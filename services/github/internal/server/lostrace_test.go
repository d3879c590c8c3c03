package server_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/codes"

	"ghops.dev/services/github/servicetest"
)

// TestLostRaceIsBranchMoved makes GitHub refuse the ref update of a write
// with each answer a lost race can get (422 in any wording, 409), while the
// branch itself stays put (as when the winner's head is not yet visible to
// the re-read): every one is -32006 BRANCH_MOVED, never -32003, and the
// branch is left as it was (issue 19, point 7).
func TestLostRaceIsBranchMoved(t *testing.T) {
	writes := []struct {
		name  string
		write func(e *env) error
	}{
		// A blank first message line keeps commit_files on the git data
		// API (GraphQL needs a headline); TestCommitOnBranchLostRace covers
		// its GraphQL path.
		{name: "commit_files (git data)", write: func(e *env) error {
			_, err := e.svc.Client.CommitFiles(ctx(t), &ghopsv1.CommitFilesRequest{Repo: repo, Branch: "main", Message: "\nmine",
				Files: []*ghopsv1.FileChange{{Path: "mine.txt", Content: ptr("mine\n")}}})
			return err
		}},
		{name: "apply_patch", write: func(e *env) error {
			_, err := e.svc.Client.ApplyPatch(ctx(t), &ghopsv1.ApplyPatchRequest{Repo: repo, Branch: "main", Message: "mine",
				Patch: "diff --git a/race.txt b/race.txt\n--- a/race.txt\n+++ b/race.txt\n@@ -1 +1 @@\n-one\n+two\n"})
			return err
		}},
	}
	answers := []struct {
		name   string
		status int
	}{
		{name: "422 in words other than not a fast forward", status: 422},
		{name: "409", status: 409},
	}
	for _, w := range writes {
		for _, a := range answers {
			t.Run(w.name+"/"+a.name, func(t *testing.T) {
				e := start(t, fakehub.Config{}, servicetest.Options{})
				before, err := e.hub.Commit(repo, "main", "seed", map[string]string{"race.txt": "one\n"})
				if err != nil {
					t.Fatal(err)
				}
				e.hub.SetFaults([]fakehub.Fault{{Method: "PATCH", Route: "/repos/{owner}/{repo}/git/refs/{ref}", ErrorRate: 1, ErrorStatus: a.status, Count: 1}})
				d := wantStatus(t, w.write(e), codes.Aborted, ghopsv1.ErrorReason_ERROR_REASON_BRANCH_MOVED)
				if d.gh.GetExpectedSha() != before || d.gh.GetStatus() != int32(a.status) {
					t.Errorf("GitHubError = %v, want expected_sha %s and status %d", d.gh, before, a.status)
				}
				if now, _ := e.hub.BranchSHA(repo, "main"); now != before {
					t.Errorf("branch = %s, want it left at %s", now, before)
				}
			})
		}
	}
}

// TestConcurrentWritersLoseWithBranchMoved races writers of both tools on
// one branch: every call either lands or is -32006 BRANCH_MOVED (never
// -32003), and the branch ends with exactly the winners' commits.
func TestConcurrentWritersLoseWithBranchMoved(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	if _, err := e.hub.Commit(repo, "main", "seed", map[string]string{"race.txt": "one\n"}); err != nil {
		t.Fatal(err)
	}
	const writers = 8
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			if i%2 == 0 {
				_, errs[i] = e.svc.Client.CommitFiles(ctx(t), &ghopsv1.CommitFilesRequest{Repo: repo, Branch: "main", Message: "w",
					Files: []*ghopsv1.FileChange{{Path: fmt.Sprintf("w%d.txt", i), Content: ptr("w\n")}}})
				return
			}
			_, errs[i] = e.svc.Client.ApplyPatch(ctx(t), &ghopsv1.ApplyPatchRequest{Repo: repo, Branch: "main", Message: "w",
				Patch: fmt.Sprintf("diff --git a/w%d.txt b/w%d.txt\nnew file mode 100644\n--- /dev/null\n+++ b/w%d.txt\n@@ -0,0 +1 @@\n+w\n", i, i, i)})
		})
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		if err == nil {
			won++
			continue
		}
		wantStatus(t, err, codes.Aborted, ghopsv1.ErrorReason_ERROR_REASON_BRANCH_MOVED)
		if _, ferr := e.svc.Client.ReadFile(ctx(t), &ghopsv1.ReadFileRequest{Repo: repo, Path: fmt.Sprintf("w%d.txt", i)}); statusCode(ferr) != codes.NotFound {
			t.Errorf("writer %d lost, yet its file is there (%v)", i, ferr)
		}
	}
	if won == 0 {
		t.Fatal("no writer won")
	}
	t.Logf("%d of %d writers won, the others got BRANCH_MOVED", won, writers)
}

// TestCommitOnBranchLostRace drives commit_files' GraphQL path through each
// way its mutation can lose or fail after the head was read: GitHub's
// STALE_DATA (here while the re-read still shows the old head, as when the
// winner is not yet visible), the branch deleted meanwhile (NOT_FOUND, and
// the re-read 404s) are -32006 BRANCH_MOVED (issue 19); a NOT_FOUND while
// the branch is still there is -32002 naming the branch, and FORBIDDEN is
// -32001, through the one translator. Nothing is written in any case.
func TestCommitOnBranchLostRace(t *testing.T) {
	const branch = "work"
	tests := []struct {
		name string
		// answer answers POST /graphql instead of fakehub when it returns
		// true; before is the head the call read.
		answer func(hub *fakehub.Hub, w http.ResponseWriter, before string) bool
		code   codes.Code
		reason ghopsv1.ErrorReason
		gone   bool
	}{
		{name: "stale data, head unchanged on re-read", code: codes.Aborted, reason: ghopsv1.ErrorReason_ERROR_REASON_BRANCH_MOVED,
			answer: func(_ *fakehub.Hub, w http.ResponseWriter, before string) bool {
				_, _ = io.WriteString(w, `{"data":{"createCommitOnBranch":null},"errors":[{"type":"STALE_DATA","path":["createCommitOnBranch"],"message":"Expected branch to point to \"`+before+`\" but it did not. Pull and try again."}]}`)
				return true
			}},
		{name: "branch deleted meanwhile", code: codes.Aborted, reason: ghopsv1.ErrorReason_ERROR_REASON_BRANCH_MOVED, gone: true,
			answer: func(hub *fakehub.Hub, _ http.ResponseWriter, _ string) bool {
				del := httptest.NewRequest(http.MethodDelete, "/repos/"+repo+"/git/refs/heads/"+branch, nil)
				del.Header.Set("Authorization", "token "+fakehub.DemoToken)
				rec := httptest.NewRecorder()
				hub.ServeHTTP(rec, del)
				if rec.Code != http.StatusNoContent {
					t.Errorf("delete %s: %d", branch, rec.Code)
				}
				return false
			}},
		{name: "not found while the branch is there", code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND,
			answer: func(_ *fakehub.Hub, w http.ResponseWriter, _ string) bool {
				_, _ = io.WriteString(w, `{"data":{"createCommitOnBranch":null},"errors":[{"type":"NOT_FOUND","path":["createCommitOnBranch"],"message":"Could not resolve to a Ref named 'refs/heads/work'."}]}`)
				return true
			}},
		{name: "forbidden", code: codes.PermissionDenied, reason: ghopsv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED,
			answer: func(_ *fakehub.Hub, w http.ResponseWriter, _ string) bool {
				_, _ = io.WriteString(w, `{"data":{"createCommitOnBranch":null},"errors":[{"type":"FORBIDDEN","path":["createCommitOnBranch"],"message":"Resource not accessible by personal access token"}]}`)
				return true
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hub, err := fakehub.New(fakehub.Config{Seed: "demo"})
			if err != nil {
				t.Fatal(err)
			}
			if err := hub.CreateBranch(repo, branch, "main"); err != nil {
				t.Fatal(err)
			}
			before, _ := hub.BranchSHA(repo, branch)
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/graphql") && tt.answer(hub, w, before) {
					return
				}
				hub.ServeHTTP(w, r)
			}))
			t.Cleanup(ts.Close)
			svc := servicetest.Start(t, servicetest.Options{GitHubURL: ts.URL + "/", Token: fakehub.DemoToken})
			_, cerr := svc.Client.CommitFiles(ctx(t), &ghopsv1.CommitFilesRequest{Repo: repo, Branch: branch, Message: "mine",
				Files: []*ghopsv1.FileChange{{Path: "mine.txt", Content: ptr("mine\n")}}})
			d := wantStatus(t, cerr, tt.code, tt.reason)
			switch tt.code {
			case codes.Aborted:
				if d.gh.GetExpectedSha() != before || d.gh.GetActualSha() != "" {
					t.Errorf("GitHubError = %v, want expected_sha %s and no actual_sha", d.gh, before)
				}
			case codes.NotFound:
				if d.res.GetResourceType() != "branch" || d.res.GetResourceName() != repo+"@"+branch {
					t.Errorf("ResourceInfo = %v, want the branch", d.res)
				}
			}
			now, err := hub.BranchSHA(repo, branch)
			if tt.gone != (err != nil) || (!tt.gone && now != before) {
				t.Errorf("branch = %s (%v), want it left at %s (gone %v)", now, err, before, tt.gone)
			}
		})
	}
}
