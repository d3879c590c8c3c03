package fakehub

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
func seedIssues(h *Hub, r *repo) {
	for _, l := range demoLabels {
		h.addLabelLocked(r, l.name, l.color, l.description).isDefault = true
	}
	h.nextID++
	t := h.stamp()
	r.milestones = append(r.milestones, &milestone{id: h.nextID, number: 1, title: "v1.0", description: "The first release",
		state: "open", creator: "octocat", created: t, updated: t})
	add := func(title, body, user string, labels []string, ms int, assignees []string) *issue {
		h.nextID++
		t := h.stamp()
		is := &issue{id: h.nextID, number: r.nextNumber(), title: title, body: body, state: "open", user: user,
			labels: labels, assignees: assignees, milestone: ms, created: t, updated: t}
		if is.assignees == nil {
			is.assignees = []string{}
		}
		r.issues = append(r.issues, is)
		return is
	}
	empty := add("Greeting ignores empty names", "`greet.Hello(\"\")` returns \"Good day, .\": the greeting should fall back to a default name such as \"world\".",
		"octocat", []string{"bug"}, 1, []string{"octocat"})
	add("Greeting is always in English", "The greeting cannot be translated; a `-lang` flag would pick the language.", "hubber", []string{"bug"}, 0, nil)
	add("Odd greeting for an empty name", "Running `go run ./cmd/hello` with an empty name prints a greeting with no name in it.", "hubber", []string{"bug"}, 0, nil)
	add("Add a farewell", "Next to the greeting, a `Goodbye` function would round the package off.", "octocat", []string{"enhancement"}, 1, nil)
	closed := add("Build fails on Go 1.21", "`go build` fails: go.mod asks for Go 1.22.", "hubber", []string{"bug"}, 0, nil)
	t = h.stamp()
	closed.state, closed.stateReason, closed.closedAt, closed.closedBy, closed.updated = "closed", "completed", t, "octocat", t
	h.nextID++
	t = h.stamp()
	empty.comments = append(empty.comments, &issueComment{id: h.nextID, body: "Confirmed on main: the greeting reads \"Good day, .\"", user: "hubber", created: t, updated: t})
	empty.updated = t
}
