package taskbench

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"ghops.dev/services/fakehub"
)

// The issue tasks: work an agent does on a repository's issues.
func init() {
	register(triage())
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
				if err := call(ctx, c, "search_issues", map[string]any{"query": triageQuery}, &f); err != nil {
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
