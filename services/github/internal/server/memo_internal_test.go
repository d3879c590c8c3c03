package server

import (
	"context"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/proto"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/internal/config"
)

// The hot reads decode an answer read again from the cache through the
// memo: the second identical call decodes nothing (the memo's hits grow)
// and answers exactly as the first.
func TestReadsDecodeOnce(t *testing.T) {
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	s, err := New(config.Config{GitHubURL: hub.URL, Token: fakehub.DemoToken})
	if err != nil {
		t.Fatal(err)
	}
	conn, served := serve(t, s)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	c := ghopsv1.NewGitHubServiceClient(conn)
	const repo = "octo-org/hello-world"
	tests := []struct {
		name string
		call func(ctx context.Context) (proto.Message, error)
		hits uint64 // memo hits of the second call
	}{
		{name: "get_branches", hits: 1, call: func(ctx context.Context) (proto.Message, error) {
			return c.GetBranches(ctx, &ghopsv1.GetBranchesRequest{Repo: repo})
		}},
		{name: "list_pull_requests", hits: 1, call: func(ctx context.Context) (proto.Message, error) {
			return c.ListPullRequests(ctx, &ghopsv1.ListPullRequestsRequest{Repo: repo})
		}},
		// The head of the branch, then the file at that SHA.
		{name: "read_file at a branch", hits: 2, call: func(ctx context.Context) (proto.Message, error) {
			return c.ReadFile(ctx, &ghopsv1.ReadFileRequest{Repo: repo, Path: "README.md"})
		}},
		{name: "list_directory", hits: 2, call: func(ctx context.Context) (proto.Message, error) {
			return c.ListDirectory(ctx, &ghopsv1.ListDirectoryRequest{Repo: repo, Path: "/"})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			first, err := tt.call(ctx)
			if err != nil {
				t.Fatal(err)
			}
			before := s.memo.Hits()
			second, err := tt.call(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.memo.Hits() - before; got != tt.hits {
				t.Errorf("memo hits of the second call = %d, want %d", got, tt.hits)
			}
			if !proto.Equal(first, second) {
				t.Errorf("second answer differs:\n%v\n%v", first, second)
			}
		})
	}
}
