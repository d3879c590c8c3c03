package toolschema

import (
	"bytes"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

func TestEncodeResult(t *testing.T) {
	ts := timestamppb.New(time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC))
	tests := []struct {
		name, tool string
		resp       proto.Message
		want       string
	}{
		{"search page without next", "search", &ghopsv1.SearchResponse{
			TotalCount:   1,
			Repositories: []*ghopsv1.RepositorySummary{{FullName: "o/r", Stars: 3, UpdatedAt: ts}},
			Page:         &ghopsv1.PageInfo{Page: 1, PerPage: 30},
		}, `{"total_count":1,"incomplete_results":false,"repositories":[{"full_name":"o/r","description":"","language":"","stars":3,"forks":0,"visibility":"","default_branch":"","archived":false,"fork":false,"topics":[],"updated_at":"2026-11-22T10:30:00Z"}],"page":{"page":1,"per_page":30,"has_next":false}}`},
		{"mergeable false is present", "get_pr_mergeability", &ghopsv1.GetPrMergeabilityResponse{Number: 7, Mergeable: proto.Bool(false), MergeableState: "dirty"},
			`{"number":7,"state":"","merged":false,"draft":false,"mergeable":false,"mergeable_state":"dirty","head":"","base":"","head_sha":""}`},
		{"mergeable unknown is absent", "get_pr_mergeability", &ghopsv1.GetPrMergeabilityResponse{Number: 7, MergeableState: "unknown"},
			`{"number":7,"state":"","merged":false,"draft":false,"mergeable_state":"unknown","head":"","base":"","head_sha":""}`},
		{"read_file not truncated", "read_file", &ghopsv1.ReadFileResponse{Path: "a", Content: "<b>&", Encoding: "utf8"},
			`{"path":"a","sha":"","size":0,"encoding":"utf8","content":"<b>&","truncated":false,"binary":false}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl := tool(t, tc.tool)
			got, err := tl.EncodeResult(tc.resp)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("EncodeResult\n got %s\nwant %s", got, tc.want)
			}
			for i := 0; i < 5; i++ { // protojson randomises whitespace per process; output must not vary
				again, _ := tl.EncodeResult(tc.resp)
				if string(again) != string(got) {
					t.Fatalf("not deterministic: %s vs %s", again, got)
				}
			}
			assertMatchesOutputSchema(t, tl, got)
		})
	}
}

// TestEncodeResultMatchesOutputSchema checks, for every tool, that an empty
// response (everything zero) satisfies the output schema: every field
// protojson emits has the type and format the schema publishes.
func TestEncodeResultMatchesOutputSchema(t *testing.T) {
	for _, tl := range registry(t).Tools() {
		t.Run(tl.Name, func(t *testing.T) {
			got, err := tl.EncodeResult(tl.NewResponse())
			if err != nil {
				t.Fatal(err)
			}
			assertMatchesOutputSchema(t, tl, got)
		})
	}
}

func assertMatchesOutputSchema(t *testing.T, tl *Tool, out []byte) {
	t.Helper()
	assertMatches(t, outputSchema(t, tl), out)
}

// outputSchema compiles tl's output schema.
func outputSchema(t *testing.T, tl *Tool) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tl.OutputSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("https://test.invalid/out.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("https://test.invalid/out.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// assertMatches fails unless out satisfies sch.
func assertMatches(t *testing.T, sch *jsonschema.Schema, out []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("result is not JSON: %v", err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("result %s breaks the output schema: %v", out, err)
	}
}

func TestEncodeResultErrors(t *testing.T) {
	tl := tool(t, "search")
	tests := []struct {
		name string
		resp proto.Message
	}{
		{"nil", nil},
		{"typed nil", (*ghopsv1.SearchResponse)(nil)},
		{"wrong type", &ghopsv1.FetchResponse{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if b, err := tl.EncodeResult(tc.resp); err == nil {
				t.Errorf("EncodeResult(%v) = %s, want an error", tc.resp, b)
			}
		})
	}
}
