// Package toolschema turns the RPCs of ghops.v1.GitHubService that carry the
// (ghops.v1.tool) option into MCP tools: it derives each tool's input and
// output JSON Schema (2020-12) from the proto descriptors and their
// protovalidate rules, validates tool arguments against the input schema with
// AJV v8 semantics and the contract's messages, decodes them into the request
// message, and renders responses as structured tool results.
//
// The schema a tool publishes and the one Decode enforces are the same value,
// so they cannot drift; protovalidate then runs on the decoded request as a
// safety net, and a proto rule that the schema cannot express makes
// NewRegistry fail instead of silently publishing a weaker schema. The one
// exception is the contract's shared string rules (ref_name, repo_name of
// proto/ghops/v1/rules.proto): JSON Schema has no keyword that states them
// in words, so Decode enforces them as custom keywords (docs/errors.md,
// "Refs and repositories") without publishing them.
package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// Annotations are MCP tool annotations (readOnlyHint etc.). All four are
// always serialised: MCP's defaults for an absent hint are not false
// (destructiveHint and openWorldHint default to true).
type Annotations struct {
	ReadOnlyHint    bool `json:"readOnlyHint"`
	DestructiveHint bool `json:"destructiveHint"`
	IdempotentHint  bool `json:"idempotentHint"`
	OpenWorldHint   bool `json:"openWorldHint"`
}

// Tool is one MCP tool backed by one unary RPC. Marshalled with
// encoding/json it is the MCP tools/list entry.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`  // compact JSON Schema 2020-12
	OutputSchema json.RawMessage `json:"outputSchema"` // compact JSON Schema 2020-12
	Annotations  Annotations     `json:"annotations"`
	// FullMethod is the gRPC method, e.g. "/ghops.v1.GitHubService/Search",
	// for grpc.ClientConn.Invoke.
	FullMethod string `json:"-"`
	// Method is the RPC's descriptor.
	Method protoreflect.MethodDescriptor `json:"-"`
	// GatewayInfo says the service wants the gateway's own facts with each
	// call (the tool option gateway_info).
	GatewayInfo bool `json:"-"`

	in, out   *node
	reqType   protoreflect.MessageType
	respType  protoreflect.MessageType
	validator protovalidate.Validator
}

// NewRequest returns a new, empty request message of the tool's generated
// Go type (for example *ghopsv1.SearchRequest).
func (t *Tool) NewRequest() proto.Message { return t.reqType.New().Interface() }

// NewResponse returns a new, empty response message of the tool's generated
// Go type, ready for grpc.ClientConn.Invoke.
func (t *Tool) NewResponse() proto.Message { return t.respType.New().Interface() }

// Registry is built once at start-up: every tool with its schemas
// precomputed. It is safe for concurrent use.
type Registry struct {
	tools  []*Tool
	byName map[string]*Tool
}

// NewRegistry builds the tools of a service: one per unary RPC carrying the
// (ghops.v1.tool) option, in proto declaration order. It fails on a
// streaming tool RPC, a missing or duplicate tool name, a request or
// response type not linked into the binary, or a field or protovalidate rule
// that the JSON Schema cannot express.
func NewRegistry(sd protoreflect.ServiceDescriptor) (*Registry, error) {
	if sd == nil {
		return nil, errors.New("toolschema: nil service descriptor")
	}
	docs, err := loadDescriptions(sourceDescriptors)
	if err != nil {
		return nil, fmt.Errorf("toolschema: %w", err)
	}
	r := &Registry{byName: make(map[string]*Tool)}
	var inputs []protoreflect.MessageDescriptor
	methods := sd.Methods()
	for i := 0; i < methods.Len(); i++ {
		m := methods.Get(i)
		opts, ok := m.Options().(*descriptorpb.MethodOptions)
		if !ok || opts == nil || !proto.HasExtension(opts, ghopsv1.E_Tool) {
			continue
		}
		to, _ := proto.GetExtension(opts, ghopsv1.E_Tool).(*ghopsv1.ToolOptions)
		t, err := newTool(m, to, docs)
		if err != nil {
			return nil, fmt.Errorf("toolschema: %s: %w", m.FullName(), err)
		}
		if _, dup := r.byName[t.Name]; dup {
			return nil, fmt.Errorf("toolschema: %s: duplicate tool name %q", m.FullName(), t.Name)
		}
		r.byName[t.Name] = t
		r.tools = append(r.tools, t)
		inputs = append(inputs, m.Input())
	}
	// One validator for all tools, its rules compiled now rather than on the
	// first call of each tool.
	v, err := protovalidate.New(protovalidate.WithMessageDescriptors(inputs...))
	if err != nil {
		return nil, fmt.Errorf("toolschema: protovalidate: %w", err)
	}
	for _, t := range r.tools {
		t.validator = v
	}
	return r, nil
}

func newTool(m protoreflect.MethodDescriptor, to *ghopsv1.ToolOptions, docs *descriptions) (*Tool, error) {
	if m.IsStreamingClient() || m.IsStreamingServer() {
		return nil, errors.New("streaming RPCs cannot be tools")
	}
	if to.GetName() == "" {
		return nil, errors.New("tool option without a name")
	}
	reqType, err := protoregistry.GlobalTypes.FindMessageByName(m.Input().FullName())
	if err != nil {
		return nil, fmt.Errorf("request type %s: %w", m.Input().FullName(), err)
	}
	respType, err := protoregistry.GlobalTypes.FindMessageByName(m.Output().FullName())
	if err != nil {
		return nil, fmt.Errorf("response type %s: %w", m.Output().FullName(), err)
	}
	bd := &builder{visiting: map[protoreflect.FullName]bool{}, docs: docs}
	in, err := bd.inputSchema(m.Input())
	if err != nil {
		return nil, err
	}
	out, err := bd.outputSchema(m.Output())
	if err != nil {
		return nil, err
	}
	return &Tool{
		Name:        to.GetName(),
		Title:       to.GetTitle(),
		Description: to.GetDescription(),
		Annotations: Annotations{
			ReadOnlyHint:    to.GetReadOnly(),
			DestructiveHint: to.GetDestructive(),
			IdempotentHint:  to.GetIdempotent(),
			OpenWorldHint:   to.GetOpenWorld(),
		},
		InputSchema:  in.marshal(),
		OutputSchema: out.marshal(),
		FullMethod:   "/" + string(m.Parent().FullName()) + "/" + string(m.Name()),
		Method:       m,
		GatewayInfo:  to.GetGatewayInfo(),
		in:           in,
		out:          out,
		reqType:      reqType,
		respType:     respType,
	}, nil
}

// Tools returns the tools in proto declaration order. The slice is the
// caller's; the tools are shared and must not be modified.
func (r *Registry) Tools() []*Tool { return append([]*Tool(nil), r.tools...) }

// Lookup returns the tool with the given wire name.
func (r *Registry) Lookup(name string) (*Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// Violation is one AJV-style validation error, serialised exactly as
// {message, path, keyword, params, value}. Path is AJV's instancePath
// ("/files/0/path"), "root" for the arguments object itself. Value is the
// offending instance as sent (a json.RawMessage): the object for required,
// additionalProperties and not, the property value otherwise; nil when the
// arguments are not JSON at all.
type Violation struct {
	Message string         `json:"message"`
	Path    string         `json:"path"`
	Keyword string         `json:"keyword"`
	Params  map[string]any `json:"params"`
	Value   any            `json:"value"`
}

// Message renders violations as the contract's top-level message:
// "Validation errors: " followed by the messages joined with ", ".
func Message(vs []Violation) string {
	var b strings.Builder
	b.WriteString("Validation errors: ")
	for i, v := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v.Message)
	}
	return b.String()
}

// Decode validates raw JSON arguments against the tool's input schema with
// AJV semantics (all errors), decodes them into the request message, then
// runs protovalidate as a safety net. It returns either a valid request or a
// non-empty list of violations, never both.
//
// Empty input (nil or only whitespace) is taken as {}: MCP makes arguments
// optional. Input that is not JSON gives one violation "must be valid JSON"
// (keyword "type", params {"type":"object"}, value null); the gateway should
// have answered -32700 before. Beyond RFC 8259, duplicate property names,
// lone UTF-16 surrogates and invalid UTF-8 count as not JSON: protojson
// refuses them, and a validator that saw one value of a duplicated key while
// the decoder saw another would be a bypass. Arguments that are JSON but not
// an object give exactly one violation "must be object" at root.
func (t *Tool) Decode(args json.RawMessage) (proto.Message, []Violation) {
	msg, vs, _ := t.decode(args)
	return msg, vs
}

// stage tells tests which layer produced the violations.
type stage int

const (
	stageOK stage = iota
	stageSyntax
	stageSchema
	stageProtojson
	stageProtovalidate
)

func (t *Tool) decode(args json.RawMessage) (proto.Message, []Violation, stage) {
	src := []byte(args)
	if len(bytes.TrimSpace(src)) == 0 {
		src = []byte("{}")
	}
	root, err := parseJSON(src)
	if err != nil {
		return nil, []Violation{{
			Message: "must be valid JSON",
			Path:    "root",
			Keyword: "type",
			Params:  map[string]any{"type": "object"},
			Value:   nil,
		}}, stageSyntax
	}
	if root.kind != jObject {
		return nil, []Violation{{
			Message: "must be object",
			Path:    "root",
			Keyword: "type",
			Params:  map[string]any{"type": "object"},
			Value:   root.raw(src),
		}}, stageSchema
	}
	ev := evaluator{src: src}
	ev.eval(t.in, &root, "")
	if len(ev.out) > 0 {
		return nil, ev.out, stageSchema
	}
	msg := t.NewRequest()
	if err := (protojson.UnmarshalOptions{}).Unmarshal(src, msg); err != nil {
		// Unreachable when the schema and protojson agree (fuzzed). The
		// decoder's error quotes the input, so it is not echoed.
		return nil, []Violation{{
			Message: "must be valid for the tool's request",
			Path:    "root",
			Keyword: "type",
			Params:  map[string]any{"type": "object"},
			Value:   root.raw(src),
		}}, stageProtojson
	}
	if vs := t.protoViolations(msg, src, &root); len(vs) > 0 {
		return nil, vs, stageProtovalidate
	}
	return msg, nil, stageOK
}

// EncodeResult renders a response message as the JSON the tool returns
// (structuredContent): proto field names, compact, deterministic. Every
// non-optional scalar and every list is emitted even when zero or empty
// (has_next:false, truncated:false, topics:[]), so the output has a stable
// shape and the output schema can require exactly those fields; unset
// messages and unset optional fields (mergeable while GitHub computes) are
// omitted, keeping presence.
func (t *Tool) EncodeResult(resp proto.Message) (json.RawMessage, error) {
	if resp == nil || !resp.ProtoReflect().IsValid() {
		return nil, fmt.Errorf("toolschema: %s: nil response", t.Name)
	}
	if got, want := resp.ProtoReflect().Descriptor().FullName(), t.respType.Descriptor().FullName(); got != want {
		return nil, fmt.Errorf("toolschema: %s: response is %s, want %s", t.Name, got, want)
	}
	b, err := protojson.MarshalOptions{UseProtoNames: true, EmitDefaultValues: true}.Marshal(resp)
	if err != nil {
		return nil, fmt.Errorf("toolschema: %s: encode result: %w", t.Name, err)
	}
	// protojson randomises whitespace on purpose; compacting makes it stable.
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return nil, fmt.Errorf("toolschema: %s: encode result: %w", t.Name, err)
	}
	return json.RawMessage(c.Bytes()), nil
}
