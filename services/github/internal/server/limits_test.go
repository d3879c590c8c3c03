package server_test

import (
	"fmt"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/codes"

	"ghops.dev/services/github/servicetest"
)

// seedFiles commits n one-line files p/f0 … p/f<n-1> ("x0" …) and returns
// the head.
func seedFiles(t *testing.T, e *env, n int) string {
	t.Helper()
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("p/f%d", i)] = fmt.Sprintf("x%d\n", i) // distinct blobs: each is read

	}
	head, err := e.hub.Commit(repo, "main", "seed", files)
	if err != nil {
		t.Fatal(err)
	}
	e.hub.ResetStats()
	return head
}

// modifyPatch changes p/f<i> for i in [from, to) from "x<i>" to "y".
func modifyPatch(from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		fmt.Fprintf(&b, "diff --git a/p/f%d b/p/f%d\n--- a/p/f%d\n+++ b/p/f%d\n@@ -1 +1 @@\n-x%d\n+y\n", i, i, i, i, i)
	}
	return b.String()
}

// deletePatch deletes p/f<i> for i in [from, to).
func deletePatch(from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		fmt.Fprintf(&b, "diff --git a/p/f%d b/p/f%d\ndeleted file mode 100644\n--- a/p/f%d\n+++ /dev/null\n@@ -1 +0,0 @@\n-x%d\n", i, i, i, i)
	}
	return b.String()
}

// renamePatch renames p/f<i> to p/r<i> unchanged for i in [from, to).
func renamePatch(from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		fmt.Fprintf(&b, "diff --git a/p/f%d b/p/r%d\nsimilarity index 100%%\nrename from p/f%d\nrename to p/r%d\n", i, i, i, i)
	}
	return b.String()
}

// TestApplyPatchRequests measures apply_patch's GitHub requests against
// fakehub's counter: 6 (head, commit, tree; tree, commit, ref update) plus
// one blob read per modified file; deletions, pure renames and mode
// changes read nothing (issue 19, point 4: the bound of
// docs/security.md).
func TestApplyPatchRequests(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		want  int
	}{
		{name: "one modified file", patch: modifyPatch(0, 1), want: 7},
		{name: "ten modified files", patch: modifyPatch(0, 10), want: 16},
		{name: "sixty-four modified files", patch: modifyPatch(0, 64), want: 70},
		{name: "forty deleted files", patch: deletePatch(0, 40), want: 6},
		{name: "forty renamed files", patch: renamePatch(0, 40), want: 6},
		{name: "ten modified, twenty deleted, thirty renamed", patch: modifyPatch(0, 10) + deletePatch(10, 30) + renamePatch(30, 60), want: 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := start(t, fakehub.Config{}, servicetest.Options{})
			seedFiles(t, e, 64)
			if _, err := e.svc.Client.ApplyPatch(ctx(t), &ghopsv1.ApplyPatchRequest{Repo: repo, Branch: "main", Message: "m", Patch: tt.patch}); err != nil {
				t.Fatal(err)
			}
			if got := e.hub.Stats().Total; got != tt.want {
				t.Errorf("%d GitHub requests, want %d: %v", got, tt.want, e.hub.Stats().ByRoute)
			}
		})
	}
}

// TestCostLimits holds calls to the size caps of a patch (refused before
// any GitHub request) and to the per-call request cap (the request past
// it is not sent): each answer is -32602 naming the limit, and the branch
// is left as it was.
func TestCostLimits(t *testing.T) {
	tests := []struct {
		name         string
		opts         servicetest.Options
		patch        string
		wantText     string
		wantRequests int // GitHub requests the refused call sent
	}{
		{name: "too many files", opts: servicetest.Options{MaxPatchFiles: 5}, patch: modifyPatch(0, 6),
			wantText: "the patch changes 6 files; at most 5 are accepted in one call (the limit -max-patch-files)"},
		{name: "too many bytes", opts: servicetest.Options{MaxPatchBytes: 100}, patch: modifyPatch(0, 3),
			wantText: "at most 100 are accepted (the limit -max-patch-bytes)"},
		{name: "too many requests", opts: servicetest.Options{MaxRequestsPerCall: 8}, patch: modifyPatch(0, 5),
			wantText: "the call needs more than 8 GitHub requests (the per-call limit, -max-requests-per-call)", wantRequests: 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := start(t, fakehub.Config{}, tt.opts)
			head := seedFiles(t, e, 6)
			_, err := e.svc.Client.ApplyPatch(ctx(t), &ghopsv1.ApplyPatchRequest{Repo: repo, Branch: "main", Message: "m", Patch: tt.patch})
			d := wantStatus(t, err, codes.InvalidArgument, ghopsv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT)
			if !strings.Contains(d.st.Message(), tt.wantText) || d.br == nil || len(d.br.FieldViolations) != 1 || !strings.Contains(d.br.FieldViolations[0].Description, tt.wantText) {
				t.Errorf("message %q, BadRequest %v; want ~%q", d.st.Message(), d.br, tt.wantText)
			}
			if got := e.hub.Stats().Total; got != tt.wantRequests {
				t.Errorf("%d GitHub requests, want %d", got, tt.wantRequests)
			}
			if now, _ := e.hub.BranchSHA(repo, "main"); now != head {
				t.Errorf("branch moved to %s", now)
			}
		})
	}
	t.Run("a call within the caps", func(t *testing.T) {
		e := start(t, fakehub.Config{}, servicetest.Options{MaxRequestsPerCall: 11, MaxPatchFiles: 5})
		seedFiles(t, e, 5)
		if _, err := e.svc.Client.ApplyPatch(ctx(t), &ghopsv1.ApplyPatchRequest{Repo: repo, Branch: "main", Message: "m", Patch: modifyPatch(0, 5)}); err != nil {
			t.Fatalf("apply_patch needing exactly the cap (6 + 5 requests): %v", err)
		}
		if _, err := e.svc.Client.ReadFile(ctx(t), &ghopsv1.ReadFileRequest{Repo: repo, Path: "p/f0"}); err != nil {
			t.Fatalf("each call has its own count: %v", err)
		}
	})
}
