package server_test

import (
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/codes"

	"ghops.dev/services/github/servicetest"
)

// TestApplyPatchRefusesWhatGitRefuses sends apply_patch the patches of
// issue 19 (point 6) that git apply refuses: each is -32003 with
// data.patch PATCH_DOES_NOT_APPLY naming the file, and the branch is left
// as it was.
func TestApplyPatchRefusesWhatGitRefuses(t *testing.T) {
	const eofAppend = "diff --git a/p/f0 b/p/f0\n--- a/p/f0\n+++ b/p/f0\n@@ -1 +1,2 @@\n x0\n+appended\n"
	tests := []struct {
		name, patch string
		twice       bool // the patch applies once, then is sent again
		file        string
	}{
		{name: "rename onto an existing file", patch: "diff --git a/p/f0 b/p/f1\nsimilarity index 100%\nrename from p/f0\nrename to p/f1\n", file: "p/f1"},
		{name: "copy onto an existing file", patch: "diff --git a/p/f0 b/p/f1\nsimilarity index 100%\ncopy from p/f0\ncopy to p/f1\n", file: "p/f1"},
		{name: "delete whose content differs", patch: "diff --git a/p/f0 b/p/f0\ndeleted file mode 100644\n--- a/p/f0\n+++ /dev/null\n@@ -1 +0,0 @@\n-other\n", file: "p/f0"},
		{name: "hunkless delete of a non-empty file", patch: "diff --git a/p/f0 b/p/f0\ndeleted file mode 100644\nindex e69de29..0000000\n", file: "p/f0"},
		{name: "end-of-file append sent twice", patch: eofAppend, twice: true, file: "p/f0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := start(t, fakehub.Config{}, servicetest.Options{})
			seedFiles(t, e, 2)
			req := &ghopsv1.ApplyPatchRequest{Repo: repo, Branch: "main", Message: "m", Patch: tt.patch}
			if tt.twice {
				if _, err := e.svc.Client.ApplyPatch(ctx(t), req); err != nil {
					t.Fatalf("first application: %v", err)
				}
			}
			head, _ := e.hub.BranchSHA(repo, "main")
			_, err := e.svc.Client.ApplyPatch(ctx(t), req)
			d := wantStatus(t, err, codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_PATCH_REJECTED)
			var pe *ghopsv1.PatchError
			for _, x := range d.st.Details() {
				if v, ok := x.(*ghopsv1.PatchError); ok {
					pe = v
				}
			}
			if pe == nil || pe.Code != "PATCH_DOES_NOT_APPLY" || pe.File != tt.file {
				t.Errorf("PatchError = %v, want PATCH_DOES_NOT_APPLY in %s", pe, tt.file)
			}
			if now, _ := e.hub.BranchSHA(repo, "main"); now != head {
				t.Errorf("branch moved to %s", now)
			}
		})
	}
}
