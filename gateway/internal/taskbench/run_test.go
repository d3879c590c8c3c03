package taskbench

import (
	"context"
	"errors"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ghops.dev/services/fakehub"

	"ghops.dev/gateway/gatewaytest"
)

// TestMeasureCounts checks the runner's accounting on calls whose GitHub
// requests are known exactly: a search (one search request), a comment
// on an issue the search found (one REST request: the search gave the
// number's kind), a commit (the branch's ref over REST, then
// createCommitOnBranch over GraphQL) and an issue that does not exist
// (one REST request answered 404, an error result). The figures must
// land on the call that caused them, in the right bucket.
func TestMeasureCounts(t *testing.T) {
	cfg := HubConfig()
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Hub: &cfg, Embedded: true})
	var texts []string
	keep := func(res Result, err error) error {
		texts = append(texts, res.Text)
		return err
	}
	task := Task{
		Name: "accounting",
		Scripts: map[Server]Script{Ghops: func(ctx context.Context, c Caller) error {
			for _, step := range []struct {
				tool string
				args map[string]any
			}{
				{"search_issues", map[string]any{"query": "repo:" + Repo + " greeting"}},
				{"add_issue_comment", map[string]any{"repo": Repo, "issueNumber": 4, "body": "counted"}},
				{"commit_files", map[string]any{"repo": Repo, "branch": "main", "message": "m", "files": []any{map[string]any{"path": "a.txt", "content": "a\n"}}}},
				{"get_issue", map[string]any{"repo": Repo, "issueNumber": 9999}},
			} {
				if err := keep(c.Call(ctx, step.tool, step.args)); err != nil {
					return err
				}
			}
			return nil
		}},
		Verify: func(ctx context.Context, h *fakehub.Hub) error {
			cs, err := issueComments(ctx, h, 4)
			if err != nil {
				return err
			}
			if cs[len(cs)-1].Body != "counted" {
				return errors.New("no comment")
			}
			return nil
		},
	}
	rep, err := Measure(context.Background(), task, Ghops, "all", st.Hub, &sdk.StreamableClientTransport{Endpoint: st.URL + "/mcp", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Verified {
		t.Fatalf("not verified: %s", rep.Failure)
	}
	want := []struct {
		tool    string
		req     Requests
		isError bool
	}{
		{"search_issues", Requests{Search: 1}, false},
		{"add_issue_comment", Requests{Core: 1}, false},
		{"commit_files", Requests{Core: 1, GraphQL: 1}, false},
		{"get_issue", Requests{Core: 1}, true},
	}
	if len(rep.Calls) != len(want) {
		t.Fatalf("%d calls recorded, want %d: %+v", len(rep.Calls), len(want), rep.Calls)
	}
	for i, w := range want {
		got := rep.Calls[i]
		if got.Tool != w.tool || got.Requests != w.req || got.IsError != w.isError {
			t.Errorf("call %d: %+v, want %s with %+v, isError %v", i+1, got, w.tool, w.req, w.isError)
		}
		if got.ContentBytes != len(texts[i]) || got.ResultBytes <= got.ContentBytes {
			t.Errorf("call %d (%s): %d content bytes for a %d-byte text, %d result bytes", i+1, got.Tool, got.ContentBytes, len(texts[i]), got.ResultBytes)
		}
	}
	if got := rep.Requests(); got != (Requests{Core: 3, Search: 1, GraphQL: 1}) {
		t.Errorf("the run's requests %+v", got)
	}
	if rep.Tools < 50 || rep.ListBytes < rep.Tools*300 {
		t.Errorf("tools/list: %d tools in %d bytes", rep.Tools, rep.ListBytes)
	}
}

// TestMeasureUnverified: a script that fails and a Verify that finds
// nothing both give a report that is not verified, with the reason.
func TestMeasureUnverified(t *testing.T) {
	cfg := HubConfig()
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Hub: &cfg, Embedded: true})
	for _, tc := range []struct {
		name   string
		script Script
		verify func(context.Context, *fakehub.Hub) error
		want   string
	}{
		{"script fails", func(ctx context.Context, c Caller) error {
			return call(ctx, c, "get_issue", map[string]any{"repo": Repo, "issueNumber": 9999}, nil)
		}, func(context.Context, *fakehub.Hub) error { return nil }, "script: get_issue: error result"},
		{"verify fails", func(ctx context.Context, c Caller) error {
			return call(ctx, c, "get_issue", map[string]any{"repo": Repo, "issueNumber": 4}, nil)
		}, func(context.Context, *fakehub.Hub) error { return errors.New("not done") }, "verify: not done"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task := Task{Name: "x", Scripts: map[Server]Script{Ghops: tc.script}, Verify: tc.verify}
			rep, err := Measure(context.Background(), task, Ghops, "all", st.Hub, &sdk.StreamableClientTransport{Endpoint: st.URL + "/mcp", MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verified || !strings.HasPrefix(rep.Failure, tc.want) || len(rep.Calls) != 1 {
				t.Fatalf("report %+v, want unverified with %q and the call", rep, tc.want)
			}
		})
	}
	if _, err := Measure(context.Background(), Task{Name: "x"}, GMS, "all", st.Hub, nil); err == nil {
		t.Error("a task without the server's script was measured")
	}
}

// TestRegistry: every task says what the report needs, and Select finds
// tasks by name and refuses unknown ones.
func TestRegistry(t *testing.T) {
	all := All()
	if len(all) == 0 {
		t.Fatal("no tasks")
	}
	for _, task := range all {
		if task.Summary == "" || task.Toolsets[Ghops] == "" || task.Toolsets[GMS] == "" {
			t.Errorf("task %s: a summary and both servers' toolsets are required", task.Name)
		}
		if task.Scripts[GMS] == nil && task.Gap[GMS] == "" {
			t.Errorf("task %s has no gms script and no Gap saying why", task.Name)
		}
	}
	got, err := Select(all[0].Name)
	if err != nil || len(got) != 1 || got[0].Name != all[0].Name {
		t.Errorf("Select(%q) = %v, %v", all[0].Name, got, err)
	}
	if _, err := Select("no-such-task"); err == nil || !strings.Contains(err.Error(), all[0].Name) {
		t.Errorf("Select of an unknown task: %v, want an error listing the tasks", err)
	}
}
