package fakehub_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"ghops.dev/services/fakehub"
)

// contentFileSchema compiles the "Content File" branch of the contents API's 200 answer, the shape
// GitHub documents for /readme too (which the OpenAPI subset does not carry).
func contentFileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := loadContract(t)
	op := c.paths["/repos/{owner}/{repo}/contents/{path}"].(map[string]any)["get"].(map[string]any)
	schema := op["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
	var file any
	for _, alt := range schema["oneOf"].([]any) {
		if alt.(map[string]any)["title"] == "Content File" {
			file = alt
		}
	}
	if file == nil {
		t.Fatal("no Content File schema in the subset")
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource("mem://content-file.json", toJSONSchema(file)); err != nil {
		t.Fatal(err)
	}
	s, err := comp.Compile("mem://content-file.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReadme finds READMEs where GitHub looks (.github, root, docs, in that order), honours ref,
// answers 404 when there is none, and answers in the contents API's file shape.
func TestReadme(t *testing.T) {
	ctx := context.Background()
	s := startHub(t, fakehub.Config{})
	h := s.Hub
	mustCommit := func(repo, branch string, files map[string]string) {
		t.Helper()
		if _, err := h.Commit(repo, branch, "files", files); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"docs-only", "no-readme", "dot-github"} {
		if err := h.CreateRepo(fakehub.RepoOptions{Owner: "octo-org", Name: name, Empty: true}); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit("octo-org/docs-only", "", map[string]string{"docs/readme.rst": "docs readme\n", "docs/README.txt": "other\n", "main.go": "package main\n"})
	mustCommit("octo-org/no-readme", "", map[string]string{"main.go": "package main\n", "src/README.md": "too deep\n", "READMEs/x": "not a readme\n"})
	mustCommit("octo-org/dot-github", "", map[string]string{"README.md": "root\n", ".github/README.md": "dot github\n", "docs/README.md": "docs\n"})
	mustCommit("octo-org/hello-world", "feature/readme", map[string]string{"docs/README": "branch readme\n"})
	file := contentFileSchema(t)
	tests := []struct {
		name, repo, ref string
		path, content   string
		status          int
	}{
		{name: "root", repo: "hello-world", path: "README.md", content: "# hello-world\n\nA friendly Go greeter, the ghops demo repository\n"},
		{name: "root wins over docs on a branch", repo: "hello-world", ref: "feature/readme", path: "README.md", content: "# hello-world\n\nA friendly Go greeter, the ghops demo repository\n"},
		{name: ".github first", repo: "dot-github", path: ".github/README.md", content: "dot github\n"},
		{name: "docs, smallest name", repo: "docs-only", path: "docs/README.txt", content: "other\n"},
		{name: "none", repo: "no-readme", status: 404},
		{name: "empty repository", repo: "empty", status: 404},
		{name: "unknown ref", repo: "hello-world", ref: "no-such-ref", status: 404},
		{name: "invisible repository", repo: "secret", status: 404},
	}
	gh := client(t, s, fakehub.DemoToken, "")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts *github.RepositoryContentGetOptions
			if tc.ref != "" {
				opts = &github.RepositoryContentGetOptions{Ref: tc.ref}
			}
			rd, _, err := gh.Repositories.GetReadme(ctx, "octo-org", tc.repo, opts)
			if tc.status != 0 {
				if status(err) != tc.status {
					t.Fatalf("err = %v, want %d", err, tc.status)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			text, err := rd.GetContent()
			if err != nil || rd.GetPath() != tc.path || text != tc.content || rd.GetType() != "file" || rd.GetSize() != len(tc.content) {
				t.Fatalf("readme %s %q (type %s size %d), err %v; want %s %q", rd.GetPath(), text, rd.GetType(), rd.GetSize(), err, tc.path, tc.content)
			}
			// The raw answer matches the contents API's file schema.
			u := s.URL + "repos/octo-org/" + tc.repo + "/readme"
			if tc.ref != "" {
				u += "?ref=" + tc.ref
			}
			req, _ := http.NewRequest("GET", u, nil)
			req.Header.Set("Authorization", "token "+fakehub.DemoToken)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if err := file.Validate(inst); err != nil {
				t.Fatalf("readme does not match the contents file schema: %v", err)
			}
		})
	}
	t.Run("schema check can fail", func(t *testing.T) {
		var bad map[string]any
		_ = json.Unmarshal([]byte(`{"type":"file","name":"README.md","path":"README.md"}`), &bad)
		if err := file.Validate(bad); err == nil || !strings.Contains(err.Error(), "missing") {
			t.Fatalf("incomplete body accepted: %v", err)
		}
	})
}
