package seed

import (
	"ghops.dev/services/fakehub/internal/hub"
)

// demoLabels are GitHub's default labels of a new repository, with its colours and descriptions.
var demoLabels = []struct{ name, color, description string }{
	{"bug", "d73a4a", "Something isn't working"},
	{"documentation", "0075ca", "Improvements or additions to documentation"},
	{"duplicate", "cfd3d7", "This issue or pull request already exists"},
	{"enhancement", "a2eeef", "New feature or request"},
	{"question", "d876e3", "Further information is requested"},
}

// seedIssues gives the demo repository labels, a milestone and issues for the triage task of
// issue 22: open bugs that mention "greeting" (one a duplicate of another), an enhancement and a
// closed bug, with a comment. Called with the hub locked, after the pull requests, so that issue
// numbers follow theirs as on GitHub.
func seedIssues(h *hub.Hub, r *hub.Repo) {
	for _, l := range demoLabels {
		h.AddLabelLocked(r, l.name, l.color, l.description).IsDefault = true
	}
	h.NextID++
	t := h.Stamp()
	r.Milestones = append(r.Milestones, &hub.Milestone{ID: h.NextID, Number: 1, Title: "v1.0", Description: "The first release",
		State: "open", Creator: "octocat", Created: t, Updated: t})
	add := func(title, body, user string, labels []string, ms int, assignees []string) *hub.Issue {
		h.NextID++
		t := h.Stamp()
		is := &hub.Issue{ID: h.NextID, Number: r.NextNumber(), Title: title, Body: body, State: "open", User: user,
			Labels: labels, Assignees: assignees, Milestone: ms, Created: t, Updated: t}
		if is.Assignees == nil {
			is.Assignees = []string{}
		}
		r.Issues = append(r.Issues, is)
		return is
	}
	empty := add("Greeting ignores empty names", "`greet.Hello(\"\")` returns \"Good day, .\": the greeting should fall back to a default name such as \"world\".",
		"octocat", []string{"bug"}, 1, []string{"octocat"})
	add("Greeting is always in English", "The greeting cannot be translated; a `-lang` flag would pick the language.", "hubber", []string{"bug"}, 0, nil)
	add("Odd greeting for an empty name", "Running `go run ./cmd/hello` with an empty name prints a greeting with no name in it.", "hubber", []string{"bug"}, 0, nil)
	add("Add a farewell", "Next to the greeting, a `Goodbye` function would round the package off.", "octocat", []string{"enhancement"}, 1, nil)
	closed := add("Build fails on Go 1.21", "`go build` fails: go.mod asks for Go 1.22.", "hubber", []string{"bug"}, 0, nil)
	t = h.Stamp()
	closed.State, closed.StateReason, closed.ClosedAt, closed.ClosedBy, closed.Updated = "closed", "completed", t, "octocat", t
	h.NextID++
	t = h.Stamp()
	empty.Comments = append(empty.Comments, &hub.IssueComment{ID: h.NextID, Body: "Confirmed on main: the greeting reads \"Good day, .\"", User: "hubber", Created: t, Updated: t})
	empty.Updated = t
}
