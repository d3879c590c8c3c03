package seed

import (
	"ghops.dev/services/fakehub/internal/hub"
	"ghops.dev/services/fakehub/internal/projects"
)

// seedProjects writes the demo projects: octo-org/1, a sprint board whose Sprint iterations are
// the past, current and next two weeks around fakehub's clock, with items from octo-org's
// repositories (one of them in the private octo-org/secret, which the demo token sees as
// REDACTED), a draft, an archived item, two views and a status update; and octocat/1, a user
// project. hello and secret are the seeded repositories; called with the hub locked, last, so
// that the ids of everything seeded before stay as they were.
func seedProjects(h *hub.Hub, hello, secret *hub.Repo) error {
	projects.MarkOrganization(h, "octo-org")
	h.NextID++
	t := h.Stamp()
	private := &hub.Issue{ID: h.NextID, Number: secret.NextNumber(), Title: "Rotate the signing key", Body: "The release signing key expires soon.",
		State: "open", User: "hubber", Assignees: []string{}, Created: t, Updated: t}
	secret.Issues = append(secret.Issues, private)

	p := projects.NewProject(h, "octo-org", "Greeting roadmap", "octocat")
	p.ShortDescription = "Sprint planning of the greet package"
	today := h.Now()
	// The current sprint began three days ago; the previous one is over, the next to come.
	start := today.AddDate(0, 0, -3-14)
	sprint, err := projects.AddField(h, p, "Sprint", projects.TypeIteration, nil, &projects.IterationConfigSpec{
		Start: start, Duration: 14, Iterations: []projects.IterationSpec{
			{Title: "Sprint 1", Start: start, Duration: 14},
			{Title: "Sprint 2", Start: start.AddDate(0, 0, 14), Duration: 14},
			{Title: "Sprint 3", Start: start.AddDate(0, 0, 28), Duration: 14},
		}})
	if err != nil {
		return err
	}
	estimate, err := projects.AddField(h, p, "Estimate", projects.TypeNumber, nil, nil)
	if err != nil {
		return err
	}
	due, err := projects.AddField(h, p, "Due", projects.TypeDate, nil, nil)
	if err != nil {
		return err
	}
	priority, err := projects.AddField(h, p, "Priority", projects.TypeSingleSelect, []projects.Option{
		{Name: "P0", Color: "RED", Description: "Drop everything"}, {Name: "P1", Color: "ORANGE"}, {Name: "P2", Color: "BLUE"}}, nil)
	if err != nil {
		return err
	}
	status := p.FieldNamed("Status")
	set := func(it *projects.Item, statusName, sprintTitle string, points float64) {
		projects.SetValue(h, it, status, projects.Value{OptionID: status.OptionNamed(statusName).ID})
		if sprintTitle != "" {
			projects.SetValue(h, it, sprint, projects.Value{IterationID: sprint.IterationTitled(sprintTitle).ID})
		}
		if points > 0 {
			projects.SetValue(h, it, estimate, projects.Value{Number: points})
		}
	}
	// hello-world's issues by title (their numbers follow the pull requests seeded before).
	issue := func(title string) int {
		for _, x := range hello.AllIssues() {
			if x.Fields().Title == title {
				return x.Is.Number
			}
		}
		return 0
	}
	set(projects.AddItem(h, p, hello, issue("Greeting ignores empty names"), "octocat"), "In Progress", "Sprint 2", 3)
	set(projects.AddItem(h, p, hello, issue("Greeting is always in English"), "octocat"), "Todo", "Sprint 2", 2)
	set(projects.AddItem(h, p, hello, issue("Document the greet package"), "octocat"), "In Progress", "Sprint 2", 1)
	done := projects.AddItem(h, p, hello, issue("Build fails on Go 1.21"), "octocat")
	set(done, "Done", "Sprint 1", 1)
	projects.SetValue(h, done, due, projects.Value{Date: start.AddDate(0, 0, 10).Format("2006-01-02")})
	farewell := projects.AddItem(h, p, hello, issue("Add a farewell"), "octocat")
	set(farewell, "Todo", "Sprint 3", 5)
	projects.SetValue(h, farewell, priority, projects.Value{OptionID: priority.OptionNamed("P2").ID})
	archived := projects.AddItem(h, p, hello, issue("Odd greeting for an empty name"), "octocat")
	set(archived, "Todo", "", 0)
	archived.Archived = true
	set(projects.AddItem(h, p, secret, private.Number, "hubber"), "In Progress", "Sprint 2", 8)
	set(projects.AddDraft(h, p, "Plan the 2.0 greeting", "Collect the greetings users ask for.", "octocat"), "Todo", "Sprint 3", 0)
	p.Views[0].Name = "Backlog"
	projects.AddView(h, p, "Current sprint", "BOARD_LAYOUT", "iteration:@current -status:Done")
	projects.AddStatusUpdate(h, p, "ON_TRACK", "Sprint 2 is on track.", start.AddDate(0, 0, 14).Format("2006-01-02"),
		start.AddDate(0, 0, 27).Format("2006-01-02"), "octocat")

	mine := projects.NewProject(h, "octocat", "My tasks", "octocat")
	projects.AddItem(h, mine, hello, issue("Greeting ignores empty names"), "octocat")
	projects.AddDraft(h, mine, "Write the release notes", "", "octocat")
	return nil
}
