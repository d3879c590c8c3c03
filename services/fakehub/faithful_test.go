package fakehub_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
)

// get sends a GET with an optional Authorization value and returns status, headers and body.
func get(t *testing.T, url, auth string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}

// TestCheckRunFilter: GitHub's filter=latest (the default) keeps the latest run of each name, so
// a re-run replaces the failed run it repeats; filter=all keeps every run.
func TestCheckRunFilter(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	head, err := s.Hub.BranchSHA("octo-org/hello-world", "main")
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct{ name, conclusion string }{{"ci/test", "failure"}, {"ci/lint", "success"}, {"ci/test", "success"}} {
		if err := s.Hub.AddCheckRun("octo-org/hello-world", head, run.name, "completed", run.conclusion); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, query string
		want        []string // name:conclusion in order
	}{
		{"default is latest", "", []string{"ci/lint:success", "ci/test:success"}},
		{"latest", "?filter=latest", []string{"ci/lint:success", "ci/test:success"}},
		{"all", "?filter=all", []string{"ci/test:failure", "ci/lint:success", "ci/test:success"}},
		{"latest of one name", "?check_name=ci/test", []string{"ci/test:success"}},
		{"all of one name", "?filter=all&check_name=ci/test", []string{"ci/test:failure", "ci/test:success"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := get(t, s.URL+"repos/octo-org/hello-world/commits/main/check-runs"+tc.query, "token "+writer)
			if status != 200 {
				t.Fatalf("status %d: %s", status, body)
			}
			var out struct {
				Total int `json:"total_count"`
				Runs  []struct {
					Name       string `json:"name"`
					Conclusion string `json:"conclusion"`
				} `json:"check_runs"`
			}
			if err := json.Unmarshal(body, &out); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range out.Runs {
				got = append(got, r.Name+":"+r.Conclusion)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") || out.Total != len(tc.want) {
				t.Fatalf("runs %v (total %d), want %v", got, out.Total, tc.want)
			}
		})
	}
}

// TestTreeTruncatedAt7MB: a recursive tree whose listing would pass 7 MB is cut there and says
// truncated, well below the 100,000 entries limit.
func TestTreeTruncatedAt7MB(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	files := map[string]string{}
	// About 400 bytes of JSON an entry: 20,000 entries make some 8 MB.
	for i := range 20000 {
		files[fmt.Sprintf("d/%0200d.txt", i)] = "x\n"
	}
	if _, err := s.Hub.Commit("octo-org/hello-world", "big-tree", "many files", files); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, ref     string
		wantTruncated bool
	}{
		{"past 7 MB", "big-tree", true},
		{"small", "main", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := get(t, s.URL+"repos/octo-org/hello-world/git/trees/"+tc.ref+"?recursive=1", "token "+writer)
			if status != 200 {
				t.Fatalf("status %d: %.200s", status, body)
			}
			var out struct {
				Tree      []json.RawMessage `json:"tree"`
				Truncated bool              `json:"truncated"`
			}
			if err := json.Unmarshal(body, &out); err != nil {
				t.Fatal(err)
			}
			if out.Truncated != tc.wantTruncated {
				t.Fatalf("truncated %v with %d entries, want %v", out.Truncated, len(out.Tree), tc.wantTruncated)
			}
			tree, _ := json.Marshal(out.Tree)
			if len(tree) > 7<<20 {
				t.Fatalf("tree array of %d bytes, over 7 MB", len(tree))
			}
			if tc.wantTruncated && (len(out.Tree) >= len(files) || len(tree) < 6<<20) {
				t.Fatalf("%d entries, %d bytes: want the listing cut just under 7 MB", len(out.Tree), len(tree))
			}
		})
	}
}

// TestUnauthorizedCountsAnonymously: a 401 for bad credentials carries the anonymous limit's
// headers and spends from it, as GitHub's does.
func TestUnauthorizedCountsAnonymously(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	var used []int
	for i, auth := range []string{"token revoked", "token revoked", "", "Bearer also-revoked"} {
		status, h, body := get(t, s.URL+"repos/octo-org/hello-world", auth)
		want := 401
		if auth == "" {
			want = 200
		}
		if status != want {
			t.Fatalf("request %d: status %d, want %d: %s", i, status, want, body)
		}
		if h.Get("X-RateLimit-Limit") != "60" || h.Get("X-RateLimit-Resource") != "core" {
			t.Fatalf("request %d: headers %v, want the anonymous core limit", i, h)
		}
		n, err := strconv.Atoi(h.Get("X-RateLimit-Used"))
		if err != nil {
			t.Fatal(err)
		}
		used = append(used, n)
	}
	for i := range used {
		if used[i] != i+1 {
			t.Fatalf("used %v, want 1,2,3,4: every answer counts against one anonymous bucket", used)
		}
	}
}

// TestCodeSearchBucket: code search has its own bucket of 10 a minute; repository search keeps
// the search bucket.
func TestCodeSearchBucket(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	for i := 1; i <= 11; i++ {
		status, h, body := get(t, s.URL+"search/code?q=Hello", "token "+writer)
		want := 200
		if i == 11 {
			want = 403
		}
		if status != want || h.Get("X-RateLimit-Resource") != "code_search" || h.Get("X-RateLimit-Limit") != "10" {
			t.Fatalf("code search %d: status %d (want %d), resource %q limit %q: %s", i, status, want, h.Get("X-RateLimit-Resource"), h.Get("X-RateLimit-Limit"), body)
		}
	}
	status, h, _ := get(t, s.URL+"search/repositories?q=greeter", "token "+writer)
	if status != 200 || h.Get("X-RateLimit-Resource") != "search" || h.Get("X-RateLimit-Used") != "1" {
		t.Fatalf("repository search: status %d headers %v", status, h)
	}
	_, _, body := get(t, s.URL+"rate_limit", "token "+writer)
	var rl struct {
		Resources map[string]struct{ Limit, Used, Remaining int } `json:"resources"`
	}
	if err := json.Unmarshal(body, &rl); err != nil {
		t.Fatal(err)
	}
	if cs := rl.Resources["code_search"]; cs.Limit != 10 || cs.Used != 10 || cs.Remaining != 0 {
		t.Fatalf("code_search %+v, want 10 used of 10", cs)
	}
	if rl.Resources["search"].Used != 1 {
		t.Fatalf("search %+v, want 1 used", rl.Resources["search"])
	}
}
