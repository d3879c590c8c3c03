package mcp

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The context budget of tools/list (issue 20, point 6; issues 22, 29, 30,
// 31): every tool's definition costs the model context on every session, so
// the bytes are a contract. docs/benchmarks.md reports the table this test
// logs (go test ./gateway/internal/mcp/ -run TestToolsListBudget -v).
const (
	// toolBudget caps every tool's definition, title and annotations
	// included: the generator's publishing rules (tools/schemagen,
	// publish.go) keep each within it, for the tools of today and those
	// added later alike.
	toolBudget = 1024
	// averageBudget caps the average definition over all tools.
	averageBudget = 1024
)

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
// tools/list answer (its compact JSON object) and fails when one exceeds 1
// KB or the average over all tools does.
func TestToolsListBudget(t *testing.T) {
	names, defs := listedTools(t, newTestServer(t))
	all := 0
	for i, d := range defs {
		t.Logf("| %s | %d |", names[i], len(d))
		all += len(d)
	}
	t.Logf("| all %d tools | %d (average %d) |", len(defs), all, all/len(defs))
	if all/len(defs) > averageBudget {
		t.Errorf("average definition %d bytes, budget %d (docs/benchmarks.md)", all/len(defs), averageBudget)
	}
	for i, d := range defs {
		t.Run(names[i], func(t *testing.T) {
			if len(d) > toolBudget {
				t.Errorf("%d bytes, budget %d (docs/benchmarks.md): %s", len(d), toolBudget, d)
			}
		})
	}
}

// TestDefinitionsAreExplicit checks, for every tool, that its definition
// states a title and all four annotations as the contract has them: hosts
// show the title (a blank without one), and MCP's defaults for an absent
// hint (destructiveHint and openWorldHint true) must not be what a
// read-write or closed-world tool is read as.
func TestDefinitionsAreExplicit(t *testing.T) {
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
			if got.Title == "" || got.Title != tl.Title {
				t.Errorf("title %q, contract's %q (every tool needs ToolOptions.title)", got.Title, tl.Title)
			}
			a := got.Annotations
			for _, h := range []struct {
				name string
				got  *bool
				want bool
			}{
				{"readOnlyHint", a.ReadOnly, tl.Annotations.ReadOnlyHint},
				{"destructiveHint", a.Destructive, tl.Annotations.DestructiveHint},
				{"idempotentHint", a.Idempotent, tl.Annotations.IdempotentHint},
				{"openWorldHint", a.OpenWorld, tl.Annotations.OpenWorldHint},
			} {
				switch {
				case h.got == nil:
					t.Errorf("%s absent: %s", h.name, b)
				case *h.got != h.want:
					t.Errorf("%s %v, contract says %v", h.name, *h.got, h.want)
				}
			}
		})
	}
}
