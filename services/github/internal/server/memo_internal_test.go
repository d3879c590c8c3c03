package server

import (
	"context"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/proto"
)

// The hot reads decode an answer read again from the cache through the
// memo: the second identical call decodes nothing (the memo's hits grow)
// and answers exactly as the first, with the same GitHub requests as a
// call that decodes (one conditional GET per read, answered 304).
func TestReadsDecodeOnce(t *testing.T) {
	e := startBench(t, nil)
	s, c := e.srv, e.client
	tests := []struct {
		name string
		call func(ctx context.Context) (proto.Message, error)
		hits uint64 // memo hits of the second call
		reqs int    // GitHub requests of the second call
	}{
		{name: "search", hits: 1, reqs: 1, call: func(ctx context.Context) (proto.Message, error) {
			return c.Search(ctx, &ghopsv1.SearchRequest{Query: "hello"})
		}},
		// The head of the default branch (revalidated, through the memo),
		// then the commits from that SHA (immutable: no request).
		{name: "get_commits", hits: 1, reqs: 1, call: func(ctx context.Context) (proto.Message, error) {
			return c.GetCommits(ctx, &ghopsv1.GetCommitsRequest{Repo: benchRepo})
		}},
		{name: "get_branches", hits: 1, reqs: 1, call: func(ctx context.Context) (proto.Message, error) {
			return c.GetBranches(ctx, &ghopsv1.GetBranchesRequest{Repo: benchRepo})
		}},
		{name: "list_pull_requests", hits: 1, reqs: 1, call: func(ctx context.Context) (proto.Message, error) {
			return c.ListPullRequests(ctx, &ghopsv1.ListPullRequestsRequest{Repo: benchRepo})
		}},
		// The head of the branch (revalidated), then the file at that SHA
		// (immutable: no request).
		{name: "read_file at a branch", hits: 1, reqs: 1, call: func(ctx context.Context) (proto.Message, error) {
			return c.ReadFile(ctx, &ghopsv1.ReadFileRequest{Repo: benchRepo, Path: "README.md"})
		}},
		{name: "list_directory", hits: 1, reqs: 1, call: func(ctx context.Context) (proto.Message, error) {
			return c.ListDirectory(ctx, &ghopsv1.ListDirectoryRequest{Repo: benchRepo, Path: "/"})
		}},
		{name: "get_pull_request", hits: 1, reqs: 1, call: func(ctx context.Context) (proto.Message, error) {
			return c.GetPullRequest(ctx, &ghopsv1.GetPullRequestRequest{Repo: benchRepo, PrNumber: 1})
		}},
		// The pull request through the memo (mergeable known: no polling),
		// then the head's check runs and combined status.
		{name: "get_pr_mergeability", hits: 1, reqs: 3, call: func(ctx context.Context) (proto.Message, error) {
			return c.GetPrMergeability(ctx, &ghopsv1.GetPrMergeabilityRequest{Repo: benchRepo, PrNumber: 1})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			first, err := tt.call(ctx)
			if err != nil {
				t.Fatal(err)
			}
			before, stats := s.memo.Hits(), e.hub.Stats()
			second, err := tt.call(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.memo.Hits() - before; got != tt.hits {
				t.Errorf("memo hits of the second call = %d, want %d", got, tt.hits)
			}
			after := e.hub.Stats()
			if got := after.Total - stats.Total; got != tt.reqs {
				t.Errorf("GitHub requests of the second call = %d, want %d", got, tt.reqs)
			}
			if got := after.ByStatus[304] - stats.ByStatus[304]; got != tt.reqs {
				t.Errorf("304 answers of the second call = %d, want %d (all revalidated)", got, tt.reqs)
			}
			if !proto.Equal(first, second) {
				t.Errorf("second answer differs:\n%v\n%v", first, second)
			}
		})
	}
}
