package server

import (
	"context"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/proto"
)

// The hot reads decode an answer read again from the cache through the
// memo: the second identical call decodes nothing (the memo's hits grow)
// and answers exactly as the first.
func TestReadsDecodeOnce(t *testing.T) {
	e := startBench(t, nil)
	s, c := e.srv, e.client
	tests := []struct {
		name string
		call func(ctx context.Context) (proto.Message, error)
		hits uint64 // memo hits of the second call
	}{
		{name: "get_branches", hits: 1, call: func(ctx context.Context) (proto.Message, error) {
			return c.GetBranches(ctx, &ghopsv1.GetBranchesRequest{Repo: benchRepo})
		}},
		{name: "list_pull_requests", hits: 1, call: func(ctx context.Context) (proto.Message, error) {
			return c.ListPullRequests(ctx, &ghopsv1.ListPullRequestsRequest{Repo: benchRepo})
		}},
		// The head of the branch, then the file at that SHA.
		{name: "read_file at a branch", hits: 2, call: func(ctx context.Context) (proto.Message, error) {
			return c.ReadFile(ctx, &ghopsv1.ReadFileRequest{Repo: benchRepo, Path: "README.md"})
		}},
		{name: "list_directory", hits: 2, call: func(ctx context.Context) (proto.Message, error) {
			return c.ListDirectory(ctx, &ghopsv1.ListDirectoryRequest{Repo: benchRepo, Path: "/"})
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
