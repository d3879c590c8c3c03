package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/github/internal/config"
)

// seen is what a request to GitHub was, as far as GitHub's answer depends
// on it (the cache's conditional headers aside).
type seen struct {
	method, uri, accept string
}

// recorder is a reverse proxy on 127.0.0.1 in front of fakehub that notes
// every request it forwards.
type recorder struct {
	mu   sync.Mutex
	reqs []seen
}

// count is how many requests the recorder forwarded.
func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

func (r *recorder) last(t *testing.T) seen {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs) == 0 {
		t.Fatal("no request reached GitHub")
	}
	return r.reqs[len(r.reqs)-1]
}

// start puts a recording proxy in front of target and returns its URL, an
// API root as the configuration wants it.
func (r *recorder) start(t testing.TB, target string) string {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.reqs = append(r.reqs, seen{req.Method, req.URL.RequestURI(), req.Header.Get("Accept")})
		r.mu.Unlock()
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// searchAsGoGithub is the search answer as the service built it from
// go-github's Search.Repositories before it decoded through the memo: the
// reference the memoized path must match byte for byte.
func searchAsGoGithub(res *github.RepositoriesSearchResult, resp *github.Response, page, perPage int32) *ghopsv1.SearchResponse {
	tsOf := func(t *github.Timestamp) *timestamppb.Timestamp {
		if t == nil || t.IsZero() {
			return nil
		}
		return timestamppb.New(t.Time)
	}
	out := &ghopsv1.SearchResponse{TotalCount: int32(res.GetTotal()), IncompleteResults: res.GetIncompleteResults(),
		Page: &ghopsv1.PageInfo{Page: page, PerPage: perPage, HasNext: resp.NextPage != 0}}
	for _, r := range res.Repositories {
		vis := r.GetVisibility()
		if vis == "" {
			vis = "public"
			if r.GetPrivate() {
				vis = "private"
			}
		}
		out.Repositories = append(out.Repositories, &ghopsv1.RepositorySummary{
			FullName: r.GetFullName(), Description: r.GetDescription(), Language: r.GetLanguage(),
			Stars: int32(r.GetStargazersCount()), Forks: int32(r.GetForksCount()), Visibility: vis,
			DefaultBranch: r.GetDefaultBranch(), Archived: r.GetArchived(), Fork: r.GetFork(), Topics: r.Topics,
			UpdatedAt: tsOf(r.UpdatedAt),
		})
	}
	return out
}

// TestSearchAsGoGithub pins search's decoding through the memo to what
// go-github's Search.Repositories gave: for each query, the service's
// request to GitHub is go-github's (method, path and query, Accept), one
// per call, and both the first answer (decoded) and the second (a 304, from
// the memo) marshal to the same bytes as the answer built from go-github's
// decode of the same body.
func TestSearchAsGoGithub(t *testing.T) {
	rec := &recorder{}
	e := startBench(t, func(c *config.Config) { c.GitHubURL = rec.start(t, c.GitHubURL) })
	base, err := url.Parse(e.srv.cfg.GitHubURL)
	if err != nil {
		t.Fatal(err)
	}
	gh := github.NewClient(nil).WithAuthToken(fakehub.DemoToken)
	gh.BaseURL = base
	tests := []struct {
		name          string
		query         string
		page, perPage int32
		minHits       int
	}{
		{name: "words", query: "hello", page: 1, perPage: 5, minHits: 1},
		{name: "topic", query: "ghops", page: 1, perPage: 30, minHits: 1},
		{name: "qualifier", query: "user:octo-org", page: 1, perPage: 30, minHits: 1},
		{name: "second page", query: "user:octo-org", page: 2, perPage: 1, minHits: 1},
		{name: "no hit", query: "no-such-repository-anywhere", page: 1, perPage: 30},
		{name: "query to escape", query: "hello in:name,description &=?", page: 1, perPage: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			res, resp, err := gh.Search.Repositories(ctx, tt.query, &github.SearchOptions{ListOptions: github.ListOptions{Page: int(tt.page), PerPage: int(tt.perPage)}})
			if err != nil {
				t.Fatal(err)
			}
			want := rec.last(t)
			if len(res.Repositories) < tt.minHits {
				t.Fatalf("go-github found %d repositories, want at least %d", len(res.Repositories), tt.minHits)
			}
			wantBytes, err := proto.MarshalOptions{Deterministic: true}.Marshal(searchAsGoGithub(res, resp, tt.page, tt.perPage))
			if err != nil {
				t.Fatal(err)
			}
			for _, call := range []string{"first", "second"} {
				before := e.hub.Stats().Total
				got, err := e.client.Search(ctx, &ghopsv1.SearchRequest{Query: tt.query, Page: &tt.page, PerPage: &tt.perPage})
				if err != nil {
					t.Fatalf("%s call: %v", call, err)
				}
				if n := e.hub.Stats().Total - before; n != 1 {
					t.Errorf("%s call: %d GitHub requests, want 1", call, n)
				}
				if r := rec.last(t); r != want {
					t.Errorf("%s call: request %+v, want go-github's %+v", call, r, want)
				}
				gotBytes, err := proto.MarshalOptions{Deterministic: true}.Marshal(got)
				if err != nil {
					t.Fatal(err)
				}
				if string(gotBytes) != string(wantBytes) {
					t.Errorf("%s call: answer differs from go-github's:\n%v\nwant\n%v", call, got, searchAsGoGithub(res, resp, tt.page, tt.perPage))
				}
			}
		})
	}
}
