package toolschema

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// TestProtovalidateTranslation feeds protovalidate messages that bypassed the
// schema, as the safety net would see them, and checks the AJV shape.
func TestProtovalidateTranslation(t *testing.T) {
	repoPattern := `^[a-zA-Z0-9._-]+/[a-zA-Z0-9._-]+$`
	b64 := `^[A-Za-z0-9+/]*={0,2}$`
	okFile := func() *ghopsv1.FileChange { return &ghopsv1.FileChange{Path: "a", Content: proto.String("x")} }
	tests := []struct {
		name, tool string
		msg        proto.Message
		want       string
	}{
		{"required", "search", &ghopsv1.SearchRequest{},
			list(v("must have required property 'query'", "root", "required", `{"missingProperty":"query"}`, `null`))},
		{"string.pattern", "fetch", &ghopsv1.FetchRequest{Repo: "nope"},
			list(v(`must match pattern "`+repoPattern+`"`, "/repo", "pattern", `{"pattern":"`+repoPattern+`"}`, `"nope"`))},
		{"string.max_len", "search", &ghopsv1.SearchRequest{Query: strings.Repeat("q", 257)},
			list(v("must NOT be longer than 256 characters", "/query", "maxLength", `{"limit":256}`, `"`+strings.Repeat("q", 257)+`"`))},
		{"string.in", "list_pull_requests", &ghopsv1.ListPullRequestsRequest{Repo: "o/r", State: proto.String("x")},
			list(v("must be equal to one of the allowed values", "/state", "enum", `{"allowedValues":["open","closed","all"]}`, `"x"`))},
		{"int32.gte", "search", &ghopsv1.SearchRequest{Query: "q", Page: proto.Int32(0)},
			list(v("must be >= 1", "/page", "minimum", `{"comparison":">=","limit":1}`, `0`))},
		{"int32.lte", "search", &ghopsv1.SearchRequest{Query: "q", PerPage: proto.Int32(101)},
			list(v("must be <= 100", "/per_page", "maximum", `{"comparison":"<=","limit":100}`, `101`))},
		{"repeated.max_items", "commit_files", &ghopsv1.CommitFilesRequest{Repo: "o/r", Branch: "b", Message: "m",
			Files: []*ghopsv1.FileChange{okFile(), okFile(), okFile(), okFile(), okFile(), okFile(), okFile(), okFile(), okFile(), okFile(), okFile(), okFile(), okFile(), okFile(), okFile(), okFile(), okFile(), okFile(), okFile(), okFile(), okFile()}},
			""},
		{"repeated.min_items", "commit_files", &ghopsv1.CommitFilesRequest{Repo: "o/r", Branch: "b", Message: "m"},
			""},
		{"nested path", "commit_files", &ghopsv1.CommitFilesRequest{Repo: "o/r", Branch: "b", Message: "m",
			Files: []*ghopsv1.FileChange{okFile(), {Path: strings.Repeat("p", 501), Content: proto.String("")}}},
			list(v("must NOT be longer than 500 characters", "/files/1/path", "maxLength", `{"limit":500}`, `"`+strings.Repeat("p", 501)+`"`))},
		{"nested required", "commit_files", &ghopsv1.CommitFilesRequest{Repo: "o/r", Branch: "b", Message: "m",
			Files: []*ghopsv1.FileChange{{Path: "a"}}},
			list(v("must have required property 'content'", "/files/0", "required", `{"missingProperty":"content"}`, `null`))},
		{"ref_name.dot_dot", "create_pull_request", &ghopsv1.CreatePullRequestRequest{Repo: "o/r", Title: "t", Head: "a/../b", Base: "main"},
			list(v(`must not contain ".."`, "/head", "ref_name", `{"rule":"ref_name.dot_dot"}`, `"a/../b"`),
				v(`no segment may start with "."`, "/head", "ref_name", `{"rule":"ref_name.dot_segment"}`, `"a/../b"`))},
		{"ref_name.control", "get_commits", &ghopsv1.GetCommitsRequest{Repo: "o/r", Branch: proto.String("a\x01")},
			list(v(`must match pattern "^[a-zA-Z0-9._/-]+$"`, "/branch", "pattern", `{"pattern":"^[a-zA-Z0-9._/-]+$"}`, `"a\u0001"`),
				v(`must not contain control characters`, "/branch", "ref_name", `{"rule":"ref_name.control"}`, `"a\u0001"`))},
		{"repo_name.dot_segment", "fetch", &ghopsv1.FetchRequest{Repo: "../.."},
			list(v(`owner and name must not be "." or ".."`, "/repo", "repo_name", `{"rule":"repo_name.dot_segment"}`, `"../.."`))},
		{"message.oneof", "get_tree", &ghopsv1.GetTreeRequest{Repo: "o/r", Branch: proto.String("a"), Ref: proto.String("b")},
			""},
		{"CEL file.content_base64", "commit_files", &ghopsv1.CommitFilesRequest{Repo: "o/r", Branch: "b", Message: "m",
			Files: []*ghopsv1.FileChange{okFile(), {Path: "a", Content: proto.String("!!"), Encoding: proto.String("base64")}}},
			list(v(`must match pattern "`+b64+`"`, "/files/1/content", "pattern", `{"pattern":"`+b64+`"}`, `"!!"`))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs := tool(t, tc.tool).protoViolations(tc.msg, nil, nil)
			if len(vs) == 0 {
				t.Fatal("protovalidate found nothing")
			}
			switch tc.name {
			case "repeated.max_items":
				want := Violation{Message: "must NOT have more than 20 items", Path: "/files", Keyword: "maxItems", Params: map[string]any{"limit": 20}}
				if vs[0].Message != want.Message || vs[0].Path != want.Path || vs[0].Keyword != want.Keyword || mustMarshal(t, vs[0].Params) != `{"limit":20}` {
					t.Errorf("got %s", mustMarshal(t, vs))
				}
				return
			case "repeated.min_items":
				if vs[0].Message != "must NOT have fewer than 1 items" || vs[0].Path != "/files" || vs[0].Keyword != "minItems" {
					t.Errorf("got %s", mustMarshal(t, vs))
				}
				return
			case "message.oneof":
				if vs[0].Message != "must NOT be valid" || vs[0].Path != "root" || vs[0].Keyword != "not" {
					t.Errorf("got %s", mustMarshal(t, vs))
				}
				return
			}
			if got, want := mustMarshal(t, vs), compactJSON(t, tc.want); got != want {
				t.Errorf("violations\n got %s\nwant %s", got, want)
			}
		})
	}
}
