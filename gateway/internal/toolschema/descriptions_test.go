package toolschema

import (
	"encoding/json"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// TestEveryParameterDescribed keeps the proto honest: a request field added
// without a leading comment would reach agents undocumented.
func TestEveryParameterDescribed(t *testing.T) {
	type schema struct {
		Description string            `json:"description"`
		Properties  map[string]schema `json:"properties"`
		Items       *schema           `json:"items"`
	}
	var walk func(t *testing.T, path string, s schema)
	walk = func(t *testing.T, path string, s schema) {
		for name, p := range s.Properties {
			if p.Description == "" {
				t.Errorf("%s.%s has no description", path, name)
			}
			walk(t, path+"."+name, p)
		}
		if s.Items != nil {
			walk(t, path+"[]", *s.Items)
		}
	}
	for _, tl := range registry(t).Tools() {
		t.Run(tl.Name, func(t *testing.T) {
			var s schema
			if err := json.Unmarshal(tl.InputSchema, &s); err != nil {
				t.Fatal(err)
			}
			if len(s.Properties) == 0 {
				t.Fatal("no properties")
			}
			walk(t, tl.Name, s)
		})
	}
}

func TestDescriptionsOf(t *testing.T) {
	docs, err := loadDescriptions(sourceDescriptors)
	if err != nil {
		t.Fatal(err)
	}
	fields := (&ghopsv1.MergePullRequestRequest{}).ProtoReflect().Descriptor().Fields()
	tests := []struct {
		name  string
		field string
		want  string
	}{
		{"single-line comment", "sha", "Head sha you reviewed; the merge is refused if the head moved since."},
		{"json name differs", "merge_method", `How to merge (default "merge").`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := docs.of(fields.ByName(protoreflect.Name(tc.field))); got != tc.want {
				t.Errorf("of(%s) = %q, want %q", tc.field, got, tc.want)
			}
		})
	}
	if got := (*descriptions)(nil).of(fields.ByName("sha")); got != "" {
		t.Errorf("nil descriptions gave %q", got)
	}
	if _, err := loadDescriptions([]byte("not a descriptor set")); err == nil {
		t.Error("garbage accepted as a descriptor set")
	}
}
