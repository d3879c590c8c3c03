package fakehub_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"ghops.dev/services/fakehub/fakehubtest"
)

// demoIssueNumber finds a demo issue's number by its title: issues and pull requests share one
// sequence, so the numbers depend on how many pull requests the demo opens first.
func demoIssueNumber(t *testing.T, s *fakehubtest.Server, title string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.URL+"repos/octo-org/hello-world/issues?state=all&per_page=100", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+writer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list []struct {
		Number int    `json:"number"`
		Title  string `json:"title"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	for _, is := range list {
		if is.Title == title {
			return is.Number
		}
	}
	t.Fatalf("no demo issue %q in %v", title, list)
	return 0
}

type issueItem struct {
	Number      int             `json:"number"`
	PullRequest json.RawMessage `json:"pull_request"`
	Labels      []struct {
		Name string `json:"name"`
	} `json:"labels"`
}

// wantIssueNumbers checks a list of issues: whether it holds pull requests (GitHub's list does
// unless a filter leaves them out) and that numbers are unique.
func wantIssueNumbers(pulls bool) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, _ *http.Response, body []byte) {
		t.Helper()
		var list []issueItem
		if err := json.Unmarshal(body, &list); err != nil {
			t.Fatal(err)
		}
		seen, gotPull := map[int]bool{}, false
		for _, is := range list {
			if seen[is.Number] {
				t.Errorf("number %d twice", is.Number)
			}
			seen[is.Number] = true
			gotPull = gotPull || len(is.PullRequest) > 0
		}
		if len(list) == 0 || gotPull != pulls {
			t.Errorf("%d items, pull requests among them %v, want %v", len(list), gotPull, pulls)
		}
	}
}

func wantLabels(names ...string) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, _ *http.Response, body []byte) {
		t.Helper()
		var is issueItem
		if err := json.Unmarshal(body, &is); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range is.Labels {
			got = append(got, l.Name)
		}
		if !slices.Equal(got, names) {
			t.Errorf("labels %v, want %v", got, names)
		}
	}
}

func wantPullRequestKey(t *testing.T, _ *http.Response, body []byte) {
	t.Helper()
	var is issueItem
	if err := json.Unmarshal(body, &is); err != nil {
		t.Fatal(err)
	}
	if len(is.PullRequest) == 0 || is.Number != 1 {
		t.Errorf("want pull request 1 with its pull_request key, got %s", body)
	}
}
