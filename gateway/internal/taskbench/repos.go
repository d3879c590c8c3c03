package taskbench

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"ghops.dev/services/fakehub"
)

// The repository-analysis task: a question about main's recent history
// whose answer the agent computes from commits and the tree, checked
// against the answer the data implies.

func init() {
	register(repoAnalysisTask())
}

// repoRecentCommits is how many of main's newest commits the question is
// about.
const repoRecentCommits = 5

// repoUntested is what the agent must find: the Go files the last five
// commits of main changed that have no _test.go beside them at main's head.
// The Setup's commits and the demo's "Greet more formally" are those five.
var repoUntested = []string{"cmd/hello/main.go", "internal/greet/greet.go", "internal/version/version.go"}

// repoAnalysisTask: which Go files changed in main's last five commits have
// no test file of their own?
func repoAnalysisTask() Task {
	return Task{
		Name:     "repo-analysis",
		Category: "repository analysis",
		Summary:  "Find the Go files the last five commits of main changed that have no _test.go file of their own at main's head.",
		Toolsets: map[Server]string{Ghops: "repos", GMS: "repos,git"},
		Setup: func(h *fakehub.Hub) error {
			for _, cm := range []struct {
				message string
				files   map[string]string
			}{
				{"Add a farewell", map[string]string{"internal/greet/farewell.go": "package greet\n\n// Goodbye returns a farewell for name.\nfunc Goodbye(name string) string { return \"Goodbye, \" + name + \".\" }\n"}},
				{"Test the farewell", map[string]string{"internal/greet/farewell_test.go": "package greet\n\nimport \"testing\"\n\nfunc TestGoodbye(t *testing.T) {\n\tif got := Goodbye(\"world\"); got != \"Goodbye, world.\" {\n\t\tt.Fatal(got)\n\t}\n}\n"}},
				{"Print the version", map[string]string{
					"internal/version/version.go": "package version\n\n// Version is the program's version.\nconst Version = \"0.3.0\"\n",
					"cmd/hello/main.go":           "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/hello-world/internal/greet\"\n\t\"example.com/hello-world/internal/version\"\n)\n\nfunc main() {\n\tfmt.Println(greet.Hello(\"world\"), version.Version)\n}\n",
				}},
				{"Document the version", map[string]string{"docs/guide.md": "# Guide\n\nRun the program:\n\n    go run ./cmd/hello\n\nIt prints a greeting and its version.\n"}},
			} {
				if _, err := h.Commit(Repo, "main", cm.message, cm.files); err != nil {
					return err
				}
			}
			return nil
		},
		Scripts: map[Server]Script{Ghops: repoAnalysisGhops, GMS: repoAnalysisGMS},
		Gap: map[Server]string{Ghops: "half of gms's requests is not reached by one: compare_refs, get_tree (one GraphQL request) " +
			"and read_file make 3 against 7; compare_refs carries every file's patch, which the question does not need " +
			"(content 0.65 of gms's)"},
		Verify: func(ctx context.Context, _ *fakehub.Hub) error {
			got, ok := take[[]string](ctx)
			if !ok {
				return errors.New("the script found no answer")
			}
			if !slices.Equal(got, repoUntested) {
				return fmt.Errorf("untested files %v, want %v", got, repoUntested)
			}
			return nil
		},
	}
}

// untestedGo are the changed Go files (sorted) that have no X_test.go for
// X.go among paths, the files at main's head.
func untestedGo(changed []string, paths map[string]bool) []string {
	var out []string
	for _, p := range changed {
		if path.Ext(p) != ".go" || strings.HasSuffix(p, "_test.go") || !paths[p] {
			continue
		}
		if !paths[strings.TrimSuffix(p, ".go")+"_test.go"] {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// repoAnalysisGhops: the sixth commit of main is the base whose comparison
// with main lists every file the five after it changed (one call instead of
// a get_commit each); the tree tells which test files exist.
func repoAnalysisGhops(ctx context.Context, c Caller) error {
	var commits struct {
		Commits []struct {
			SHA string `json:"sha"`
		} `json:"commits"`
	}
	if err := call(ctx, c, "get_commits", map[string]any{"repo": Repo, "branch": "main", "per_page": repoRecentCommits + 1}, &commits); err != nil {
		return err
	}
	if len(commits.Commits) != repoRecentCommits+1 {
		return fmt.Errorf("main has %d commits, want more than %d", len(commits.Commits), repoRecentCommits)
	}
	var cmp struct {
		Files []struct {
			Path string `json:"path"`
		} `json:"files"`
		FilesTruncated bool `json:"files_truncated"`
	}
	if err := call(ctx, c, "compare_refs", map[string]any{"repo": Repo, "base": commits.Commits[repoRecentCommits].SHA,
		"head": commits.Commits[0].SHA, "per_page": 1}, &cmp); err != nil {
		return err
	}
	if cmp.FilesTruncated {
		return errors.New("compare_refs truncated the changed files")
	}
	var tree struct {
		Entries []struct {
			Path string `json:"path"`
		} `json:"entries"`
		Truncated bool `json:"truncated"`
	}
	if err := call(ctx, c, "get_tree", map[string]any{"repo": Repo, "branch": "main"}, &tree); err != nil {
		return err
	}
	paths := map[string]bool{}
	for _, e := range tree.Entries {
		paths[e.Path] = true
	}
	var changed []string
	for _, f := range cmp.Files {
		changed = append(changed, f.Path)
	}
	report(ctx, untestedGo(changed, paths))
	return nil
}

// repoAnalysisGMS: github-mcp-server has no comparison, so each of the five
// commits is read with its file list (detail "stats", no patches), then the
// recursive tree of main.
func repoAnalysisGMS(ctx context.Context, c Caller) error {
	gms := func(args map[string]any) map[string]any {
		args["owner"], args["repo"] = owner, name
		return args
	}
	var commits []struct {
		SHA string `json:"sha"`
	}
	if err := call(ctx, c, "list_commits", gms(map[string]any{"sha": "main", "perPage": repoRecentCommits, "fields": []string{"sha"}}), &commits); err != nil {
		return err
	}
	if len(commits) != repoRecentCommits {
		return fmt.Errorf("main has %d commits, want %d", len(commits), repoRecentCommits)
	}
	var changed []string
	for _, cm := range commits {
		var got struct {
			Files []struct {
				Filename string `json:"filename"`
			} `json:"files"`
		}
		if err := call(ctx, c, "get_commit", gms(map[string]any{"sha": cm.SHA, "detail": "stats"}), &got); err != nil {
			return err
		}
		for _, f := range got.Files {
			changed = append(changed, f.Filename)
		}
	}
	var tree struct {
		Tree []struct {
			Path string `json:"path"`
		} `json:"tree"`
	}
	if err := call(ctx, c, "get_repository_tree", gms(map[string]any{"tree_sha": commits[0].SHA, "recursive": true}), &tree); err != nil {
		return err
	}
	paths := map[string]bool{}
	for _, e := range tree.Tree {
		paths[e.Path] = true
	}
	report(ctx, untestedGo(changed, paths))
	return nil
}
