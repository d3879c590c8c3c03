package fakehub_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-github/v66/github"

	"ghops.dev/services/fakehub"
)

// TestDeleteRef deletes refs with go-github's Git.DeleteRef: 204 and the branch gone, open pull
// requests from it closed, and GitHub's refusals for missing refs, the default branch, protected
// branches and missing permissions.
func TestDeleteRef(t *testing.T) {
	ctx := context.Background()
	const o, r = "octo-org", "hello-world"
	tests := []struct {
		name, token, prefix, ref string
		setup                    func(t *testing.T, h *fakehub.Hub)
		status                   int
		msg                      string
	}{
		{name: "branch", token: fakehub.DemoToken, ref: "heads/feature/clean", status: 204},
		{name: "branch enterprise layout full ref", token: fakehub.DemoToken, prefix: "api/v3/", ref: "refs/heads/feature/clean", status: 204},
		{name: "missing ref", token: fakehub.DemoToken, ref: "heads/no-such-branch", status: 422, msg: "Reference does not exist"},
		{name: "default branch", token: fakehub.DemoToken, ref: "heads/main", status: 422, msg: "Cannot delete the default branch"},
		{name: "protected branch", token: fakehub.DemoToken, ref: "heads/feature/clean", status: 422, msg: "Cannot delete this protected branch",
			setup: func(t *testing.T, h *fakehub.Hub) {
				if err := h.ProtectBranch(o+"/"+r, "feature/clean", nil); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "read-only token", token: readOnly, ref: "heads/feature/clean", status: 403, msg: "Resource not accessible by personal access token"},
		{name: "anonymous", ref: "heads/feature/clean", status: 401, msg: "Requires authentication"},
		{name: "invisible repository", token: fakehub.DemoToken, ref: "heads/main", status: 404, msg: "Not Found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := startHub(t, fakehub.Config{})
			if tc.setup != nil {
				tc.setup(t, s.Hub)
			}
			gh := client(t, s, tc.token, tc.prefix)
			repoName := r
			if tc.name == "invisible repository" {
				repoName = "secret"
			}
			before, _ := s.Hub.BranchSHA(o+"/"+r, "feature/clean")
			resp, err := gh.Git.DeleteRef(ctx, o, repoName, tc.ref)
			if tc.status == 204 {
				if err != nil || resp.StatusCode != 204 {
					t.Fatalf("delete: %v (resp %v)", err, resp)
				}
				if _, err := s.Hub.BranchSHA(o+"/"+r, "feature/clean"); !errors.Is(err, fakehub.ErrRefNotFound) {
					t.Fatalf("branch still there: %v", err)
				}
				pr, _, err := gh.PullRequests.Get(ctx, o, r, 1)
				if err != nil {
					t.Fatal(err)
				}
				if pr.GetState() != "closed" || pr.GetMerged() || pr.GetHead().GetSHA() != before || pr.ClosedAt == nil {
					t.Fatalf("pull request from the deleted branch: state %q merged %v head %q closed_at %v", pr.GetState(), pr.GetMerged(), pr.GetHead().GetSHA(), pr.ClosedAt)
				}
				if other, _, err := gh.PullRequests.Get(ctx, o, r, 2); err != nil || other.GetState() != "open" {
					t.Fatalf("unrelated pull request: %v %v", other.GetState(), err)
				}
				if _, err := gh.Git.DeleteRef(ctx, o, r, tc.ref); status(err) != 422 {
					t.Fatalf("second delete: %v, want 422", err)
				}
				return
			}
			var er *github.ErrorResponse
			if !errors.As(err, &er) || er.Response.StatusCode != tc.status || er.Message != tc.msg {
				t.Fatalf("err = %v, want %d %q", err, tc.status, tc.msg)
			}
			if now, _ := s.Hub.BranchSHA(o+"/"+r, "feature/clean"); now != before {
				t.Fatalf("refused delete changed the branch: %s -> %s", before, now)
			}
		})
	}
}
