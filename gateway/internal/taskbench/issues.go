package taskbench

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"ghops.dev/services/fakehub"
)

// The issue tasks: work an agent does on a repository's issues.
func init() {
	register(triage(), staleSweep(), labelCleanup(), subIssues())
}

// owner and name are Repo's halves, for gms's tools, which take them apart.
const owner, name = "octo-org", "hello-world"

// ghIssue is the part of GitHub's issue the checks read.
type ghIssue struct {
	Number      int    `json:"number"`
	Title       string `json:"title"`
	State       string `json:"state"`
	StateReason string `json:"state_reason"`
	Labels      []struct {
		Name string `json:"name"`
	} `json:"labels"`
	Milestone *struct {
		Number int `json:"number"`
	} `json:"milestone"`
	PullRequest *struct{} `json:"pull_request"`
}

// labelNames are the issue's labels' names.
func (is ghIssue) labelNames() []string {
	var out []string
	for _, l := range is.Labels {
		out = append(out, l.Name)
	}
	return out
}

// ghComment is the part of GitHub's issue comment the checks read.
type ghComment struct {
	Body string `json:"body"`
	User struct {
		Login string `json:"login"`
	} `json:"user"`
}

// issueComments reads issue n's comments.
func issueComments(ctx context.Context, h *fakehub.Hub, n int) ([]ghComment, error) {
	var cs []ghComment
	err := Get(ctx, h, fmt.Sprintf("/repos/%s/issues/%d/comments?per_page=100", Repo, n), &cs)
	return cs, err
}

// numbers are the numbers of a search or list answer's items, sorted.
func numbers[T any](items []T, number func(T) int) []int {
	var out []int
	for _, it := range items {
		out = append(out, number(it))
	}
	slices.Sort(out)
	return out
}

// triageBugs is what the triage task searches for: the demo's open bugs
// mentioning "greeting" are #4, #5 and #6, and #6 repeats #4.
const triageQuery = "repo:" + Repo + " is:issue is:open label:bug greeting"

// triage: find the open bugs mentioning a word, confirm one, close its
// duplicate.
func triage() Task {
	type found struct {
		Items []struct {
			Number int    `json:"number"`
			Title  string `json:"title"`
		} `json:"items"`
	}
	// pick finds the duplicate pair in the search answer the way the
	// agent does, by the titles: "Greeting ignores empty names" and
	// "Odd greeting for an empty name".
	pick := func(f found) (orig, dup int, err error) {
		for _, it := range f.Items {
			switch {
			case strings.Contains(it.Title, "ignores empty names"):
				orig = it.Number
			case strings.Contains(it.Title, "empty name"):
				dup = it.Number
			}
		}
		if orig == 0 || dup == 0 {
			return 0, 0, fmt.Errorf("the search found no duplicate pair: %+v", f.Items)
		}
		return orig, dup, nil
	}
	confirm := func(dup int) string {
		return fmt.Sprintf("Triaged: confirmed, and #%d reports the same empty-name greeting.", dup)
	}
	return Task{
		Name:     "triage",
		Category: "issues",
		Summary:  "Find the open bugs that mention \"greeting\", confirm the first with a comment and close its duplicate as a duplicate.",
		Toolsets: map[Server]string{Ghops: "issues,search", GMS: "issues"},
		Scripts: map[Server]Script{
			Ghops: func(ctx context.Context, c Caller) error {
				var f found
				if err := call(ctx, c, "search_issues", map[string]any{"query": triageQuery}, &f); err != nil {
					return err
				}
				orig, dup, err := pick(f)
				if err != nil {
					return err
				}
				if err := call(ctx, c, "add_issue_comment", map[string]any{"repo": Repo, "issueNumber": orig, "body": confirm(dup)}, nil); err != nil {
					return err
				}
				return call(ctx, c, "update_issue", map[string]any{"repo": Repo, "issueNumber": dup, "state": "closed", "state_reason": "duplicate"}, nil)
			},
			GMS: func(ctx context.Context, c Caller) error {
				var f found
				if err := call(ctx, c, "search_issues", map[string]any{"query": triageQuery, "fields": []any{"number", "title"}}, &f); err != nil {
					return err
				}
				orig, dup, err := pick(f)
				if err != nil {
					return err
				}
				if err := call(ctx, c, "add_issue_comment", map[string]any{"owner": owner, "repo": name, "issue_number": orig, "body": confirm(dup)}, nil); err != nil {
					return err
				}
				return call(ctx, c, "issue_write", map[string]any{"method": "update", "owner": owner, "repo": name, "issue_number": dup,
					"state": "closed", "state_reason": "duplicate", "duplicate_of": orig}, nil)
			},
		},
		Verify: func(ctx context.Context, h *fakehub.Hub) error {
			var open []ghIssue
			if err := Get(ctx, h, "/repos/"+Repo+"/issues?labels=bug&state=open", &open); err != nil {
				return err
			}
			if got := numbers(open, func(is ghIssue) int { return is.Number }); !slices.Equal(got, []int{4, 5}) {
				return fmt.Errorf("open bugs %v, want 4 and 5", got)
			}
			var six ghIssue
			if err := Get(ctx, h, "/repos/"+Repo+"/issues/6", &six); err != nil {
				return err
			}
			if six.State != "closed" || six.StateReason != "duplicate" {
				return fmt.Errorf("issue 6 is %s (%s), want closed as a duplicate", six.State, six.StateReason)
			}
			cs, err := issueComments(ctx, h, 4)
			if err != nil {
				return err
			}
			if len(cs) != 2 || cs[1].Body != confirm(6) {
				return fmt.Errorf("issue 4's comments %+v, want the seeded one and the triage comment", cs)
			}
			return nil
		},
	}
}

// staleDays is how long an issue without a milestone may go without an
// update before the stale sweep closes it.
const staleDays = 30

// staleComment is what the sweep says on each issue it closes.
const staleComment = "Closing: no milestone and no activity for 30 days. Reopen it if it still matters."

// The stale sweep's issues, by title: the demo's open issues without a
// milestone, made on the seed's day, two months before Epoch; Setup gives
// two of them fresh activity and adds two new ones.
var (
	staleTitles = []string{"Greeting is always in English", "Odd greeting for an empty name", "Pick the language from $LANG"}
	keptTitles  = []string{"Greeting ignores empty names", "Add a farewell", "Speak more languages", "Translate to French",
		"Say goodbye in French", "Greeting misses a trailing newline"}
)

// issueNumber finds an issue of Repo by its title.
func issueNumber(ctx context.Context, h *fakehub.Hub, title string) (int, error) {
	var all []ghIssue
	if err := Get(ctx, h, "/repos/"+Repo+"/issues?state=all&per_page=100", &all); err != nil {
		return 0, err
	}
	for _, is := range all {
		if is.Title == title {
			return is.Number, nil
		}
	}
	return 0, fmt.Errorf("no issue %q", title)
}

// staleSweep: close the open issues without a milestone that nobody has
// touched for 30 days, each with a comment saying why.
func staleSweep() Task {
	cutoff := Epoch.AddDate(0, 0, -staleDays)
	return Task{
		Name:     "stale-sweep",
		Category: "issues",
		Summary: fmt.Sprintf("Close every open issue that has no milestone and no update for %d days (today is %s), "+
			"each with a comment saying why, as not planned.", staleDays, Epoch.Format("2006-01-02")),
		Toolsets: map[Server]string{Ghops: "issues", GMS: "issues"},
		Setup: func(h *fakehub.Hub) error {
			ctx := context.Background()
			for _, t := range []string{"Speak more languages", "Translate to French"} {
				n, err := issueNumber(ctx, h, t)
				if err != nil {
					return err
				}
				if _, err := h.AddIssueComment(Repo, n, "hubber", "Still wanted: I can take this on next week."); err != nil {
					return err
				}
			}
			for _, t := range keptTitles[4:] {
				if _, err := h.AddIssue(Repo, "hubber", t, "Seen today."); err != nil {
					return err
				}
			}
			return nil
		},
		Scripts: map[Server]Script{
			Ghops: func(ctx context.Context, c Caller) error {
				var list struct {
					Issues []struct {
						Number    int    `json:"number"`
						UpdatedAt string `json:"updated_at"`
					} `json:"issues"`
				}
				if err := call(ctx, c, "list_issues", map[string]any{"repo": Repo, "milestone": "none", "per_page": 100}, &list); err != nil {
					return err
				}
				for _, is := range list.Issues {
					t, err := time.Parse(time.RFC3339, is.UpdatedAt)
					if err != nil {
						return fmt.Errorf("list_issues: updated_at %q: %w", is.UpdatedAt, err)
					}
					if !t.Before(cutoff) {
						continue
					}
					if err := call(ctx, c, "add_issue_comment", map[string]any{"repo": Repo, "issueNumber": is.Number, "body": staleComment}, nil); err != nil {
						return err
					}
					if err := call(ctx, c, "update_issue", map[string]any{"repo": Repo, "issueNumber": is.Number, "state": "closed", "state_reason": "not_planned"}, nil); err != nil {
						return err
					}
				}
				return nil
			},
			GMS: func(ctx context.Context, c Caller) error {
				// gms's list_issues cannot filter by milestone; its search
				// can, and by the update date too.
				var found struct {
					Items []struct {
						Number int `json:"number"`
					} `json:"items"`
				}
				q := fmt.Sprintf("repo:%s is:issue is:open no:milestone updated:<%s", Repo, cutoff.Format("2006-01-02"))
				if err := call(ctx, c, "search_issues", map[string]any{"query": q, "perPage": 100, "fields": []any{"number"}}, &found); err != nil {
					return err
				}
				for _, is := range found.Items {
					if err := call(ctx, c, "add_issue_comment", map[string]any{"owner": owner, "repo": name, "issue_number": is.Number, "body": staleComment}, nil); err != nil {
						return err
					}
					if err := call(ctx, c, "issue_write", map[string]any{"method": "update", "owner": owner, "repo": name, "issue_number": is.Number,
						"state": "closed", "state_reason": "not_planned"}, nil); err != nil {
						return err
					}
				}
				return nil
			},
		},
		Verify: func(ctx context.Context, h *fakehub.Hub) error {
			var all []ghIssue
			if err := Get(ctx, h, "/repos/"+Repo+"/issues?state=all&per_page=100", &all); err != nil {
				return err
			}
			byTitle := map[string]ghIssue{}
			for _, is := range all {
				byTitle[is.Title] = is
			}
			for _, t := range staleTitles {
				is, ok := byTitle[t]
				if !ok || is.State != "closed" || is.StateReason != "not_planned" {
					return fmt.Errorf("stale issue %q is %s (%s), want closed as not planned", t, is.State, is.StateReason)
				}
				cs, err := issueComments(ctx, h, is.Number)
				if err != nil {
					return err
				}
				if len(cs) == 0 || cs[len(cs)-1].Body != staleComment {
					return fmt.Errorf("stale issue %q has no sweep comment", t)
				}
			}
			for _, t := range keptTitles {
				if is, ok := byTitle[t]; !ok || is.State != "open" {
					return fmt.Errorf("issue %q is %s, want it left open", t, is.State)
				}
			}
			return nil
		},
	}
}

// The label clean-up: enhancement is renamed feature, and Setup's
// duplicate label feature-request, on an issue and a pull request, is
// merged into it.
const (
	dupLabel = "feature-request"
	oldLabel = "enhancement"
	newLabel = "feature"
)

// labelCleanup: rename a label and merge a duplicate into it across
// issues and pull requests.
func labelCleanup() Task {
	// dupItems are the titles of what Setup labels with the duplicate:
	// an issue with no other label and a pull request with one.
	dupItems := []string{"Greeting is always in English", "Add a farewell"}
	return Task{
		Name:     "label-cleanup",
		Category: "issues",
		Summary: fmt.Sprintf("Rename the label %q to %q, and move every issue and pull request labelled with the duplicate %q to %q "+
			"(the duplicate itself may stay or go).", oldLabel, newLabel, dupLabel, newLabel),
		Toolsets: map[Server]string{Ghops: "issues,search", GMS: "issues,labels,pull_requests"},
		Gap: map[Server]string{
			Ghops: "GitHub has no request that adds one label and removes another without replacing the whole set: " +
				"ghops's label_issue adds with one POST and removes with one DELETE each, and reads the issue first so that " +
				"removing a label the issue lacks writes nothing (3 requests an item); gms's issue_write replaces the set in " +
				"one PATCH, built from the labels the search showed, which undoes a label another agent added meanwhile. " +
				"Half of gms's requests would need that replace",
			GMS: "gms's label_write can also delete the duplicate (two GraphQL requests more); " +
				"ghops has no tool that deletes a label, so neither script deletes it",
		},
		Setup: func(h *fakehub.Hub) error {
			ctx := context.Background()
			if err := Send(ctx, h, "POST", "/repos/"+Repo+"/labels", map[string]any{"name": dupLabel, "color": "a2eeef"}, nil); err != nil {
				return err
			}
			var items []int
			for _, t := range dupItems {
				n, err := issueNumber(ctx, h, t)
				if err != nil {
					return err
				}
				items = append(items, n)
			}
			items = append(items, 1) // the demo's pull request 1, labelled documentation
			for _, n := range items {
				if err := Send(ctx, h, "POST", fmt.Sprintf("/repos/%s/issues/%d/labels", Repo, n), map[string]any{"labels": []string{dupLabel}}, nil); err != nil {
					return err
				}
			}
			return nil
		},
		Scripts: map[Server]Script{
			Ghops: func(ctx context.Context, c Caller) error {
				if err := call(ctx, c, "update_label", map[string]any{"repo": Repo, "name": oldLabel, "new_name": newLabel}, nil); err != nil {
					return err
				}
				var found struct {
					Items []struct {
						Number int `json:"number"`
					} `json:"items"`
				}
				if err := call(ctx, c, "search_issues", map[string]any{"query": "repo:" + Repo + " label:" + dupLabel, "per_page": 100}, &found); err != nil {
					return err
				}
				for _, it := range found.Items {
					if err := call(ctx, c, "label_issue", map[string]any{"repo": Repo, "issueNumber": it.Number,
						"add": []any{newLabel}, "remove": []any{dupLabel}}, nil); err != nil {
						return err
					}
				}
				return nil
			},
			GMS: func(ctx context.Context, c Caller) error {
				if err := call(ctx, c, "label_write", map[string]any{"method": "update", "owner": owner, "repo": name, "name": oldLabel, "new_name": newLabel}, nil); err != nil {
					return err
				}
				// issue_write's labels replace the item's labels: the
				// search answer's labels are what the new list is made of.
				type item struct {
					Number int `json:"number"`
					Labels []struct {
						Name string `json:"name"`
					} `json:"labels"`
				}
				// gms's search_issues finds issues only (it adds is:issue);
				// pull requests take search_pull_requests.
				var items []item
				for _, tool := range []string{"search_issues", "search_pull_requests"} {
					var found struct {
						Items []item `json:"items"`
					}
					if err := call(ctx, c, tool, map[string]any{"query": "repo:" + Repo + " label:" + dupLabel, "perPage": 100,
						"fields": []any{"number", "labels"}}, &found); err != nil {
						return err
					}
					items = append(items, found.Items...)
				}
				for _, it := range items {
					labels := []any{newLabel}
					for _, l := range it.Labels {
						if l.Name != dupLabel && l.Name != newLabel {
							labels = append(labels, l.Name)
						}
					}
					if err := call(ctx, c, "issue_write", map[string]any{"method": "update", "owner": owner, "repo": name, "issue_number": it.Number,
						"labels": labels}, nil); err != nil {
						return err
					}
				}
				return nil
			},
		},
		Verify: func(ctx context.Context, h *fakehub.Hub) error {
			var all []ghIssue
			if err := Get(ctx, h, "/repos/"+Repo+"/issues?state=all&per_page=100", &all); err != nil {
				return err
			}
			want := map[string][]string{
				dupItems[0]: {"bug", newLabel}, dupItems[1]: {newLabel},
			}
			for _, is := range all {
				names := is.labelNames()
				slices.Sort(names)
				if slices.Contains(names, dupLabel) || slices.Contains(names, oldLabel) {
					return fmt.Errorf("#%d still has %v", is.Number, names)
				}
				if w, ok := want[is.Title]; ok && !slices.Equal(names, w) {
					return fmt.Errorf("#%d %q has %v, want %v", is.Number, is.Title, names, w)
				}
				if is.Number == 1 && !slices.Equal(names, []string{"documentation", newLabel}) {
					return fmt.Errorf("pull request 1 has %v, want documentation and %s", names, newLabel)
				}
				if is.Number == 2 && !slices.Contains(names, newLabel) {
					return fmt.Errorf("pull request 2 has %v, want %s (renamed from %s)", names, newLabel, oldLabel)
				}
			}
			return nil
		},
	}
}

// The sub-issues the breakdown task creates under the parent it makes of
// "Add a farewell".
var farewellSteps = []string{"Write Goodbye and its test", "Print the farewell from cmd/hello", "Document Goodbye in the README"}

// subIssues: break an issue into three new sub-issues, then read the
// parent's progress.
func subIssues() Task {
	const parentTitle = "Add a farewell"
	body := func(step string) string { return "Part of the farewell: " + strings.ToLower(step[:1]) + step[1:] + "." }
	return Task{
		Name:     "sub-issues",
		Category: "issues",
		Summary:  "Break the issue \"Add a farewell\" into three new sub-issues, then read the parent's progress.",
		Gap: map[Server]string{Ghops: "GitHub makes a sub-issue in two writes, the issue then the link, on either server " +
			"(6 of ghops's 8 requests; gms's are the same 6 of 10): the search and the progress read are all that can differ"},
		Toolsets: map[Server]string{Ghops: "issues,search", GMS: "issues"},
		Scripts: map[Server]Script{
			Ghops: func(ctx context.Context, c Caller) error {
				parent, err := findParent(ctx, c, parentTitle, false)
				if err != nil {
					return err
				}
				for _, step := range farewellSteps {
					var created struct {
						Issue struct {
							Number int `json:"number"`
						} `json:"issue"`
					}
					if err := call(ctx, c, "create_issue", map[string]any{"repo": Repo, "title": step, "body": body(step)}, &created); err != nil {
						return err
					}
					if err := call(ctx, c, "add_sub_issue", map[string]any{"repo": Repo, "issueNumber": parent, "sub_issue": created.Issue.Number}, nil); err != nil {
						return err
					}
				}
				var progress struct {
					Issue struct {
						SubIssues struct {
							Total int `json:"total"`
						} `json:"sub_issues"`
					} `json:"issue"`
				}
				return call(ctx, c, "get_issue", map[string]any{"repo": Repo, "issueNumber": parent}, &progress)
			},
			GMS: func(ctx context.Context, c Caller) error {
				parent, err := findParent(ctx, c, parentTitle, true)
				if err != nil {
					return err
				}
				for _, step := range farewellSteps {
					// issue_write answers the new issue's id (as a
					// string) and URL; sub_issue_write wants the id.
					var created struct {
						ID string `json:"id"`
					}
					if err := call(ctx, c, "issue_write", map[string]any{"method": "create", "owner": owner, "repo": name, "title": step, "body": body(step)}, &created); err != nil {
						return err
					}
					id, err := strconv.ParseInt(created.ID, 10, 64)
					if err != nil {
						return fmt.Errorf("issue_write: id %q: %w", created.ID, err)
					}
					if err := call(ctx, c, "sub_issue_write", map[string]any{"method": "add", "owner": owner, "repo": name, "issue_number": parent, "sub_issue_id": id}, nil); err != nil {
						return err
					}
				}
				return call(ctx, c, "issue_read", map[string]any{"method": "get", "owner": owner, "repo": name, "issue_number": parent}, nil)
			},
		},
		Verify: func(ctx context.Context, h *fakehub.Hub) error {
			parent, err := issueNumber(ctx, h, parentTitle)
			if err != nil {
				return err
			}
			var subs []ghIssue
			if err := Get(ctx, h, fmt.Sprintf("/repos/%s/issues/%d/sub_issues", Repo, parent), &subs); err != nil {
				return err
			}
			var titles []string
			for _, s := range subs {
				titles = append(titles, s.Title)
				if s.State != "open" {
					return fmt.Errorf("sub-issue %q is %s", s.Title, s.State)
				}
			}
			if !slices.Equal(titles, farewellSteps) {
				return fmt.Errorf("the sub-issues of #%d are %q, want %q", parent, titles, farewellSteps)
			}
			return nil
		},
	}
}

// findParent finds the parent issue by its title, with a search an agent
// makes (its number is not given).
func findParent(ctx context.Context, c Caller, title string, gms bool) (int, error) {
	args := map[string]any{"query": fmt.Sprintf("repo:%s is:issue in:title %q", Repo, title)}
	if gms {
		args["fields"] = []any{"number", "title"}
	}
	var found struct {
		Items []struct {
			Number int    `json:"number"`
			Title  string `json:"title"`
		} `json:"items"`
	}
	if err := call(ctx, c, "search_issues", args, &found); err != nil {
		return 0, err
	}
	for _, it := range found.Items {
		if it.Title == title {
			return it.Number, nil
		}
	}
	return 0, fmt.Errorf("search_issues found no %q: %+v", title, found.Items)
}
