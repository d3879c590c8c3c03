package toolgen

import (
	"strings"
	"testing"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// testMessage builds a one-message file "M" with the given fields and
// message options, resolved against the linked-in buf/validate descriptors.
func testMessage(t *testing.T, mopts *descriptorpb.MessageOptions, fields ...*descriptorpb.FieldDescriptorProto) protoreflect.MessageDescriptor {
	t.Helper()
	fdp := &descriptorpb.FileDescriptorProto{
		Name:       proto.String("toolschematest/m.proto"),
		Package:    proto.String("toolschematest"),
		Syntax:     proto.String("proto3"),
		Dependency: []string{"buf/validate/validate.proto"},
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("M"), Field: fields, Options: mopts},
			{Name: proto.String("E"), Field: []*descriptorpb.FieldDescriptorProto{{Name: proto.String("k"), Number: proto.Int32(1), Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), JsonName: proto.String("k")}}},
		},
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatalf("build descriptor: %v", err)
	}
	return fd.Messages().ByName("M")
}

func field(name string, typ descriptorpb.FieldDescriptorProto_Type, rules *validate.FieldRules) *descriptorpb.FieldDescriptorProto {
	f := &descriptorpb.FieldDescriptorProto{
		Name: proto.String(name), Number: proto.Int32(1), Type: typ.Enum(),
		Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), JsonName: proto.String(name),
	}
	if typ == descriptorpb.FieldDescriptorProto_TYPE_MESSAGE {
		f.TypeName = proto.String(".toolschematest.E")
	}
	if rules != nil {
		f.Options = &descriptorpb.FieldOptions{}
		proto.SetExtension(f.Options, validate.E_Field, rules)
	}
	return f
}

func TestBuilderRefusesWhatItCannotExpress(t *testing.T) {
	str := descriptorpb.FieldDescriptorProto_TYPE_STRING
	i32 := descriptorpb.FieldDescriptorProto_TYPE_INT32
	msgOpts := func(r *validate.MessageRules) *descriptorpb.MessageOptions {
		o := &descriptorpb.MessageOptions{}
		proto.SetExtension(o, validate.E_Message, r)
		return o
	}
	tests := []struct {
		name    string
		mopts   *descriptorpb.MessageOptions
		field   *descriptorpb.FieldDescriptorProto
		wantErr string // "" means it must build
	}{
		{"string min_len builds", nil, field("s", str, validate.FieldRules_builder{String: validate.StringRules_builder{MinLen: proto.Uint64(1)}.Build()}.Build()), ""},
		{"string email", nil, field("s", str, validate.FieldRules_builder{String: validate.StringRules_builder{Email: proto.Bool(true)}.Build()}.Build()), "StringRules.email"},
		{"string prefix", nil, field("s", str, validate.FieldRules_builder{String: validate.StringRules_builder{Prefix: proto.String("x")}.Build()}.Build()), "prefix"},
		{"int32 gt builds (minimum 1)", nil, field("i", i32, validate.FieldRules_builder{Int32: validate.Int32Rules_builder{Gt: proto.Int32(0)}.Build()}.Build()), ""},
		{"int32 const", nil, field("i", i32, validate.FieldRules_builder{Int32: validate.Int32Rules_builder{Const: proto.Int32(3)}.Build()}.Build()), "const"},
		{"field CEL", nil, field("s", str, validate.FieldRules_builder{Cel: []*validate.Rule{validate.Rule_builder{Id: proto.String("x.y"), Message: proto.String("must be x"), Expression: proto.String("true")}.Build()}}.Build()), "cannot be stated in JSON Schema"},
		{"int64 field builds", nil, field("l", descriptorpb.FieldDescriptorProto_TYPE_INT64, nil), ""},
		{"double field builds", nil, field("d", descriptorpb.FieldDescriptorProto_TYPE_DOUBLE, nil), ""},
		{"string rules on int64", nil, field("l", descriptorpb.FieldDescriptorProto_TYPE_INT64, validate.FieldRules_builder{String: validate.StringRules_builder{MinLen: proto.Uint64(1)}.Build()}.Build()), "string rules"},
		{"bytes field", nil, field("b", descriptorpb.FieldDescriptorProto_TYPE_BYTES, nil), "not supported"},
		{"int32 rules on string", nil, field("s", str, validate.FieldRules_builder{Int32: validate.Int32Rules_builder{Gte: proto.Int32(1)}.Build()}.Build()), "int32 rules"},
		{"message CEL the generator does not know", msgOpts(validate.MessageRules_builder{Cel: []*validate.Rule{validate.Rule_builder{Id: proto.String("other.rule"), Message: proto.String("m"), Expression: proto.String("true")}.Build()}}.Build()),
			field("s", str, nil), "cannot be stated in JSON Schema"},
		{"pinned message CEL with another expression", msgOpts(validate.MessageRules_builder{Cel: []*validate.Rule{validate.Rule_builder{Id: proto.String("file.content_base64"), Message: proto.String("m"), Expression: proto.String("true")}.Build()}}.Build()),
			field("s", str, nil), "cannot be stated in JSON Schema"},
		{"message oneof of one field", msgOpts(validate.MessageRules_builder{Oneof: []*validate.MessageOneofRule{validate.MessageOneofRule_builder{Fields: []string{"s"}, Required: proto.Bool(true)}.Build()}}.Build()),
			field("s", str, nil), "must exist and have presence"},
		{"message oneof over a field without presence", msgOpts(validate.MessageRules_builder{Oneof: []*validate.MessageOneofRule{validate.MessageOneofRule_builder{Fields: []string{"s", "t"}}.Build()}}.Build()),
			field("s", str, nil), "must exist and have presence"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			md := testMessage(t, tc.mopts, tc.field)
			bd := &builder{visiting: map[protoreflect.FullName]bool{}}
			_, err := bd.inputSchema(md, "")
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && err == nil:
				t.Fatalf("built a schema, want an error mentioning %q", tc.wantErr)
			case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
				t.Fatalf("error %q does not mention %q", err, tc.wantErr)
			}
		})
	}
}

// TestOneOfFields: at most one of two fields is stated as "branch xor ref"
// always was; of more, pairwise; exactly one is a oneOf.
func TestOneOfFields(t *testing.T) {
	tests := []struct {
		name     string
		names    []string
		required bool
		want     string
	}{
		{"two, at most one", []string{"branch", "ref"}, false, `{"not":{"required":["branch","ref"]}}`},
		{"three, at most one", []string{"a", "b", "c"}, false, `{"not":{"anyOf":[{"required":["a","b"]},{"required":["a","c"]},{"required":["b","c"]}]}}`},
		{"three, exactly one", []string{"ref", "sha", "prNumber"}, true, `{"oneOf":[{"required":["ref"]},{"required":["sha"]},{"required":["prNumber"]}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := newNode("")
			if err := n.oneOfFields(tc.names, tc.required); err != nil {
				t.Fatal(err)
			}
			if got := string(n.marshal()); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestEnumWireName(t *testing.T) {
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name: proto.String("toolschematest/e.proto"), Package: proto.String("toolschematest"), Syntax: proto.String("proto3"),
		EnumType: []*descriptorpb.EnumDescriptorProto{{Name: proto.String("IssueState"), Value: []*descriptorpb.EnumValueDescriptorProto{
			{Name: proto.String("ISSUE_STATE_UNSPECIFIED"), Number: proto.Int32(0)},
			{Name: proto.String("ISSUE_STATE_OPEN"), Number: proto.Int32(1)},
			{Name: proto.String("ISSUE_STATE_NOT_PLANNED"), Number: proto.Int32(2)},
		}}},
	}, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	vals := fd.Enums().Get(0).Values()
	for i, want := range []string{"unspecified", "open", "not_planned"} {
		if got := EnumWireName(vals.Get(i)); got != want {
			t.Errorf("%s: got %q, want %q", vals.Get(i).Name(), got, want)
		}
	}
}

// TestTogetherCEL: the pinned CEL rule "start_line and max_lines go together" is published as
// dependentRequired both ways; the same id with another expression, and fields without presence,
// fail generation.
func TestTogetherCEL(t *testing.T) {
	const expr = "has(this.start_line) == has(this.max_lines)"
	build := func(t *testing.T, syntax, expression string) (*node, error) {
		t.Helper()
		mopts := &descriptorpb.MessageOptions{}
		proto.SetExtension(mopts, validate.E_Message, validate.MessageRules_builder{Cel: []*validate.Rule{
			validate.Rule_builder{Id: proto.String("job_log.range"), Message: proto.String("start_line and max_lines go together"), Expression: proto.String(expression)}.Build(),
		}}.Build())
		i32 := descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum()
		opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
		fdp := &descriptorpb.FileDescriptorProto{
			Name: proto.String("toolschematest/together_" + syntax + ".proto"), Package: proto.String("toolschematest" + syntax),
			Syntax: proto.String(syntax), Dependency: []string{"buf/validate/validate.proto"},
			MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("W"), Options: mopts, Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("start_line"), Number: proto.Int32(1), Type: i32, Label: opt, JsonName: proto.String("start_line")},
				{Name: proto.String("max_lines"), Number: proto.Int32(2), Type: i32, Label: opt, JsonName: proto.String("max_lines")},
			}}},
		}
		fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
		if err != nil {
			t.Fatalf("build descriptor: %v", err)
		}
		bd := &builder{visiting: map[protoreflect.FullName]bool{}}
		return bd.inputSchema(fd.Messages().ByName("W"), "")
	}
	tests := []struct {
		name, syntax, expression string
		wantErr                  string
	}{
		{name: "pinned rule on fields with presence", syntax: "proto2", expression: expr},
		{name: "changed expression", syntax: "proto2", expression: "has(this.start_line) || !has(this.max_lines)", wantErr: "cannot be stated in JSON Schema"},
		{name: "fields without presence", syntax: "proto3", expression: expr, wantErr: "without presence"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, err := build(t, tc.syntax, tc.expression)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := string(n.marshal())
			const deps = `"dependentRequired":{"start_line":["max_lines"],"max_lines":["start_line"]}`
			if !strings.Contains(got, deps) {
				t.Errorf("schema %s does not hold %s", got, deps)
			}
		})
	}
}

// TestOutput64BitIntegers: an answer's 64-bit integers are published as
// integers up to 2^53-1, the JSON numbers the gateway writes, so that
// an id passes back as given into an input (which takes integers); other
// kinds keep their types.
func TestOutput64BitIntegers(t *testing.T) {
	tests := []struct {
		name string
		typ  descriptorpb.FieldDescriptorProto_Type
		want string
	}{
		{"int64", descriptorpb.FieldDescriptorProto_TYPE_INT64, `{"type":"integer","maximum":9007199254740991}`},
		{"sint64", descriptorpb.FieldDescriptorProto_TYPE_SINT64, `{"type":"integer","maximum":9007199254740991}`},
		{"sfixed64", descriptorpb.FieldDescriptorProto_TYPE_SFIXED64, `{"type":"integer","maximum":9007199254740991}`},
		{"uint64", descriptorpb.FieldDescriptorProto_TYPE_UINT64, `{"type":"integer","maximum":9007199254740991}`},
		{"fixed64", descriptorpb.FieldDescriptorProto_TYPE_FIXED64, `{"type":"integer","maximum":9007199254740991}`},
		{"int32 unchanged", descriptorpb.FieldDescriptorProto_TYPE_INT32, `{"type":"integer"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			md := testMessage(t, nil, field("n", tc.typ, nil))
			bd := &builder{visiting: map[protoreflect.FullName]bool{}}
			n, err := bd.outputValue(md.Fields().ByName("n"))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(n.marshal()); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
