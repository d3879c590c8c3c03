package fakehub_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"ghops.dev/services/fakehub"
)

// TestConcurrentReadsAndWrites runs the read mix (reads share the hub's lock) while a writer keeps
// moving the head of pull request #1, so that its mergeability must be recomputed under the exclusive
// lock; -race reports any read path that writes. Every read must still answer 200 with JSON.
func TestConcurrentReadsAndWrites(t *testing.T) {
	h, err := fakehub.New(fakehub.Config{Seed: "demo", CoreLimit: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	const readers, rounds, maxWrites = 4, 25, 500
	var wg, rg sync.WaitGroup
	errs := make(chan string, readers*rounds*len(readMix)+maxWrites)
	done := make(chan struct{})
	for g := 0; g < readers; g++ {
		rg.Add(1)
		go func() {
			defer rg.Done()
			for i := 0; i < rounds; i++ {
				for _, p := range readMix {
					rec := serve(h, "GET", p, "", nil)
					if rec.Code != 200 || !json.Valid(rec.Body.Bytes()) {
						errs <- fmt.Sprintf("GET %s: %d %s", p, rec.Code, rec.Body)
					}
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < maxWrites; i++ {
			select {
			case <-done:
				return
			default:
			}
			if _, err := h.Commit("octo-org/hello-world", "feature/clean", "more docs", map[string]string{fmt.Sprintf("docs/n%d.md", i): "x\n"}); err != nil {
				errs <- err.Error()
			}
		}
	}()
	rg.Wait()
	close(done)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	var pr struct {
		Mergeable *bool                `json:"mergeable"`
		Head      struct{ SHA string } `json:"head"`
	}
	// Two reads: the first after a move may still say null, as on GitHub.
	serve(h, "GET", "/repos/octo-org/hello-world/pulls/1", "", nil)
	if err := json.Unmarshal(serve(h, "GET", "/repos/octo-org/hello-world/pulls/1", "", nil).Body.Bytes(), &pr); err != nil {
		t.Fatal(err)
	}
	want, _ := h.BranchSHA("octo-org/hello-world", "feature/clean")
	if pr.Mergeable == nil || !*pr.Mergeable || pr.Head.SHA != want {
		t.Fatalf("pull 1 after the writes: mergeable %v head %s, want true and %s", pr.Mergeable, pr.Head.SHA, want)
	}
}
