package httpcache_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"

	"ghops.dev/infra/redisconn"
	"ghops.dev/infra/redistest"
	"ghops.dev/services/github/internal/cachestore"
	"ghops.dev/services/github/internal/httpcache"
)

const repo = "octo-org/hello-world"

type lookups struct {
	mu sync.Mutex
	n  map[string]int
}

func (l *lookups) hook(tier, outcome string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = map[string]int{}
	}
	l.n[tier+"/"+outcome]++
}

func (l *lookups) get(k string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[k]
}

// read GETs path (relative to the API root) through tr as the demo token
// and returns the status and body.
func read(t *testing.T, tr http.RoundTripper, root, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", root+path, nil)
	req.Header.Set("Authorization", "token "+fakehub.DemoToken)
	req.Header.Set("Accept", "application/vnd.github.v3+json")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func content(t *testing.T, body string) string {
	t.Helper()
	var f struct {
		SHA string `json:"sha"`
	}
	if err := json.Unmarshal([]byte(body), &f); err != nil {
		t.Fatalf("not a contents answer: %s", body)
	}
	return f.SHA
}

func TestImmutableAndBranchReads(t *testing.T) {
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	srv := redistest.Start(t)
	shared := func() httpcache.Option {
		conn, err := redisconn.Dial(srv.URL, redisconn.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		return httpcache.WithShared(cachestore.NewRedis(conn, cachestore.RedisOptions{}))
	}
	var la, lb lookups
	a := httpcache.New(nil, 100, 1<<20, shared(), httpcache.WithLookupHook(la.hook))
	b := httpcache.New(nil, 100, 1<<20, shared(), httpcache.WithLookupHook(lb.hook))
	head, err := hub.Hub.BranchSHA(repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	requests := func() int { return hub.Hub.Stats().Total }
	bySHA := "repos/" + repo + "/contents/README.md?ref=" + head
	steps := []struct {
		name         string
		tr           http.RoundTripper
		path         string
		wantRequests int
		check        func(t *testing.T)
	}{
		{name: "a SHA read asks GitHub once", tr: a, path: bySHA, wantRequests: 1},
		{name: "then costs nothing on the same replica", tr: a, path: bySHA, wantRequests: 0,
			check: func(t *testing.T) {
				if la.get("lru/hit") != 1 {
					t.Errorf("lookups %v", la.n)
				}
			}},
		{name: "and nothing on another replica (Redis)", tr: b, path: bySHA, wantRequests: 0,
			check: func(t *testing.T) {
				if lb.get("redis/hit") != 1 {
					t.Errorf("lookups %v", lb.n)
				}
			}},
		{name: "a tree by SHA likewise", tr: a, path: "repos/" + repo + "/git/trees/" + head + "?recursive=1", wantRequests: 1},
		{name: "a tree by SHA on the other replica", tr: b, path: "repos/" + repo + "/git/trees/" + head + "?recursive=1", wantRequests: 0},
		{name: "a cold branch read goes as it is: one request", tr: b, path: "repos/" + repo + "/contents/README.md?ref=main", wantRequests: 1},
		{name: "asked again it is conditional (a 304)", tr: b, path: "repos/" + repo + "/contents/README.md?ref=main", wantRequests: 1,
			check: func(t *testing.T) {
				if lb.get("lru/revalidated") < 1 {
					t.Errorf("lookups %v", lb.n)
				}
			}},
		{name: "the default branch too", tr: a, path: "repos/" + repo + "/contents/README.md", wantRequests: 1},
		{name: "check runs by SHA are not immutable", tr: a, path: "repos/" + repo + "/commits/" + head + "/check-runs", wantRequests: 1},
		{name: "and asked again each time", tr: a, path: "repos/" + repo + "/commits/" + head + "/check-runs", wantRequests: 1},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			before := requests()
			status, _ := read(t, s.tr, hub.URL, s.path)
			if status != 200 || requests()-before != s.wantRequests {
				t.Errorf("status %d, GitHub requests %d, want %d", status, requests()-before, s.wantRequests)
			}
			if s.check != nil {
				s.check(t)
			}
		})
	}
	t.Run("a branch read after the branch moved reads the new content", func(t *testing.T) {
		newHead, err := hub.Hub.Commit(repo, "main", "change readme", map[string]string{"README.md": "changed\n"})
		if err != nil {
			t.Fatal(err)
		}
		_, body := read(t, a, hub.URL, "repos/"+repo+"/contents/README.md?ref=main")
		_, byNew := read(t, a, hub.URL, "repos/"+repo+"/contents/README.md?ref="+newHead)
		_, byOld := read(t, a, hub.URL, bySHA)
		if content(t, body) != content(t, byNew) || content(t, body) == content(t, byOld) {
			t.Errorf("branch read %s, new %s, old %s", content(t, body), content(t, byNew), content(t, byOld))
		}
	})
	t.Run("a branch that does not exist is GitHub's own 404", func(t *testing.T) {
		status, body := read(t, a, hub.URL, "repos/"+repo+"/contents/README.md?ref=no-such-branch")
		if status != 404 || !strings.Contains(body, "message") {
			t.Errorf("%d %s", status, body)
		}
	})
}

func TestSingleflight(t *testing.T) {
	var hits atomic.Int32
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		<-release
		w.Header().Set("ETag", `"x"`)
		_, _ = io.WriteString(w, "answer for "+r.Header.Get("Authorization"))
	}))
	t.Cleanup(ts.Close)
	tr := httpcache.New(nil, 100, 1<<20)
	tests := []struct {
		name     string
		tokens   []string
		wantHits int32
	}{
		{name: "eight identical reads are one request", tokens: []string{"a", "a", "a", "a", "a", "a", "a", "a"}, wantHits: 1},
		{name: "two tokens are two requests", tokens: []string{"b", "c", "b", "c"}, wantHits: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits.Store(0)
			release = make(chan struct{})
			var wg sync.WaitGroup
			bodies := make([]string, len(tt.tokens))
			for i, tok := range tt.tokens {
				wg.Add(1)
				go func() {
					defer wg.Done()
					req, _ := http.NewRequestWithContext(context.Background(), "GET", ts.URL+"/repos/o/r/pulls?tt="+url.QueryEscape(tt.name), nil)
					req.Header.Set("Authorization", "token "+tok)
					resp, err := tr.RoundTrip(req)
					if err != nil {
						t.Error(err)
						return
					}
					b, _ := io.ReadAll(resp.Body)
					_ = resp.Body.Close()
					bodies[i] = string(b)
				}()
			}
			time.Sleep(300 * time.Millisecond) // let every read join its flight
			close(release)
			wg.Wait()
			if hits.Load() != tt.wantHits {
				t.Errorf("GitHub requests %d, want %d", hits.Load(), tt.wantHits)
			}
			for i, b := range bodies {
				if b != "answer for token "+tt.tokens[i] {
					t.Errorf("read %d got %q", i, b)
				}
			}
		})
	}
}

func TestImmutable(t *testing.T) {
	sha := strings.Repeat("ab", 20)
	tests := []struct {
		url       string
		immutable bool
	}{
		{url: "https://api.github.com/repos/o/r/contents/a/b.go?ref=" + sha, immutable: true},
		{url: "https://ghe.example/api/v3/repos/o/r/contents/a/b.go?ref=" + sha, immutable: true},
		{url: "https://api.github.com/repos/o/r/contents/a/b.go?ref=main"},
		{url: "https://api.github.com/repos/o/r/contents/a/b.go"},
		{url: "https://api.github.com/repos/o/r/contents/a/b.go?ref=" + sha[:39]},
		{url: "https://api.github.com/repos/o/r/git/trees/" + sha + "?recursive=1", immutable: true},
		{url: "https://api.github.com/repos/o/r/git/blobs/" + sha, immutable: true},
		{url: "https://api.github.com/repos/o/r/git/commits/" + sha, immutable: true},
		{url: "https://api.github.com/repos/o/r/git/trees/main"},
		{url: "https://api.github.com/repos/o/r/commits?sha=" + sha + "&page=2", immutable: true},
		{url: "https://api.github.com/repos/o/r/commits?sha=main&page=2"},
		{url: "https://api.github.com/repos/o/r/commits?sha=main&per_page=1"},
		{url: "https://api.github.com/repos/o/r/commits/" + sha, immutable: true},
		{url: "https://api.github.com/repos/o/r/commits/" + sha + "/check-runs"},
		{url: "https://api.github.com/repos/o/r/commits/" + sha + "/status"},
		{url: "https://api.github.com/repos/o/r/readme?ref=" + sha, immutable: true},
		{url: "https://api.github.com/repos/o/r/pulls?head=" + sha},
		{url: "https://api.github.com/search/code?q=" + sha},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			u, _ := url.Parse(tt.url)
			if got := httpcache.Immutable(u); got != tt.immutable {
				t.Errorf("Immutable = %v", got)
			}
		})
	}
}

func FuzzImmutable(f *testing.F) {
	f.Add("https://api.github.com/repos/o/r/contents/a?ref=" + strings.Repeat("a", 40))
	f.Add("https://api.github.com/repos/o/r/git/trees/" + strings.Repeat("0", 40))
	f.Add("https://api.github.com/repos//r/commits?sha=x")
	f.Add("/repos/o/r")
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		if httpcache.Immutable(u) {
			found := false
			for _, part := range strings.Split(u.EscapedPath(), "/") {
				found = found || httpcache.IsSHA(part)
			}
			for _, vs := range u.Query() {
				for _, v := range vs {
					found = found || httpcache.IsSHA(v)
				}
			}
			if !found {
				t.Fatalf("%q called immutable without a full SHA", raw)
			}
		}
	})
}
