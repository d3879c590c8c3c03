package toolschema

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// agrees fails t when the one pass of tl vouches for args and the general
// path does not make the same request of them, and reports whether the one
// pass vouched.
func agrees(t *testing.T, tl *Tool, args string) bool {
	t.Helper()
	if tl.pass == nil {
		return false
	}
	got, ok := tl.pass.read([]byte(args))
	if !ok {
		return false
	}
	general := *tl
	general.pass = nil
	want, vs, st := general.decode(json.RawMessage(args))
	if st != stageOK || len(vs) > 0 {
		t.Errorf("%s: the one pass vouches for %s, the general path refuses it (stage %d): %s", tl.Name, args, st, mustMarshal(t, vs))
		return true
	}
	if !proto.Equal(got, want) {
		t.Errorf("%s: %s read in one pass as %v, by the general path as %v", tl.Name, args, got, want)
	}
	return true
}

// TestOnePassAgrees holds every tool's one pass to the general path on the
// corpus of TestFastSoundTools (every decode test's arguments given to
// every tool, the fuzz seeds, mutations of each tool's valid arguments),
// and requires it to vouch for a share of them.
func TestOnePassAgrees(t *testing.T) {
	total, vouched := overToolCorpus(t, agrees)
	t.Logf("%d arguments, %d read in one pass", total, vouched)
	if vouched < total/50 {
		t.Errorf("the one pass read only %d of %d arguments", vouched, total)
	}
}

// TestOnePassUseful: the arguments the benchmarks and the load generator
// send take the one pass.
func TestOnePassUseful(t *testing.T) {
	tests := []struct{ tool, args string }{
		{"read_file", `{"repo":"octo-org/hello-world","path":"README.md"}`},
		{"read_file", `{"repo":"o/r","path":"docs/ünïcode.md","ref":"v1.0"}`},
		{"read_file", `{"repo":"o/r","path":"docs/\u00fc.md"}`},
		{"get_branches", `{"repo":"octo-org/hello-world"}`},
		{"get_branches", `{"repo":"o/r","page":2,"per_page":100}`},
		{"get_commits", `{"repo":"o/r","branch":"main","sha":"abcdef1","page":1,"per_page":100}`},
		{"list_pull_requests", `{"repo":"o/r","state":"all","per_page":50}`},
		{"get_pull_request", `{"repo":"o/r","prNumber":2147483647}`},
		{"search", `{"query":"language:go","page":2,"per_page":50}`},
		{"list_directory", `{"repo":"o/r","path":"/","ref":"v1.0"}`},
		{"get_tree", `{"repo":"o/r","branch":"main"}`},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			if !agrees(t, tool(t, tc.tool), tc.args) {
				t.Errorf("the one pass does not read %s", tc.args)
			}
		})
	}
}

// TestOnePassDeclines: what the one pass is not certain of goes to the
// general path, which answers as before.
func TestOnePassDeclines(t *testing.T) {
	tests := []struct {
		name, tool, args string
		valid            bool // the general path accepts the arguments
	}{
		{"unknown property", "read_file", `{"repo":"o/r","path":"a","extra":1}`, false},
		{"null value", "read_file", `{"repo":"o/r","path":null}`, false},
		{"array where a string goes", "read_file", `{"repo":"o/r","path":["a"]}`, false},
		{"escaped name", "read_file", `{"re\u0070o":"o/r","path":"a"}`, true},
		{"pattern refused", "read_file", `{"repo":"not a repo","path":"a"}`, false},
		{"required missing", "read_file", `{"repo":"o/r"}`, false},
		{"duplicate name", "read_file", `{"repo":"o/r","repo":"o/s","path":"a"}`, false},
		{"trailing data", "read_file", `{"repo":"o/r","path":"a"} {}`, false},
		{"not an object", "read_file", `["o/r"]`, false},
		{"number with an exponent", "get_branches", `{"repo":"o/r","per_page":1e2}`, true},
		{"number out of range", "get_branches", `{"repo":"o/r","per_page":101}`, false},
		{"string where a number goes", "get_branches", `{"repo":"o/r","per_page":"1"}`, false},
		{"a list", "list_issues", `{"repo":"o/r","labels":["bug"]}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl := tool(t, tc.tool)
			if tl.pass == nil {
				t.Fatalf("%s has no one pass", tc.tool)
			}
			if _, ok := tl.pass.read([]byte(tc.args)); ok {
				t.Fatalf("the one pass read %s", tc.args)
			}
			msg, vs, st := tl.decode(json.RawMessage(tc.args))
			if got := st == stageOK && msg != nil && len(vs) == 0; got != tc.valid {
				t.Errorf("decode(%s): valid %v (stage %d, %s), want %v", tc.args, got, st, mustMarshal(t, vs), tc.valid)
			}
		})
	}
}

// TestOnePassChecks: a shared-rule check (a path that climbs out of the
// repository) stops the one pass, and the general path names it.
func TestOnePassChecks(t *testing.T) {
	tl := tool(t, "read_file")
	var withChecks int
	for _, pp := range tl.pass.props {
		withChecks += len(pp.checks)
	}
	if withChecks == 0 {
		t.Fatal("no shared-rule check reached read_file's one pass")
	}
	for name, pp := range tl.pass.props {
		for _, c := range pp.checks {
			probe := brokenBy(c)
			if probe == "" {
				continue
			}
			args, _ := json.Marshal(map[string]string{"repo": "o/r", "path": "a", name: probe})
			if _, ok := tl.pass.read(args); ok {
				t.Errorf("%s: the one pass read %s, which check %s refuses", name, args, c.id)
			}
			if _, vs, _ := tl.decode(args); len(vs) == 0 {
				t.Errorf("%s: decode accepted %s, which check %s refuses", name, args, c.id)
			}
		}
	}
}

// brokenBy returns a string check c refuses, from a list of likely
// offenders ("" when none is).
func brokenBy(c check) string {
	for _, s := range []string{"../etc/passwd", "a/../../b", "/abs", "a\x00b", "a//b", "..", " lead", "-x", "a\\b"} {
		if c.broken(s) {
			return s
		}
	}
	return ""
}

// FuzzOnePassAgrees: on arbitrary arguments to the benchmarks' tools the
// one pass makes the general path's request or declines.
func FuzzOnePassAgrees(f *testing.F) {
	fuzzDecodeTools(f, []string{"read_file", "search", "get_branches", "list_directory", "get_commits", "list_pull_requests", "get_pull_request"},
		func(t *testing.T, tl *Tool, args string) { agrees(t, tl, args) })
}

// TestAppendScalarKinds: every scalar kind appendScalar writes reads back
// as the value protoreflect's Set gives, at the extremes of its range. The
// tools' requests use few kinds; this holds the others for when they do.
func TestAppendScalarKinds(t *testing.T) {
	kinds := []struct {
		kind   descriptorpb.FieldDescriptorProto_Type
		values []protoreflect.Value
	}{
		{descriptorpb.FieldDescriptorProto_TYPE_STRING, []protoreflect.Value{protoreflect.ValueOfString(""), protoreflect.ValueOfString("ünï\x00code")}},
		{descriptorpb.FieldDescriptorProto_TYPE_BOOL, []protoreflect.Value{protoreflect.ValueOfBool(true), protoreflect.ValueOfBool(false)}},
		{descriptorpb.FieldDescriptorProto_TYPE_ENUM, []protoreflect.Value{protoreflect.ValueOfEnum(0), protoreflect.ValueOfEnum(2), protoreflect.ValueOfEnum(-1)}},
		{descriptorpb.FieldDescriptorProto_TYPE_INT32, []protoreflect.Value{protoreflect.ValueOfInt32(math.MinInt32), protoreflect.ValueOfInt32(-1), protoreflect.ValueOfInt32(math.MaxInt32)}},
		{descriptorpb.FieldDescriptorProto_TYPE_SINT32, []protoreflect.Value{protoreflect.ValueOfInt32(math.MinInt32), protoreflect.ValueOfInt32(-1), protoreflect.ValueOfInt32(math.MaxInt32)}},
		{descriptorpb.FieldDescriptorProto_TYPE_SFIXED32, []protoreflect.Value{protoreflect.ValueOfInt32(math.MinInt32), protoreflect.ValueOfInt32(-1), protoreflect.ValueOfInt32(math.MaxInt32)}},
		{descriptorpb.FieldDescriptorProto_TYPE_INT64, []protoreflect.Value{protoreflect.ValueOfInt64(math.MinInt64), protoreflect.ValueOfInt64(-1), protoreflect.ValueOfInt64(math.MaxInt64)}},
		{descriptorpb.FieldDescriptorProto_TYPE_SINT64, []protoreflect.Value{protoreflect.ValueOfInt64(math.MinInt64), protoreflect.ValueOfInt64(-1), protoreflect.ValueOfInt64(math.MaxInt64)}},
		{descriptorpb.FieldDescriptorProto_TYPE_SFIXED64, []protoreflect.Value{protoreflect.ValueOfInt64(math.MinInt64), protoreflect.ValueOfInt64(-1), protoreflect.ValueOfInt64(math.MaxInt64)}},
		{descriptorpb.FieldDescriptorProto_TYPE_UINT32, []protoreflect.Value{protoreflect.ValueOfUint32(0), protoreflect.ValueOfUint32(math.MaxUint32)}},
		{descriptorpb.FieldDescriptorProto_TYPE_FIXED32, []protoreflect.Value{protoreflect.ValueOfUint32(1), protoreflect.ValueOfUint32(math.MaxUint32)}},
		{descriptorpb.FieldDescriptorProto_TYPE_UINT64, []protoreflect.Value{protoreflect.ValueOfUint64(0), protoreflect.ValueOfUint64(math.MaxUint64)}},
		{descriptorpb.FieldDescriptorProto_TYPE_FIXED64, []protoreflect.Value{protoreflect.ValueOfUint64(1), protoreflect.ValueOfUint64(math.MaxUint64)}},
		{descriptorpb.FieldDescriptorProto_TYPE_FLOAT, []protoreflect.Value{protoreflect.ValueOfFloat32(-1.5), protoreflect.ValueOfFloat32(math.MaxFloat32)}},
		{descriptorpb.FieldDescriptorProto_TYPE_DOUBLE, []protoreflect.Value{protoreflect.ValueOfFloat64(-1.5), protoreflect.ValueOfFloat64(math.SmallestNonzeroFloat64)}},
	}
	fdp := &descriptorpb.FileDescriptorProto{
		Name: proto.String("kinds.proto"), Package: proto.String("kinds"), Syntax: proto.String("proto3"),
		EnumType: []*descriptorpb.EnumDescriptorProto{{Name: proto.String("E"), Value: []*descriptorpb.EnumValueDescriptorProto{
			{Name: proto.String("E_ZERO"), Number: proto.Int32(0)}, {Name: proto.String("E_TWO"), Number: proto.Int32(2)}, {Name: proto.String("E_NEG"), Number: proto.Int32(-1)}}}},
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("M")}},
	}
	for i, k := range kinds {
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(fmt.Sprintf("f%d", i)), Number: proto.Int32(int32(i + 1)), Type: k.kind.Enum(),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), JsonName: proto.String(fmt.Sprintf("f%d", i))}
		if k.kind == descriptorpb.FieldDescriptorProto_TYPE_ENUM {
			f.TypeName = proto.String(".kinds.E")
		}
		fdp.MessageType[0].Field = append(fdp.MessageType[0].Field, f)
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	md := fd.Messages().ByName("M")
	for i, k := range kinds {
		field := md.Fields().ByNumber(protoreflect.FieldNumber(i + 1))
		for _, v := range k.values {
			t.Run(fmt.Sprintf("%s/%v", k.kind, v), func(t *testing.T) {
				want := dynamicpb.NewMessage(md)
				want.Set(field, v)
				got := dynamicpb.NewMessage(md)
				if err := proto.Unmarshal(appendScalar(nil, field, v), got); err != nil {
					t.Fatal(err)
				}
				if !proto.Equal(got, want) {
					t.Errorf("appendScalar(%v) reads back as %v, want %v", v, got, want)
				}
			})
		}
	}
}
