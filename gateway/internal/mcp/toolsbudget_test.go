package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"ghops.dev/gateway/internal/toolschema"
)

// The context budget of tools/list (issue 20, point 6; issue 22): every
// tool's definition costs the model context on every session, so the bytes
// are a contract. docs/benchmarks.md reports the table this test logs
// (go test ./gateway/internal/mcp/ -run TestToolsListBudget -v).
const (
	// originalBudget caps the original tools' definitions together: 16 KB,
	// plus 2 KB for the content report (253 bytes in the output schema of
	// each of the 8 original tools whose answers carry user text;
	// docs/benchmarks.md, docs/security.md).
	originalBudget = 18 * 1024
	// averageBudget caps the average definition over all tools (1.2 KB).
	averageBudget = 1229
)

// originalTools are the tools the 16 KB budget covers: those declared before
// issue 22 (tools/list sorts by name, so they are named here).
var originalTools = map[string]bool{
	"search": true, "fetch": true, "list_directory": true, "read_file": true,
	"get_tree": true, "get_commits": true, "get_branches": true, "list_pull_requests": true,
	"get_pr_mergeability": true, "get_checks_for_sha": true, "create_pull_request": true,
	"update_pull_request": true, "merge_pull_request": true, "commit_files": true,
	"apply_patch": true, "validate_environment": true,
}

// reviewToolBudget caps each pull request review tool's definition: 1 KB,
// except the three lists, whose output schemas nest their items and the
// content report, and create_review, whose input schema carries its line
// comments (docs/benchmarks.md, task C, gives the figures).
var reviewToolBudget = map[string]int{
	"list_pull_request_reviews": 1400, "list_review_threads": 1750, "create_review": 1650, "list_pull_request_commits": 1250,
	"submit_review": 1024, "delete_pending_review": 1024, "reply_to_review_thread": 1024, "resolve_review_thread": 1024,
	"request_reviewers": 1024, "update_pull_request_branch": 1024,
}

// listedTools returns each tool object of the tools/list answer at
// 2025-11-25, compact, following cursors.
func listedTools(t *testing.T, s *testServer) (names []string, defs [][]byte) {
	t.Helper()
	cursor := ""
	for range 100 {
		params := `{}`
		if cursor != "" {
			params = `{"cursor":` + string(mustJSONString(t, cursor)) + `}`
		}
		r := s.post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":`+params+`}`, "MCP-Protocol-Version", V20251125)
		var ans struct {
			Result struct {
				Tools      []json.RawMessage `json:"tools"`
				NextCursor string            `json:"nextCursor"`
			} `json:"result"`
		}
		if err := json.Unmarshal(r.body, &ans); err != nil {
			t.Fatalf("tools/list: %v: %s", err, r.body)
		}
		for _, raw := range ans.Result.Tools {
			var b bytes.Buffer
			if err := json.Compact(&b, raw); err != nil {
				t.Fatal(err)
			}
			var tl struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(raw, &tl); err != nil {
				t.Fatal(err)
			}
			names = append(names, tl.Name)
			defs = append(defs, b.Bytes())
		}
		if cursor = ans.Result.NextCursor; cursor == "" {
			return names, defs
		}
	}
	t.Fatal("tools/list: more than 100 pages")
	return nil, nil
}

func mustJSONString(t *testing.T, s string) []byte {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestToolsListBudget measures the bytes of each tool's definition in the
// tools/list answer (its compact JSON object) and fails when the original 16
// tools exceed 16 KB together or the average over all tools exceeds 1.2 KB.
func TestToolsListBudget(t *testing.T) {
	names, defs := listedTools(t, newTestServer(t))
	original, all, seen := 0, 0, 0
	for i, d := range defs {
		t.Logf("| %s | %d |", names[i], len(d))
		all += len(d)
		if originalTools[names[i]] {
			original += len(d)
			seen++
		}
	}
	if seen != len(originalTools) {
		t.Fatalf("tools/list has %d of the %d original tools", seen, len(originalTools))
	}
	t.Logf("| %d original tools | %d |", seen, original)
	t.Logf("| all %d tools | %d (average %d) |", len(defs), all, all/len(defs))
	tests := []struct {
		name       string
		got, limit int
	}{
		{"original 16 tools together", original, originalBudget},
		{"average over all tools", all / len(defs), averageBudget},
	}
	reviews := 0
	for i, d := range defs {
		if limit, ok := reviewToolBudget[names[i]]; ok {
			reviews++
			tests = append(tests, struct {
				name       string
				got, limit int
			}{names[i], len(d), limit})
		}
	}
	if reviews != len(reviewToolBudget) {
		t.Fatalf("tools/list has %d of the %d review tools", reviews, len(reviewToolBudget))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got > tc.limit {
				t.Errorf("%d bytes, budget %d (docs/benchmarks.md)", tc.got, tc.limit)
			}
		})
	}
}

// TestLeanDefinitionsLoseNothing checks, for every tool, that what
// tools/list leaves out is what MCP's defaults give back: annotations read
// with the specification's defaults (destructiveHint and idempotentHint of a
// read-only tool as a read-only tool behaves) equal the contract's, and a
// title is left out only when it repeats the name.
func TestLeanDefinitionsLoseNothing(t *testing.T) {
	for _, tl := range newRegistry(t).Tools() {
		t.Run(tl.Name, func(t *testing.T) {
			b, err := encodeTool(tl)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Title       string `json:"title"`
				Annotations struct {
					ReadOnly    *bool `json:"readOnlyHint"`
					Destructive *bool `json:"destructiveHint"`
					Idempotent  *bool `json:"idempotentHint"`
					OpenWorld   *bool `json:"openWorldHint"`
				} `json:"annotations"`
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			hint := func(h *bool, def bool) bool {
				if h == nil {
					return def
				}
				return *h
			}
			a := got.Annotations
			readOnly := hint(a.ReadOnly, false)
			read := toolschema.Annotations{
				ReadOnlyHint:    readOnly,
				DestructiveHint: !readOnly && hint(a.Destructive, true),
				IdempotentHint:  readOnly || hint(a.Idempotent, false),
				OpenWorldHint:   hint(a.OpenWorld, true),
			}
			if read != tl.Annotations {
				t.Errorf("annotations %s read as %+v, contract says %+v", b, read, tl.Annotations)
			}
			switch {
			case got.Title == tl.Title:
			case got.Title == "" && strings.EqualFold(tl.Title, strings.ReplaceAll(tl.Name, "_", " ")):
			default:
				t.Errorf("title %q, contract's %q", got.Title, tl.Title)
			}
		})
	}
}
