package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	"ghops.dev/services/github/servicetest"
)

// The tests of this file run the service against fakehub where fakehub answers as GitHub does
// and used not to (issue 23): raw media types, symlinks, the 7 MB tree limit and the latest
// check run of each name.

// githubCall sends one API request to fakehub as a client of GitHub would, with the demo token,
// and decodes an object answer; it fails the test on anything but 2xx.
func githubCall(t *testing.T, e *env, method, path, body string) map[string]any {
	t.Helper()
	req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+fakehub.DemoToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %d %v", method, path, resp.StatusCode, out)
	}
	return out
}

// TestLargeFileReadsRawBlob: a file over 1 MB comes from the contents API without content
// (encoding "none"); read_file then reads the start of the raw blob, which GitHub answers in
// the raw media type, and returns those bytes, not a JSON document.
func TestLargeFileReadsRawBlob(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	var b strings.Builder
	for i := 0; b.Len() < 1<<20+4096; i++ {
		fmt.Fprintf(&b, "line %07d of a large file\n", i)
	}
	big := b.String()
	if _, err := e.hub.Commit(repo, "main", "large file", map[string]string{"large.txt": big, "small.txt": "small\n"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       string // the content read_file answers
		truncated  bool
		calls      map[string]int
	}{
		{"over 1 MB through the raw blob", "large.txt", big[:256<<10], true, map[string]int{
			"GET /repos/{owner}/{repo}/contents/{path}":      1,
			"GET /repos/{owner}/{repo}/git/blobs/{file_sha}": 1,
		}},
		{"small inline", "small.txt", "small\n", false, map[string]int{
			"GET /repos/{owner}/{repo}/contents/{path}": 1,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e.hub.ResetStats()
			r, err := e.svc.Client.ReadFile(ctx(t), &ghopsv1.ReadFileRequest{Repo: repo, Path: tc.path, Branch: ptr("main")})
			if err != nil {
				t.Fatal(err)
			}
			if r.Content != tc.want || r.Truncated != tc.truncated || r.Encoding != "utf8" || r.Binary {
				t.Fatalf("content starts %q (%d bytes), truncated %v, encoding %s; want %q (%d bytes)",
					r.Content[:min(len(r.Content), 40)], len(r.Content), r.Truncated, r.Encoding, tc.want[:min(len(tc.want), 40)], len(tc.want))
			}
			if int(r.Size) < len(tc.want) {
				t.Fatalf("size %d", r.Size)
			}
			assertCalls(t, e.hub, tc.calls)
		})
	}
}

// TestSymlinks: GitHub answers a symlink to a file with that file's content, which read_file
// returns; any other symlink is an object of type symlink, which read_file refuses as no
// regular file.
func TestSymlinks(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	head, err := e.hub.BranchSHA(repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	base := githubCall(t, e, "GET", "repos/"+repo+"/git/commits/"+head, "")["tree"].(map[string]any)["sha"].(string)
	tree := githubCall(t, e, "POST", "repos/"+repo+"/git/trees", fmt.Sprintf(`{"base_tree":%q,"tree":[
		{"path":"guide-link.md","mode":"120000","type":"blob","content":"docs/guide.md"},
		{"path":"docs/go.mod","mode":"120000","type":"blob","content":"../go.mod"},
		{"path":"outside","mode":"120000","type":"blob","content":"../../etc/passwd"},
		{"path":"dir-link","mode":"120000","type":"blob","content":"internal"}]}`, base))["sha"].(string)
	commit := githubCall(t, e, "POST", "repos/"+repo+"/git/commits", fmt.Sprintf(`{"message":"links","tree":%q,"parents":[%q]}`, tree, head))["sha"].(string)
	githubCall(t, e, "PATCH", "repos/"+repo+"/git/refs/heads/main", fmt.Sprintf(`{"sha":%q,"force":false}`, commit))
	guide := githubCall(t, e, "GET", "repos/"+repo+"/contents/docs/guide.md", "")
	gomod := githubCall(t, e, "GET", "repos/"+repo+"/contents/go.mod", "")

	tests := []struct {
		name, path string
		wantPath   string // the file read_file answers for
		wantSHA    string
		wantCode   codes.Code
	}{
		{name: "to a file", path: "guide-link.md", wantPath: "docs/guide.md", wantSHA: guide["sha"].(string)},
		{name: "to a file above it", path: "docs/go.mod", wantPath: "go.mod", wantSHA: gomod["sha"].(string)},
		{name: "out of the repository", path: "outside", wantCode: codes.FailedPrecondition},
		{name: "to a directory", path: "dir-link", wantCode: codes.FailedPrecondition},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := e.svc.Client.ReadFile(ctx(t), &ghopsv1.ReadFileRequest{Repo: repo, Path: tc.path, Branch: ptr("main")})
			if tc.wantCode != codes.OK {
				d := wantStatus(t, err, tc.wantCode, ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION)
				if !strings.Contains(d.st.Message(), "symlink") {
					t.Fatalf("message %q does not say symlink", d.st.Message())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Path != tc.wantPath || r.Sha != tc.wantSHA || r.Content == "" || r.Truncated {
				t.Fatalf("got path %s sha %s content %q; want %s %s", r.Path, r.Sha, r.Content, tc.wantPath, tc.wantSHA)
			}
		})
	}
}

// TestTreeTruncatedAt7MB: GitHub cuts a recursive tree at 7 MB of JSON even below 100,000
// entries and says truncated; get_tree passes that on, here with fewer entries than its own cap
// (5,000), so the flag can only come from GitHub's answer.
func TestTreeTruncatedAt7MB(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	files := map[string]string{}
	// 4,500 files with 1,700-byte names: some 8.6 MB of tree JSON.
	for i := range 4500 {
		files[fmt.Sprintf("t/%01700d", i)] = "x\n"
	}
	if _, err := e.hub.Commit(repo, "wide", "wide tree", files); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, branch  string
		wantTruncated bool
	}{
		{"past 7 MB", "wide", true},
		{"small", "main", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The answer holds megabytes of paths: more than gRPC's default 4 MB receive limit.
			r, err := e.svc.Client.GetTree(treeCtx(t), &ghopsv1.GetTreeRequest{Repo: repo, Branch: ptr(tc.branch)}, grpc.MaxCallRecvMsgSize(64<<20))
			if err != nil {
				t.Fatal(err)
			}
			if r.Truncated != tc.wantTruncated {
				t.Fatalf("truncated %v with %d entries, want %v", r.Truncated, len(r.Entries), tc.wantTruncated)
			}
			if tc.wantTruncated && (len(r.Entries) >= 4500 || len(r.Entries) < 3000) {
				t.Fatalf("%d entries: want GitHub's 7 MB cut, below the 4,500 files and the service's cap", len(r.Entries))
			}
		})
	}
}

// TestLatestCheckRun: GitHub lists only the latest run of each check name by default, so a
// failed run that was re-run successfully no longer counts, for get_checks_for_sha as for
// get_pr_mergeability.
func TestLatestCheckRun(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	head, err := e.hub.BranchSHA(repo, "feature/clean") // pull request #1's head; ci/build passed on it
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name, check, conclusion string
		verdict                 string
		total, failed           int32
	}{
		{"a run fails", "ci/test", "failure", "failure", 2, 1},
		{"its re-run passes", "ci/test", "success", "success", 2, 0},
		{"the build is re-run and fails", "ci/build", "failure", "failure", 2, 1},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := e.hub.AddCheckRun(repo, head, st.check, "completed", st.conclusion); err != nil {
				t.Fatal(err)
			}
			r, err := e.svc.Client.GetChecksForSha(ctx(t), &ghopsv1.GetChecksForShaRequest{Repo: repo, Sha: head})
			if err != nil {
				t.Fatal(err)
			}
			if r.Summary.Verdict != st.verdict || r.Summary.Total != st.total || r.Summary.Failed != st.failed || len(r.Checks) != int(st.total) {
				t.Fatalf("get_checks_for_sha: summary %v checks %v", r.Summary, r.Checks)
			}
			m, err := e.svc.Client.GetPrMergeability(ctx(t), &ghopsv1.GetPrMergeabilityRequest{Repo: repo, PrNumber: 1})
			if err != nil {
				t.Fatal(err)
			}
			if m.HeadSha != head || m.Checks.GetVerdict() != st.verdict || m.Checks.GetTotal() != st.total || m.Checks.GetFailed() != st.failed {
				t.Fatalf("get_pr_mergeability: head %s checks %v", m.HeadSha, m.Checks)
			}
		})
	}
}
