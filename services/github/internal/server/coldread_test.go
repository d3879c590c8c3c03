package server_test

import (
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"

	"ghops.dev/services/github/servicetest"
)

// TestBranchReadRequests counts the GitHub requests of a read on a branch
// with nothing cached (a new service) and of the same read again, and again,
// with the rate-limit units they spend (a 304 spends none; a GraphQL
// request spends its points of the graphql resource); docs/benchmarks.md,
// "Reads on a branch", reports these figures.
func TestBranchReadRequests(t *testing.T) {
	type round struct{ requests, units int }
	tests := []struct {
		name   string
		call   func(t *testing.T, c ghopsv1.GitHubServiceClient, head string) error
		rounds []round // cold, again, and again
	}{
		{name: "read_file", call: func(t *testing.T, c ghopsv1.GitHubServiceClient, head string) error {
			_, err := c.ReadFile(ctx(t), &ghopsv1.ReadFileRequest{Repo: repo, Path: "go.mod", Branch: ptr("main")})
			return err
		}, rounds: []round{{1, 1}, {1, 0}, {1, 0}}},
		{name: "list_directory", call: func(t *testing.T, c ghopsv1.GitHubServiceClient, head string) error {
			_, err := c.ListDirectory(ctx(t), &ghopsv1.ListDirectoryRequest{Repo: repo, Path: "internal", Branch: ptr("main")})
			return err
		}, rounds: []round{{1, 1}, {1, 0}, {1, 0}}},
		{name: "read_file on the default branch", call: func(t *testing.T, c ghopsv1.GitHubServiceClient, head string) error {
			_, err := c.ReadFile(ctx(t), &ghopsv1.ReadFileRequest{Repo: repo, Path: "go.mod"})
			return err
		}, rounds: []round{{1, 1}, {1, 0}, {1, 0}}},
		// Cold: one GraphQL request for the commit and its tree. Again:
		// the head from the one-commit list (no ETag known yet: one unit)
		// and the tree kept from the GraphQL answer. Then the head is a 304.
		{name: "get_tree", call: func(t *testing.T, c ghopsv1.GitHubServiceClient, head string) error {
			_, err := c.GetTree(ctx(t), &ghopsv1.GetTreeRequest{Repo: repo, Branch: ptr("main")})
			return err
		}, rounds: []round{{1, 1}, {1, 1}, {1, 0}}},
		{name: "get_tree on the default branch", call: func(t *testing.T, c ghopsv1.GitHubServiceClient, head string) error {
			_, err := c.GetTree(ctx(t), &ghopsv1.GetTreeRequest{Repo: repo})
			return err
		}, rounds: []round{{1, 1}, {1, 1}, {1, 0}}},
		// By SHA: the one-commit list from the SHA and the tree by its SHA,
		// both kept for good.
		{name: "get_tree by sha", call: func(t *testing.T, c ghopsv1.GitHubServiceClient, head string) error {
			_, err := c.GetTree(ctx(t), &ghopsv1.GetTreeRequest{Repo: repo, Ref: ptr(head)})
			return err
		}, rounds: []round{{2, 2}, {0, 0}, {0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := start(t, fakehub.Config{}, servicetest.Options{})
			c := e.svc.Client
			head, err := e.hub.BranchSHA(repo, "main")
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range tt.rounds {
				what := []string{"cold", "again", "a third time"}[i]
				e.hub.ResetStats()
				if err := tt.call(t, c, head); err != nil {
					t.Fatal(err)
				}
				s := e.hub.Stats()
				units := 0
				for _, n := range s.RateUnits {
					units += n
				}
				t.Logf("%s: %d GitHub requests, %d rate-limit units (%v)", what, s.Total, units, s.ByRoute)
				if s.Total != want.requests || units != want.units {
					t.Errorf("%s: %d requests and %d rate-limit units, want %d and %d (%v)", what, s.Total, units, want.requests, want.units, s.ByRoute)
				}
			}
		})
	}
}
