package server_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"ghops.dev/services/github/servicetest"
)

// TestLabelsAndSubIssues runs the label and sub-issue tools, and the issue list fields an agent
// sorts and filters by, against the demo dataset (labels on issues and pull requests, the parent
// "Speak more languages" with three sub-issues, one closed), in order: later rows see what
// earlier ones wrote. Each row checks the answer and the GitHub requests it made.
func TestLabelsAndSubIssues(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	c := e.svc.Client
	bug := demoIssue(t, c, "Greeting ignores empty names")
	parent := demoIssue(t, c, "Speak more languages")
	french := demoIssue(t, c, "Translate to French")
	german := demoIssue(t, c, "Translate to German")
	tests := []callCase{
		{name: "list_labels", call: func(x context.Context) (proto.Message, error) {
			return c.ListLabels(x, &ghopsv1.ListLabelsRequest{Repo: repo})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/labels": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.ListLabelsResponse)
			i := slices.IndexFunc(r.Labels, func(l *ghopsv1.Label) bool { return l.Name == "good first issue" })
			if len(r.Labels) < 7 || i < 0 || r.Labels[i].Color != "7057ff" || r.Labels[i].Description != "Good for newcomers" ||
				r.Page.PerPage != 100 || r.Page.HasNext {
				t.Errorf("got %v", r)
			}
		}},
		{name: "create_label takes a colour with #", call: func(x context.Context) (proto.Message, error) {
			return c.CreateLabel(x, &ghopsv1.CreateLabelRequest{Repo: repo, Name: "stale", Color: "#C0FFEE", Description: ptr("No activity")})
		}, calls: map[string]int{"POST /repos/{owner}/{repo}/labels": 1}, check: func(t *testing.T, m proto.Message) {
			if l := m.(*ghopsv1.CreateLabelResponse).Label; l.Name != "stale" || l.Color != "c0ffee" || l.Description != "No activity" {
				t.Errorf("got %v", l)
			}
		}},
		{name: "update_label renames; issues keep it", call: func(x context.Context) (proto.Message, error) {
			return c.UpdateLabel(x, &ghopsv1.UpdateLabelRequest{Repo: repo, Name: "i18n", NewName: ptr("l10n"), Color: ptr("00ff00")})
		}, calls: map[string]int{"PATCH /repos/{owner}/{repo}/labels/{name}": 1}, check: func(t *testing.T, m proto.Message) {
			if l := m.(*ghopsv1.UpdateLabelResponse).Label; l.Name != "l10n" || l.Color != "00ff00" || l.Description != "Translations and languages" {
				t.Errorf("got %v", l)
			}
		}},
		{name: "label_issue adds in one POST", call: func(x context.Context) (proto.Message, error) {
			return c.LabelIssue(x, &ghopsv1.LabelIssueRequest{Repo: repo, IssueNumber: bug, Add: []string{"stale", "l10n"}})
		}, calls: map[string]int{"POST /repos/{owner}/{repo}/issues/{issue_number}/labels": 1}, check: func(t *testing.T, m proto.Message) {
			if got := m.(*ghopsv1.LabelIssueResponse).Labels; !slices.Equal(got, []string{"bug", "stale", "l10n"}) {
				t.Errorf("got %v", got)
			}
		}},
		{name: "label_issue removes one DELETE a label, the rest stays", call: func(x context.Context) (proto.Message, error) {
			return c.LabelIssue(x, &ghopsv1.LabelIssueRequest{Repo: repo, IssueNumber: bug, Remove: []string{"STALE", "bug"}, Add: []string{"question"}})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/issues/{issue_number}": 1, "POST /repos/{owner}/{repo}/issues/{issue_number}/labels": 1,
			"DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}": 2}, check: func(t *testing.T, m proto.Message) {
			if got := m.(*ghopsv1.LabelIssueResponse).Labels; !slices.Equal(got, []string{"l10n", "question"}) {
				t.Errorf("got %v", got)
			}
		}},
		{name: "label_issue on a pull request", call: func(x context.Context) (proto.Message, error) {
			return c.LabelIssue(x, &ghopsv1.LabelIssueRequest{Repo: repo, IssueNumber: 2, Remove: []string{"enhancement"}})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/issues/{issue_number}": 1, "DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}": 1},
			check: func(t *testing.T, m proto.Message) {
				if got := m.(*ghopsv1.LabelIssueResponse).Labels; len(got) != 0 {
					t.Errorf("got %v", got)
				}
			}},
		{name: "get_issue shows sub-issue progress", call: func(x context.Context) (proto.Message, error) {
			return c.GetIssue(x, &ghopsv1.GetIssueRequest{Repo: repo, IssueNumber: parent})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/issues/{issue_number}": 1}, check: func(t *testing.T, m proto.Message) {
			is := m.(*ghopsv1.GetIssueResponse).Issue
			if !proto.Equal(is.SubIssues, &ghopsv1.SubIssuesSummary{Total: 3, Completed: 1, PercentCompleted: 33}) || is.Parent != nil ||
				!slices.Equal(is.Labels, []string{"enhancement", "l10n"}) {
				t.Errorf("got %v", is)
			}
		}},
		{name: "get_issue shows the parent", call: func(x context.Context) (proto.Message, error) {
			return c.GetIssue(x, &ghopsv1.GetIssueRequest{Repo: repo, IssueNumber: german})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/issues/{issue_number}": 1}, check: func(t *testing.T, m proto.Message) {
			is := m.(*ghopsv1.GetIssueResponse).Issue
			if !proto.Equal(is.Parent, &ghopsv1.IssueLink{Repo: repo, Number: parent}) || is.SubIssues != nil || is.State != "closed" {
				t.Errorf("got %v", is)
			}
		}},
		{name: "list_sub_issues", call: func(x context.Context) (proto.Message, error) {
			return c.ListSubIssues(x, &ghopsv1.ListSubIssuesRequest{Repo: repo, IssueNumber: parent})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/issues/{issue_number}/sub_issues": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.ListSubIssuesResponse)
			if len(r.SubIssues) != 3 || r.SubIssues[0].Number != french || r.SubIssues[0].Repo != repo || r.SubIssues[0].Title != "Translate to French" ||
				r.SubIssues[1].State != "closed" || r.SubIssues[0].AuthorAssociation == "" || r.Page.HasNext {
				t.Errorf("got %v", r)
			}
		}},
		{name: "add_sub_issue by number", call: func(x context.Context) (proto.Message, error) {
			knowKinds(t, c) // the sub-issue's id is known: the write alone (kindmemo.go)
			e.hub.ResetStats()
			return c.AddSubIssue(x, &ghopsv1.AddSubIssueRequest{Repo: repo, IssueNumber: parent, SubIssue: bug})
		}, calls: map[string]int{"POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues": 1},
			check: func(t *testing.T, m proto.Message) {
				if got := m.(*ghopsv1.AddSubIssueResponse).SubIssues; !proto.Equal(got, &ghopsv1.SubIssuesSummary{Total: 4, Completed: 1, PercentCompleted: 25}) {
					t.Errorf("got %v", got)
				}
			}},
		{name: "add_sub_issue moves one with replace_parent", call: func(x context.Context) (proto.Message, error) {
			knowKinds(t, c) // the sub-issue's id is known: the write alone (kindmemo.go)
			e.hub.ResetStats()
			return c.AddSubIssue(x, &ghopsv1.AddSubIssueRequest{Repo: repo, IssueNumber: german, SubIssue: french, SubIssueRepo: ptr(repo), ReplaceParent: ptr(true)})
		}, calls: map[string]int{"POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues": 1},
			check: func(t *testing.T, m proto.Message) {
				if got := m.(*ghopsv1.AddSubIssueResponse).SubIssues; got.GetTotal() != 1 || got.GetCompleted() != 0 {
					t.Errorf("got %v", got)
				}
			}},
		{name: "remove_sub_issue", call: func(x context.Context) (proto.Message, error) {
			knowKinds(t, c) // the sub-issue's id is known: the write alone (kindmemo.go)
			e.hub.ResetStats()
			return c.RemoveSubIssue(x, &ghopsv1.RemoveSubIssueRequest{Repo: repo, IssueNumber: parent, SubIssue: bug})
		}, calls: map[string]int{"DELETE /repos/{owner}/{repo}/issues/{issue_number}/sub_issue": 1},
			check: func(t *testing.T, m proto.Message) {
				if got := m.(*ghopsv1.RemoveSubIssueResponse).SubIssues; got.GetTotal() != 2 || got.GetCompleted() != 1 {
					t.Errorf("got %v", got)
				}
			}},
		{name: "list_issues by milestone, with it", call: func(x context.Context) (proto.Message, error) {
			return c.ListIssues(x, &ghopsv1.ListIssuesRequest{Repo: repo, Milestone: ptr("1")})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/issues": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.ListIssuesResponse)
			if len(r.Issues) != 2 {
				t.Fatalf("want the 2 issues of v1.0, got %v", r)
			}
			for _, is := range r.Issues {
				if is.MilestoneNumber != 1 || is.Milestone != "v1.0" || is.UpdatedAt == nil || len(is.Labels) == 0 {
					t.Errorf("got %v", is)
				}
			}
		}},
		{name: "list_issues without a milestone", call: func(x context.Context) (proto.Message, error) {
			return c.ListIssues(x, &ghopsv1.ListIssuesRequest{Repo: repo, Milestone: ptr("none"), State: ptr("all")})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/issues": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.ListIssuesResponse)
			if len(r.Issues) != 7 || slices.ContainsFunc(r.Issues, func(is *ghopsv1.IssueSummary) bool { return is.MilestoneNumber != 0 || is.Milestone != "" }) {
				t.Errorf("want the 7 issues without a milestone, got %v", r)
			}
		}},
		{name: "search_issues carries updated_at, milestone and the pull request marker", call: func(x context.Context) (proto.Message, error) {
			return c.SearchIssues(x, &ghopsv1.SearchIssuesRequest{Query: "repo:octo-org/hello-world label:l10n"})
		}, calls: map[string]int{"GET /search/issues": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.SearchIssuesResponse)
			i := slices.IndexFunc(r.Items, func(it *ghopsv1.IssueSearchItem) bool { return it.Number == bug })
			if len(r.Items) < 2 || i < 0 || r.Items[i].MilestoneNumber != 1 || r.Items[i].Milestone != "v1.0" {
				t.Fatalf("got %v", r)
			}
			for _, it := range r.Items {
				if it.UpdatedAt == nil || it.IsPullRequest || !slices.Contains(it.Labels, "l10n") {
					t.Errorf("got %v", it)
				}
			}
		}},
	}
	runCallCases(t, e, tests)
}

// TestLabelAndSubIssueFailures: an unknown label is -32002 with data.resource type label, a
// label the issue lacks is refused before anything is written, GitHub's 422s are
// GITHUB_VALIDATION, and a pull request cannot become a sub-issue.
func TestLabelAndSubIssueFailures(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	c := e.svc.Client
	bug := demoIssue(t, c, "Greeting ignores empty names")
	parent := demoIssue(t, c, "Speak more languages")
	french := demoIssue(t, c, "Translate to French")
	label := func(name string) *ghopsv1.Resource {
		return &ghopsv1.Resource{Type: "label", Id: repo + "/labels/" + name}
	}
	tests := []struct {
		name     string
		code     codes.Code
		reason   ghopsv1.ErrorReason
		resource *ghopsv1.Resource
		calls    map[string]int
		call     func(x context.Context) error
	}{
		{"update_label of an unknown label", codes.NotFound, ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, label("nope"),
			map[string]int{"PATCH /repos/{owner}/{repo}/labels/{name}": 1}, func(x context.Context) error {
				_, err := c.UpdateLabel(x, &ghopsv1.UpdateLabelRequest{Repo: repo, Name: "nope", Color: ptr("ffffff")})
				return err
			}},
		{"update_label with no change", codes.InvalidArgument, ghopsv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT, nil,
			map[string]int{}, func(x context.Context) error {
				_, err := c.UpdateLabel(x, &ghopsv1.UpdateLabelRequest{Repo: repo, Name: "bug"})
				return err
			}},
		{"create_label of a taken name", codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION, nil,
			map[string]int{"POST /repos/{owner}/{repo}/labels": 1}, func(x context.Context) error {
				_, err := c.CreateLabel(x, &ghopsv1.CreateLabelRequest{Repo: repo, Name: "Bug", Color: "ffffff"})
				return err
			}},
		{"label_issue removing a label the issue lacks writes nothing", codes.NotFound, ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, label("question"),
			map[string]int{"GET /repos/{owner}/{repo}/issues/{issue_number}": 1}, func(x context.Context) error {
				_, err := c.LabelIssue(x, &ghopsv1.LabelIssueRequest{Repo: repo, IssueNumber: bug, Add: []string{"enhancement"}, Remove: []string{"question"}})
				return err
			}},
		{"label_issue of a missing issue", codes.NotFound, ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, &ghopsv1.Resource{Type: "issue", Id: repo + "#999"},
			map[string]int{"POST /repos/{owner}/{repo}/issues/{issue_number}/labels": 1}, func(x context.Context) error {
				_, err := c.LabelIssue(x, &ghopsv1.LabelIssueRequest{Repo: repo, IssueNumber: 999, Add: []string{"bug"}})
				return err
			}},
		{"label_issue with nothing to do", codes.InvalidArgument, ghopsv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT, nil,
			map[string]int{}, func(x context.Context) error {
				_, err := c.LabelIssue(x, &ghopsv1.LabelIssueRequest{Repo: repo, IssueNumber: bug})
				return err
			}},
		{"label_issue adding and removing one label", codes.InvalidArgument, ghopsv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT, nil,
			map[string]int{}, func(x context.Context) error {
				_, err := c.LabelIssue(x, &ghopsv1.LabelIssueRequest{Repo: repo, IssueNumber: bug, Add: []string{"bug"}, Remove: []string{"BUG"}})
				return err
			}},
		{"add_sub_issue of a pull request", codes.NotFound, ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, &ghopsv1.Resource{Type: "issue", Id: repo + "#1"},
			map[string]int{"GET /repos/{owner}/{repo}/issues/{issue_number}": 1}, func(x context.Context) error {
				_, err := c.AddSubIssue(x, &ghopsv1.AddSubIssueRequest{Repo: repo, IssueNumber: parent, SubIssue: 1})
				return err
			}},
		{"add_sub_issue that has a parent", codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION, nil,
			map[string]int{"POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues": 1}, func(x context.Context) error {
				knowKinds(t, c) // the sub-issue's id is known: the write alone (kindmemo.go)
				e.hub.ResetStats()
				_, err := c.AddSubIssue(x, &ghopsv1.AddSubIssueRequest{Repo: repo, IssueNumber: bug, SubIssue: french})
				return err
			}},
		{"remove_sub_issue that is not one", codes.NotFound, ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, &ghopsv1.Resource{Type: "issue", Id: repo + "#" + strconv.Itoa(int(parent))},
			map[string]int{"DELETE /repos/{owner}/{repo}/issues/{issue_number}/sub_issue": 1}, func(x context.Context) error {
				knowKinds(t, c) // the sub-issue's id is known: the write alone (kindmemo.go)
				e.hub.ResetStats()
				_, err := c.RemoveSubIssue(x, &ghopsv1.RemoveSubIssueRequest{Repo: repo, IssueNumber: parent, SubIssue: bug})
				return err
			}},
		{"add_sub_issue of a missing issue", codes.NotFound, ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, &ghopsv1.Resource{Type: "issue", Id: repo + "#999"},
			map[string]int{"GET /repos/{owner}/{repo}/issues/{issue_number}": 1}, func(x context.Context) error {
				_, err := c.AddSubIssue(x, &ghopsv1.AddSubIssueRequest{Repo: repo, IssueNumber: parent, SubIssue: 999})
				return err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.hub.ResetStats()
			d := wantStatus(t, tt.call(ctx(t)), tt.code, tt.reason)
			if tt.resource != nil && !proto.Equal(d.gh.GetResource(), tt.resource) {
				t.Errorf("data.resource %v, want %v (%s)", d.gh.GetResource(), tt.resource, d.st.Message())
			}
			assertCalls(t, e.hub, tt.calls)
		})
	}
	t.Run("the refused changes changed nothing", func(t *testing.T) {
		r, err := c.GetIssue(ctx(t), &ghopsv1.GetIssueRequest{Repo: repo, IssueNumber: bug})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Issue.Labels, []string{"bug"}) || r.Issue.Parent != nil {
			t.Errorf("got %v", r.Issue)
		}
	})
}
