package server_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"ghops.dev/services/github/servicetest"
)

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestFetchReadme finds the README with GitHub's /readme in two calls; a
// 404 there is "no README", not an error.
func TestFetchReadme(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	for _, name := range []string{"docs-readme", "no-readme"} {
		if err := e.hub.CreateRepo(fakehub.RepoOptions{Owner: "octo-org", Name: name, Empty: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.hub.Commit("octo-org/docs-readme", "", "docs", map[string]string{"docs/README.md": "from docs\n", "main.go": "package main\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.hub.Commit("octo-org/no-readme", "", "code", map[string]string{"main.go": "package main\n"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, repo, path, content string
		noReadme                  bool
	}{
		{name: "root README", repo: repo, path: "README.md", content: "# hello-world\n\nA friendly Go greeter, the ghops demo repository\n"},
		{name: "docs README", repo: "octo-org/docs-readme", path: "docs/README.md", content: "from docs\n"},
		{name: "no README", repo: "octo-org/no-readme", noReadme: true},
		{name: "empty repository", repo: "octo-org/empty", noReadme: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.hub.ResetStats()
			r, err := e.svc.Client.Fetch(ctx(t), &ghopsv1.FetchRequest{Repo: tt.repo})
			if err != nil {
				t.Fatal(err)
			}
			if r.Repository.GetFullName() != tt.repo {
				t.Errorf("repository %v", r.Repository)
			}
			if tt.noReadme {
				if r.Readme != nil {
					t.Errorf("readme = %v, want none", r.Readme)
				}
			} else if r.Readme.GetPath() != tt.path || r.Readme.GetContent() != tt.content || r.Readme.GetTruncated() || int(r.Readme.GetSize()) != len(tt.content) {
				t.Errorf("readme = %v, want %s %q", r.Readme, tt.path, tt.content)
			}
			assertCalls(t, e.hub, map[string]int{"GET /repos/{owner}/{repo}": 1, "GET /repos/{owner}/{repo}/readme": 1})
		})
	}
	t.Run("readme failure is an error", func(t *testing.T) {
		e.hub.SetFaults([]fakehub.Fault{{Method: "GET", Route: "/repos/{owner}/{repo}/readme", ErrorRate: 1, ErrorStatus: 403}})
		t.Cleanup(func() { e.hub.SetFaults(nil) })
		_, err := e.svc.Client.Fetch(ctx(t), &ghopsv1.FetchRequest{Repo: repo})
		wantStatus(t, err, codes.PermissionDenied, ghopsv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED)
	})
}

// TestMergeDeleteBranch merges with delete_branch: the head branch goes
// with one DELETE; a failed delete leaves the merge a success, reported by
// branch_deleted=false and a log line.
func TestMergeDeleteBranch(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, hub *fakehub.Hub)
		deleted bool
		status  string // logged status of the failed delete
	}{
		{name: "deleted", deleted: true},
		{name: "delete refused for a protected branch", status: `"status":422`, setup: func(t *testing.T, hub *fakehub.Hub) {
			if err := hub.ProtectBranch(repo, "feature/clean", nil); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "delete fails upstream", status: `"status":500`, setup: func(t *testing.T, hub *fakehub.Hub) {
			hub.SetFaults([]fakehub.Fault{{Method: "DELETE", Route: "/repos/{owner}/{repo}/git/refs/{ref}", ErrorRate: 1, ErrorStatus: 500}})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs lockedBuf
			e := start(t, fakehub.Config{}, servicetest.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
			if tt.setup != nil {
				tt.setup(t, e.hub)
			}
			head, _ := e.hub.BranchSHA(repo, "feature/clean")
			r, err := e.svc.Client.MergePullRequest(ctx(t), &ghopsv1.MergePullRequestRequest{Repo: repo, PrNumber: 1, Sha: ptr(head), DeleteBranch: ptr(true)})
			if err != nil {
				t.Fatalf("merge turned into an error: %v", err)
			}
			if !r.Merged || len(r.Sha) != 40 || r.BranchDeleted != tt.deleted {
				t.Errorf("got %v, want merged with branch_deleted=%v", r, tt.deleted)
			}
			main, _ := e.hub.BranchSHA(repo, "main")
			if main != r.Sha {
				t.Errorf("main = %s, merge sha %s", main, r.Sha)
			}
			_, berr := e.hub.BranchSHA(repo, "feature/clean")
			if gone := errors.Is(berr, fakehub.ErrRefNotFound); gone != tt.deleted {
				t.Errorf("branch gone = %v, want %v", gone, tt.deleted)
			}
			assertCalls(t, e.hub, map[string]int{
				"PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge": 1, "GET /repos/{owner}/{repo}/pulls/{pull_number}": 1,
				"DELETE /repos/{owner}/{repo}/git/refs/{ref}": 1,
			})
			out := logs.String()
			if logged := strings.Contains(out, "head branch not deleted after merge"); logged == tt.deleted {
				t.Errorf("failure logged = %v, want %v: %s", logged, !tt.deleted, out)
			}
			if tt.status != "" && !strings.Contains(out, tt.status) {
				t.Errorf("log lacks %s: %s", tt.status, out)
			}
			if strings.Contains(out, fakehub.DemoToken) {
				t.Errorf("token in log: %s", out)
			}
		})
	}
}

const (
	readToken  = "read-token"
	patchRoute = "PATCH /repos/{owner}/{repo}/pulls/{pull_number}"
	getRoute   = "GET /repos/{owner}/{repo}/pulls/{pull_number}"
	gqlRoute   = "POST /graphql"
)

// TestUpdateDraft changes draft through GraphQL (REST ignores it), only
// when it differs, and reports the state GitHub holds afterwards.
func TestUpdateDraft(t *testing.T) {
	demo := fakehub.Token{Value: fakehub.DemoToken, Login: "octocat", Repos: map[string]fakehub.Permission{repo: fakehub.PermWrite}}
	reader := fakehub.Token{Value: readToken, Login: "reader", Repos: map[string]fakehub.Permission{repo: fakehub.PermRead}}
	e := start(t, fakehub.Config{Tokens: []fakehub.Token{demo, reader}}, servicetest.Options{AllowCallerToken: true})
	steps := []struct {
		name         string
		req          *ghopsv1.UpdatePullRequestRequest
		token        string
		calls        map[string]int
		draft        bool
		state, title string
		code         codes.Code
		reason       ghopsv1.ErrorReason
	}{
		{name: "draft only", req: &ghopsv1.UpdatePullRequestRequest{Draft: ptr(true)}, calls: map[string]int{getRoute: 1, gqlRoute: 1}, draft: true, state: "open"},
		{name: "same draft is one read", req: &ghopsv1.UpdatePullRequestRequest{Draft: ptr(true)}, calls: map[string]int{getRoute: 1}, draft: true, state: "open"},
		{name: "title and ready", req: &ghopsv1.UpdatePullRequestRequest{Title: ptr("Ready now"), Draft: ptr(false)}, calls: map[string]int{patchRoute: 1, gqlRoute: 1}, state: "open", title: "Ready now"},
		{name: "read-only token is FORBIDDEN", token: readToken, req: &ghopsv1.UpdatePullRequestRequest{Draft: ptr(true)}, calls: map[string]int{getRoute: 1, gqlRoute: 1},
			code: codes.PermissionDenied, reason: ghopsv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED, state: "open"},
		{name: "close and draft: draft first", req: &ghopsv1.UpdatePullRequestRequest{State: ptr("closed"), Draft: ptr(true)}, calls: map[string]int{getRoute: 1, gqlRoute: 1, patchRoute: 1}, draft: true, state: "closed"},
		{name: "closed pull request refuses", req: &ghopsv1.UpdatePullRequestRequest{Draft: ptr(false)}, calls: map[string]int{getRoute: 1, gqlRoute: 1},
			code: codes.FailedPrecondition, reason: ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION, draft: true, state: "closed"},
		{name: "reopen and ready: reopen first", req: &ghopsv1.UpdatePullRequestRequest{State: ptr("open"), Draft: ptr(false)}, calls: map[string]int{patchRoute: 1, gqlRoute: 1}, state: "open"},
		{name: "without draft no GraphQL", req: &ghopsv1.UpdatePullRequestRequest{Body: ptr("b")}, calls: map[string]int{patchRoute: 1}, state: "open"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.req.Repo, st.req.PrNumber = repo, 1
			x := ctx(t)
			if st.token != "" {
				x = metadata.AppendToOutgoingContext(x, "x-github-token", st.token)
			}
			e.hub.ResetStats()
			r, err := e.svc.Client.UpdatePullRequest(x, st.req)
			assertCalls(t, e.hub, st.calls)
			if st.code != codes.OK {
				d := wantStatus(t, err, st.code, st.reason)
				if d.gh.GetStatus() != 200 || d.gh.GetMessage() == "" {
					t.Errorf("GitHubError = %v", d.gh)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if r.PullRequest.Draft != st.draft || r.PullRequest.State != st.state || (st.title != "" && r.PullRequest.Title != st.title) {
					t.Errorf("answer %v, want draft %v state %s", r.PullRequest, st.draft, st.state)
				}
			}
			// GitHub's own record agrees with the answer.
			e.hub.ResetStats()
			now, err := e.svc.Client.GetPrMergeability(ctx(t), &ghopsv1.GetPrMergeabilityRequest{Repo: repo, PrNumber: 1})
			if err != nil || now.Draft != st.draft || now.State != st.state {
				t.Errorf("pull request now draft %v state %s (%v), want %v %s", now.GetDraft(), now.GetState(), err, st.draft, st.state)
			}
		})
	}
}

// TestUpdateDraftTransport checks the GraphQL endpoint of the Enterprise
// layout and that the mutation is never retried.
func TestUpdateDraftTransport(t *testing.T) {
	t.Run("enterprise layout", func(t *testing.T) {
		hs := start(t, fakehub.Config{}, servicetest.Options{})
		svc := servicetest.Start(t, servicetest.Options{GitHubURL: hs.url + "api/v3/", Token: fakehub.DemoToken})
		hs.hub.ResetStats()
		r, err := svc.Client.UpdatePullRequest(ctx(t), &ghopsv1.UpdatePullRequestRequest{Repo: repo, PrNumber: 1, Draft: ptr(true)})
		if err != nil || !r.PullRequest.Draft {
			t.Fatalf("got %v, %v", r, err)
		}
		assertCalls(t, hs.hub, map[string]int{getRoute: 1, "POST /api/graphql": 1})
	})
	t.Run("502 is not retried", func(t *testing.T) {
		e := start(t, fakehub.Config{}, servicetest.Options{})
		e.hub.SetFaults([]fakehub.Fault{{Method: "POST", Route: "/graphql", ErrorRate: 1, ErrorStatus: 502}})
		_, err := e.svc.Client.UpdatePullRequest(ctx(t), &ghopsv1.UpdatePullRequestRequest{Repo: repo, PrNumber: 1, Draft: ptr(true)})
		wantStatus(t, err, codes.Unavailable, ghopsv1.ErrorReason_ERROR_REASON_UPSTREAM_UNAVAILABLE)
		assertCalls(t, e.hub, map[string]int{getRoute: 1, gqlRoute: 1})
	})
	t.Run("NOT_FOUND", func(t *testing.T) {
		s := startStub(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/graphql" {
				answer(200, nil, `{"data":{"convertPullRequestToDraft":null},"errors":[{"type":"NOT_FOUND","path":["convertPullRequestToDraft"],"message":"Could not resolve to a node with the global id of 'PR_x'."}]}`)(w, r)
				return
			}
			answer(200, nil, `{"number":1,"state":"open","draft":false,"node_id":"PR_x","base":{"repo":{"full_name":"octo-org/hello-world"}}}`)(w, r)
		})
		svc := servicetest.Start(t, servicetest.Options{GitHubURL: s.url, Token: "t"})
		_, err := svc.Client.UpdatePullRequest(ctx(t), &ghopsv1.UpdatePullRequestRequest{Repo: repo, PrNumber: 1, Draft: ptr(true)})
		d := wantStatus(t, err, codes.NotFound, ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND)
		if d.res.GetResourceName() != repo+"#1" || d.gh.GetStatus() != 200 || s.calls.Load() != 2 {
			t.Errorf("ResourceInfo %v GitHubError %v calls %d", d.res, d.gh, s.calls.Load())
		}
	})
}
