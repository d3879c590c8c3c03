package fakehub_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"

	"ghops.dev/services/fakehub"
)

const commitOnBranch = `mutation($input: CreateCommitOnBranchInput!) { createCommitOnBranch(input: $input) { commit { oid url messageHeadline tree { oid } } ref { name target { oid } } } }`

// commitInput builds createCommitOnBranch's variables: adds maps paths to their text (sent in
// base64), dels lists paths to delete.
func commitInput(repo, branch, head, headline, body string, adds map[string]string, dels ...string) map[string]any {
	var additions, deletions []any
	for p, text := range adds {
		additions = append(additions, map[string]any{"path": p, "contents": base64.StdEncoding.EncodeToString([]byte(text))})
	}
	for _, p := range dels {
		deletions = append(deletions, map[string]any{"path": p})
	}
	return map[string]any{"query": commitOnBranch, "variables": map[string]any{"input": map[string]any{
		"branch":          map[string]any{"repositoryNameWithOwner": repo, "branchName": branch},
		"expectedHeadOid": head,
		"message":         map[string]any{"headline": headline, "body": body},
		"fileChanges":     map[string]any{"additions": additions, "deletions": deletions},
	}}}
}

// TestGraphQLCreateCommitOnBranch drives createCommitOnBranch with raw HTTP: a commit of
// additions and deletions lands as one commit on the branch (read back through REST), counted as
// one request; every refusal is GitHub's HTTP 200 with a typed error and leaves the branch as
// it was.
func TestGraphQLCreateCommitOnBranch(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	const repo = "octo-org/hello-world"
	if err := s.Hub.CreateBranch(repo, "work", "main"); err != nil {
		t.Fatal(err)
	}
	gh := client(t, s, fakehub.DemoToken, "")
	ctx := context.Background()
	head := func() string {
		sha, err := s.Hub.BranchSHA(repo, "work")
		if err != nil {
			t.Fatal(err)
		}
		return sha
	}
	stale := strings.Repeat("0", 40)

	tests := []struct {
		name, token string
		body        func(head string) any
		errType     string
		errMsg      string
		// want maps paths to their text after the commit; gone lists paths that must be absent.
		want map[string]string
		gone []string
	}{
		{name: "additions and a deletion", token: fakehub.DemoToken,
			body: func(h string) any {
				return commitInput(repo, "work", h, "add two, drop README", "why: a test", map[string]string{"a.txt": "alpha\n", "dir/b.txt": "beta\n"}, "README.md")
			},
			want: map[string]string{"a.txt": "alpha\n", "dir/b.txt": "beta\n"}, gone: []string{"README.md"}},
		{name: "overwrite, branch named with refs/heads/", token: fakehub.DemoToken,
			body: func(h string) any {
				return commitInput(repo, "refs/heads/work", h, "rewrite a", "", map[string]string{"a.txt": "alpha 2\n"})
			},
			want: map[string]string{"a.txt": "alpha 2\n", "dir/b.txt": "beta\n"}},
		{name: "moved head", token: fakehub.DemoToken, errType: "STALE_DATA",
			errMsg: `Expected branch to point to "` + stale + `" but it did not. Pull and try again.`,
			body: func(string) any {
				return commitInput(repo, "work", stale, "lost", "", map[string]string{"lost.txt": "x"})
			},
			gone: []string{"lost.txt"}},
		{name: "missing branch", token: fakehub.DemoToken, errType: "NOT_FOUND",
			body: func(h string) any { return commitInput(repo, "nope", h, "x", "", map[string]string{"lost.txt": "x"}) }},
		{name: "invisible repository", token: fakehub.DemoToken, errType: "NOT_FOUND",
			errMsg: "Could not resolve to a Repository with the name 'octo-org/secret'.",
			body: func(h string) any {
				return commitInput("octo-org/secret", "work", h, "x", "", map[string]string{"lost.txt": "x"})
			}},
		{name: "read-only token", token: readOnly, errType: "FORBIDDEN",
			body: func(h string) any { return commitInput(repo, "work", h, "x", "", map[string]string{"lost.txt": "x"}) }},
		{name: "deleting a missing path", token: fakehub.DemoToken, errType: "UNPROCESSABLE",
			body: func(h string) any {
				return commitInput(repo, "work", h, "x", "", map[string]string{"lost.txt": "x"}, "no/such/file")
			},
			gone: []string{"lost.txt"}},
		{name: "contents not base64", token: fakehub.DemoToken, errType: "UNPROCESSABLE",
			body: func(h string) any {
				in := commitInput(repo, "work", h, "x", "", nil)
				in["variables"].(map[string]any)["input"].(map[string]any)["fileChanges"] = map[string]any{"additions": []any{map[string]any{"path": "lost.txt", "contents": "not base64!"}}}
				return in
			},
			gone: []string{"lost.txt"}},
		{name: "unsafe path", token: fakehub.DemoToken, errType: "UNPROCESSABLE",
			body: func(h string) any {
				return commitInput(repo, "work", h, "x", "", map[string]string{"../lost.txt": "x"})
			}},
		{name: "headline with a line break", token: fakehub.DemoToken, errType: "UNPROCESSABLE",
			body: func(h string) any {
				return commitInput(repo, "work", h, "x\ny", "", map[string]string{"lost.txt": "x"})
			},
			gone: []string{"lost.txt"}},
		{name: "bad expectedHeadOid", token: fakehub.DemoToken, errType: "UNPROCESSABLE",
			body: func(string) any {
				return commitInput(repo, "work", "main", "x", "", map[string]string{"lost.txt": "x"})
			}},
		{name: "unimplemented field", token: fakehub.DemoToken, errType: "UNSUPPORTED",
			body: func(h string) any {
				in := commitInput(repo, "work", h, "x", "", map[string]string{"lost.txt": "x"})
				in["query"] = `mutation($input: CreateCommitOnBranchInput!) { createCommitOnBranch(input: $input) { commit { author { name } } } }`
				return in
			},
			gone: []string{"lost.txt"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := head()
			s.Hub.ResetStats()
			code, a := postGraphQL(t, s.URL+"graphql", tc.token, tc.body(before))
			if code != 200 {
				t.Fatalf("status %d, want GitHub's 200 (%+v)", code, a)
			}
			if st := s.Hub.Stats(); st.Total != 1 || st.ByRoute["POST /graphql"] != 1 {
				t.Fatalf("stats %+v, want the mutation as one request", st)
			}
			if tc.errType != "" {
				if len(a.Errors) != 1 || a.Errors[0].Type != tc.errType || (tc.errMsg != "" && a.Errors[0].Message != tc.errMsg) {
					t.Fatalf("errors %+v, want one %s %q", a.Errors, tc.errType, tc.errMsg)
				}
				if len(a.Errors[0].Path) != 1 || a.Errors[0].Path[0] != "createCommitOnBranch" {
					t.Fatalf("error path %v", a.Errors[0].Path)
				}
				if head() != before {
					t.Fatalf("a refused commit moved the branch")
				}
			} else {
				if len(a.Errors) != 0 {
					t.Fatalf("errors %+v", a.Errors)
				}
				var payload struct {
					Commit struct {
						Oid, URL, MessageHeadline string
						Tree                      struct{ Oid string }
					}
					Ref struct {
						Name   string
						Target struct{ Oid string }
					}
				}
				if err := json.Unmarshal(a.Data["createCommitOnBranch"], &payload); err != nil {
					t.Fatalf("data %s: %v", a.Data, err)
				}
				if payload.Commit.Oid != head() || payload.Ref.Target.Oid != payload.Commit.Oid || payload.Ref.Name != "work" {
					t.Fatalf("answer %+v, branch at %s", payload, head())
				}
				cm, _, err := gh.Git.GetCommit(ctx, "octo-org", "hello-world", payload.Commit.Oid)
				if err != nil {
					t.Fatal(err)
				}
				if len(cm.Parents) != 1 || cm.Parents[0].GetSHA() != before || cm.GetTree().GetSHA() != payload.Commit.Tree.Oid {
					t.Fatalf("commit %+v: want one parent %s and tree %s", cm, before, payload.Commit.Tree.Oid)
				}
				if !strings.HasPrefix(cm.GetMessage(), payload.Commit.MessageHeadline) || cm.GetAuthor().GetName() != "octocat" || cm.GetCommitter().GetName() != "GitHub" {
					t.Fatalf("commit message %q author %q committer %q", cm.GetMessage(), cm.GetAuthor().GetName(), cm.GetCommitter().GetName())
				}
			}
			for p, text := range tc.want {
				got, _, _, err := gh.Repositories.GetContents(ctx, "octo-org", "hello-world", p, &github.RepositoryContentGetOptions{Ref: "work"})
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				if c, _ := got.GetContent(); c != text {
					t.Fatalf("%s = %q, want %q", p, c, text)
				}
			}
			for _, p := range tc.gone {
				if _, _, resp, err := gh.Repositories.GetContents(ctx, "octo-org", "hello-world", p, &github.RepositoryContentGetOptions{Ref: "work"}); err == nil || resp.StatusCode != 404 {
					t.Fatalf("%s still on the branch", p)
				}
			}
		})
	}
}

// TestGraphQLLimit checks Config.GraphQLLimit: the GraphQL bucket of a token gets the configured
// limit (GitHub's 5,000 by default), and its mutations spend it, one a request.
func TestGraphQLLimit(t *testing.T) {
	tests := []struct {
		name  string
		limit int
		want  int
	}{
		{name: "default", want: 5000},
		{name: "raised", limit: 1 << 30, want: 1 << 30},
		{name: "lowered", limit: 7, want: 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := startHub(t, fakehub.Config{GraphQLLimit: tc.limit})
			head, err := s.Hub.BranchSHA("octo-org/hello-world", "main")
			if err != nil {
				t.Fatal(err)
			}
			if code, a := postGraphQL(t, s.URL+"graphql", fakehub.DemoToken, commitInput("octo-org/hello-world", "main", head, "x", "", map[string]string{"x.txt": "x"})); code != 200 || len(a.Errors) != 0 {
				t.Fatalf("commit: %d %+v", code, a)
			}
			gh := client(t, s, fakehub.DemoToken, "")
			rl, _, err := gh.RateLimit.Get(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if rl.GraphQL.Limit != tc.want || rl.GraphQL.Remaining != tc.want-1 {
				t.Fatalf("graphql bucket %+v, want limit %d with one request spent", rl.GraphQL, tc.want)
			}
		})
	}
}

// FuzzCommitOnBranch sends createCommitOnBranch with fuzzed input variables ($HEAD stands for
// the branch head): every answer is GitHub's HTTP 200 with JSON, and either an error that left
// the branch where it was (typed when the mutation ran, untyped and located when the schema
// refused the variables first, as GitHub does), or a commit whose id is the new head.
func FuzzCommitOnBranch(f *testing.F) {
	for _, seed := range []string{
		`{"branch":{"repositoryNameWithOwner":"octo-org/hello-world","branchName":"main"},"expectedHeadOid":"$HEAD","message":{"headline":"h"},"fileChanges":{"additions":[{"path":"a.txt","contents":"YQ=="}]}}`,
		`{"branch":{"repositoryNameWithOwner":"octo-org/hello-world","branchName":"refs/heads/main"},"expectedHeadOid":"$HEAD","message":{"headline":"h","body":"b"},"fileChanges":{"deletions":[{"path":"README.md"}]}}`,
		`{"branch":{"repositoryNameWithOwner":"octo-org/hello-world","branchName":"main"},"expectedHeadOid":"$HEAD","message":{"headline":"h"},"fileChanges":{"additions":[{"path":"README.md/x","contents":""}]}}`,
		`{"branch":{"repositoryNameWithOwner":"octo-org/hello-world","branchName":"main"},"expectedHeadOid":"$HEAD","message":{"headline":"h"},"fileChanges":{"additions":[{"path":"a","contents":"YQ=="}],"deletions":[{"path":"a"}]}}`,
		`{"branch":{"repositoryNameWithOwner":"octo-org/hello-world","branchName":"main"},"expectedHeadOid":"$HEAD","message":{"headline":"h"}}`,
		`{"branch":{"id":"x"},"expectedHeadOid":"$HEAD","message":{"headline":"h"}}`,
		`{"branch":{"repositoryNameWithOwner":"octo-org/hello-world","branchName":"main"},"expectedHeadOid":"$HEAD","message":{"headline":""},"fileChanges":{"additions":null}}`,
		`{"branch":{"repositoryNameWithOwner":"octo-org/hello-world","branchName":"main"},"expectedHeadOid":"$HEAD","message":{"headline":"h"},"fileChanges":{"additions":[{"path":".git/config","contents":"YQ=="}]}}`,
		`{"branch":{"repositoryNameWithOwner":"octo-org/hello-world","branchName":"main"},"expectedHeadOid":1,"message":"h","fileChanges":[]}`,
		`{"branch":null}`, `{}`, `null`, `[]`, `"x"`,
	} {
		f.Add([]byte(seed))
	}
	h, err := fakehub.New(fakehub.Config{Seed: "demo", CoreLimit: 1 << 30, GraphQLLimit: 1 << 30})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		before, err := h.BranchSHA("octo-org/hello-world", "main")
		if err != nil {
			t.Fatal(err)
		}
		var in any
		if json.Unmarshal([]byte(strings.ReplaceAll(string(input), "$HEAD", before)), &in) != nil {
			return
		}
		body, _ := json.Marshal(map[string]any{"query": commitOnBranch, "variables": map[string]any{"input": in}})
		req := httptest.NewRequest("POST", "http://fakehub.test/graphql", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "token "+fakehub.DemoToken)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("status %d for %s: %s", rec.Code, body, rec.Body.Bytes())
		}
		var a gqlAnswer
		if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
			t.Fatalf("answer is not JSON: %q", rec.Body.Bytes())
		}
		var request map[string]any
		_ = json.Unmarshal(body, &request)
		checkGraphQL(t, request, rec.Body.Bytes())
		after, _ := h.BranchSHA("octo-org/hello-world", "main")
		if len(a.Errors) > 0 {
			if a.Errors[0].Message == "" || (a.Errors[0].Type == "" && (a.Data != nil || len(a.Errors[0].Locations) == 0)) {
				t.Fatalf("error without type or message: %s", rec.Body.Bytes())
			}
			if after != before {
				t.Fatalf("a refused commit moved the branch: %s", rec.Body.Bytes())
			}
			return
		}
		var payload struct {
			Commit struct{ Oid string }
		}
		if err := json.Unmarshal(a.Data["createCommitOnBranch"], &payload); err != nil || payload.Commit.Oid != after || after == before {
			t.Fatalf("answer %s: branch %s -> %s", rec.Body.Bytes(), before, after)
		}
	})
}
