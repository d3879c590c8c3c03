package server_test

import (
	"fmt"
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
		{name: "commit_files", write: func(e *env) error {
			_, err := e.svc.Client.CommitFiles(ctx(t), &ghopsv1.CommitFilesRequest{Repo: repo, Branch: "main", Message: "mine",
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
