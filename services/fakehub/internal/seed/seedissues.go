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

// seedSubIssues gives the demo repository labels used across issues and pull requests and a
// parent issue with three sub-issues, one closed, for the labels and sub-issue tools. Called with
// the hub locked, last, so that the numbers of everything seeded before stay as they were.
func seedSubIssues(h *hub.Hub, r *hub.Repo) {
	h.AddLabelLocked(r, "i18n", "fbca04", "Translations and languages")
	h.AddLabelLocked(r, "good first issue", "7057ff", "Good for newcomers")
	for n, label := range map[int]string{1: "documentation", 2: "enhancement"} {
		if x, ok := r.IssueSideLocked(n); ok && x.P != nil {
			x.Is.Labels = append(x.Is.Labels, label)
		}
	}
	add := func(title, body string, labels ...string) *hub.Issue {
		h.NextID++
		t := h.Stamp()
		is := &hub.Issue{ID: h.NextID, Number: r.NextNumber(), Title: title, Body: body, State: "open", User: "octocat",
			Labels: labels, Assignees: []string{}, Created: t, Updated: t}
		r.Issues = append(r.Issues, is)
		return is
	}
	parent := add("Speak more languages", "Say hello in the reader's own language; the sub-issues track each step.", "enhancement", "i18n")
	subs := []*hub.Issue{
		add("Translate to French", "`Bonjour, <name> !` for `fr`.", "i18n", "good first issue"),
		add("Translate to German", "`Hallo, <name>!` for `de`.", "i18n"),
		add("Pick the language from $LANG", "Read the language from the environment, falling back to English.", "i18n"),
	}
	t := h.Stamp()
	done := subs[1]
	done.State, done.StateReason, done.ClosedAt, done.ClosedBy, done.Updated = "closed", "completed", t, "octocat", t
	for _, s := range subs {
		s.Parent = parent
	}
	parent.SubIssues = subs
}
