package fakehub

import (
	"time"
)

// seedEpoch is the fixed clock the demo dataset is written with, so its commit ids never change.
var seedEpoch = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)

// seedDemo writes the demo dataset (see the package README and Config.Seed).
func (h *Hub) seedDemo() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ticking, h.seeding = seedEpoch, true
	defer func() { h.seeding = false }()
	r, err := h.createRepoLocked(RepoOptions{
		Owner: "octo-org", Name: "hello-world", Description: "A friendly Go greeter, the ghops demo repository",
		DefaultBranch: "main", Language: "Go", Topics: []string{"demo", "go", "ghops"},
	})
	if err != nil {
		return err
	}
	greet := "package greet\n\n// Hello returns a greeting for name.\nfunc Hello(name string) string {\n\treturn \"Hello, \" + name + \"!\"\n}\n"
	if _, err := r.commitFiles("main", "Add greeter program", map[string]string{
		"go.mod":                  "module example.com/hello-world\n\ngo 1.22\n",
		"cmd/hello/main.go":       "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/hello-world/internal/greet\"\n)\n\nfunc main() {\n\tfmt.Println(greet.Hello(\"world\"))\n}\n",
		"internal/greet/greet.go": greet,
		"docs/guide.md":           "# Guide\n\nRun the program:\n\n    go run ./cmd/hello\n\nIt prints a greeting.\n",
	}, h.stamp()); err != nil {
		return err
	}
	// feature/conflict and main both rewrite the greeting line.
	if _, err := r.commitFiles("feature/conflict", "Greet more casually", map[string]string{
		"internal/greet/greet.go": "package greet\n\n// Hello returns a greeting for name.\nfunc Hello(name string) string {\n\treturn \"Hey there, \" + name + \"!\"\n}\n",
	}, h.stamp()); err != nil {
		return err
	}
	if _, err := r.commitFiles("main", "Greet more formally", map[string]string{
		"internal/greet/greet.go": "package greet\n\n// Hello returns a greeting for name.\nfunc Hello(name string) string {\n\treturn \"Good day, \" + name + \".\"\n}\n",
	}, h.stamp()); err != nil {
		return err
	}
	cleanHead, err := r.commitFiles("feature/clean", "Document the greet package", map[string]string{
		"docs/guide.md": "# Guide\n\nRun the program:\n\n    go run ./cmd/hello\n\nIt prints a greeting.\n\n## Packages\n\n- `internal/greet` builds the greeting.\n",
	}, h.stamp())
	if err != nil {
		return err
	}
	h.nextID++
	t := h.stamp()
	r.checks[cleanHead.String()] = append(r.checks[cleanHead.String()], &checkRun{id: h.nextID, name: "ci/build", status: "completed", conclusion: "success", sha: cleanHead.String(), started: t, completed: t})
	p1, verr := h.openPullLocked(r, "feature/clean", "main", "Document the greet package", "Adds a Packages section to the guide.", false, "octocat")
	if verr != nil {
		return verr.asError()
	}
	p2, verr := h.openPullLocked(r, "feature/conflict", "main", "Greet more casually", "Changes the greeting; conflicts with main.", false, "octocat")
	if verr != nil {
		return verr.asError()
	}
	// The demo shows computed mergeability straight away.
	r.mergeability(p1, true)
	r.mergeability(p2, true)
	if err := h.seedDemoCI(r); err != nil {
		return err
	}
	seedIssues(h, r)
	if _, err := h.createRepoLocked(RepoOptions{Owner: "octo-org", Name: "secret", Description: "Private; the demo token cannot see it",
		Private: true, Language: "Go"}); err != nil {
		return err
	}
	if _, err := h.createRepoLocked(RepoOptions{Owner: "octo-org", Name: "empty", Description: "An empty repository", Empty: true}); err != nil {
		return err
	}
	return h.seedReviews(r)
}
