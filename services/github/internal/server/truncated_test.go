package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/codes"

	"ghops.dev/services/github/servicetest"
)

// TestApplyPatchTruncatedTree stands for a repository too large for one
// recursive tree read: GitHub truncates every recursive listing, and
// apply_patch reads the directories the patch touches instead, one request
// each (a directory absent from its parent is not read), with the same
// rules.
func TestApplyPatchTruncatedTree(t *testing.T) {
	tests := []struct {
		name     string
		patch    string
		wantCode codes.Code
		wantReqs int // requests fakehub saw (the truncated listing is not one of them)
	}{
		{name: "modify, delete and add in a new directory",
			patch: "diff --git a/p/f0 b/p/f0\n--- a/p/f0\n+++ b/p/f0\n@@ -1 +1 @@\n-x0\n+y\n" +
				"diff --git a/p/f1 b/p/f1\ndeleted file mode 100644\n--- a/p/f1\n+++ /dev/null\n@@ -1 +0,0 @@\n-x1\n" +
				"diff --git a/deep/a/b/new.txt b/deep/a/b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/deep/a/b/new.txt\n@@ -0,0 +1 @@\n+new\n",
			wantCode: codes.OK, wantReqs: 8}, // head, commit, 2 directories ("" and p), 1 blob, tree, commit, ref
		{name: "rename onto an existing file", patch: "diff --git a/p/f2 b/p/f3\nsimilarity index 100%\nrename from p/f2\nrename to p/f3\n",
			wantCode: codes.FailedPrecondition, wantReqs: 4},
		{name: "modify a file that is not there", patch: "diff --git a/p/zz b/p/zz\n--- a/p/zz\n+++ b/p/zz\n@@ -1 +1 @@\n-x\n+y\n",
			wantCode: codes.NotFound, wantReqs: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hub, svc := truncatingStack(t)
			files := map[string]string{}
			for i := range 4 {
				files[fmt.Sprintf("p/f%d", i)] = fmt.Sprintf("x%d\n", i)
			}
			if _, err := hub.Commit(repo, "main", "seed", files); err != nil {
				t.Fatal(err)
			}
			hub.ResetStats()
			_, err := svc.Client.ApplyPatch(ctx(t), &ghopsv1.ApplyPatchRequest{Repo: repo, Branch: "main", Message: "m", Patch: tt.patch})
			if statusCode(err) != tt.wantCode {
				t.Fatalf("apply_patch: %v, want %v", err, tt.wantCode)
			}
			if got := hub.Stats().Total; got != tt.wantReqs {
				t.Errorf("%d GitHub requests, want %d: %v", got, tt.wantReqs, hub.Stats().ByRoute)
			}
			if tt.wantCode != codes.OK {
				return
			}
			for p, want := range map[string]string{"p/f0": "y\n", "deep/a/b/new.txt": "new\n", "p/f2": "x2\n"} {
				if f, err := svc.Client.ReadFile(ctx(t), &ghopsv1.ReadFileRequest{Repo: repo, Path: p}); err != nil || f.Content != want {
					t.Errorf("%s: %v, %v; want %q", p, f.GetContent(), err, want)
				}
			}
			if _, err := svc.Client.ReadFile(ctx(t), &ghopsv1.ReadFileRequest{Repo: repo, Path: "p/f1"}); statusCode(err) != codes.NotFound {
				t.Errorf("p/f1 not deleted: %v", err)
			}
		})
	}
}

// truncatingStack is fakehub behind a proxy that truncates every recursive
// tree listing, and the service in front of it (a fresh cache each time).
func truncatingStack(t *testing.T) (*fakehub.Hub, *servicetest.Service) {
	t.Helper()
	hub, err := fakehub.New(fakehub.Config{Seed: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/git/trees/") && r.URL.Query().Get("recursive") != "" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"sha":%q,"tree":[],"truncated":true}`, r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:])
			return
		}
		hub.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return hub, servicetest.Start(t, servicetest.Options{GitHubURL: ts.URL + "/", Token: fakehub.DemoToken})
}
