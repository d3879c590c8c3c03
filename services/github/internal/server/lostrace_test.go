package server_test

import (
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
