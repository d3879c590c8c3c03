package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"ghops.dev/services/fakehub"

	"ghops.dev/gateway/gatewaytest"
)

// reviewTools are the pull request review tools, whose definitions the
// loop reports one by one.
var reviewTools = []string{
	"list_pull_request_reviews", "list_review_threads", "create_review", "submit_review", "delete_pending_review",
	"reply_to_review_thread", "resolve_review_thread", "request_reviewers", "list_pull_request_commits", "update_pull_request_branch",
}

// reviewThreads is the part of list_review_threads' answer the agents read.
type reviewThreads struct {
	Threads []struct {
		ID         string `json:"id"`
		Path       string `json:"path"`
		Line       int    `json:"line"`
		IsResolved bool   `json:"is_resolved"`
		IsOutdated bool   `json:"is_outdated"`
		DiffHunk   string `json:"diff_hunk"`
		Comments   []struct {
			Author string `json:"author"`
			Body   string `json:"body"`
		} `json:"comments"`
	} `json:"threads"`
}

// headOf is the part of get_pull_request's answer the agents read.
type headOf struct {
	PullRequest struct {
		HeadSHA string `json:"head_sha"`
		State   string `json:"state"`
		Merged  bool   `json:"merged"`
	} `json:"pull_request"`
}

// TestReviewLoop: the review loop of a coding agent, through the official
// MCP Go SDK against the gateway, the service and fakehub, each caller with
// its own GitHub token (the gateway's GitHub OAuth): the reviewer
// (monalisa) requests changes with two line comments; the author (octocat)
// lists the unresolved threads, commits a fix, replies to both threads and
// resolves them; the reviewer sees no unresolved thread, approves at the
// new head and merges with the head sha guard. The loop is measured as an
// agent pays for it (docs/benchmarks.md): tool calls, bytes the models read
// (both sessions' tools/list and every result) and GitHub requests; and
// each review tool's definition size is logged.
func TestReviewLoop(t *testing.T) {
	for _, tc := range taskConfigs([]string{"repos", "pulls"}) {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.GitHubOAuth = true
			opts.Hub = &fakehub.Config{Seed: "demo", Tokens: []fakehub.Token{
				{Value: authorToken, Login: "octocat", Repos: map[string]fakehub.Permission{repo: fakehub.PermWrite}},
				{Value: reviewerToken, Login: "monalisa", Repos: map[string]fakehub.Permission{repo: fakehub.PermWrite}},
			}}
			reviewLoop(t, opts)
		})
	}
}

// The loop's two GitHub users, as GitHub's OAuth tokens look.
const (
	authorToken   = "gho_author0123456789abcdef0123456789abc"
	reviewerToken = "gho_review0123456789abcdef0123456789abc"
)

func reviewLoop(t *testing.T, opts gatewaytest.StackOptions) {
	st := gatewaytest.StartStack(t, opts)
	url := st.URL + "/mcp"
	author := newAgentWith(t, url, &http.Client{Transport: bearerTransport{authorToken}})
	const branch = "feature/shout"
	const path = "internal/greet/shout.go"
	code := "package greet\n\nimport \"strings\"\n\n// Shout greets name loudly.\nfunc Shout(name string) string {\n\treturn strings.ToUpper(\"hello, \" + name)\n}\n"

	// The pull request to review, opened by the author (not measured).
	author.call("create_branch", map[string]any{"repo": repo, "branch": branch}, nil)
	author.call("commit_files", map[string]any{"repo": repo, "branch": branch, "message": "Add Shout", "files": []any{
		map[string]any{"path": path, "content": code},
	}}, nil)
	var pr struct {
		PullRequest struct {
			Number  int    `json:"number"`
			HeadSHA string `json:"head_sha"`
		} `json:"pull_request"`
	}
	author.call("create_pull_request", map[string]any{"repo": repo, "title": "Add Shout", "head": branch, "base": "main"}, &pr)
	n := pr.PullRequest.Number
	author.calls, author.bytes = 0, author.list

	before := githubCalls(st)
	reviewer := newAgentWith(t, url, &http.Client{Transport: bearerTransport{reviewerToken}})

	// The reviewer reads the head and requests changes on two lines.
	var head headOf
	reviewer.call("get_pull_request", map[string]any{"repo": repo, "prNumber": n}, &head)
	var created struct {
		ID    answerInt `json:"id"`
		State string    `json:"state"`
	}
	reviewer.call("create_review", map[string]any{"repo": repo, "prNumber": n, "commit_sha": head.PullRequest.HeadSHA, "event": "request_changes",
		"body": "Two things before this goes in.", "comments": []any{
			map[string]any{"path": path, "line": 5, "body": "Say what it returns: \"Shout returns ...\"."},
			map[string]any{"path": path, "line": 7, "body": "Keep the comma and end with an exclamation mark."},
		}}, &created)
	if created.ID == 0 || created.State != "changes_requested" {
		t.Fatalf("create_review: %+v", created)
	}

	// The author lists what is open, fixes both, replies and resolves.
	var open reviewThreads
	author.call("list_review_threads", map[string]any{"repo": repo, "prNumber": n}, &open)
	if len(open.Threads) != 2 || open.Threads[0].Path != path || open.Threads[0].IsResolved || len(open.Threads[0].Comments) != 1 ||
		open.Threads[0].Comments[0].Author != "monalisa" || !strings.Contains(open.Threads[1].Comments[0].Body, "exclamation") {
		t.Fatalf("list_review_threads: %+v", open)
	}
	fixed := strings.Replace(code, "// Shout greets name loudly.", "// Shout returns a loud greeting for name.", 1)
	fixed = strings.Replace(fixed, `strings.ToUpper("hello, " + name)`, `strings.ToUpper("hello, " + name + "!")`, 1)
	var commit struct {
		CommitSHA string `json:"commit_sha"`
	}
	author.call("commit_files", map[string]any{"repo": repo, "branch": branch, "message": "Shout: say what it returns, end with !", "files": []any{
		map[string]any{"path": path, "content": fixed},
	}}, &commit)
	for _, th := range open.Threads {
		var reply struct {
			ID answerInt `json:"id"`
		}
		author.call("reply_to_review_thread", map[string]any{"repo": repo, "prNumber": n, "thread_id": th.ID, "body": "Done in " + commit.CommitSHA[:7] + "."}, &reply)
		if reply.ID == 0 {
			t.Fatalf("reply_to_review_thread: no comment id")
		}
		var res struct {
			IsResolved bool `json:"is_resolved"`
		}
		author.call("resolve_review_thread", map[string]any{"repo": repo, "prNumber": n, "thread_id": th.ID, "resolved": true}, &res)
		if !res.IsResolved {
			t.Fatalf("resolve_review_thread: not resolved")
		}
	}

	// The reviewer sees nothing open, approves the new head and merges it.
	var left reviewThreads
	reviewer.call("list_review_threads", map[string]any{"repo": repo, "prNumber": n}, &left)
	if len(left.Threads) != 0 {
		t.Fatalf("unresolved threads after the fix: %+v", left)
	}
	reviewer.call("get_pull_request", map[string]any{"repo": repo, "prNumber": n}, &head)
	if head.PullRequest.HeadSHA != commit.CommitSHA {
		t.Fatalf("head %s, want the fix %s", head.PullRequest.HeadSHA, commit.CommitSHA)
	}
	var approved struct {
		State     string `json:"state"`
		CommitSHA string `json:"commit_sha"`
	}
	reviewer.call("create_review", map[string]any{"repo": repo, "prNumber": n, "commit_sha": head.PullRequest.HeadSHA, "event": "approve"}, &approved)
	if approved.State != "approved" || approved.CommitSHA != commit.CommitSHA {
		t.Fatalf("approval: %+v", approved)
	}
	var merged struct {
		Merged bool `json:"merged"`
	}
	reviewer.call("merge_pull_request", map[string]any{"repo": repo, "prNumber": n, "sha": head.PullRequest.HeadSHA}, &merged)
	if !merged.Merged {
		t.Fatal("merge_pull_request: not merged")
	}
	github := githubCalls(st) - before
	t.Logf("task %q: %d tool calls, %d bytes read by the models (tools/list %d, results %d), %d GitHub requests",
		"review loop", reviewer.calls+author.calls, reviewer.bytes+author.bytes, reviewer.list+author.list,
		reviewer.bytes+author.bytes-reviewer.list-author.list, github)

	// The outcome, read back outside the measurement.
	var all reviewThreads
	author.call("list_review_threads", map[string]any{"repo": repo, "prNumber": n, "state": "all"}, &all)
	if len(all.Threads) != 2 {
		t.Fatalf("threads: %+v", all)
	}
	for _, th := range all.Threads {
		if !th.IsResolved || len(th.Comments) != 2 || th.Comments[1].Author != "octocat" || !th.IsOutdated {
			t.Errorf("thread %+v: want resolved, outdated by the fix, with the author's reply", th)
		}
	}
	var reviews struct {
		Reviews []struct {
			Author    string `json:"author"`
			State     string `json:"state"`
			CommitSHA string `json:"commit_sha"`
		} `json:"reviews"`
	}
	author.call("list_pull_request_reviews", map[string]any{"repo": repo, "prNumber": n}, &reviews)
	if len(reviews.Reviews) < 2 || reviews.Reviews[0].State != "changes_requested" || reviews.Reviews[len(reviews.Reviews)-1].State != "approved" ||
		reviews.Reviews[len(reviews.Reviews)-1].CommitSHA != commit.CommitSHA {
		t.Fatalf("reviews: %+v", reviews)
	}
	author.call("get_pull_request", map[string]any{"repo": repo, "prNumber": n}, &head)
	if !head.PullRequest.Merged {
		t.Fatalf("pull request not merged: %+v", head)
	}
	logToolSizes(t, url)
}

// logToolSizes logs the compact size of each review tool's definition in
// tools/list (the table of docs/benchmarks.md).
func logToolSizes(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := newAgentWith(t, url, &http.Client{Transport: bearerTransport{authorToken}}).s
	sizes := map[string]int{}
	for tool, err := range s.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			t.Fatal(err)
		}
		sizes[tool.Name] = c.Len()
	}
	for _, name := range reviewTools {
		t.Logf("| %s | %d |", name, sizes[name])
	}
}

// TestReviewWritesAreWrites: the review writes are refused by a read-only
// gateway and a read-only principal (-32001 read_only), before GitHub is
// called; the review reads are served.
func TestReviewWritesAreWrites(t *testing.T) {
	writes := map[string]string{
		"create_review":              `{"repo":"octo-org/hello-world","prNumber":1,"commit_sha":"abcdef1","event":"approve"}`,
		"submit_review":              `{"repo":"octo-org/hello-world","prNumber":1,"review_id":1,"event":"approve"}`,
		"delete_pending_review":      `{"repo":"octo-org/hello-world","prNumber":1,"review_id":1}`,
		"reply_to_review_thread":     `{"repo":"octo-org/hello-world","prNumber":1,"thread_id":"PRRT_x","body":"b"}`,
		"resolve_review_thread":      `{"repo":"octo-org/hello-world","prNumber":1,"thread_id":"PRRT_x","resolved":true}`,
		"request_reviewers":          `{"repo":"octo-org/hello-world","prNumber":1,"reviewers":["monalisa"]}`,
		"update_pull_request_branch": `{"repo":"octo-org/hello-world","prNumber":1,"expected_head_sha":"0123456789abcdef0123456789abcdef01234567"}`,
	}
	ro := gatewaytest.StartStack(t, gatewaytest.StackOptions{ReadOnly: true})
	team := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: teamPolicy})
	for _, sc := range []struct {
		name string
		st   *gatewaytest.Stack
		hdr  []string
	}{
		{"gateway -read-only", ro, nil},
		{"read-only principal", team, []string{"Authorization", "Bearer " + keyBot}},
	} {
		name, st := sc.name, sc.st
		for tool, args := range writes {
			t.Run(name+"/"+tool, func(t *testing.T) {
				before := githubCalls(st)
				_, out := rpcCall(t, st.URL, tool, args, sc.hdr...)
				if code, data := errOf(t, out); code != -32001 || !bytes.Contains(data["policy"], []byte(`"rule":"read_only"`)) {
					t.Fatalf("code %d data %v", code, data)
				}
				if n := githubCalls(st) - before; n != 0 {
					t.Fatalf("GitHub was called %d times", n)
				}
			})
		}
		t.Run(name+"/list_review_threads", func(t *testing.T) {
			_, out := rpcCall(t, st.URL, "list_review_threads", `{"repo":"octo-org/hello-world","prNumber":1,"state":"all"}`, sc.hdr...)
			if _, refused := out["error"]; refused || out["result"] == nil {
				t.Fatalf("a read was refused: %s", out["error"])
			}
		})
	}
}
