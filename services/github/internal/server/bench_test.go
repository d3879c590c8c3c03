package server

// Benchmarks of the service over real gRPC on 127.0.0.1 against an in-process fakehub (demo seed,
// rate limits raised so that no run is throttled). Every benchmark does its setup, including a
// warm-up call that opens the gRPC and HTTP connections, before the timed b.Loop. Those that reach
// GitHub also report, from fakehub's Stats diffed over the timed loop:
//
//	github-req/op  GitHub requests per call
//	github-304/op  of those, how many were answered 304 Not Modified (ETag cache hits)
//	rate-units/op  rate-limit units spent per call (a 304 spends none)
//
// The file is in package server (not server_test) so that BenchmarkReadFileColdCache can configure
// the cache and BenchmarkValidationRejected can time the validator on its own.

import (
	"context"
	"fmt"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/internal/config"
	"ghops.dev/services/github/internal/validation"
)

const benchRepo = "octo-org/hello-world"

// benchEnv is a fakehub and a service in front of it, both torn down by b.Cleanup.
type benchEnv struct {
	hub    *fakehub.Hub
	srv    *Server
	client ghopsv1.GitHubServiceClient
	calls  ghopsv1.CallServiceClient
}

// startBench starts fakehub with the demo data and the service with cfg's defaults, adjusted by
// adjust when it is not nil. Tests use it too.
func startBench(b testing.TB, adjust func(*config.Config)) *benchEnv {
	b.Helper()
	hs := fakehubtest.Start(b, fakehub.Config{Seed: "demo", CoreLimit: 1 << 30, SearchLimit: 1 << 30, GraphQLLimit: 1 << 30})
	cfg := config.Config{GitHubURL: hs.URL, Token: fakehub.DemoToken}
	if adjust != nil {
		adjust(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	conn, served := serve(b, s)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		if err := <-served; err != nil {
			b.Errorf("Serve: %v", err)
		}
	})
	return &benchEnv{hub: hs.Hub, srv: s, client: ghopsv1.NewGitHubServiceClient(conn), calls: ghopsv1.NewCallServiceClient(conn)}
}

// reportGitHub reports the GitHub traffic between before and now per timed iteration. Call it after
// the b.Loop loop, when b.N holds the number of iterations.
func (e *benchEnv) reportGitHub(b *testing.B, before fakehub.Stats) {
	b.Helper()
	after := e.hub.Stats()
	n := float64(b.N)
	units := 0
	for k, v := range after.RateUnits {
		units += v - before.RateUnits[k]
	}
	b.ReportMetric(float64(after.Total-before.Total)/n, "github-req/op")
	b.ReportMetric(float64(after.ByStatus[304]-before.ByStatus[304])/n, "github-304/op")
	b.ReportMetric(float64(units)/n, "rate-units/op")
}

func readmeRequest() *ghopsv1.ReadFileRequest {
	return &ghopsv1.ReadFileRequest{Repo: benchRepo, Path: "README.md"}
}

// benchReadFile times read_file of README.md on e; the first call (untimed) warms the connections
// and, when the cache is on, the cache.
func benchReadFile(b *testing.B, e *benchEnv) {
	ctx := context.Background()
	req := readmeRequest()
	first, err := e.client.ReadFile(ctx, req)
	if err != nil {
		b.Fatal(err)
	}
	if first.Size == 0 || first.Content == "" {
		b.Fatalf("warm-up read: %v", first)
	}
	before := e.hub.Stats()
	b.ReportAllocs()
	for b.Loop() {
		r, err := e.client.ReadFile(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if r.Sha != first.Sha {
			b.Fatalf("sha %s, want %s", r.Sha, first.Sha)
		}
	}
	e.reportGitHub(b, before)
}

// BenchmarkReadFile is read_file of octo-org/hello-world README.md with the service's ETag cache
// warm: each call is one conditional GET that fakehub answers 304, spending no rate limit, and the
// service rebuilds the answer from its cache.
func BenchmarkReadFile(b *testing.B) {
	benchReadFile(b, startBench(b, nil))
}

// BenchmarkReadFileColdCache is the same call with the ETag cache unable to help. Definition: one
// long-lived service (connections warm, like BenchmarkReadFile) whose cache holds nothing, because
// CacheBytes is 1 and so every answer is too big to be stored. Each call is then exactly what the
// first read of a URL costs a running service: an unconditional GET answered 200 with the full body,
// spending one rate-limit unit. Not included: storing the entry (one body copy), and what a freshly
// started service pays on top (gRPC and HTTP connection set-up), which would measure start-up
// rather than the cache.
func BenchmarkReadFileColdCache(b *testing.B) {
	benchReadFile(b, startBench(b, func(c *config.Config) { c.CacheBytes = 1 }))
}

// BenchmarkGetPrMergeability is get_pr_mergeability of pull request #1 (clean, checks green), ETag
// cache warm: the pull request, its check runs and its combined status.
func BenchmarkGetPrMergeability(b *testing.B) {
	e := startBench(b, nil)
	ctx := context.Background()
	req := &ghopsv1.GetPrMergeabilityRequest{Repo: benchRepo, PrNumber: 1}
	first, err := e.client.GetPrMergeability(ctx, req)
	if err != nil {
		b.Fatal(err)
	}
	if !first.GetMergeable() || first.MergeableState != "clean" {
		b.Fatalf("warm-up: %v", first)
	}
	before := e.hub.Stats()
	b.ReportAllocs()
	for b.Loop() {
		r, err := e.client.GetPrMergeability(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if !r.GetMergeable() {
			b.Fatalf("not mergeable: %v", r)
		}
	}
	e.reportGitHub(b, before)
}

// BenchmarkCommitFiles20 is commit_files of 20 small text files, one commit per iteration, made
// sequentially on one branch (created from main before timing): every iteration overwrites the same
// 20 paths with new contents, so the tree stays the same size and each call is a steady-state commit
// on top of the previous one: the branch head and one GraphQL createCommitOnBranch.
func BenchmarkCommitFiles20(b *testing.B) {
	e := startBench(b, nil)
	const branch = "bench/commit-files"
	if err := e.hub.CreateBranch(benchRepo, branch, "main"); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	iter := 0
	request := func() *ghopsv1.CommitFilesRequest {
		iter++
		files := make([]*ghopsv1.FileChange, 20)
		for i := range files {
			content := fmt.Sprintf("iteration %d, file %d\n", iter, i)
			files[i] = &ghopsv1.FileChange{Path: fmt.Sprintf("bench/f%02d.txt", i), Content: &content}
		}
		return &ghopsv1.CommitFilesRequest{Repo: benchRepo, Branch: branch, Message: fmt.Sprintf("bench %d", iter), Files: files}
	}
	if _, err := e.client.CommitFiles(ctx, request()); err != nil {
		b.Fatal(err)
	}
	before := e.hub.Stats()
	b.ReportAllocs()
	for b.Loop() {
		r, err := e.client.CommitFiles(ctx, request())
		if err != nil {
			b.Fatal(err)
		}
		if r.FilesChanged != 20 {
			b.Fatalf("files changed %d, want 20", r.FilesChanged)
		}
	}
	e.reportGitHub(b, before)
	head, err := e.hub.BranchSHA(benchRepo, branch)
	if err != nil {
		b.Fatal(err)
	}
	if len(head) != 40 {
		b.Fatalf("branch head %q", head)
	}
}

// BenchmarkValidationRejected shows what protovalidate costs on the hot path.
//
//   - grpc: a read_file whose repo breaks the pattern rule, over gRPC; the validation interceptor
//     rejects it with InvalidArgument and its details, and GitHub is never called (github-req/op 0).
//     Compare with BenchmarkReadFile, the same RPC accepted and served.
//   - check-invalid: the validator alone (Interceptors.Check) on that request, building the error.
//   - check-valid: the validator alone on the valid read_file request, the cost every accepted call
//     pays before its handler runs.
func BenchmarkValidationRejected(b *testing.B) {
	invalid := &ghopsv1.ReadFileRequest{Repo: "no-slash", Path: "README.md"}
	const method = "/ghops.v1.GitHubService/ReadFile"
	b.Run("grpc", func(b *testing.B) {
		e := startBench(b, nil)
		ctx := context.Background()
		if _, err := e.client.ReadFile(ctx, readmeRequest()); err != nil {
			b.Fatal(err)
		}
		before := e.hub.Stats()
		b.ReportAllocs()
		for b.Loop() {
			_, err := e.client.ReadFile(ctx, invalid)
			if status.Code(err) != codes.InvalidArgument {
				b.Fatalf("got %v, want InvalidArgument", err)
			}
		}
		e.reportGitHub(b, before)
	})
	val, err := validation.New()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("check-invalid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := val.Check(invalid, method); status.Code(err) != codes.InvalidArgument {
				b.Fatalf("got %v, want InvalidArgument", err)
			}
		}
	})
	b.Run("check-valid", func(b *testing.B) {
		valid := readmeRequest()
		b.ReportAllocs()
		for b.Loop() {
			if err := val.Check(valid, method); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkListPullRequests measures list_pull_requests with a warm
// conditional cache (GitHub answers 304).
func BenchmarkListPullRequests(b *testing.B) {
	e := startBench(b, nil)
	ctx := context.Background()
	req := &ghopsv1.ListPullRequestsRequest{Repo: benchRepo}
	if _, err := e.client.ListPullRequests(ctx, req); err != nil {
		b.Fatal(err)
	}
	before := e.hub.Stats()
	b.ReportAllocs()
	for b.Loop() {
		r, err := e.client.ListPullRequests(ctx, req)
		if err != nil || len(r.GetPullRequests()) == 0 {
			b.Fatalf("list: %v %v", r, err)
		}
	}
	e.reportGitHub(b, before)
}

// BenchmarkGetBranches measures get_branches with a warm conditional cache.
func BenchmarkGetBranches(b *testing.B) {
	e := startBench(b, nil)
	ctx := context.Background()
	req := &ghopsv1.GetBranchesRequest{Repo: benchRepo}
	if _, err := e.client.GetBranches(ctx, req); err != nil {
		b.Fatal(err)
	}
	before := e.hub.Stats()
	b.ReportAllocs()
	for b.Loop() {
		r, err := e.client.GetBranches(ctx, req)
		if err != nil || len(r.GetBranches()) == 0 {
			b.Fatalf("branches: %v %v", r, err)
		}
	}
	e.reportGitHub(b, before)
}

// BenchmarkCommitFiles20WithProgress is BenchmarkCommitFiles20 through CallService/Invoke, as the
// gateway calls it for a request with a progressToken: the same five GitHub requests, plus the
// stream and the progress messages (reported as progress/op).
func BenchmarkCommitFiles20WithProgress(b *testing.B) {
	e := startBench(b, nil)
	const branch = "bench/commit-files-progress"
	if err := e.hub.CreateBranch(benchRepo, branch, "main"); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	iter := 0
	invoke := func() (int, error) {
		iter++
		files := make([]*ghopsv1.FileChange, 20)
		for i := range files {
			content := fmt.Sprintf("iteration %d, file %d\n", iter, i)
			files[i] = &ghopsv1.FileChange{Path: fmt.Sprintf("bench/f%02d.txt", i), Content: &content}
		}
		req, err := anypb.New(&ghopsv1.CommitFilesRequest{Repo: benchRepo, Branch: branch, Message: fmt.Sprintf("bench %d", iter), Files: files})
		if err != nil {
			return 0, err
		}
		stream, err := e.calls.Invoke(ctx, &ghopsv1.InvokeRequest{Method: ghopsv1.GitHubService_CommitFiles_FullMethodName, Request: req})
		if err != nil {
			return 0, err
		}
		events := 0
		for {
			m, err := stream.Recv()
			if err != nil {
				return events, err
			}
			if m.GetProgress() != nil {
				events++
				continue
			}
			var r ghopsv1.CommitFilesResponse
			if err := m.GetResponse().UnmarshalTo(&r); err != nil {
				return events, err
			}
			if r.FilesChanged != 20 {
				return events, fmt.Errorf("files changed %d, want 20", r.FilesChanged)
			}
			return events, nil
		}
	}
	if _, err := invoke(); err != nil {
		b.Fatal(err)
	}
	before := e.hub.Stats()
	events := 0
	b.ReportAllocs()
	for b.Loop() {
		n, err := invoke()
		if err != nil {
			b.Fatal(err)
		}
		events += n
	}
	e.reportGitHub(b, before)
	b.ReportMetric(float64(events)/float64(b.N), "progress/op")
}

// BenchmarkGetPullRequest is get_pull_request of pull request #1 with the ETag cache warm: one
// conditional GET of the pull request (or none, when singleflight or the cache answers), the answer
// rebuilt from the cached body.
func BenchmarkGetPullRequest(b *testing.B) {
	e := startBench(b, nil)
	ctx := context.Background()
	req := &ghopsv1.GetPullRequestRequest{Repo: benchRepo, PrNumber: 1}
	first, err := e.client.GetPullRequest(ctx, req)
	if err != nil {
		b.Fatal(err)
	}
	if first.GetPullRequest().GetNumber() != 1 || first.GetPullRequest().GetHeadSha() == "" {
		b.Fatalf("warm-up: %v", first)
	}
	before := e.hub.Stats()
	b.ReportAllocs()
	for b.Loop() {
		r, err := e.client.GetPullRequest(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if r.GetPullRequest().GetHeadSha() != first.GetPullRequest().GetHeadSha() {
			b.Fatalf("head %s, want %s", r.GetPullRequest().GetHeadSha(), first.GetPullRequest().GetHeadSha())
		}
	}
	e.reportGitHub(b, before)
}

// BenchmarkSearch is search of repositories for "hello" with the ETag cache warm: one conditional
// GET of search/repositories, answered 304, the answer rebuilt from the cached body.
func BenchmarkSearch(b *testing.B) {
	e := startBench(b, nil)
	ctx := context.Background()
	req := &ghopsv1.SearchRequest{Query: "hello"}
	first, err := e.client.Search(ctx, req)
	if err != nil {
		b.Fatal(err)
	}
	if first.GetTotalCount() < 1 || len(first.GetRepositories()) == 0 {
		b.Fatalf("warm-up: %v", first)
	}
	before := e.hub.Stats()
	b.ReportAllocs()
	for b.Loop() {
		r, err := e.client.Search(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if r.GetRepositories()[0].GetFullName() != first.GetRepositories()[0].GetFullName() {
			b.Fatalf("first hit %s, want %s", r.GetRepositories()[0].GetFullName(), first.GetRepositories()[0].GetFullName())
		}
	}
	e.reportGitHub(b, before)
}

// BenchmarkGetCommits is get_commits of the default branch with the ETag cache warm: one
// conditional GET of the branch's head (answered 304), the commits from that SHA served by the
// immutable cache, the answer rebuilt from the cached body.
func BenchmarkGetCommits(b *testing.B) {
	e := startBench(b, nil)
	ctx := context.Background()
	req := &ghopsv1.GetCommitsRequest{Repo: benchRepo}
	first, err := e.client.GetCommits(ctx, req)
	if err != nil {
		b.Fatal(err)
	}
	if len(first.GetCommits()) < 2 || first.GetCommits()[0].GetSha() == "" {
		b.Fatalf("warm-up: %v", first)
	}
	before := e.hub.Stats()
	b.ReportAllocs()
	for b.Loop() {
		r, err := e.client.GetCommits(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if r.GetCommits()[0].GetSha() != first.GetCommits()[0].GetSha() {
			b.Fatalf("first commit %s, want %s", r.GetCommits()[0].GetSha(), first.GetCommits()[0].GetSha())
		}
	}
	e.reportGitHub(b, before)
}
