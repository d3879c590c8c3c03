package toolschema

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"ghops.dev/gateway/internal/toolschema/internal/kindsv1"
)

// TestViolationText shows that the text a model reads of each violation
// names the offending property and says what is expected (issue 20, point
// 4), while the payload keeps AJV's wording.
func TestViolationText(t *testing.T) {
	tests := []struct {
		name, tool, args string
		want             []string // Path + ": " + Text, in order
	}{
		{"unknown property named", "get_commits", `{"repo":"octo-org/hello-world","perPage":5}`,
			[]string{"root: must NOT have additional properties (perPage)"}},
		{"github-mcp-server style arguments", "get_pr_mergeability", `{"owner":"octo-org","repo":"octo-org/hello-world","pullNumber":5}`,
			[]string{
				"root: must have required property 'prNumber'",
				"root: must NOT have additional properties (owner)",
				"root: must NOT have additional properties (pullNumber)",
			}},
		{"unreadable pattern in words", "commit_files", `{"repo":"o/r","branch":"main","message":"m","files":[{"path":"docs//x.txt","content":"x"}]}`,
			[]string{`/files/0/path: must follow the rule: File path from the repository root: segments separated by single slashes, none empty, ".", ".." or ".git", no leading or trailing slash, no control character (the safe-path rule of docs/errors.md).`}},
		{"readable pattern as is", "get_checks_for_sha", `{"repo":"o/r","sha":"xyz"}`,
			[]string{`/sha: must match pattern "^[a-f0-9]{7,40}$"`}},
		{"at most one of", "read_file", `{"repo":"o/r","path":"a","branch":"main","ref":"v1"}`,
			[]string{"root: must NOT be valid: give at most one of branch, ref"}},
		{"allowed values", "list_pull_requests", `{"repo":"o/r","state":"merged"}`,
			[]string{"/state: must be equal to one of the allowed values: open, closed, all"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, vs := tool(t, tc.tool).Decode(json.RawMessage(tc.args))
			var got []string
			for _, v := range vs {
				got = append(got, v.Path+": "+registry(t).Text(tc.tool, v))
				if strings.Contains(v.Message, "(") && v.Keyword == "additionalProperties" {
					t.Errorf("payload message gained words: %q", v.Message)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("texts\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestViolationTextExactlyOne names the fields of a required oneof.
func TestViolationTextExactlyOne(t *testing.T) {
	r, err := newRegistry(kindsv1.File_kindstest_v1_kinds_proto.Services().ByName("KindsService"), kindsv1.ToolSchemas)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, args, want string }{
		{"none", `{"id":1}`, "root: must match exactly one schema in oneOf: give exactly one of ref, sha, prNumber"},
		{"two", `{"id":1,"ref":"main","sha":"abcdef0"}`, "root: must match exactly one schema in oneOf: give exactly one of ref, sha, prNumber"},
		{"map value", `{"id":1,"ref":"main","env":{"A":"toolong"}}`, "/env/A: must NOT be longer than 5 characters"},
		{"enum", `{"id":1,"ref":"main","state":"OPEN"}`, "/state: must be equal to one of the allowed values: open, closed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl, _ := r.Lookup("kinds")
			_, vs := tl.Decode(json.RawMessage(tc.args))
			if len(vs) != 1 {
				t.Fatalf("want one violation, got %s", mustMarshal(t, vs))
			}
			if got := vs[0].Path + ": " + r.Text("kinds", vs[0]); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestJobLogWindowText: get_job_log's window (either tail_lines, or start_line and max_lines) is
// refused by the published schema, before any CEL rule, and the text a model reads says it in
// words: exactly one of tail_lines and start_line, start_line and max_lines together.
func TestJobLogWindowText(t *testing.T) {
	const oneOf = "root: must match exactly one schema in oneOf: give exactly one of tail_lines, start_line"
	tests := []struct {
		name, args string
		want       []string
	}{
		{"neither", `{"repo":"o/r","job_id":7}`, []string{oneOf}},
		{"both forms", `{"repo":"o/r","job_id":7,"tail_lines":5,"start_line":1,"max_lines":5}`, []string{oneOf}},
		{"start_line alone", `{"repo":"o/r","job_id":7,"start_line":1}`,
			[]string{"root: must have property max_lines when property start_line is present"}},
		{"max_lines alone", `{"repo":"o/r","job_id":7,"max_lines":5}`,
			[]string{oneOf, "root: must have property start_line when property max_lines is present"}},
		{"tail_lines with max_lines", `{"repo":"o/r","job_id":7,"tail_lines":5,"max_lines":5}`,
			[]string{"root: must have property start_line when property max_lines is present"}},
		{"tail_lines with start_line", `{"repo":"o/r","job_id":7,"tail_lines":5,"start_line":1}`,
			[]string{oneOf, "root: must have property max_lines when property start_line is present"}},
	}
	r := registry(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, vs, stage := tool(t, "get_job_log").decode(json.RawMessage(tc.args))
			if stage != stageSchema {
				t.Errorf("refused at stage %d, want the schema's", stage)
			}
			var got []string
			for _, v := range vs {
				got = append(got, v.Path+": "+r.Text("get_job_log", v))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	for _, ok := range []string{`{"repo":"o/r","job_id":7,"tail_lines":5}`, `{"repo":"o/r","job_id":7,"start_line":1,"max_lines":5}`} {
		if _, vs := tool(t, "get_job_log").Decode(json.RawMessage(ok)); len(vs) != 0 {
			t.Errorf("%s refused: %s", ok, mustMarshal(t, vs))
		}
	}
}
