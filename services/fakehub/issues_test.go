package fakehub_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"

	"ghops.dev/services/fakehub"
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

// TestIssueSemantics: what the schema cannot check. Issues and pull requests share numbers and
// the issues endpoints; the list's filters; issue search's qualifiers; a refused write changes
// nothing. Every answer goes through the contract-checking client.
func TestIssueSemantics(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	gh := client(t, s, writer, "")
	ro := client(t, s, readOnly, "")
	x := context.Background()
	const owner, name = "octo-org", "hello-world"
	bug := demoIssueNumber(t, s, "Greeting ignores empty names")
	numbers := func(list []*github.Issue) []int {
		var out []int
		for _, is := range list {
			out = append(out, is.GetNumber())
		}
		return out
	}
	t.Run("issues and pull requests share one sequence", func(t *testing.T) {
		is, _, err := gh.Issues.Create(x, owner, name, &github.IssueRequest{Title: github.String("one more")})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Hub.CreateBranch(owner+"/"+name, "feature/seq", "main"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Hub.Commit(owner+"/"+name, "feature/seq", "x", map[string]string{"seq.txt": "x"}); err != nil {
			t.Fatal(err)
		}
		pr, _, err := gh.PullRequests.Create(x, owner, name, &github.NewPullRequest{Title: github.String("seq"), Head: github.String("feature/seq"), Base: github.String("main")})
		if err != nil {
			t.Fatal(err)
		}
		if pr.GetNumber() != is.GetNumber()+1 {
			t.Errorf("issue %d then pull request %d", is.GetNumber(), pr.GetNumber())
		}
		again, _, err := gh.Issues.Get(x, owner, name, pr.GetNumber())
		if err != nil || !again.IsPullRequest() || again.GetTitle() != "seq" {
			t.Errorf("the pull request through the issues endpoint: %v %v", again, err)
		}
	})
	t.Run("a pull request's labels and comments are its issue's", func(t *testing.T) {
		if _, _, err := gh.Issues.Edit(x, owner, name, 1, &github.IssueRequest{Labels: &[]string{"documentation"}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := gh.Issues.CreateComment(x, owner, name, 1, &github.IssueComment{Body: github.String("nice")}); err != nil {
			t.Fatal(err)
		}
		pr, _, err := gh.PullRequests.Get(x, owner, name, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(pr.Labels) != 1 || pr.Labels[0].GetName() != "documentation" || pr.GetComments() != 1 {
			t.Errorf("labels %v, comments %d", pr.Labels, pr.GetComments())
		}
	})
	filters := []struct {
		name string
		opt  github.IssueListByRepoOptions
		want func(list []*github.Issue) bool
	}{
		{"open by default, pull requests included", github.IssueListByRepoOptions{}, func(l []*github.Issue) bool {
			pulls := 0
			for _, is := range l {
				if is.GetState() != "open" {
					return false
				}
				if is.IsPullRequest() {
					pulls++
				}
			}
			return pulls >= 2
		}},
		{"closed", github.IssueListByRepoOptions{State: "closed"}, func(l []*github.Issue) bool {
			// The build failure, and the demo's closed sub-issue "Translate to German".
			return len(l) == 2 && l[1].GetTitle() == "Build fails on Go 1.21" && l[1].GetStateReason() == "completed" &&
				l[0].GetTitle() == "Translate to German"
		}},
		{"all labels must match", github.IssueListByRepoOptions{State: "all", Labels: []string{"bug", "enhancement"}}, func(l []*github.Issue) bool {
			return len(l) == 0
		}},
		{"assignee", github.IssueListByRepoOptions{Assignee: "octocat"}, func(l []*github.Issue) bool {
			return slices.Equal(numbers(l), []int{bug})
		}},
		{"no assignee", github.IssueListByRepoOptions{Assignee: "none", Labels: []string{"bug"}}, func(l []*github.Issue) bool {
			return len(l) == 2 && !slices.Contains(numbers(l), bug)
		}},
		{"creator", github.IssueListByRepoOptions{Creator: "hubber", State: "all"}, func(l []*github.Issue) bool {
			return len(l) == 3
		}},
		{"milestone", github.IssueListByRepoOptions{Milestone: "1"}, func(l []*github.Issue) bool {
			return len(l) == 2
		}},
		{"oldest first", github.IssueListByRepoOptions{Direction: "asc", Labels: []string{"bug"}}, func(l []*github.Issue) bool {
			return len(l) == 3 && l[0].GetNumber() == bug && l[0].GetNumber() < l[1].GetNumber()
		}},
		{"since", github.IssueListByRepoOptions{Since: time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)}, func(l []*github.Issue) bool {
			return len(l) == 0
		}},
	}
	for _, tt := range filters {
		t.Run("list: "+tt.name, func(t *testing.T) {
			list, _, err := gh.Issues.ListByRepo(x, owner, name, &tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.want(list) {
				t.Errorf("got numbers %v", numbers(list))
			}
		})
	}
	searches := []struct {
		q    string
		want int
	}{
		{"greeting repo:octo-org/hello-world is:issue is:open label:bug", 3},
		{"greeting repo:octo-org/hello-world is:issue state:closed", 0},
		{"repo:octo-org/hello-world is:issue -label:bug", 6}, // "Add a farewell", "one more" above, and the sub-issue demo's four
		{"repo:octo-org/hello-world author:hubber type:issue", 3},
		{"repo:octo-org/hello-world assignee:octocat", 1},
		{"Confirmed repo:octo-org/hello-world", 0},
		{"Confirmed repo:octo-org/hello-world in:comments", 1},
		{"english in:title", 1},
		{"greeting repo:octo-org/secret", 0},
	}
	for _, tt := range searches {
		t.Run("search: "+tt.q, func(t *testing.T) {
			res, _, err := gh.Search.Issues(x, tt.q, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.GetTotal() != tt.want || len(res.Issues) != tt.want {
				t.Errorf("total %d, %d items, want %d", res.GetTotal(), len(res.Issues), tt.want)
			}
		})
	}
	t.Run("a refused update changes nothing", func(t *testing.T) {
		before, _, err := gh.Issues.Get(x, owner, name, bug)
		if err != nil {
			t.Fatal(err)
		}
		ms := 42
		_, _, err = gh.Issues.Edit(x, owner, name, bug, &github.IssueRequest{Title: github.String("changed"), Labels: &[]string{"new-one"}, Milestone: &ms})
		if status(err) != 422 {
			t.Fatalf("want 422, got %v", err)
		}
		after, _, err := gh.Issues.Get(x, owner, name, bug)
		if err != nil {
			t.Fatal(err)
		}
		if after.GetTitle() != before.GetTitle() || len(after.Labels) != 1 || !after.GetUpdatedAt().Equal(before.GetUpdatedAt()) {
			t.Errorf("before %v, after %v", before, after)
		}
		labels, _, err := gh.Issues.ListLabels(x, owner, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range labels {
			if l.GetName() == "new-one" {
				t.Errorf("label created by a refused update")
			}
		}
	})
	t.Run("without push access", func(t *testing.T) {
		is, _, err := ro.Issues.Create(x, owner, name, &github.IssueRequest{Title: github.String("from a reader"), Labels: &[]string{"bug"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(is.Labels) != 0 || is.GetUser().GetLogin() != "reader" || is.GetAuthorAssociation() != "NONE" {
			t.Errorf("got %v", is)
		}
		if _, _, err := ro.Issues.Edit(x, owner, name, is.GetNumber(), &github.IssueRequest{State: github.String("closed")}); status(err) != 403 {
			t.Errorf("reader closing: %v", err)
		}
	})
}

// FuzzIssueBody feeds arbitrary bodies to POST and PATCH issues and to POST comments: the answer
// is 201/200 or one of GitHub's 4xx, never a 5xx, and a 4xx creates nothing.
func FuzzIssueBody(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, `[]`, `"x"`, `{"title":"t"}`, `{"title":12}`, `{"title":null}`, `{"title":{"a":1}}`,
		`{"title":"t","labels":["a",{"name":"b"},{"x":1}]}`, `{"title":"t","labels":"bug"}`, `{"title":"t","milestone":"1"}`,
		`{"title":"t","milestone":-1}`, `{"title":"t","milestone":1e99}`, `{"title":"t","assignees":["octocat",""]}`,
		`{"title":"t","assignee":"writer"}`, `{"state":"closed","state_reason":"duplicate"}`, `{"body":""}`, `{"body":"x"}`,
	} {
		f.Add([]byte(seed))
	}
	// A core limit the fuzzer cannot spend, so that every answer is the handler's.
	h, err := fakehub.New(fakehub.Config{Seed: "demo", CoreLimit: 1 << 30, Tokens: []fakehub.Token{{Value: writer, Login: "writer", Repos: map[string]fakehub.Permission{"*": fakehub.PermWrite}}}})
	if err != nil {
		f.Fatal(err)
	}
	srv := httptest.NewServer(h)
	f.Cleanup(srv.Close)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, target := range []struct{ method, path string }{
			{"POST", "/repos/octo-org/hello-world/issues"},
			{"PATCH", "/repos/octo-org/hello-world/issues/3"},
			{"POST", "/repos/octo-org/hello-world/issues/3/comments"},
		} {
			req, err := http.NewRequest(target.method, srv.URL+target.path, bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "token "+writer)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode >= 500 || (resp.StatusCode >= 300 && resp.StatusCode != 400 && resp.StatusCode != 422) {
				t.Fatalf("%s %s with %q: %d", target.method, target.path, data, resp.StatusCode)
			}
		}
	})
}
