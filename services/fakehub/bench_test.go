package fakehub_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
)

// benchHub is a demo hub whose rate limits a benchmark cannot exhaust.
func benchHub(b testing.TB) *fakehub.Hub {
	b.Helper()
	h, err := fakehub.New(fakehub.Config{Seed: "demo", CoreLimit: 1 << 30, SearchLimit: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// serve runs one request through the handler in process, as the demo token.
func serve(h *fakehub.Hub, method, path, body string, hdr map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "http://fakehub.test"+path, strings.NewReader(body))
	req.Header.Set("Authorization", "token "+fakehub.DemoToken)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

const readmePath = "/repos/octo-org/hello-world/contents/README.md"

func BenchmarkGetContents(b *testing.B) {
	h := benchHub(b)
	if rec := serve(h, "GET", readmePath, "", nil); rec.Code != 200 {
		b.Fatalf("warm-up: %d", rec.Code)
	}
	b.ReportAllocs()
	for b.Loop() {
		if rec := serve(h, "GET", readmePath, "", nil); rec.Code != 200 {
			b.Fatalf("status %d", rec.Code)
		}
	}
}

func BenchmarkConditionalGet304(b *testing.B) {
	h := benchHub(b)
	etag := serve(h, "GET", readmePath, "", nil).Header().Get("ETag")
	if etag == "" {
		b.Fatal("no ETag")
	}
	hdr := map[string]string{"If-None-Match": etag}
	b.ReportAllocs()
	for b.Loop() {
		if rec := serve(h, "GET", readmePath, "", hdr); rec.Code != 304 {
			b.Fatalf("status %d", rec.Code)
		}
	}
}

// BenchmarkCommitTree measures one commit made the way the ghops service writes files: a tree on top
// of the current one, a commit, and a fast-forward of the branch.
func BenchmarkCommitTree(b *testing.B) {
	h := benchHub(b)
	head, err := h.BranchSHA("octo-org/hello-world", "main")
	if err != nil {
		b.Fatal(err)
	}
	var cm struct {
		Tree struct {
			SHA string `json:"sha"`
		} `json:"tree"`
	}
	if err := json.Unmarshal(serve(h, "GET", "/repos/octo-org/hello-world/git/commits/"+head, "", nil).Body.Bytes(), &cm); err != nil {
		b.Fatal(err)
	}
	tree := cm.Tree.SHA
	var sha struct {
		SHA string `json:"sha"`
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		rec := serve(h, "POST", "/repos/octo-org/hello-world/git/trees", fmt.Sprintf(
			`{"base_tree":%q,"tree":[{"path":"bench/n.txt","mode":"100644","type":"blob","content":"iteration %d\n"}]}`, tree, i), nil)
		if rec.Code != 201 || json.Unmarshal(rec.Body.Bytes(), &sha) != nil {
			b.Fatalf("tree: %d %s", rec.Code, rec.Body)
		}
		tree = sha.SHA
		rec = serve(h, "POST", "/repos/octo-org/hello-world/git/commits", fmt.Sprintf(
			`{"message":"bench %d","tree":%q,"parents":[%q]}`, i, tree, head), nil)
		if rec.Code != 201 || json.Unmarshal(rec.Body.Bytes(), &sha) != nil {
			b.Fatalf("commit: %d %s", rec.Code, rec.Body)
		}
		head = sha.SHA
		if rec = serve(h, "PATCH", "/repos/octo-org/hello-world/git/refs/heads/main", fmt.Sprintf(`{"sha":%q}`, head), nil); rec.Code != 200 {
			b.Fatalf("ref: %d %s", rec.Code, rec.Body)
		}
	}
}

// readMix is what the ghops read tools ask fakehub for, one request each.
var readMix = []string{
	readmePath,
	"/repos/octo-org/hello-world/git/trees/main?recursive=1",
	"/repos/octo-org/hello-world/pulls?state=open",
	"/repos/octo-org/hello-world/pulls/1",
	"/repos/octo-org/hello-world",
}

// BenchmarkReadsParallel runs the read mix from GOMAXPROCS goroutines at once, with reads sharing
// the hub's read-write lock (lock=shared) and, for comparison on the same machine and load, with every
// request taking it exclusively as before (lock=exclusive). Run with -cpu 1,2.
func BenchmarkReadsParallel(b *testing.B) {
	for _, mode := range []struct {
		name      string
		exclusive bool
	}{{"lock=shared", false}, {"lock=exclusive", true}} {
		b.Run(mode.name, func(b *testing.B) {
			h := benchHub(b)
			fakehub.SetExclusiveReads(h, mode.exclusive)
			for _, p := range readMix {
				serve(h, "GET", p, "", nil)
				if rec := serve(h, "GET", p, "", nil); rec.Code != 200 {
					b.Fatalf("warm-up %s: %d", p, rec.Code)
				}
			}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					p := readMix[i%len(readMix)]
					i++
					if rec := serve(h, "GET", p, "", nil); rec.Code != 200 {
						b.Errorf("%s: status %d", p, rec.Code)
						return
					}
				}
			})
		})
	}
}
