package toolschema

import (
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
)

// fillAgreement holds fillMessage to protojson on one argument text for
// tool tl: where fillMessage reads an object instance it must give what
// protojson gives (enum names translated as Decode does), and where
// protojson refuses, fillMessage must too. It reports whether fillMessage
// read the arguments.
func fillAgreement(tb testing.TB, tl *Tool, args string) bool {
	tb.Helper()
	inst, err := readInstance([]byte(args))
	if err != nil {
		return false
	}
	obj, ok := inst.(map[string]any)
	if !ok {
		return false
	}
	fast := tl.NewRequest()
	if !fillMessage(fast.ProtoReflect(), obj, tl.enums) {
		return false
	}
	again, _ := readInstance([]byte(args)) // protojsonRequest rewrites its instance
	ref, err := tl.protojsonRequest(again.(map[string]any), []byte(args))
	if err != nil {
		tb.Fatalf("%s %s: fillMessage read what protojson refuses (%v)", tl.Name, args, err)
	}
	if !proto.Equal(fast, ref) {
		tb.Fatalf("%s %s:\nfillMessage %v\n  protojson %v", tl.Name, args, fast, ref)
	}
	return true
}

// TestFillMessageAgreesWithProtojson reads arguments of every kind both
// ways; the common calls must take the one-parse path (want true), and
// what it leaves to protojson must be left (want false).
func TestFillMessageAgreesWithProtojson(t *testing.T) {
	tests := []struct {
		name, tool, args string
		want             bool
	}{
		{"read_file", "read_file", `{"repo":"octo-org/hello-world","path":"README.md","branch":"main"}`, true},
		{"get_branches", "get_branches", `{"repo":"octo-org/hello-world","per_page":5}`, true},
		{"empty object", "get_me", `{}`, true},
		{"int32 as an integer", "search", `{"query":"x","page":2,"per_page":100}`, true},
		{"int32 negative zero", "search", `{"query":"x","page":-0}`, true},
		{"int32 fraction form is left", "search", `{"query":"x","page":2.0}`, false},
		{"int32 exponent form is left", "search", `{"query":"x","per_page":1e2}`, false},
		{"int32 above its range is left", "search", `{"query":"x","page":2147483648}`, false},
		{"int32 as a string is left", "search", `{"query":"x","page":"2"}`, false},
		{"null is left", "search", `{"query":null}`, false},
		{"unknown key is left", "search", `{"query":"x","foo":1}`, false},
		{"JSON name", "get_pull_request", `{"repo":"o/r","prNumber":3}`, true},
		{"proto name", "get_pull_request", `{"repo":"o/r","pr_number":3}`, true},
		{"both names of one field are left", "get_pull_request", `{"repo":"o/r","prNumber":3,"pr_number":4}`, false},
		{"int64", "get_job_log", `{"repo":"o/r","job_id":9007199254740993,"start_line":10}`, true},
		{"repeated messages", "commit_files", `{"repo":"o/r","branch":"main","message":"m","files":[{"path":"a","content":""},{"path":"b","content":"aGk=","encoding":"base64"}]}`, true},
		{"empty list", "label_issue", `{"repo":"o/r","issueNumber":4,"add":[]}`, true},
		{"null in a list is left", "label_issue", `{"repo":"o/r","issueNumber":4,"add":[null]}`, false},
		{"nested message", "create_project_field", `{"project":"octo-org/1","name":"Sprint","type":"iteration","iteration":{"start_date":"2026-12-01","duration_days":14}}`, true},
		{"empty nested message", "create_project_field", `{"project":"octo-org/1","name":"S","type":"iteration","iteration":{}}`, true},
		{"map of strings", "run_workflow", `{"repo":"o/r","workflow":"ci.yml","ref":"main","inputs":{"level":"debug","b":""}}`, true},
		{"map of google.protobuf.Value is left", "add_project_item", `{"project":"octo-org/1","repo":"o/r","number":3,"fields":{"Status":"Todo"}}`, false},
		{"bools", "create_release", `{"repo":"o/r","tag":"v1","draft":true,"prerelease":false}`, true},
		{"unicode", "search", `{"query":"` + strings.Repeat("é😀\u2028", 20) + `"}`, true},
		{"kinds: every scalar", "", `{"id":1,"ref":"main","state":"closed","labels":["a"],"items":[{"name":"n"}],"env":{"k":"v"},"draft":true,"ratio":0.5,"limit":7,"big":18446744073709551615}`, true},
		{"kinds: enum by its proto name", "", `{"id":1,"ref":"main","state":"STATE_OPEN"}`, true},
		{"kinds: unknown enum name is left", "", `{"id":1,"ref":"main","state":"nope"}`, false},
		{"kinds: enum number is left", "", `{"id":1,"ref":"main","state":1}`, false},
		{"kinds: two members of a oneof are left", "", `{"id":1,"ref":"main","sha":"abcdef0"}`, false},
		{"kinds: timestamp is left", "", `{"id":1,"ref":"main","since":"2024-01-02T03:04:05Z"}`, false},
		{"kinds: double out of range is left", "", `{"id":1,"ref":"main","ratio":1e400}`, false},
		{"kinds: double exponent", "", `{"id":1,"ref":"main","ratio":1e-3}`, true},
		{"kinds: uint64 negative is left", "", `{"id":1,"ref":"main","big":-1}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl := kindsTool(t)
			if tc.tool != "" {
				tl = tool(t, tc.tool)
			}
			if got := fillAgreement(t, tl, tc.args); got != tc.want {
				t.Errorf("fillMessage read %s: %v, want %v", tc.args, got, tc.want)
			}
			msg, vs := tl.Decode(json.RawMessage(tc.args))
			if msg != nil && len(vs) == 0 && tc.want {
				ref := tl.NewRequest()
				again, _ := readInstance([]byte(tc.args))
				ref, err := tl.protojsonRequest(again.(map[string]any), []byte(tc.args))
				if err != nil || !proto.Equal(msg, ref) {
					t.Errorf("Decode(%s) = %v, protojson %v (%v)", tc.args, msg, ref, err)
				}
			}
		})
	}
}

// FuzzFillMessageAgreesWithProtojson holds fillMessage to protojson on
// any object, valid for the tool's schema or not.
func FuzzFillMessageAgreesWithProtojson(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"query":"x","page":2}`, `{"query":"x","page":-0}`, `{"repo":"o/r","prNumber":3}`, `{"repo":"o/r","pr_number":3,"prNumber":1}`,
		`{"repo":"o/r","branch":"main","message":"m","files":[{"path":"a","content":""}]}`, `{"repo":"o/r","inputs":{"a":"b"}}`,
		`{"id":1,"ref":"main","state":"closed","labels":["a"],"items":[{"name":"n"}],"env":{"k":"v"},"draft":true,"ratio":0.5,"limit":7}`,
		`{"id":-9223372036854775808,"big":18446744073709551615,"ratio":-0,"limit":-2147483648}`, `{"id":1,"sha":"a","ref":"b"}`,
		`{"iteration":{"start_date":"x","duration_days":1}}`, `{"iteration":{}}`, `{"add":["a",1]}`, `{"ratio":1e308,"limit":1.5}`,
	} {
		f.Add(uint8(0), []byte(s))
		f.Add(uint8(3), []byte(s))
		f.Add(uint8(255), []byte(s))
	}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		tools := registry(t).Tools()
		tl := kindsTool(t)
		if int(which) < len(tools) {
			tl = tools[which]
		}
		fillAgreement(t, tl, string(args))
	})
}
