// Package seed writes fakehub's demo dataset (Config.Seed "demo"): octo-org/hello-world with its
// history, a pull request with a failed workflow run, two workflows with runs in every state, issues,
// labels and a milestone, two releases with their tags, the private octo-org/secret, and the projects
// octo-org/1 (a sprint board) and octocat/1.
package seed

import (
	"ghops.dev/services/fakehub/internal/hub"
)

// seedDemo writes the demo dataset (see the package README and Config.Seed).
func (h *api) seedDemo() error {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	h.Ticking, h.Seeding = hub.SeedEpoch, true
	defer func() { h.Seeding = false }()
	r, err := h.CreateRepoLocked(hub.RepoOptions{
		Owner: "octo-org", Name: "hello-world", Description: "A friendly Go greeter, the ghops demo repository",
		DefaultBranch: "main", Language: "Go", Topics: []string{"demo", "go", "ghops"},
	})
	if err != nil {
		return err
	}
	greet := "package greet\n\n// Hello returns a greeting for name.\nfunc Hello(name string) string {\n\treturn \"Hello, \" + name + \"!\"\n}\n"
	if _, err := r.CommitFiles("main", "Add greeter program", map[string]string{
		"go.mod":                  "module example.com/hello-world\n\ngo 1.22\n",
		"cmd/hello/main.go":       "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/hello-world/internal/greet\"\n)\n\nfunc main() {\n\tfmt.Println(greet.Hello(\"world\"))\n}\n",
		"internal/greet/greet.go": greet,
		"docs/guide.md":           "# Guide\n\nRun the program:\n\n    go run ./cmd/hello\n\nIt prints a greeting.\n",
	}, h.Stamp()); err != nil {
		return err
	}
	// feature/conflict and main both rewrite the greeting line.
	if _, err := r.CommitFiles("feature/conflict", "Greet more casually", map[string]string{
		"internal/greet/greet.go": "package greet\n\n// Hello returns a greeting for name.\nfunc Hello(name string) string {\n\treturn \"Hey there, \" + name + \"!\"\n}\n",
	}, h.Stamp()); err != nil {
		return err
	}
	if _, err := r.CommitFiles("main", "Greet more formally", map[string]string{
		"internal/greet/greet.go": "package greet\n\n// Hello returns a greeting for name.\nfunc Hello(name string) string {\n\treturn \"Good day, \" + name + \".\"\n}\n",
	}, h.Stamp()); err != nil {
		return err
	}
	cleanHead, err := r.CommitFiles("feature/clean", "Document the greet package", map[string]string{
		"docs/guide.md": "# Guide\n\nRun the program:\n\n    go run ./cmd/hello\n\nIt prints a greeting.\n\n## Packages\n\n- `internal/greet` builds the greeting.\n",
	}, h.Stamp())
	if err != nil {
		return err
	}
	h.NextID++
	t := h.Stamp()
	r.Checks[cleanHead.String()] = append(r.Checks[cleanHead.String()], &hub.CheckRun{ID: h.NextID, Name: "ci/build", Status: "completed", Conclusion: "success", SHA: cleanHead.String(), Started: t, Completed: t})
	p1, verr := h.OpenPullLocked(r, "feature/clean", "main", "Document the greet package", "Adds a Packages section to the guide.", false, "octocat")
	if verr != nil {
		return verr.AsError()
	}
	p2, verr := h.OpenPullLocked(r, "feature/conflict", "main", "Greet more casually", "Changes the greeting; conflicts with main.", false, "octocat")
	if verr != nil {
		return verr.AsError()
	}
	// The demo shows computed mergeability straight away.
	r.Mergeability(p1, true)
	r.Mergeability(p2, true)
	if err := h.seedDemoCI(r); err != nil {
		return err
	}
	seedIssues(h.Hub, r)
	secret, err := h.CreateRepoLocked(hub.RepoOptions{Owner: "octo-org", Name: "secret", Description: "Private; the demo token cannot see it",
		Private: true, Language: "Go"})
	if err != nil {
		return err
	}
	if _, err := h.CreateRepoLocked(hub.RepoOptions{Owner: "octo-org", Name: "empty", Description: "An empty repository", Empty: true}); err != nil {
		return err
	}
	if err := h.seedReviews(r); err != nil {
		return err
	}
	if err := seedProjects(h.Hub, r, secret); err != nil {
		return err
	}
	seedSubIssues(h.Hub, r)
	if err := h.seedDemoWorkflows(r); err != nil {
		return err
	}
	// Last, so that every id seeded before keeps its value.
	return seedReleases(h.Hub, r)
}

// api seeds the shared hub.
type api struct{ *hub.Hub }

// Demo writes the demo dataset into h (see the package README and Config.Seed).
func Demo(h *hub.Hub) error { return (&api{h}).seedDemo() }
