package server

import (
	"context"
	"net/url"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/internal/ghstatus"
	"ghops.dev/services/github/internal/jsonmemo"
	"ghops.dev/services/github/internal/ops"
)

// commitsAsGoGithub is the get_commits answer as the service built it from
// go-github's Repositories.ListCommits before it decoded through the memo:
// the reference the memoized path must match byte for byte.
func commitsAsGoGithub(list []*github.RepositoryCommit, resp *github.Response, page, perPage int32) *ghopsv1.GetCommitsResponse {
	out := &ghopsv1.GetCommitsResponse{Page: &ghopsv1.PageInfo{Page: page, PerPage: perPage, HasNext: resp.NextPage != 0}}
	for _, rc := range list {
		cm := &ghopsv1.Commit{Sha: rc.GetSHA(), Message: rc.GetCommit().GetMessage(), Author: rc.GetAuthor().GetLogin()}
		if cm.Author == "" {
			cm.Author = rc.GetCommit().GetAuthor().GetName()
		}
		if d := rc.GetCommit().GetAuthor().Date; d != nil && !d.IsZero() {
			cm.Date = timestamppb.New(d.Time)
		}
		for _, par := range rc.Parents {
			cm.Parents = append(cm.Parents, par.GetSHA())
		}
		out.Commits = append(out.Commits, cm)
	}
	return out
}

// commitsErrorAsGoGithub is the error get_commits gave for go-github's
// error err: ghstatus's mapping with the context the tool builds (sha wins
// over branch; the resource is the ref asked for).
func commitsErrorAsGoGithub(err error, req *ghopsv1.GetCommitsRequest) error {
	from, typ := req.GetSha(), "ref"
	if from == "" {
		from = req.GetBranch()
	}
	if req.Sha == nil && req.Branch != nil {
		typ = "branch"
	}
	id := req.GetRepo()
	if from != "" {
		id += "@" + from
	}
	return ghstatus.FromError(err, ghstatus.Context{Tool: "get_commits", Repo: req.GetRepo(), SHA: req.GetSha(), Resource: &ghopsv1.Resource{Type: typ, Id: id}})
}

// comparable is st as a message to compare byte for byte: its details
// marshaled deterministically (the metadata maps of ErrorInfo come in any
// order) and the rate limit left out of its GitHub error (the remaining
// budget GitHub reports drops with every request, so two answers to the
// same refusal differ there and nowhere else).
func comparable(t *testing.T, st *status.Status) proto.Message {
	t.Helper()
	p := st.Proto()
	for i, d := range p.GetDetails() {
		m, err := d.UnmarshalNew()
		if err != nil {
			t.Fatal(err)
		}
		if gh, ok := m.(*ghopsv1.GitHubError); ok {
			gh.RateLimit = nil
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		p.Details[i] = &anypb.Any{TypeUrl: d.GetTypeUrl(), Value: b}
	}
	return p
}

// TestCommitsAsGoGithub pins get_commits' decoding through the memo to what
// go-github's Repositories.ListCommits gave. The service's handlers run over
// a recording proxy in front of fakehub, without the HTTP cache in between
// (the cache addresses a branch read by its head SHA, so the request
// reaching GitHub is no longer the handler's). For each query: the
// handler's request is go-github's (method, path and query, Accept), one
// per call; both answers of two calls marshal to the same bytes as the
// answer built from go-github's decode of the same body (that the memo
// serves a repeated call is TestReadsDecodeOnce's part); GitHub's refusals (a missing branch or SHA, an empty or
// missing repository) map to the same status as go-github's error did.
func TestCommitsAsGoGithub(t *testing.T) {
	hs := fakehubtest.Start(t, fakehub.Config{Seed: "demo", CoreLimit: 1 << 30})
	rec := &recorder{}
	base, err := url.Parse(rec.start(t, hs.URL))
	if err != nil {
		t.Fatal(err)
	}
	gh := github.NewClient(nil).WithAuthToken(fakehub.DemoToken)
	gh.BaseURL = base
	svc := ops.New(func(context.Context) *github.Client { return gh }, ops.Limits{}, nil).WithMemo(jsonmemo.New(1 << 20))
	ctx := context.Background()
	head, _, err := gh.Repositories.ListCommits(ctx, "octo-org", "hello-world", &github.CommitsListOptions{SHA: "feature/clean", ListOptions: github.ListOptions{PerPage: 1}})
	if err != nil || len(head) != 1 {
		t.Fatalf("head of feature/clean: %v, %v", head, err)
	}
	sha := head[0].GetSHA()
	str := func(s string) *string { return &s }
	tests := []struct {
		name          string
		repo          string
		branch, sha   *string
		page, perPage int32
		minCommits    int
		wantErr       bool
	}{
		{name: "default branch", repo: benchRepo, page: 1, perPage: 30, minCommits: 2},
		{name: "branch", repo: benchRepo, branch: str("feature/clean"), page: 1, perPage: 30, minCommits: 2},
		{name: "sha", repo: benchRepo, sha: &sha, page: 1, perPage: 30, minCommits: 2},
		{name: "sha wins over branch", repo: benchRepo, branch: str("main"), sha: &sha, page: 1, perPage: 30, minCommits: 2},
		{name: "first page of one", repo: benchRepo, page: 1, perPage: 1, minCommits: 1},
		{name: "second page of one", repo: benchRepo, page: 2, perPage: 1, minCommits: 1},
		{name: "page of two from a branch", repo: benchRepo, branch: str("feature/clean"), page: 1, perPage: 2, minCommits: 2},
		{name: "past the last page", repo: benchRepo, page: 99, perPage: 30},
		{name: "missing branch", repo: benchRepo, branch: str("no-such-branch"), page: 1, perPage: 30, wantErr: true},
		{name: "missing sha", repo: benchRepo, sha: str("0123456789abcdef0123456789abcdef01234567"), page: 1, perPage: 30, wantErr: true},
		{name: "empty repository", repo: "octo-org/empty", page: 1, perPage: 30, wantErr: true},
		{name: "missing repository", repo: "octo-org/no-such-repo", page: 1, perPage: 30, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &ghopsv1.GetCommitsRequest{Repo: tt.repo, Branch: tt.branch, Sha: tt.sha, Page: &tt.page, PerPage: &tt.perPage}
			from := req.GetSha()
			if from == "" {
				from = req.GetBranch()
			}
			owner, name, _ := strings.Cut(tt.repo, "/")
			list, resp, ghErr := gh.Repositories.ListCommits(ctx, owner, name, &github.CommitsListOptions{SHA: from, ListOptions: github.ListOptions{Page: int(tt.page), PerPage: int(tt.perPage)}})
			want := rec.last(t)
			if (ghErr != nil) != tt.wantErr {
				t.Fatalf("go-github's error %v, want one: %v", ghErr, tt.wantErr)
			}
			var wantMsg proto.Message
			if ghErr != nil {
				wantMsg = comparable(t, status.Convert(commitsErrorAsGoGithub(ghErr, req)))
			} else {
				if len(list) < tt.minCommits {
					t.Fatalf("go-github listed %d commits, want at least %d", len(list), tt.minCommits)
				}
				wantMsg = commitsAsGoGithub(list, resp, tt.page, tt.perPage)
			}
			wantBytes, err := proto.MarshalOptions{Deterministic: true}.Marshal(wantMsg)
			if err != nil {
				t.Fatal(err)
			}
			for _, call := range []string{"first", "second"} {
				before := rec.count()
				got, err := svc.GetCommits(ctx, req)
				if n := rec.count() - before; n != 1 {
					t.Errorf("%s call: %d GitHub requests, want 1", call, n)
				}
				if r := rec.last(t); r != want {
					t.Errorf("%s call: request %+v, want go-github's %+v", call, r, want)
				}
				var gotMsg proto.Message = got
				if tt.wantErr {
					if err == nil {
						t.Fatalf("%s call: answer %v, want an error", call, got)
					}
					gotMsg = comparable(t, status.Convert(err))
				} else if err != nil {
					t.Fatalf("%s call: %v", call, err)
				}
				gotBytes, err := proto.MarshalOptions{Deterministic: true}.Marshal(gotMsg)
				if err != nil {
					t.Fatal(err)
				}
				if string(gotBytes) != string(wantBytes) {
					t.Errorf("%s call: answer differs from go-github's:\n%v\nwant\n%v", call, gotMsg, wantMsg)
				}
			}
		})
	}
}
