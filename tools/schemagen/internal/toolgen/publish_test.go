package toolgen

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// githubTools generates GitHubService's tools and returns them with each
// method's full output schema and options, by tool name.
func githubTools(t *testing.T) (*File, map[string]*node, map[string]*ghopsv1.ToolOptions) {
	t.Helper()
	f, err := Generate(ghopsv1.File_ghops_v1_github_service_proto)
	if err != nil {
		t.Fatal(err)
	}
	outs, opts := map[string]*node{}, map[string]*ghopsv1.ToolOptions{}
	methods := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService").Methods()
	for i := 0; i < methods.Len(); i++ {
		m := methods.Get(i)
		to, _ := proto.GetExtension(m.Options(), ghopsv1.E_Tool).(*ghopsv1.ToolOptions)
		_, _, out, err := generateTool(m, to)
		if err != nil {
			t.Fatal(err)
		}
		outs[to.GetName()], opts[to.GetName()] = out, to
	}
	return f, outs, opts
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// onlyPropertiesDropped reports where pub differs from full other than by
// leaving out the properties of objects.
func onlyPropertiesDropped(pub, full map[string]any, at string) []string {
	var bad []string
	for k, pv := range pub {
		fv, ok := full[k]
		switch {
		case !ok:
			bad = append(bad, at+": adds "+k)
		case k == "properties":
			fp := fv.(map[string]any)
			for name, s := range pv.(map[string]any) {
				fs, ok := fp[name].(map[string]any)
				if !ok {
					bad = append(bad, at+": adds property "+name)
					continue
				}
				bad = append(bad, onlyPropertiesDropped(s.(map[string]any), fs, at+"/"+name)...)
			}
			if len(pv.(map[string]any)) != len(fp) {
				bad = append(bad, at+": leaves out some properties but not all")
			}
		case k == "items" || k == "additionalProperties":
			ps, pok := pv.(map[string]any)
			fs, fok := fv.(map[string]any)
			if pok && fok {
				bad = append(bad, onlyPropertiesDropped(ps, fs, at+"/"+k)...)
			} else if !reflect.DeepEqual(pv, fv) {
				bad = append(bad, at+": "+k+" changed")
			}
		case !reflect.DeepEqual(pv, fv):
			bad = append(bad, at+": "+k+" changed")
		}
	}
	for k := range full {
		if _, ok := pub[k]; !ok && k != "properties" {
			bad = append(bad, at+": drops "+k)
		}
	}
	return bad
}

// TestPublishedOutputOnlyDropsProperties: every published output schema is
// the full one with objects' properties left out and nothing else changed,
// so every answer that conforms to the full schema conforms to it.
func TestPublishedOutputOnlyDropsProperties(t *testing.T) {
	f, outs, _ := githubTools(t)
	for _, tl := range f.Tools {
		t.Run(tl.Name, func(t *testing.T) {
			for _, b := range onlyPropertiesDropped(decode(t, tl.OutputSchema), decode(t, outs[tl.Name].marshal()), "") {
				t.Error(b)
			}
		})
	}
}

// TestEveryDefinitionFitsTheBudget: with the published schemas, every
// GitHubService tool's definition fits 1 KB (the gateway's
// TestToolsListBudget measures the served bytes).
func TestEveryDefinitionFitsTheBudget(t *testing.T) {
	f, _, opts := githubTools(t)
	for _, tl := range f.Tools {
		t.Run(tl.Name, func(t *testing.T) {
			if n := definitionSize(tl.Name, opts[tl.Name], tl.InputSchema, tl.OutputSchema); n > definitionBudget {
				t.Errorf("%d bytes, budget %d", n, definitionBudget)
			}
		})
	}
}

// TestOutputDepths shows the rules on list_issues' answer: the envelopes
// (page, content report) are bare at every depth; the issues' fields are
// kept to depth two and left out at depth one; at depth zero the answer is
// a bare object.
func TestOutputDepths(t *testing.T) {
	_, outs, _ := githubTools(t)
	out := outs["list_issues"]
	always := func(protoreflect.FullName) bool { return false }
	envelope := func(m protoreflect.FullName) bool {
		return m == "ghops.v1.PageInfo" || m == "ghops.v1.ContentReport"
	}
	tests := []struct {
		name     string
		depth    int
		envelope func(protoreflect.FullName) bool
		want     []string
		wantNot  []string
	}{
		{"depth 2", 2, envelope, []string{`"issues":{"type":"array","items":{"type":"object","properties":{"number"`, `"page":{"type":"object"}`, `"content_report":{"type":"object"}`}, nil},
		{"depth 2 without envelopes", 2, always, []string{`"page":{"type":"object","properties":{"page"`}, nil},
		{"depth 1", 1, envelope, []string{`"issues":{"type":"array","items":{"type":"object"}}`}, []string{`"number"`}},
		{"depth 0", 0, envelope, nil, []string{`"properties"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(out.publishedOutput(tc.depth, tc.envelope).marshal())
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %s: %s", w, got)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("has %s: %s", w, got)
				}
			}
		})
	}
}

// TestToolNeedsTitle: a tool option without a title fails generation.
func TestToolNeedsTitle(t *testing.T) {
	m := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService").Methods().Get(0)
	tests := []struct {
		name    string
		opts    *ghopsv1.ToolOptions
		wantErr string
	}{
		{"no title", &ghopsv1.ToolOptions{Name: "x"}, "has no title"},
		{"title", &ghopsv1.ToolOptions{Name: "x", Title: "X"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := generateTool(m, tc.opts)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestKindDescriptions: a parameter without a comment takes its resource
// kind's description (repo is "owner/name" in every tool), and a comment
// wins over it.
func TestKindDescriptions(t *testing.T) {
	f, _, _ := githubTools(t)
	for _, tl := range f.Tools {
		in := decode(t, tl.InputSchema)
		props, _ := in["properties"].(map[string]any)
		repo, ok := props["repo"].(map[string]any)
		if !ok {
			continue
		}
		if d, _ := repo["description"].(string); d == "" {
			t.Errorf("%s: repo without a description", tl.Name)
		}
	}
}
