package ops

import (
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"
)

// TestOwnership: an answer of GitHub's is accepted as the call's only when
// it names the call's repository (case aside) and the number or id asked
// for; an answer that names none is not the call's.
func TestOwnership(t *testing.T) {
	job := func(id int64, url, run string) *github.WorkflowJob {
		return &github.WorkflowJob{ID: github.Int64(id), URL: github.String(url), RunURL: github.String(run)}
	}
	run := func(id int64, repo string) *github.WorkflowRun {
		return &github.WorkflowRun{ID: github.Int64(id), Repository: &github.Repository{FullName: github.String(repo)}}
	}
	pull := func(n int, repo string) *github.PullRequest {
		return &github.PullRequest{Number: github.Int(n), Base: &github.PullRequestBranch{Repo: &github.Repository{FullName: github.String(repo)}}}
	}
	const api = "https://api.github.com/repos/"
	tests := []struct {
		name string
		err  error
		ok   bool
	}{
		{"job of the repository", ownJob(job(7, api+"o/r/actions/jobs/7", api+"o/r/actions/runs/3"), "o/r", 7), true},
		{"job, names in another case", ownJob(job(7, api+"O/R/actions/jobs/7", api+"o/R/actions/runs/3"), "o/r", 7), true},
		{"job of an Enterprise host", ownJob(job(7, "https://ghe.example/api/v3/repos/o/r/actions/jobs/7", "https://ghe.example/api/v3/repos/o/r/actions/runs/3"), "o/r", 7), true},
		{"job of another repository", ownJob(job(7, api+"o/other/actions/jobs/7", api+"o/other/actions/runs/3"), "o/r", 7), false},
		{"job whose run is another repository's", ownJob(job(7, api+"o/r/actions/jobs/7", api+"o/other/actions/runs/3"), "o/r", 7), false},
		{"another job", ownJob(job(8, api+"o/r/actions/jobs/8", api+"o/r/actions/runs/3"), "o/r", 7), false},
		{"job without URLs", ownJob(&github.WorkflowJob{ID: github.Int64(7)}, "o/r", 7), false},
		{"no job", ownJob(nil, "o/r", 7), false},
		{"run of the repository", ownRun(run(3, "o/r"), "o/r", 3), true},
		{"run of another repository", ownRun(run(3, "o/r2"), "o/r", 3), false},
		{"another run", ownRun(run(4, "o/r"), "o/r", 3), false},
		{"run naming no repository", ownRun(&github.WorkflowRun{ID: github.Int64(3)}, "o/r", 3), false},
		{"pull request of the repository", ownPull(pull(1, "o/r"), "o/r", 1), true},
		{"pull request of a fork's base", ownPull(pull(1, "fork/r"), "o/r", 1), false},
		{"another pull request", ownPull(pull(2, "o/r"), "o/r", 1), false},
		{"no pull request", ownPull(nil, "o/r", 1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if (tt.err == nil) != tt.ok {
				t.Errorf("err = %v, want accepted %v", tt.err, tt.ok)
			}
		})
	}
}

// FuzzRepoOfAPIURL: whatever URL an answer carries, the repository read
// from it is "" or exactly "owner/name" with both parts present and no
// further slash, so that no URL can pass for another shape of name.
func FuzzRepoOfAPIURL(f *testing.F) {
	for _, s := range []string{
		"https://api.github.com/repos/o/r/actions/jobs/7", "https://ghe.example/api/v3/repos/o/r", "https://api.github.com/repos/o",
		"https://api.github.com/repos//r/x", "/repos/o/r/", "repos/o/r", "https://api.github.com/repos/o%2Fx/r/jobs", "%zz", "",
		"https://api.github.com/users/o/repos/o/r", "https://api.github.com/repos/o/r?x=/repos/a/b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		got := repoOfAPIURL(u)
		if got == "" {
			return
		}
		owner, name, ok := strings.Cut(got, "/")
		if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
			t.Errorf("repoOfAPIURL(%q) = %q", u, got)
		}
	})
}
