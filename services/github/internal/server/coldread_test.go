package server_test

import (
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"

	"ghops.dev/services/github/servicetest"
)

// TestBranchReadRequests counts the GitHub requests of a read on a branch
// with nothing cached (a new service) and of the same read again, with the
// rate-limit units they spend (a 304 spends none); docs/benchmarks.md,
// "Reads on a branch", reports these figures.
func TestBranchReadRequests(t *testing.T) {
	tests := []struct {
		name             string
		call             func(t *testing.T, c ghopsv1.GitHubServiceClient) error
		cold, coldUnits  int
		again, warmUnits int
	}{
		{name: "read_file", call: func(t *testing.T, c ghopsv1.GitHubServiceClient) error {
			_, err := c.ReadFile(ctx(t), &ghopsv1.ReadFileRequest{Repo: repo, Path: "go.mod", Branch: ptr("main")})
			return err
		}, cold: 1, coldUnits: 1, again: 1},
		{name: "list_directory", call: func(t *testing.T, c ghopsv1.GitHubServiceClient) error {
			_, err := c.ListDirectory(ctx(t), &ghopsv1.ListDirectoryRequest{Repo: repo, Path: "internal", Branch: ptr("main")})
			return err
		}, cold: 1, coldUnits: 1, again: 1},
		{name: "read_file on the default branch", call: func(t *testing.T, c ghopsv1.GitHubServiceClient) error {
			_, err := c.ReadFile(ctx(t), &ghopsv1.ReadFileRequest{Repo: repo, Path: "go.mod"})
			return err
		}, cold: 1, coldUnits: 1, again: 1},
		// The answer names the commit, which no one-request read of a tree
		// gives: the head (one-commit list), then the tree by its SHA.
		{name: "get_tree", call: func(t *testing.T, c ghopsv1.GitHubServiceClient) error {
			_, err := c.GetTree(ctx(t), &ghopsv1.GetTreeRequest{Repo: repo, Branch: ptr("main")})
			return err
		}, cold: 2, coldUnits: 2, again: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := start(t, fakehub.Config{}, servicetest.Options{})
			c := e.svc.Client
			for _, round := range []struct {
				what            string
				requests, units int
			}{{"cold", tt.cold, tt.coldUnits}, {"again", tt.again, tt.warmUnits}} {
				e.hub.ResetStats()
				if err := tt.call(t, c); err != nil {
					t.Fatal(err)
				}
				s := e.hub.Stats()
				units := 0
				for _, n := range s.RateUnits {
					units += n
				}
				t.Logf("%s: %d GitHub requests, %d rate-limit units (%v)", round.what, s.Total, units, s.ByRoute)
				if s.Total != round.requests || units != round.units {
					t.Errorf("%s: %d requests and %d rate-limit units, want %d and %d (%v)", round.what, s.Total, units, round.requests, round.units, s.ByRoute)
				}
			}
		})
	}
}
