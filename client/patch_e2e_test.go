package client_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"ghops.dev/client"
	"ghops.dev/gateway/gatewaytest"
	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/servicetest"
	"google.golang.org/protobuf/proto"
)

// patchBase is what the apply_patch tests commit first, so that their
// patches apply to known text.
var patchBase = map[string]string{
	"patchdemo/a.txt": "alpha\nbeta\ngamma\n",
	"patchdemo/b.txt": "to be deleted\n",
	"patchdemo/c.txt": "one\ntwo\nthree\n",
}

// threeFilePatch modifies a.txt, deletes b.txt, renames c.txt to d.txt with
// an edit, and adds e.txt, as `git diff -M` writes it.
const threeFilePatch = `diff --git a/patchdemo/a.txt b/patchdemo/a.txt
index 1111111..2222222 100644
--- a/patchdemo/a.txt
+++ b/patchdemo/a.txt
@@ -1,3 +1,3 @@
 alpha
-beta
+BETA
 gamma
diff --git a/patchdemo/b.txt b/patchdemo/b.txt
deleted file mode 100644
index 3333333..0000000
--- a/patchdemo/b.txt
+++ /dev/null
@@ -1 +0,0 @@
-to be deleted
diff --git a/patchdemo/c.txt b/patchdemo/d.txt
similarity index 80%
rename from patchdemo/c.txt
rename to patchdemo/d.txt
index 4444444..5555555 100644
--- a/patchdemo/c.txt
+++ b/patchdemo/d.txt
@@ -1,3 +1,4 @@
 one
 two
 three
+four
diff --git a/patchdemo/e.txt b/patchdemo/e.txt
new file mode 100644
index 0000000..6666666
--- /dev/null
+++ b/patchdemo/e.txt
@@ -0,0 +1,2 @@
+brand
+new
`

// seedPatchBase commits patchBase to main and returns the new head.
func seedPatchBase(t *testing.T, ctx context.Context, c *client.Client) string {
	t.Helper()
	var files []*ghopsv1.FileChange
	for p, body := range patchBase {
		files = append(files, &ghopsv1.FileChange{Path: p, Content: proto.String(body)})
	}
	r, err := c.CommitFiles(ctx, &ghopsv1.CommitFilesRequest{Repo: demoRepo, Branch: "main", Message: "patch base", Files: files})
	if err != nil {
		t.Fatalf("commit_files: %v", err)
	}
	return r.GetCommitSha()
}

// TestE2EApplyPatch applies a patch that modifies, deletes, renames and adds
// through the whole stack, then each refusal, over /rpc and /mcp in both
// tool-error modes; a refused patch leaves the branch where it was.
func TestE2EApplyPatch(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			st := gatewaytest.StartStack(t, gatewaytest.StackOptions{MCPToolErrors: tr.toolErrs})
			c := newStackClient(t, st.URL, client.WithTransport(tr.transport))
			ctx := context.Background()
			base := seedPatchBase(t, ctx, c)

			r, err := c.ApplyPatch(ctx, &ghopsv1.ApplyPatchRequest{Repo: demoRepo, Branch: "main", Message: "Apply a patch", Patch: threeFilePatch, Sha: proto.String(base)})
			if err != nil {
				t.Fatalf("apply_patch: %v", err)
			}
			if head, _ := st.Hub.BranchSHA(demoRepo, "main"); r.GetCommitSha() != head || r.GetParentSha() != base {
				t.Fatalf("commit %s on %s, branch head %s (base %s)", r.GetCommitSha(), r.GetParentSha(), head, base)
			}
			var got []string
			for _, f := range r.GetFiles() {
				got = append(got, strings.Join([]string{f.GetChange(), f.GetOldPath(), f.GetPath()}, " ")+" +"+itoa(f.GetAdded())+" -"+itoa(f.GetRemoved()))
			}
			want := []string{"modified  patchdemo/a.txt +1 -1", "deleted  patchdemo/b.txt +0 -1", "renamed patchdemo/c.txt patchdemo/d.txt +1 -0", "added  patchdemo/e.txt +2 -0"}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("files:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for path, body := range map[string]string{"patchdemo/a.txt": "alpha\nBETA\ngamma\n", "patchdemo/d.txt": "one\ntwo\nthree\nfour\n", "patchdemo/e.txt": "brand\nnew\n"} {
				f, err := c.ReadFile(ctx, &ghopsv1.ReadFileRequest{Repo: demoRepo, Path: path})
				if err != nil || f.GetContent() != body {
					t.Errorf("%s = %q, %v; want %q", path, f.GetContent(), err, body)
				}
			}
			for _, gone := range []string{"patchdemo/b.txt", "patchdemo/c.txt"} {
				if _, err := c.ReadFile(ctx, &ghopsv1.ReadFileRequest{Repo: demoRepo, Path: gone}); !errors.Is(err, client.ErrNotFound) {
					t.Errorf("%s after the patch: %v, want not found", gone, err)
				}
			}

			head := r.GetCommitSha()
			tests := []struct {
				name      string
				patch     string
				sha       string
				want      error
				patchCode string
				file      string
				detail    string
			}{
				{name: "PATCH_EMPTY", patch: "no diff here\n", want: client.ErrValidation, patchCode: "PATCH_EMPTY"},
				{name: "PATCH_MALFORMED", patch: "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n", want: client.ErrValidation, patchCode: "PATCH_MALFORMED"},
				{name: "PATCH_MALFORMED binary", patch: "diff --git a/i.png b/i.png\nindex 1111111..2222222 100644\nBinary files a/i.png and b/i.png differ\n", want: client.ErrValidation, patchCode: "PATCH_MALFORMED", file: "i.png", detail: "binary"},
				{name: "PATCH_DOES_NOT_APPLY", patch: strings.Replace(threeFilePatch[:strings.Index(threeFilePatch, "diff --git a/patchdemo/b.txt")], "-beta", "-delta", 1),
					want: client.ErrValidation, patchCode: "PATCH_DOES_NOT_APPLY", file: "patchdemo/a.txt", detail: `expected "delta", found "BETA"`},
				{name: "FILE_NOT_FOUND", patch: threeFilePatch[strings.Index(threeFilePatch, "diff --git a/patchdemo/b.txt"):strings.Index(threeFilePatch, "diff --git a/patchdemo/c.txt")],
					want: client.ErrNotFound, patchCode: "FILE_NOT_FOUND", file: "patchdemo/b.txt"},
				{name: "added file exists", patch: threeFilePatch[strings.Index(threeFilePatch, "diff --git a/patchdemo/e.txt"):], want: client.ErrValidation, patchCode: "PATCH_DOES_NOT_APPLY", file: "patchdemo/e.txt"},
				{name: "base moved", patch: strings.ReplaceAll(threeFilePatch[strings.Index(threeFilePatch, "diff --git a/patchdemo/e.txt"):], "e.txt", "f.txt"), sha: base, want: client.ErrHeadSHAMismatch},
				{name: "unsafe path", patch: strings.ReplaceAll(threeFilePatch[strings.Index(threeFilePatch, "diff --git a/patchdemo/e.txt"):], "patchdemo/e.txt", ".git/hooks/x"), want: client.ErrInvalidParams},
				{name: "empty segment", patch: strings.ReplaceAll(threeFilePatch[strings.Index(threeFilePatch, "diff --git a/patchdemo/e.txt"):], "patchdemo/e.txt", "patchdemo//f.txt"), want: client.ErrInvalidParams},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					req := &ghopsv1.ApplyPatchRequest{Repo: demoRepo, Branch: "main", Message: "refused", Patch: tt.patch}
					if tt.sha != "" {
						req.Sha = proto.String(tt.sha)
					}
					_, err := c.ApplyPatch(ctx, req)
					if !errors.Is(err, tt.want) {
						t.Fatalf("err = %v, want %v", err, tt.want)
					}
					var e *client.Error
					if !errors.As(err, &e) {
						t.Fatalf("err %T is no *client.Error", err)
					}
					if tt.patchCode != "" {
						p := e.Data.Patch
						if p == nil || p.Code != tt.patchCode || (tt.file != "" && p.File != tt.file) || !strings.Contains(p.Detail, tt.detail) {
							t.Fatalf("data.patch = %+v, want code %s file %q detail ~%q", p, tt.patchCode, tt.file, tt.detail)
						}
						if tt.patchCode == "PATCH_DOES_NOT_APPLY" && tt.detail != "" && (p.Hunk != 1 || p.Line != 2) {
							t.Errorf("data.patch = %+v, want hunk 1 line 2", p)
						}
					}
					if now, _ := st.Hub.BranchSHA(demoRepo, "main"); now != head {
						t.Fatalf("a refused patch moved main from %s to %s", head, now)
					}
				})
			}
			if !strings.Contains(st.Gateway.Logs(), "patchdemo/a.txt") {
				t.Errorf("no jsonrpc_error line names the file; logs:\n%s", st.Gateway.Logs())
			}
		})
	}
}

// TestE2ESafePaths holds commit_files to the safe-path rule at its
// boundaries: the refused paths are -32602 pattern violations at
// /files/0/path and write nothing.
func TestE2ESafePaths(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{})
	c := newStackClient(t, st.URL)
	ctx := context.Background()
	tests := []struct {
		path string
		ok   bool
	}{
		{".gitignore", true}, {".github/workflows/ci.yml", true}, {"a..b/c", true}, {"...", true}, {"x.git", true}, {".gitx/y", true},
		{"docs//x.txt", false}, {"/x.txt", false}, {"x/", false}, {".", false}, {"./x", false}, {"a/../b", false}, {"..", false},
		{".git", false}, {".git/config", false}, {"a/.git/b", false}, {"a\x01b", false}, {"tab\tname", false}, {"del\x7f", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			before, _ := st.Hub.BranchSHA(demoRepo, "main")
			_, err := c.CommitFiles(ctx, &ghopsv1.CommitFilesRequest{Repo: demoRepo, Branch: "main", Message: "path " + tt.path,
				Files: []*ghopsv1.FileChange{{Path: tt.path, Content: proto.String("x\n")}}})
			after, _ := st.Hub.BranchSHA(demoRepo, "main")
			if tt.ok {
				if err != nil || after == before {
					t.Fatalf("commit_files %q: %v (head %s -> %s), want a commit", tt.path, err, before, after)
				}
				return
			}
			var ip *client.InvalidParamsError
			if !errors.As(err, &ip) || len(ip.Violations) != 1 || ip.Violations[0].Path != "/files/0/path" || ip.Violations[0].Keyword != "pattern" {
				t.Fatalf("commit_files %q: %#v, want one pattern violation at /files/0/path", tt.path, err)
			}
			if after != before {
				t.Fatalf("refused path %q moved main", tt.path)
			}
		})
	}
}

// TestE2EValidateEnvironment diagnoses four deployments: a good token, a
// bad one, none, and GitHub unreachable. No answer contains the token.
func TestE2EValidateEnvironment(t *testing.T) {
	tests := []struct {
		name      string
		token     string
		hubDown   bool
		wantLevel string
		want      map[string]string // check name -> level
		wantText  string
	}{
		{name: "good token", token: fakehub.DemoToken, wantLevel: "warning", wantText: "of ",
			want: map[string]string{"github.reachable": "ok", "github.token": "ok", "github.repo": "ok", "rate_limit.core": "ok", "service.version": "ok", "gateway.version": "ok", "gateway.config": "warning"}},
		{name: "bad token", token: "ghp_notavalidtokenatall000000000000000000", wantLevel: "error", wantText: "classic personal access token was refused",
			want: map[string]string{"github.reachable": "ok", "github.token": "error", "github.repo": "error"}},
		{name: "no token", wantLevel: "warning", wantText: "no GitHub credential",
			want: map[string]string{"github.reachable": "ok", "github.token": "warning", "github.repo": "warning"}},
		{name: "github down", token: fakehub.DemoToken, hubDown: true, wantLevel: "error", wantText: "did not answer",
			want: map[string]string{"github.reachable": "error", "service.version": "ok"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
			url := hub.URL
			if tt.hubDown {
				url = "http://127.0.0.1:1/"
			}
			svc := servicetest.Start(t, servicetest.Options{GitHubURL: url, Token: tt.token})
			gw := gatewaytest.StartGateway(t, svc.Addr, gatewaytest.StackOptions{})
			c := newStackClient(t, gw.URL)
			r, err := c.ValidateEnvironment(context.Background(), &ghopsv1.ValidateEnvironmentRequest{Repo: proto.String(demoRepo)})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			var all strings.Builder
			for _, ch := range r.GetChecks() {
				got[ch.GetName()] = ch.GetLevel()
				all.WriteString(ch.GetName() + " " + ch.GetLevel() + " " + ch.GetMessage() + "\n")
			}
			if r.GetLevel() != tt.wantLevel {
				t.Errorf("level %s, want %s:\n%s", r.GetLevel(), tt.wantLevel, all.String())
			}
			for name, level := range tt.want {
				if got[name] != level {
					t.Errorf("%s = %q, want %q:\n%s", name, got[name], level, all.String())
				}
			}
			if !strings.Contains(all.String(), tt.wantText) {
				t.Errorf("no check says %q:\n%s", tt.wantText, all.String())
			}
			if tt.token != "" && strings.Contains(all.String()+gw.Logs(), tt.token) {
				t.Fatalf("the token reached the answer or the logs")
			}
		})
	}
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }
