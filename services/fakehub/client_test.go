package fakehub_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
)

const (
	writer   = "writer-token"
	reader   = "reader-token"
	readOnly = "read-only-token"
)

func startHub(t *testing.T, cfg fakehub.Config) *fakehubtest.Server {
	t.Helper()
	cfg.Seed = "demo"
	cfg.Tokens = append(cfg.Tokens,
		fakehub.Token{Value: writer, Login: "writer", Repos: map[string]fakehub.Permission{"*": fakehub.PermWrite}},
		fakehub.Token{Value: readOnly, Login: "reader", Repos: map[string]fakehub.Permission{"octo-org/hello-world": fakehub.PermRead}},
	)
	return fakehubtest.Start(t, cfg)
}

func client(t *testing.T, s *fakehubtest.Server, token, prefix string) *github.Client {
	t.Helper()
	c := github.NewClient(&http.Client{Transport: checkingTransport{t: t, c: loadContract(t)}})
	if token != "" {
		c = c.WithAuthToken(token)
	}
	u := s.URL + prefix
	var err error
	if c, err = c.WithEnterpriseURLs(u, u); err != nil {
		t.Fatal(err)
	}
	c.BaseURL.Path = strings.TrimSuffix(c.BaseURL.Path, "api/v3/") // keep BaseURL at the API root itself
	if prefix != "" {
		c.BaseURL.Path = "/" + prefix
	}
	return c
}

func status(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) {
		return er.Response.StatusCode
	}
	return 0
}

func TestReadOperations(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	ctx := context.Background()
	for _, prefix := range []string{"", "api/v3/"} {
		gh := client(t, s, fakehub.DemoToken, prefix)
		t.Run("prefix="+prefix, func(t *testing.T) {
			tests := []struct {
				name string
				run  func(t *testing.T)
			}{
				{"get repo", func(t *testing.T) {
					r, _, err := gh.Repositories.Get(ctx, "octo-org", "hello-world")
					if err != nil || r.GetDefaultBranch() != "main" || r.GetLanguage() != "Go" || len(r.Topics) == 0 {
						t.Fatalf("repo %+v err %v", r, err)
					}
				}},
				{"contents root", func(t *testing.T) {
					_, dir, _, err := gh.Repositories.GetContents(ctx, "octo-org", "hello-world", "", nil)
					if err != nil || len(dir) < 4 {
						t.Fatalf("dir %d err %v", len(dir), err)
					}
				}},
				{"contents file", func(t *testing.T) {
					f, _, _, err := gh.Repositories.GetContents(ctx, "octo-org", "hello-world", "cmd/hello/main.go", &github.RepositoryContentGetOptions{Ref: "main"})
					if err != nil {
						t.Fatal(err)
					}
					text, err := f.GetContent()
					if err != nil || !strings.Contains(text, "package main") || f.GetEncoding() != "base64" {
						t.Fatalf("content %q err %v", text, err)
					}
					resp, err := http.Get(f.GetDownloadURL())
					if err != nil || resp.StatusCode != 200 {
						t.Fatalf("download %v %v", resp, err)
					}
					resp.Body.Close()
				}},
				{"tree recursive by branch", func(t *testing.T) {
					tr, _, err := gh.Git.GetTree(ctx, "octo-org", "hello-world", "main", true)
					if err != nil || tr.GetTruncated() {
						t.Fatal(err)
					}
					found := false
					for _, e := range tr.Entries {
						found = found || e.GetPath() == "internal/greet/greet.go"
					}
					if !found {
						t.Fatalf("greet.go missing from %d entries", len(tr.Entries))
					}
				}},
				{"commits with path and paging", func(t *testing.T) {
					cs, resp, err := gh.Repositories.ListCommits(ctx, "octo-org", "hello-world", &github.CommitsListOptions{SHA: "main", ListOptions: github.ListOptions{PerPage: 1}})
					if err != nil || len(cs) != 1 || resp.NextPage != 2 || resp.LastPage != 3 {
						t.Fatalf("commits %d next %d last %d err %v", len(cs), resp.NextPage, resp.LastPage, err)
					}
					cs, _, err = gh.Repositories.ListCommits(ctx, "octo-org", "hello-world", &github.CommitsListOptions{Path: "internal/greet/greet.go"})
					if err != nil || len(cs) != 2 {
						t.Fatalf("path commits %d err %v", len(cs), err)
					}
				}},
				{"branches", func(t *testing.T) {
					bs, _, err := gh.Repositories.ListBranches(ctx, "octo-org", "hello-world", nil)
					if err != nil || len(bs) != 4 {
						t.Fatalf("branches %d err %v", len(bs), err)
					}
					b, _, err := gh.Repositories.GetBranch(ctx, "octo-org", "hello-world", "feature/clean", 0)
					if err != nil || b.GetName() != "feature/clean" {
						t.Fatalf("branch %v err %v", b, err)
					}
				}},
				{"pulls list head filter", func(t *testing.T) {
					ps, _, err := gh.PullRequests.List(ctx, "octo-org", "hello-world", &github.PullRequestListOptions{Head: "octo-org:feature/clean"})
					if err != nil || len(ps) != 1 || ps[0].GetNumber() != 1 {
						t.Fatalf("pulls %v err %v", ps, err)
					}
				}},
				{"seeded mergeability", func(t *testing.T) {
					p1, _, err := gh.PullRequests.Get(ctx, "octo-org", "hello-world", 1)
					if err != nil || !p1.GetMergeable() || p1.GetMergeableState() != "clean" {
						t.Fatalf("pr1 %v %q err %v", p1.Mergeable, p1.GetMergeableState(), err)
					}
					p2, _, err := gh.PullRequests.Get(ctx, "octo-org", "hello-world", 2)
					if err != nil || p2.Mergeable == nil || *p2.Mergeable || p2.GetMergeableState() != "dirty" {
						t.Fatalf("pr2 %v %q err %v", p2.Mergeable, p2.GetMergeableState(), err)
					}
				}},
				{"check runs slash ref", func(t *testing.T) {
					cr, _, err := gh.Checks.ListCheckRunsForRef(ctx, "octo-org", "hello-world", "feature/clean", nil)
					if err != nil || cr.GetTotal() != 1 || cr.CheckRuns[0].GetConclusion() != "success" || cr.CheckRuns[0].GetName() != "ci/build" {
						t.Fatalf("check runs %v err %v", cr, err)
					}
				}},
				{"combined status", func(t *testing.T) {
					st, _, err := gh.Repositories.GetCombinedStatus(ctx, "octo-org", "hello-world", "feature/clean", nil)
					if err != nil || st.GetState() != "pending" {
						t.Fatalf("status %v err %v", st, err)
					}
				}},
				{"git ref slash", func(t *testing.T) {
					ref, _, err := gh.Git.GetRef(ctx, "octo-org", "hello-world", "heads/feature/clean")
					if err != nil || ref.GetRef() != "refs/heads/feature/clean" {
						t.Fatalf("ref %v err %v", ref, err)
					}
				}},
				{"search repositories", func(t *testing.T) {
					res, _, err := gh.Search.Repositories(ctx, "hello in:name user:octo-org language:Go", nil)
					if err != nil || res.GetTotal() != 1 {
						t.Fatalf("search %v err %v", res, err)
					}
				}},
				{"search code", func(t *testing.T) {
					res, _, err := gh.Search.Code(ctx, "greet.Hello repo:octo-org/hello-world", nil)
					if err != nil || res.GetTotal() != 1 || res.CodeResults[0].GetPath() != "cmd/hello/main.go" {
						t.Fatalf("code %v err %v", res, err)
					}
				}},
				{"rate limit", func(t *testing.T) {
					rl, _, err := gh.RateLimit.Get(ctx)
					if err != nil || rl.GetCore().Limit != 5000 || rl.GetSearch().Limit != 30 {
						t.Fatalf("rate %v err %v", rl, err)
					}
				}},
			}
			for _, tc := range tests {
				t.Run(tc.name, tc.run)
			}
		})
	}
}

func TestFailures(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	ctx := context.Background()
	demo := client(t, s, fakehub.DemoToken, "")
	anon := client(t, s, "", "")
	bad := client(t, s, "nope", "")
	ro := client(t, s, readOnly, "")
	tests := []struct {
		name   string
		call   func() error
		status int
		msg    string
	}{
		{"bad credentials", func() error { _, _, err := bad.Repositories.Get(ctx, "octo-org", "hello-world"); return err }, 401, "Bad credentials"},
		{"mutation needs auth", func() error {
			_, _, err := anon.Git.CreateBlob(ctx, "octo-org", "hello-world", &github.Blob{Content: github.String("x")})
			return err
		}, 401, "Requires authentication"},
		{"private repo is 404", func() error { _, _, err := demo.Repositories.Get(ctx, "octo-org", "secret"); return err }, 404, "Not Found"},
		{"no write permission", func() error {
			_, _, err := ro.Git.CreateBlob(ctx, "octo-org", "hello-world", &github.Blob{Content: github.String("x")})
			return err
		}, 403, "Resource not accessible by personal access token"},
		{"no commits between", func() error {
			_, _, err := demo.PullRequests.Create(ctx, "octo-org", "hello-world", &github.NewPullRequest{Title: github.String("x"), Head: github.String("main"), Base: github.String("feature/clean")})
			return err
		}, 422, "No commits between feature/clean and main"},
		{"pull already exists", func() error {
			_, _, err := demo.PullRequests.Create(ctx, "octo-org", "hello-world", &github.NewPullRequest{Title: github.String("x"), Head: github.String("octo-org:feature/clean"), Base: github.String("main")})
			return err
		}, 422, "A pull request already exists for octo-org:feature/clean."},
		{"not mergeable", func() error {
			_, _, err := demo.PullRequests.Merge(ctx, "octo-org", "hello-world", 2, "", nil)
			return err
		}, 405, "Pull Request is not mergeable"},
		{"stale sha", func() error {
			_, _, err := demo.PullRequests.Merge(ctx, "octo-org", "hello-world", 1, "", &github.PullRequestOptions{SHA: strings.Repeat("0", 40)})
			return err
		}, 409, "Head branch was modified. Review and try the merge again."},
		{"empty repository", func() error {
			_, _, err := demo.Repositories.ListCommits(ctx, "octo-org", "empty", nil)
			return err
		}, 409, "Git Repository is empty."},
		{"not a fast forward", func() error {
			conflict, _, err := demo.Git.GetRef(ctx, "octo-org", "hello-world", "heads/feature/conflict")
			if err != nil {
				return err
			}
			_, _, err = demo.Git.UpdateRef(ctx, "octo-org", "hello-world", &github.Reference{Ref: github.String("refs/heads/main"), Object: &github.GitObject{SHA: conflict.Object.SHA}}, false)
			return err
		}, 422, "Update is not a fast forward"},
		{"search too long", func() error {
			_, _, err := demo.Search.Repositories(ctx, strings.Repeat("a", 257), nil)
			return err
		}, 422, "The search is longer than 256 characters."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var er *github.ErrorResponse
			if !errors.As(err, &er) {
				t.Fatalf("err = %v (%T), want *github.ErrorResponse", err, err)
			}
			if er.Response.StatusCode != tc.status {
				t.Fatalf("status %d, want %d (%v)", er.Response.StatusCode, tc.status, err)
			}
			got := er.Message
			if tc.status == 422 && len(er.Errors) > 0 && er.Errors[0].Message != "" {
				got = er.Errors[0].Message
			}
			if got != tc.msg {
				t.Fatalf("message %q, want %q", got, tc.msg)
			}
		})
	}
}

func TestRateLimits(t *testing.T) {
	t.Run("primary", func(t *testing.T) {
		s := startHub(t, fakehub.Config{CoreLimit: 2})
		gh := client(t, s, writer, "")
		ctx := context.Background()
		for i := 0; i < 2; i++ {
			if _, _, err := gh.Repositories.Get(ctx, "octo-org", "hello-world"); err != nil {
				t.Fatal(err)
			}
		}
		// A fresh client: go-github blocks locally once it has seen remaining 0.
		_, resp, err := client(t, s, writer, "").Repositories.Get(ctx, "octo-org", "hello-world")
		var rl *github.RateLimitError
		if !errors.As(err, &rl) || !strings.HasPrefix(rl.Message, "API rate limit exceeded for user ID 2.") || resp.Rate.Remaining != 0 {
			t.Fatalf("err = %v (%T)", err, err)
		}
		if st := s.Hub.Stats(); st.RateUnits["core"] != 2 || st.ByStatus[403] != 1 {
			t.Fatalf("stats %+v", st)
		}
	})
	t.Run("secondary fault", func(t *testing.T) {
		s := startHub(t, fakehub.Config{Faults: []fakehub.Fault{{Method: "GET", Route: "/repos/{owner}/{repo}", RateLimit: "secondary", RetryAfter: 42, Count: 1}}})
		gh := client(t, s, writer, "")
		_, _, err := gh.Repositories.Get(context.Background(), "octo-org", "hello-world")
		var ab *github.AbuseRateLimitError
		if !errors.As(err, &ab) || ab.RetryAfter == nil || *ab.RetryAfter != 42*time.Second {
			t.Fatalf("err = %v (%T)", err, err)
		}
		// A fresh client: go-github waits out retry-after locally.
		if _, _, err := client(t, s, writer, "").Repositories.Get(context.Background(), "octo-org", "hello-world"); err != nil {
			t.Fatalf("fault should fire once: %v", err)
		}
	})
	t.Run("etag 304 not counted", func(t *testing.T) {
		s := startHub(t, fakehub.Config{})
		req, _ := http.NewRequest("GET", s.URL+"repos/octo-org/hello-world", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		etag := resp.Header.Get("ETag")
		req.Header.Set("If-None-Match", etag)
		resp2, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp2.Body.Close()
		if etag == "" || resp2.StatusCode != 304 || resp2.Header.Get("X-RateLimit-Used") != "1" {
			t.Fatalf("etag %q status %d used %q", etag, resp2.StatusCode, resp2.Header.Get("X-RateLimit-Used"))
		}
		if st := s.Hub.Stats(); st.RateUnits["core"] != 1 || st.ByRoute["GET /repos/{owner}/{repo}"] != 2 {
			t.Fatalf("stats %+v", st)
		}
	})
}

func TestMergeMethods(t *testing.T) {
	ctx := context.Background()
	for _, method := range []string{"merge", "squash", "rebase"} {
		t.Run(method, func(t *testing.T) {
			s := startHub(t, fakehub.Config{})
			gh := client(t, s, fakehub.DemoToken, "")
			pr, _, err := gh.PullRequests.Get(ctx, "octo-org", "hello-world", 1)
			if err != nil {
				t.Fatal(err)
			}
			res, _, err := gh.PullRequests.Merge(ctx, "octo-org", "hello-world", 1, "", &github.PullRequestOptions{MergeMethod: method, SHA: pr.GetHead().GetSHA()})
			if err != nil || !res.GetMerged() {
				t.Fatalf("merge %v err %v", res, err)
			}
			main, _ := s.Hub.BranchSHA("octo-org/hello-world", "main")
			if main != res.GetSHA() {
				t.Fatalf("main %s, merge sha %s", main, res.GetSHA())
			}
			c, _, err := gh.Git.GetCommit(ctx, "octo-org", "hello-world", main)
			if err != nil {
				t.Fatal(err)
			}
			wantParents := map[string]int{"merge": 2, "squash": 1, "rebase": 1}[method]
			if len(c.Parents) != wantParents {
				t.Fatalf("parents %d, want %d", len(c.Parents), wantParents)
			}
			f, _, _, err := gh.Repositories.GetContents(ctx, "octo-org", "hello-world", "docs/guide.md", nil)
			if err != nil {
				t.Fatal(err)
			}
			text, _ := f.GetContent()
			if !strings.Contains(text, "## Packages") {
				t.Fatalf("merged content lacks the head change: %q", text)
			}
			merged, _, err := gh.PullRequests.IsMerged(ctx, "octo-org", "hello-world", 1)
			if err != nil || !merged {
				t.Fatalf("IsMerged %v %v", merged, err)
			}
			notMerged, _, err := gh.PullRequests.IsMerged(ctx, "octo-org", "hello-world", 2)
			if err != nil || notMerged {
				t.Fatalf("IsMerged(2) %v %v", notMerged, err)
			}
		})
	}
}

func TestGitDataAndMergeability(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	gh := client(t, s, fakehub.DemoToken, "")
	ctx := context.Background()
	const o, r = "octo-org", "hello-world"
	main, _, err := gh.Git.GetRef(ctx, o, r, "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	base, _, err := gh.Git.GetCommit(ctx, o, r, main.Object.GetSHA())
	if err != nil {
		t.Fatal(err)
	}
	b64, _, err := gh.Git.CreateBlob(ctx, o, r, &github.Blob{Content: github.String("aGVsbG8K"), Encoding: github.String("base64")})
	if err != nil {
		t.Fatal(err)
	}
	if b64.GetSHA() != "ce013625030ba8dba906f756967f9e9ca394464a" { // git hash-object of "hello\n"
		t.Fatalf("blob sha %s", b64.GetSHA())
	}
	blob, _, err := gh.Git.GetBlob(ctx, o, r, b64.GetSHA())
	if err != nil || blob.GetSize() != 6 {
		t.Fatalf("blob %v err %v", blob, err)
	}
	tree, _, err := gh.Git.CreateTree(ctx, o, r, base.Tree.GetSHA(), []*github.TreeEntry{
		{Path: github.String("docs/extra.md"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("extra\n")},
		{Path: github.String("hello.txt"), Mode: github.String("100644"), Type: github.String("blob"), SHA: b64.SHA},
		{Path: github.String("go.mod"), Mode: github.String("100644"), Type: github.String("blob")}, // SHA nil: delete
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tree.Entries {
		if e.GetPath() == "go.mod" {
			t.Fatal("go.mod was not deleted")
		}
	}
	commit, _, err := gh.Git.CreateCommit(ctx, o, r, &github.Commit{Message: github.String("API commit"), Tree: &github.Tree{SHA: tree.SHA}, Parents: []*github.Commit{{SHA: base.SHA}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Git.CreateRef(ctx, o, r, &github.Reference{Ref: github.String("refs/heads/feature/api"), Object: &github.GitObject{SHA: commit.SHA}}); err != nil {
		t.Fatal(err)
	}
	pr, _, err := gh.PullRequests.Create(ctx, o, r, &github.NewPullRequest{Title: github.String("API"), Head: github.String("feature/api"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name      string
		mergeable *bool
		state     string
	}{
		{"first read is null", nil, "unknown"},
		{"second read is computed", github.Bool(true), "clean"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			got, _, err := gh.PullRequests.Get(ctx, o, r, pr.GetNumber())
			if err != nil {
				t.Fatal(err)
			}
			if (got.Mergeable == nil) != (st.mergeable == nil) || (st.mergeable != nil && *got.Mergeable != *st.mergeable) || got.GetMergeableState() != st.state {
				t.Fatalf("mergeable %v state %q, want %v %q", got.Mergeable, got.GetMergeableState(), st.mergeable, st.state)
			}
		})
	}
	if _, _, err := gh.Git.UpdateRef(ctx, o, r, &github.Reference{Ref: github.String("refs/heads/main"), Object: &github.GitObject{SHA: commit.SHA}}, false); err != nil {
		t.Fatalf("fast-forward: %v", err)
	}
	if got, _, _ := gh.PullRequests.Get(ctx, o, r, 2); got.Mergeable != nil {
		t.Fatalf("after base moved mergeable should be null, got %v", *got.Mergeable)
	}
	upd, _, err := gh.PullRequests.Edit(ctx, o, r, 2, &github.PullRequest{Title: github.String("Renamed"), State: github.String("closed")})
	if err != nil || upd.GetTitle() != "Renamed" || upd.GetState() != "closed" {
		t.Fatalf("edit %v err %v", upd, err)
	}
}
