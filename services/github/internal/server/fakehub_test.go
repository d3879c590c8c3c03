package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"ghops.dev/services/github/servicetest"
)

// TestRPCs runs every RPC's success path against fakehub and checks the
// exact GitHub calls it made.
func TestRPCs(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	c := e.svc.Client
	tests := []callCase{
		{name: "search", call: func(x context.Context) (proto.Message, error) {
			return c.Search(x, &ghopsv1.SearchRequest{Query: "hello", PerPage: ptr[int32](5)})
		}, calls: map[string]int{"GET /search/repositories": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.SearchResponse)
			if r.TotalCount < 1 || r.Repositories[0].FullName != repo || r.Page.Page != 1 || r.Page.PerPage != 5 {
				t.Errorf("got %v", r)
			}
		}},
		{name: "fetch", call: func(x context.Context) (proto.Message, error) {
			return c.Fetch(x, &ghopsv1.FetchRequest{Repo: repo})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}": 1, "GET /repos/{owner}/{repo}/readme": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.FetchResponse)
			if r.Repository.DefaultBranch != "main" || r.Readme.GetPath() != "README.md" || !strings.Contains(r.Readme.GetContent(), "hello-world") {
				t.Errorf("got %v", r)
			}
		}},
		{name: "list_directory root", call: func(x context.Context) (proto.Message, error) {
			return c.ListDirectory(x, &ghopsv1.ListDirectoryRequest{Repo: repo, Path: "/"})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/contents/{path}": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.ListDirectoryResponse)
			if r.Path != "" || len(r.Entries) < 2 || r.Entries[0].Type != "dir" || r.Entries[len(r.Entries)-1].Type == "dir" || r.Truncated {
				t.Errorf("want directories first: %v", r)
			}
		}},
		{name: "read_file", call: func(x context.Context) (proto.Message, error) {
			return c.ReadFile(x, &ghopsv1.ReadFileRequest{Repo: repo, Path: "README.md", Branch: ptr("main")})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/contents/{path}": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.ReadFileResponse)
			if r.Encoding != "utf8" || r.Binary || r.Truncated || int(r.Size) != len(r.Content) || len(r.Sha) != 40 {
				t.Errorf("got %v", r)
			}
		}},
		{name: "get_tree", call: func(x context.Context) (proto.Message, error) {
			return c.GetTree(x, &ghopsv1.GetTreeRequest{Repo: repo})
		}, calls: map[string]int{"POST /graphql": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.GetTreeResponse)
			if len(r.Sha) != 40 || len(r.Entries) < 3 || r.Truncated {
				t.Errorf("got %v", r)
			}
		}},
		{name: "get_commits", call: func(x context.Context) (proto.Message, error) {
			return c.GetCommits(x, &ghopsv1.GetCommitsRequest{Repo: repo, PerPage: ptr[int32](1)})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/commits": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.GetCommitsResponse)
			if len(r.Commits) != 1 || !r.Page.HasNext || r.Commits[0].Date == nil || len(r.Commits[0].Parents) != 1 {
				t.Errorf("got %v", r)
			}
		}},
		{name: "get_branches", call: func(x context.Context) (proto.Message, error) {
			return c.GetBranches(x, &ghopsv1.GetBranchesRequest{Repo: repo})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/branches": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.GetBranchesResponse)
			if len(r.Branches) != 4 || r.Page.HasNext || r.Page.PerPage != 30 { // main and three pull request heads
				t.Errorf("got %v", r)
			}
		}},
		{name: "list_pull_requests", call: func(x context.Context) (proto.Message, error) {
			return c.ListPullRequests(x, &ghopsv1.ListPullRequestsRequest{Repo: repo})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/pulls": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.ListPullRequestsResponse)
			if len(r.PullRequests) != 3 || r.PullRequests[0].State != "open" {
				t.Errorf("got %v", r)
			}
		}},
		{name: "get_pr_mergeability clean", call: func(x context.Context) (proto.Message, error) {
			return c.GetPrMergeability(x, &ghopsv1.GetPrMergeabilityRequest{Repo: repo, PrNumber: 1})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/pulls/{pull_number}": 1, "GET /repos/{owner}/{repo}/commits/{ref}/check-runs": 1, "GET /repos/{owner}/{repo}/commits/{ref}/status": 1},
			check: func(t *testing.T, m proto.Message) {
				r := m.(*ghopsv1.GetPrMergeabilityResponse)
				if !r.GetMergeable() || r.MergeableState != "clean" || len(r.HeadSha) != 40 || r.Checks.GetVerdict() != "success" {
					t.Errorf("got %v", r)
				}
			}},
		{name: "get_pr_mergeability dirty", call: func(x context.Context) (proto.Message, error) {
			return c.GetPrMergeability(x, &ghopsv1.GetPrMergeabilityRequest{Repo: repo, PrNumber: 2})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/pulls/{pull_number}": 1, "GET /repos/{owner}/{repo}/commits/{ref}/check-runs": 1, "GET /repos/{owner}/{repo}/commits/{ref}/status": 1},
			check: func(t *testing.T, m proto.Message) {
				r := m.(*ghopsv1.GetPrMergeabilityResponse)
				if r.Mergeable == nil || r.GetMergeable() || r.MergeableState != "dirty" {
					t.Errorf("got %v", r)
				}
			}},
	}
	// A branch read is the branch's head (GET commits, one entry) and then
	// the content at that SHA, which the next read takes from the cache.
	runCallCases(t, e, tests)
}

func assertCalls(t *testing.T, hub *fakehub.Hub, want map[string]int) {
	t.Helper()
	got := hub.Stats().ByRoute
	total := 0
	for k, n := range want {
		total += n
		if got[k] != n {
			t.Errorf("calls to %s = %d, want %d (all: %v)", k, got[k], n, got)
		}
	}
	if s := hub.Stats().Total; s != total {
		t.Errorf("total GitHub calls = %d, want %d (all: %v)", s, total, got)
	}
}

func TestChecksVerdicts(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	sha, err := e.hub.BranchSHA(repo, "feature/conflict")
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		add     func() error
		verdict string
		total   int32
	}{
		{name: "no checks", add: func() error { return nil }, verdict: "none"},
		{name: "passing run", add: func() error { return e.hub.AddCheckRun(repo, sha, "lint", "completed", "success") }, verdict: "success", total: 1},
		{name: "pending status", add: func() error { return e.hub.AddStatus(repo, sha, "deploy", "pending") }, verdict: "pending", total: 2},
		{name: "failing run", add: func() error { return e.hub.AddCheckRun(repo, sha, "test", "completed", "failure") }, verdict: "failure", total: 3},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := st.add(); err != nil {
				t.Fatal(err)
			}
			e.hub.ResetStats()
			r, err := e.svc.Client.GetChecksForSha(ctx(t), &ghopsv1.GetChecksForShaRequest{Repo: repo, Sha: sha})
			if err != nil {
				t.Fatal(err)
			}
			if r.Summary.Verdict != st.verdict || r.Summary.Total != st.total || len(r.Checks) != int(st.total) {
				t.Errorf("summary = %v, checks = %v", r.Summary, r.Checks)
			}
			for i := 1; i < len(r.Checks); i++ {
				if r.Checks[i-1].Kind == "status" && r.Checks[i].Kind == "check_run" {
					t.Errorf("check runs must come before statuses: %v", r.Checks)
				}
			}
			assertCalls(t, e.hub, map[string]int{"GET /repos/{owner}/{repo}/commits/{ref}/check-runs": 1, "GET /repos/{owner}/{repo}/commits/{ref}/status": 1})
		})
	}
}

func TestPullRequestMutations(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	c := e.svc.Client
	head1, _ := e.hub.BranchSHA(repo, "feature/clean")
	t.Run("create needs commits between", func(t *testing.T) {
		_, err := c.CreatePullRequest(ctx(t), &ghopsv1.CreatePullRequestRequest{Repo: repo, Title: "t", Head: "main", Base: "main"})
		d := wantStatus(t, err, codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION)
		if d.gh.GetStatus() != 422 {
			t.Errorf("GitHubError = %v", d.gh)
		}
	})
	t.Run("create", func(t *testing.T) {
		if err := e.hub.CreateBranch(repo, "feature/new", "main"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.hub.Commit(repo, "feature/new", "x", map[string]string{"new.txt": "x"}); err != nil {
			t.Fatal(err)
		}
		e.hub.ResetStats()
		r, err := c.CreatePullRequest(ctx(t), &ghopsv1.CreatePullRequestRequest{Repo: repo, Title: "New", Head: "feature/new", Base: "main", Body: ptr("b")})
		if err != nil {
			t.Fatal(err)
		}
		if r.PullRequest.Number < 3 || r.PullRequest.State != "open" || r.PullRequest.Head != "feature/new" {
			t.Errorf("got %v", r)
		}
		assertCalls(t, e.hub, map[string]int{"POST /repos/{owner}/{repo}/pulls": 1})
	})
	t.Run("update", func(t *testing.T) {
		e.hub.ResetStats()
		r, err := c.UpdatePullRequest(ctx(t), &ghopsv1.UpdatePullRequestRequest{Repo: repo, PrNumber: 2, Title: ptr("Renamed"), State: ptr("closed")})
		if err != nil {
			t.Fatal(err)
		}
		if r.PullRequest.Title != "Renamed" || r.PullRequest.State != "closed" {
			t.Errorf("got %v", r)
		}
		assertCalls(t, e.hub, map[string]int{"PATCH /repos/{owner}/{repo}/pulls/{pull_number}": 1})
	})
	t.Run("merge stale sha is HEAD_SHA_MISMATCH", func(t *testing.T) {
		_, err := c.MergePullRequest(ctx(t), &ghopsv1.MergePullRequestRequest{Repo: repo, PrNumber: 1, Sha: ptr("abcdef0123")})
		d := wantStatus(t, err, codes.Aborted, ghopsv1.ErrorReason_ERROR_REASON_HEAD_SHA_MISMATCH)
		if d.gh.GetExpectedSha() != "abcdef0123" || d.gh.GetActualSha() != head1 || d.gh.GetStatus() != 409 || d.info.Metadata["pr"] != "1" {
			t.Errorf("GitHubError = %v, metadata %v", d.gh, d.info.Metadata)
		}
	})
	t.Run("merge", func(t *testing.T) {
		e.hub.ResetStats()
		r, err := c.MergePullRequest(ctx(t), &ghopsv1.MergePullRequestRequest{Repo: repo, PrNumber: 1, Sha: ptr(head1), MergeMethod: ptr("squash")})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Merged || len(r.Sha) != 40 {
			t.Errorf("got %v", r)
		}
		assertCalls(t, e.hub, map[string]int{"PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge": 1})
	})
}

func TestMergeNotMergeable(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	_, err := e.svc.Client.MergePullRequest(ctx(t), &ghopsv1.MergePullRequestRequest{Repo: repo, PrNumber: 2})
	d := wantStatus(t, err, codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_PR_NOT_MERGEABLE)
	if d.gh.GetMergeableState() != "dirty" || d.gh.GetStatus() != 405 {
		t.Errorf("GitHubError = %v", d.gh)
	}
}

// TestCommitFiles commits through GraphQL's createCommitOnBranch in two
// GitHub requests whatever the number or kind of files (the branch head and
// the mutation), and through the git data API in five (a blob more per
// base64 file) where the mutation cannot express the call: here a message
// whose first line is blank, since GitHub refuses an empty headline.
func TestCommitFiles(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	graphQL := map[string]int{"GET /repos/{owner}/{repo}/git/ref/{ref}": 1, "POST /graphql": 1}
	gitData := map[string]int{
		"GET /repos/{owner}/{repo}/git/ref/{ref}": 1, "GET /repos/{owner}/{repo}/git/commits/{commit_sha}": 1,
		"POST /repos/{owner}/{repo}/git/trees": 1, "POST /repos/{owner}/{repo}/git/commits": 1, "PATCH /repos/{owner}/{repo}/git/refs/{ref}": 1,
	}
	tests := []struct {
		name    string
		files   int
		binary  bool
		message string
		calls   map[string]int
		extra   map[string]int
	}{
		{name: "one text file", files: 1, message: "gen", calls: graphQL},
		{name: "twenty text files", files: 20, message: "gen", calls: graphQL},
		{name: "a binary file in the same mutation", files: 3, binary: true, message: "gen\n\nwith a body", calls: graphQL},
		{name: "blank headline falls back to git data", files: 20, message: "\ngen", calls: gitData},
		{name: "fallback: a binary file adds one blob", files: 3, binary: true, message: "\ngen", calls: gitData, extra: map[string]int{"POST /repos/{owner}/{repo}/git/blobs": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := e.hub.BranchSHA(repo, "main")
			var files []*ghopsv1.FileChange
			for i := range tt.files {
				files = append(files, &ghopsv1.FileChange{Path: fmt.Sprintf("gen/%s/f%02d.txt", strings.ReplaceAll(tt.name, " ", "_"), i), Content: ptr(fmt.Sprintf("file %d\n", i))})
			}
			if tt.binary {
				files[0].Encoding = ptr("base64")
				files[0].Content = ptr("AAEC/w==")
			}
			e.hub.ResetStats()
			r, err := e.svc.Client.CommitFiles(ctx(t), &ghopsv1.CommitFilesRequest{Repo: repo, Branch: "main", Message: tt.message, Files: files})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int{}
			for k, v := range tt.calls {
				want[k] += v
			}
			for k, v := range tt.extra {
				want[k] += v
			}
			assertCalls(t, e.hub, want)
			after, _ := e.hub.BranchSHA(repo, "main")
			if r.CommitSha != after || r.ParentSha != before || r.FilesChanged != int32(tt.files) {
				t.Errorf("got %v, branch %s -> %s", r, before, after)
			}
			gh := github.NewClient(nil).WithAuthToken(fakehub.DemoToken)
			gh.BaseURL, _ = url.Parse(e.url)
			cm, _, err := gh.Git.GetCommit(ctx(t), "octo-org", "hello-world", after)
			if err != nil {
				t.Fatal(err)
			}
			if len(cm.Parents) != 1 || cm.Parents[0].GetSHA() != before || cm.GetMessage() != tt.message {
				t.Errorf("commit %s: parents %v message %q, want parent %s and message %q", after, cm.Parents, cm.GetMessage(), before, tt.message)
			}
			last := files[len(files)-1]
			f, err := e.svc.Client.ReadFile(ctx(t), &ghopsv1.ReadFileRequest{Repo: repo, Path: last.Path})
			if err != nil || f.Content != last.GetContent() {
				t.Errorf("read back %v, %v", f, err)
			}
			if tt.binary {
				f, err := e.svc.Client.ReadFile(ctx(t), &ghopsv1.ReadFileRequest{Repo: repo, Path: files[0].Path})
				if err != nil || !f.Binary || f.Encoding != "base64" || f.Content != "AAEC/w==" || f.Size != 4 {
					t.Errorf("binary read back %v, %v", f, err)
				}
			}
		})
	}
}

// TestCommitFilesBranchMoved moves the branch while the commit is being
// written: after the head was read and before the GraphQL mutation, and on
// the git data path between creating the commit and updating the ref. The
// writer gets -32006 with both heads, and nothing of it is written.
func TestCommitFilesBranchMoved(t *testing.T) {
	tests := []struct {
		name, message, trigger string
	}{
		{name: "graphql mutation", message: "mine", trigger: "/graphql"},
		{name: "git data fallback", message: "\nmine", trigger: "/git/commits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hub, err := fakehub.New(fakehub.Config{Seed: "demo"})
			if err != nil {
				t.Fatal(err)
			}
			var once sync.Once
			var moved string
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, tt.trigger) {
					once.Do(func() {
						moved, err = hub.Commit(repo, "main", "concurrent", map[string]string{"other.txt": "x"})
					})
				}
				hub.ServeHTTP(w, r)
			}))
			t.Cleanup(ts.Close)
			svc := servicetest.Start(t, servicetest.Options{GitHubURL: ts.URL + "/", Token: fakehub.DemoToken})
			before, _ := hub.BranchSHA(repo, "main")
			branches, _ := svc.Client.GetBranches(ctx(t), &ghopsv1.GetBranchesRequest{Repo: repo})
			_, cerr := svc.Client.CommitFiles(ctx(t), &ghopsv1.CommitFilesRequest{Repo: repo, Branch: "main", Message: tt.message, Files: []*ghopsv1.FileChange{{Path: "mine.txt", Content: ptr("mine")}}})
			if err != nil {
				t.Fatal(err)
			}
			d := wantStatus(t, cerr, codes.Aborted, ghopsv1.ErrorReason_ERROR_REASON_BRANCH_MOVED)
			if moved == "" || d.gh.GetExpectedSha() != before || d.gh.GetActualSha() != moved {
				t.Errorf("GitHubError = %v, want expected %s actual %s", d.gh, before, moved)
			}
			if now, _ := hub.BranchSHA(repo, "main"); now != moved {
				t.Errorf("branch = %s, want it left at the concurrent commit %s", now, moved)
			}
			after, _ := svc.Client.GetBranches(ctx(t), &ghopsv1.GetBranchesRequest{Repo: repo})
			if len(after.Branches) != len(branches.Branches) {
				t.Errorf("stray ref: branches %v -> %v", branches.Branches, after.Branches)
			}
		})
	}
}

func TestConditionalCache(t *testing.T) {
	other := fakehub.Token{Value: "other-token", Login: "other", Repos: map[string]fakehub.Permission{"*": fakehub.PermRead}}
	demo := fakehub.Token{Value: fakehub.DemoToken, Login: "octocat", Repos: map[string]fakehub.Permission{repo: fakehub.PermWrite}}
	e := start(t, fakehub.Config{Tokens: []fakehub.Token{demo, other}}, servicetest.Options{AllowCallerToken: true})
	read := func(t *testing.T, token string) *ghopsv1.ReadFileResponse {
		x := ctx(t)
		if token != "" {
			x = metadata.AppendToOutgoingContext(x, "x-github-token", token)
		}
		r, err := e.svc.Client.ReadFile(x, &ghopsv1.ReadFileRequest{Repo: repo, Path: "README.md"})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := read(t, "")
	e.hub.ResetStats()
	second := read(t, "")
	st := e.hub.Stats()
	if st.ByStatus[304] != 1 || st.Total != 1 || st.RateUnits["core"] != 0 {
		t.Errorf("repeated read: stats %+v, want one uncounted 304", st)
	}
	if !proto.Equal(first, second) {
		t.Errorf("cached answer differs: %v vs %v", first, second)
	}
	e.hub.ResetStats()
	read(t, "other-token")
	// One request: a cold read at a branch goes as it is (package httpcache).
	if st := e.hub.Stats(); st.ByStatus[200] != 1 || st.ByStatus[304] != 0 {
		t.Errorf("another token's first read: stats %+v, want fresh 200s (no answer crosses tokens)", st)
	}
	if _, err := e.hub.Commit(repo, "main", "change readme", map[string]string{"README.md": "changed\n"}); err != nil {
		t.Fatal(err)
	}
	e.hub.ResetStats()
	if r := read(t, ""); r.Content != "changed\n" {
		t.Errorf("after a change got %q", r.Content)
	}
}

// TestCallerToken: a caller's own token is used when allowed; without
// -allow-caller-token a call that carries one is refused, naming the flag,
// and never served with the service's own token (the hub sees no request).
func TestCallerToken(t *testing.T) {
	tests := []struct {
		name     string
		allow    bool
		code     codes.Code
		wantText string
	}{
		{name: "caller token used when allowed", allow: true, code: codes.Unauthenticated},
		{name: "caller token refused without the flag", allow: false, code: codes.PermissionDenied, wantText: "-allow-caller-token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := start(t, fakehub.Config{}, servicetest.Options{AllowCallerToken: tt.allow})
			x := metadata.AppendToOutgoingContext(ctx(t), "x-github-token", "not-a-valid-token")
			_, err := e.svc.Client.GetBranches(x, &ghopsv1.GetBranchesRequest{Repo: repo})
			if got := statusCode(err); got != tt.code {
				t.Fatalf("code = %v (%v), want %v", got, err, tt.code)
			}
			if err != nil && strings.Contains(err.Error(), "not-a-valid-token") {
				t.Errorf("token in error: %v", err)
			}
			if tt.wantText != "" {
				if !strings.Contains(err.Error(), tt.wantText) {
					t.Errorf("error %v does not name %s", err, tt.wantText)
				}
				if n := e.hub.Stats().Total; n != 0 {
					t.Errorf("the refused call reached GitHub %d times", n)
				}
			}
		})
	}
}

func TestFaults(t *testing.T) {
	tests := []struct {
		name    string
		fault   fakehub.Fault
		timeout time.Duration
		code    codes.Code
		reason  ghopsv1.ErrorReason
	}{
		{name: "latency past the deadline", fault: fakehub.Fault{Latency: 5 * time.Second}, timeout: 300 * time.Millisecond, code: codes.DeadlineExceeded, reason: ghopsv1.ErrorReason_ERROR_REASON_DEADLINE_EXCEEDED},
		{name: "persistent 500", fault: fakehub.Fault{ErrorRate: 1, ErrorStatus: 500}, code: codes.Unavailable, reason: ghopsv1.ErrorReason_ERROR_REASON_UPSTREAM_UNAVAILABLE},
		{name: "dropped connections", fault: fakehub.Fault{Drop: true}, code: codes.Unavailable, reason: ghopsv1.ErrorReason_ERROR_REASON_UPSTREAM_UNAVAILABLE},
		{name: "primary rate limit", fault: fakehub.Fault{RateLimit: "primary"}, code: codes.ResourceExhausted, reason: ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED},
		{name: "secondary rate limit", fault: fakehub.Fault{RateLimit: "secondary", RetryAfter: 60}, code: codes.ResourceExhausted, reason: ghopsv1.ErrorReason_ERROR_REASON_SECONDARY_RATE_LIMITED},
		{name: "transient 502 is retried", fault: fakehub.Fault{ErrorRate: 1, ErrorStatus: 502, Count: 2}, code: codes.OK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := start(t, fakehub.Config{}, servicetest.Options{CallTimeout: tt.timeout})
			e.hub.SetFaults([]fakehub.Fault{tt.fault})
			_, err := e.svc.Client.GetBranches(ctx(t), &ghopsv1.GetBranchesRequest{Repo: repo})
			if tt.code == codes.OK {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			d := wantStatus(t, err, tt.code, tt.reason)
			if tt.code == codes.ResourceExhausted && d.rty == nil {
				t.Errorf("no RetryInfo")
			}
		})
	}
}

func TestValidation(t *testing.T) {
	s := startStub(t, answer(200, nil, `{}`))
	svc := servicetest.Start(t, servicetest.Options{GitHubURL: s.url, Token: "t"})
	c := svc.Client
	tests := []struct {
		name  string
		call  func(x context.Context) error
		field string
		rule  string
	}{
		{name: "missing query", field: "query", rule: "required", call: func(x context.Context) error {
			_, err := c.Search(x, &ghopsv1.SearchRequest{})
			return err
		}},
		{name: "bad repo pattern", field: "repo", rule: "string.pattern", call: func(x context.Context) error {
			_, err := c.Fetch(x, &ghopsv1.FetchRequest{Repo: "no-slash"})
			return err
		}},
		{name: "page 0", field: "page", rule: "int32.gte_lte", call: func(x context.Context) error {
			_, err := c.GetBranches(x, &ghopsv1.GetBranchesRequest{Repo: repo, Page: ptr[int32](0)})
			return err
		}},
		{name: "branch and ref", field: "", rule: "message.oneof", call: func(x context.Context) error {
			_, err := c.ReadFile(x, &ghopsv1.ReadFileRequest{Repo: repo, Path: "a", Branch: ptr("main"), Ref: ptr("main")})
			return err
		}},
		{name: "too many files", field: "files", rule: "repeated.max_items", call: func(x context.Context) error {
			files := make([]*ghopsv1.FileChange, 21)
			for i := range files {
				files[i] = &ghopsv1.FileChange{Path: fmt.Sprint(i), Content: ptr("x")}
			}
			_, err := c.CommitFiles(x, &ghopsv1.CommitFilesRequest{Repo: repo, Branch: "main", Message: "m", Files: files})
			return err
		}},
		{name: "bad base64", field: "files[0]", rule: "file.content_base64", call: func(x context.Context) error {
			_, err := c.CommitFiles(x, &ghopsv1.CommitFilesRequest{Repo: repo, Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{{Path: "a", Content: ptr("%%%"), Encoding: ptr("base64")}}})
			return err
		}},
		{name: "bad sha", field: "sha", rule: "string.pattern", call: func(x context.Context) error {
			_, err := c.MergePullRequest(x, &ghopsv1.MergePullRequestRequest{Repo: repo, PrNumber: 1, Sha: ptr("XYZ")})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(ctx(t))
			d := wantStatus(t, err, codes.InvalidArgument, ghopsv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT)
			if d.br == nil || len(d.br.FieldViolations) == 0 {
				t.Fatalf("no BadRequest: %v", d.st.Details())
			}
			fv := d.br.FieldViolations[0]
			if fv.Field != tt.field || fv.Reason != tt.rule || fv.Description == "" {
				t.Errorf("violation = %v, want field %q rule %q", fv, tt.field, tt.rule)
			}
			var hasViolations bool
			for _, x := range d.st.Details() {
				if m, ok := x.(proto.Message); ok && m.ProtoReflect().Descriptor().FullName() == "buf.validate.Violations" {
					hasViolations = true
				}
			}
			if !hasViolations {
				t.Errorf("no buf.validate.Violations detail")
			}
		})
	}
	if n := s.calls.Load(); n != 0 {
		t.Errorf("invalid requests reached GitHub %d times", n)
	}
}

func TestOperable(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	t.Run("request id echoed", func(t *testing.T) {
		var hdr metadata.MD
		x := metadata.AppendToOutgoingContext(ctx(t), "x-request-id", "req-123")
		if _, err := e.svc.Client.GetBranches(x, &ghopsv1.GetBranchesRequest{Repo: repo}, grpc.Header(&hdr)); err != nil {
			t.Fatal(err)
		}
		if got := hdr.Get("x-request-id"); len(got) != 1 || got[0] != "req-123" {
			t.Errorf("x-request-id = %v", got)
		}
	})
	t.Run("request id generated", func(t *testing.T) {
		var hdr metadata.MD
		if _, err := e.svc.Client.GetBranches(ctx(t), &ghopsv1.GetBranchesRequest{Repo: repo}, grpc.Header(&hdr)); err != nil {
			t.Fatal(err)
		}
		if got := hdr.Get("x-request-id"); len(got) != 1 || len(got[0]) < 8 {
			t.Errorf("x-request-id = %v", got)
		}
	})
	t.Run("health", func(t *testing.T) {
		r, err := healthpb.NewHealthClient(e.svc.Conn).Check(ctx(t), &healthpb.HealthCheckRequest{Service: "ghops.v1.GitHubService"})
		if err != nil || r.Status != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health = %v, %v", r, err)
		}
	})
}
