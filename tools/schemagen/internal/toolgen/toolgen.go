// Package toolgen generates the JSON Schemas of the tools of ghops.v1
// services from their descriptors and protovalidate rules: the schemas the
// gateway publishes in tools/list and validates tool arguments with. It runs
// at build time (make generate) so that the gateway builds no schema at run
// time and a rule the schema cannot express fails the build, not a start-up.
//
// bufbuild/protoschema-plugins' protoc-gen-jsonschema does not express the
// contract: it knows neither the (ghops.v1.tool) option nor protovalidate's
// message oneofs, CEL rules and shared (predefined) rules, it names
// properties by proto and JSON name both, and it allows what protojson
// accepts besides the contract (64-bit integers and enums as any string), so
// the published schema would not be the enforced one.
package toolgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// Tool is the generated part of one tool: its schemas and what travels beside
// them for the gateway's validation.
type Tool struct {
	// Method is the RPC's full name, e.g. ghops.v1.GitHubService.Search.
	Method string `json:"method"`
	// Name is the tool's wire name.
	Name string `json:"name"`
	// InputSchema and OutputSchema are the schemas tools/list publishes
	// (publish.go says what they keep).
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	// ValidationSchema is the full input schema, every rule of the
	// contract: the one the gateway validates arguments with.
	ValidationSchema json.RawMessage `json:"validationSchema"`
	// Checks are the shared string rules of the input, which JSON Schema has
	// no keyword for.
	Checks []Check `json:"checks,omitempty"`
	// Words state in words the input's patterns that are too long to read
	// (the field's own comment), for the text a model reads.
	Words []Words `json:"words,omitempty"`
	// Enums maps the contract's name of each value of every enum of the
	// input (lowercase, unprefixed) to its proto name, which protojson reads.
	Enums map[string]map[string]string `json:"enums,omitempty"`
}

// Words is the rule of a pattern in words.
type Words struct {
	Pattern string `json:"pattern"`
	Words   string `json:"words"`
}

// readablePattern is the longest pattern shown to a model as is; a longer
// one (the safe-path rule is 400 characters) is explained in words.
const readablePattern = 64

// File is the generated file of one proto file's services.
type File struct {
	Tools []Tool `json:"tools"`
}

// Generate builds the tools of every service of fd, in declaration order;
// nil when fd has no tool.
func Generate(fd protoreflect.FileDescriptor) (*File, error) {
	var (
		f        File
		ins      []*node
		outs     []*node
		names    = map[string]bool{}
		toolOpts []*ghopsv1.ToolOptions
	)
	for i := 0; i < fd.Services().Len(); i++ {
		sd := fd.Services().Get(i)
		for j := 0; j < sd.Methods().Len(); j++ {
			m := sd.Methods().Get(j)
			opts, ok := m.Options().(*descriptorpb.MethodOptions)
			if !ok || opts == nil || !proto.HasExtension(opts, ghopsv1.E_Tool) {
				continue
			}
			to, _ := proto.GetExtension(opts, ghopsv1.E_Tool).(*ghopsv1.ToolOptions)
			t, in, out, err := generateTool(m, to)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", m.FullName(), err)
			}
			if names[t.Name] {
				return nil, fmt.Errorf("%s: duplicate tool name %q", m.FullName(), t.Name)
			}
			names[t.Name] = true
			f.Tools = append(f.Tools, *t)
			ins, outs, toolOpts = append(ins, in), append(outs, out), append(toolOpts, to)
		}
	}
	if len(f.Tools) == 0 {
		return nil, nil
	}
	envelope := envelopes(outs)
	for i := range f.Tools {
		t := &f.Tools[i]
		t.InputSchema = ins[i].publishedInput().marshal()
		for _, depth := range outputDepths {
			t.OutputSchema = outs[i].publishedOutput(depth, envelope).marshal()
			if definitionSize(t.Name, toolOpts[i], t.InputSchema, t.OutputSchema) <= definitionBudget {
				break
			}
		}
	}
	return &f, nil
}

// generateTool builds one tool with its full input and output schemas; the
// published ones are chosen by Generate, which knows every tool's answers.
// A tool without a title fails: hosts show the title, and show a blank
// without one.
func generateTool(m protoreflect.MethodDescriptor, to *ghopsv1.ToolOptions) (*Tool, *node, *node, error) {
	if m.IsStreamingClient() || m.IsStreamingServer() {
		return nil, nil, nil, errors.New("streaming RPCs cannot be tools")
	}
	if to.GetName() == "" {
		return nil, nil, nil, errors.New("tool option without a name")
	}
	if to.GetTitle() == "" {
		return nil, nil, nil, fmt.Errorf("tool %q has no title (ToolOptions.title; CONTRIBUTING.md, Adding a tool)", to.GetName())
	}
	bd := &builder{visiting: map[protoreflect.FullName]bool{}}
	in, err := bd.inputSchema(m.Input(), "")
	if err != nil {
		return nil, nil, nil, err
	}
	out, err := bd.outputSchema(m.Output())
	if err != nil {
		return nil, nil, nil, err
	}
	t := &Tool{
		Method:           string(m.FullName()),
		Name:             to.GetName(),
		ValidationSchema: in.marshal(),
		Checks:           bd.checks,
		Enums:            bd.enums,
	}
	seen := map[string]bool{}
	in.walk(func(n *node) {
		if len(n.pattern) > readablePattern && n.description != "" && !seen[n.pattern] {
			seen[n.pattern] = true
			t.Words = append(t.Words, Words{Pattern: n.pattern, Words: n.description})
		}
	})
	return t, in, out, nil
}

// walk calls fn on n and every subschema below it.
func (n *node) walk(fn func(*node)) {
	if n == nil {
		return
	}
	fn(n)
	n.items.walk(fn)
	n.values.walk(fn)
	for _, p := range n.props {
		p.s.walk(fn)
	}
}

// Marshal renders the file as committed: indented, one tool after another,
// each schema on one line as published.
func (f *File) Marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
