// Package toolschema offers the RPCs of ghops.v1.GitHubService that carry
// the (ghops.v1.tool) option as MCP tools: their input and output JSON Schemas
// (2020-12) are generated from proto at build time (tools/schemagen, into
// gen/ghops/v1/toolschemas.json) and embedded; tool arguments are validated
// against the input schema by a maintained JSON Schema library
// (santhosh-tekuri/jsonschema), whose errors one adapter reports as the
// contract's AJV-style violations (docs/errors.md); valid arguments are
// decoded into the request message, and responses rendered as structured
// tool results.
//
// The schema a tool publishes and the one Decode enforces are generated
// together from the same descriptors, so they cannot drift: the published
// one is the enforced one without the keywords a caller does not need to
// form a call (patterns, string lengths; tools/schemagen's publishing
// rules), which keeps tools/list within its budget. protovalidate stays the service's
// check: every rule of the contract is expressed in the schema (the
// generator fails on one it cannot express), so the gateway does not run it
// again.
package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	ghopsv1 "ghops.dev/gen/ghops/v1"

	"ghops.dev/gateway/internal/rpcerror"
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
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// InputSchema and OutputSchema are the compact JSON Schemas (2020-12)
	// tools/list publishes: the generator's rules keep within a tool
	// definition's budget what a caller needs (tools/schemagen,
	// publish.go), and drop only keywords, so what Decode accepts the
	// published input schema accepts too.
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	// ValidationSchema is the full input schema, every rule of the
	// contract, which Decode enforces.
	ValidationSchema json.RawMessage `json:"-"`
	Annotations      Annotations     `json:"annotations"`
	// FullMethod is the gRPC method, e.g. "/ghops.v1.GitHubService/Search",
	// for grpc.ClientConn.Invoke.
	FullMethod string `json:"-"`
	// Method is the RPC's descriptor.
	Method protoreflect.MethodDescriptor `json:"-"`
	// GatewayInfo says the service wants the gateway's own facts with each
	// call (the tool option gateway_info).
	GatewayInfo bool `json:"-"`

	schema *jsonschema.Schema
	// fast vouches for the arguments the library surely accepts, so that
	// Decode can skip it (fastcheck.go); nil: the library always runs.
	fast *fastSchema
	// pass reads the common arguments in one pass (onepass.go); nil: the
	// general path always.
	pass  *onePass
	index schemaIndex
	enums map[string]map[string]string // contract name to proto name, by enum
	// checked are the subschemas with shared-rule checks, in schema order.
	checked  []checkedAt
	reqType  protoreflect.MessageType
	respType protoreflect.MessageType
	// result writes responses (nil: protojson does; resultjson.go).
	result *resultPlan
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

// generated is the generated part of a tool (gen/ghops/v1/toolschemas.json,
// written by tools/schemagen).
type generated struct {
	Method           string          `json:"method"`
	Name             string          `json:"name"`
	InputSchema      json.RawMessage `json:"inputSchema"`
	OutputSchema     json.RawMessage `json:"outputSchema"`
	ValidationSchema json.RawMessage `json:"validationSchema"`
	Checks           []struct {
		At      string `json:"at"`
		Keyword string `json:"keyword"`
		ID      string `json:"id"`
		Message string `json:"message"`
	} `json:"checks"`
	Words []struct {
		Pattern string `json:"pattern"`
		Words   string `json:"words"`
	} `json:"words"`
	Enums map[string]map[string]string `json:"enums"`
}

// NewRegistry builds the tools of a service: one per unary RPC carrying the
// (ghops.v1.tool) option, in proto declaration order, each with the schemas
// generated for it. It fails on a streaming tool RPC, a missing or duplicate
// tool name, a request or response type not linked into the binary, or a
// tool whose schemas were not generated (run make generate).
func NewRegistry(sd protoreflect.ServiceDescriptor) (*Registry, error) {
	return newRegistry(sd, ghopsv1.ToolSchemas)
}

func newRegistry(sd protoreflect.ServiceDescriptor, schemas []byte) (*Registry, error) {
	if sd == nil {
		return nil, errors.New("toolschema: nil service descriptor")
	}
	var file struct {
		Tools []generated `json:"tools"`
	}
	if err := json.Unmarshal(schemas, &file); err != nil {
		return nil, fmt.Errorf("toolschema: generated schemas: %w", err)
	}
	gens := map[string]*generated{}
	for i := range file.Tools {
		gens[file.Tools[i].Method] = &file.Tools[i]
	}
	r := &Registry{byName: make(map[string]*Tool)}
	methods := sd.Methods()
	for i := 0; i < methods.Len(); i++ {
		m := methods.Get(i)
		opts, ok := m.Options().(*descriptorpb.MethodOptions)
		if !ok || opts == nil || !proto.HasExtension(opts, ghopsv1.E_Tool) {
			continue
		}
		to, _ := proto.GetExtension(opts, ghopsv1.E_Tool).(*ghopsv1.ToolOptions)
		g, ok := gens[string(m.FullName())]
		if !ok {
			return nil, fmt.Errorf("toolschema: %s: no generated schema (run make generate)", m.FullName())
		}
		t, err := newTool(m, to, g)
		if err != nil {
			return nil, fmt.Errorf("toolschema: %s: %w", m.FullName(), err)
		}
		if _, dup := r.byName[t.Name]; dup {
			return nil, fmt.Errorf("toolschema: %s: duplicate tool name %q", m.FullName(), t.Name)
		}
		r.byName[t.Name] = t
		r.tools = append(r.tools, t)
	}
	return r, nil
}

func newTool(m protoreflect.MethodDescriptor, to *ghopsv1.ToolOptions, g *generated) (*Tool, error) {
	if m.IsStreamingClient() || m.IsStreamingServer() {
		return nil, errors.New("streaming RPCs cannot be tools")
	}
	if to.GetName() == "" {
		return nil, errors.New("tool option without a name")
	}
	if g.Name != to.GetName() {
		return nil, fmt.Errorf("generated schema is of tool %q, not %q (run make generate)", g.Name, to.GetName())
	}
	reqType, err := protoregistry.GlobalTypes.FindMessageByName(m.Input().FullName())
	if err != nil {
		return nil, fmt.Errorf("request type %s: %w", m.Input().FullName(), err)
	}
	respType, err := protoregistry.GlobalTypes.FindMessageByName(m.Output().FullName())
	if err != nil {
		return nil, fmt.Errorf("response type %s: %w", m.Output().FullName(), err)
	}
	published, err := compact(g.InputSchema)
	if err != nil {
		return nil, err
	}
	out, err := compact(g.OutputSchema)
	if err != nil {
		return nil, err
	}
	in, err := compact(g.ValidationSchema)
	if err != nil {
		return nil, err
	}
	index, err := indexSchema(in)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	for _, c := range g.Checks {
		s, ok := index[c.At]
		f := checkFuncs[c.ID]
		if !ok || f == nil {
			return nil, fmt.Errorf("shared rule check %q at %q is not known to the gateway", c.ID, c.At)
		}
		s.checks = append(s.checks, check{keyword: c.Keyword, id: c.ID, message: c.Message, broken: f})
		s.upfront = false // the checks are string rules (AJV's string group)
	}
	var checked []checkedAt
	for _, c := range g.Checks {
		if len(checked) > 0 && checked[len(checked)-1].ptr == c.At {
			continue
		}
		checked = append(checked, checkedAt{ptr: c.At, toks: strings.Split(strings.TrimPrefix(c.At, "/"), "/"), s: index[c.At]})
	}
	words := map[string]string{}
	for _, w := range g.Words {
		words[w.Pattern] = w.Words
	}
	for _, s := range index {
		s.words = words[s.pattern]
	}
	fast := compileFast(in)
	sch, err := compileSchema(to.GetName(), in)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
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
		InputSchema:      published,
		OutputSchema:     out,
		ValidationSchema: in,
		FullMethod:       "/" + string(m.Parent().FullName()) + "/" + string(m.Name()),
		Method:           m,
		GatewayInfo:      to.GetGatewayInfo(),
		schema:           sch,
		fast:             fast,
		pass:             planOnePass(fast, checked, reqType, g.Enums),
		index:            index,
		enums:            g.Enums,
		checked:          checked,
		reqType:          reqType,
		respType:         respType,
		result:           planFor(respType.Descriptor()),
	}, nil
}

// checkedAt is a subschema with shared-rule checks and its pointer, split.
type checkedAt struct {
	ptr  string
	toks []string
	s    *subschema
}

func compact(b []byte) (json.RawMessage, error) {
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return nil, fmt.Errorf("generated schema: %w", err)
	}
	return json.RawMessage(c.Bytes()), nil
}

// compileSchema compiles a generated schema with the library: draft
// 2020-12, formats asserted (date-time), Go's regexp for patterns (the
// contract's patterns are RE2 and ECMA-262 alike).
func compileSchema(name string, schema []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	url := "https://ghops.dev/tools/" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// Text is the violation of a call of the named tool as a model reads it:
// Violation.Text, and what only the tool's schema knows: the properties of
// which at most one (not) or exactly one (oneOf) may be given, and a
// pattern too long to read as its rule in words (the field's description).
func (r *Registry) Text(tool string, v Violation) string {
	t, ok := r.byName[tool]
	if !ok {
		return v.Text()
	}
	s, ptr := t.subschemaAt(v.Path)
	if s == nil {
		return v.Text()
	}
	switch v.Keyword {
	case "not":
		if not := t.index[ptr+"/not"]; not != nil {
			names := append([]string(nil), not.required...)
			for _, alt := range not.alternatives {
				for _, n := range alt {
					if !slices.Contains(names, n) {
						names = append(names, n)
					}
				}
			}
			if len(names) > 0 {
				return v.Message + ": give at most one of " + strings.Join(names, ", ")
			}
		}
	case "oneOf":
		var names []string
		for _, alt := range s.alternatives {
			names = append(names, alt...)
		}
		if len(names) > 0 {
			return v.Message + ": give exactly one of " + strings.Join(names, ", ")
		}
	case "pattern":
		if s.words != "" {
			return "must follow the rule: " + s.words
		}
	}
	return v.Text()
}

// subschemaAt finds the subschema that applies to an instance path (the
// contract's path: "root" or a JSON Pointer) and its schema pointer.
func (t *Tool) subschemaAt(path string) (*subschema, string) {
	ptr := ""
	if path == "root" {
		return t.index[ptr], ptr
	}
	for _, tok := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		s := t.index[ptr]
		if s == nil {
			return nil, ""
		}
		switch {
		case s.props != nil && hasKey(s.props, unescapePointer(tok)):
			ptr += "/properties/" + tok
		case t.index[ptr+"/items"] != nil:
			ptr += "/items"
		case t.index[ptr+"/additionalProperties"] != nil:
			ptr += "/additionalProperties"
		default:
			return nil, ""
		}
	}
	return t.index[ptr], ptr
}

func hasKey(m map[string]int, k string) bool {
	_, ok := m[k]
	return ok
}

// Tools returns the tools in proto declaration order. The slice is the
// caller's; the tools are shared and must not be modified.
func (r *Registry) Tools() []*Tool { return append([]*Tool(nil), r.tools...) }

// Lookup returns the tool with the given wire name.
func (r *Registry) Lookup(name string) (*Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// Violation is one AJV-style validation error: the error contract's
// (rpcerror.Violation), which Decode reports and the answer carries as
// data.validation_errors.
type Violation = rpcerror.Violation

// Decode validates raw JSON arguments against the tool's input schema with
// AJV semantics (all errors) and decodes them into the request message. It returns either a valid request or a
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
)

func (t *Tool) decode(args json.RawMessage) (proto.Message, []Violation, stage) {
	src := []byte(args)
	if len(bytes.TrimSpace(src)) == 0 {
		src = []byte("{}")
	}
	if t.pass != nil {
		if msg, ok := t.pass.read(src); ok {
			return msg, nil, stageOK
		}
	}
	inst, err := readInstance(src)
	if err != nil {
		return nil, []Violation{{
			Message: "must be valid JSON",
			Path:    "root",
			Keyword: "type",
			Params:  map[string]any{"type": "object"},
			Value:   nil,
		}}, stageSyntax
	}
	srcs := &source{src: src}
	if _, ok := inst.(map[string]any); !ok {
		return nil, []Violation{{
			Message: "must be object",
			Path:    "root",
			Keyword: "type",
			Params:  map[string]any{"type": "object"},
			Value:   srcs.raw(nil),
		}}, stageSchema
	}
	ad := adapter{t: t, src: srcs, inst: inst}
	if err := t.validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, []Violation{{Message: "must be valid", Path: "root", Keyword: "type", Params: map[string]any{"type": "object"}, Value: srcs.raw(nil)}}, stageSchema
		}
		thens := map[string]bool{}
		for _, e := range leaves(ve, nil) {
			ad.convert(e, thens)
		}
	}
	ad.checkStrings(inst)
	if len(ad.out) > 0 {
		return nil, ad.result(), stageSchema
	}
	msg := t.NewRequest()
	if fillMessage(msg.ProtoReflect(), inst.(map[string]any), t.enums) {
		return msg, nil, stageOK
	}
	// What fillMessage leaves to protojson (well-known types, numbers in
	// exponent form, ...) is parsed again, from the arguments as sent.
	msg, err = t.protojsonRequest(inst.(map[string]any), src)
	if err != nil {
		// Unreachable when the schema and protojson agree (fuzzed). The
		// decoder's error quotes the input, so it is not echoed.
		return nil, []Violation{{
			Message: "must be valid for the tool's request",
			Path:    "root",
			Keyword: "type",
			Params:  map[string]any{"type": "object"},
			Value:   srcs.raw(nil),
		}}, stageProtojson
	}
	return msg, nil, stageOK
}

// protojsonRequest is the request that protojson reads from validated
// arguments (src, whose instance is obj), enum values translated from the
// contract's names first: the reference fillMessage is held to, and the
// reading of what fillMessage leaves. obj is rewritten.
func (t *Tool) protojsonRequest(obj map[string]any, src []byte) (proto.Message, error) {
	if t.enums != nil {
		protoEnumNames(t.reqType.Descriptor(), obj, t.enums)
		var err error
		if src, err = encodeInstance(obj); err != nil {
			return nil, err
		}
	}
	msg := t.NewRequest()
	if err := (protojson.UnmarshalOptions{}).Unmarshal(src, msg); err != nil {
		return nil, err
	}
	return msg, nil
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
	if t.result != nil {
		b, err := t.result.appendMessage(make([]byte, 0, 512), resp.ProtoReflect())
		if err == nil {
			return json.RawMessage(b), nil
		}
		if errors.Is(err, errInexact) {
			return nil, fmt.Errorf("toolschema: %s: encode result: %w", t.Name, err)
		}
	}
	return t.encodeProtojson(resp)
}

// encodeProtojson is EncodeResult through protojson (64-bit integers
// rewritten as numbers): for a type or value the result plan does not
// cover, and the reference the plan is tested against.
func (t *Tool) encodeProtojson(resp proto.Message) (json.RawMessage, error) {
	b, err := protojson.MarshalOptions{UseProtoNames: true, EmitDefaultValues: true}.Marshal(resp)
	if err != nil {
		return nil, fmt.Errorf("toolschema: %s: encode result: %w", t.Name, err)
	}
	// protojson randomises whitespace on purpose; rewriting it token by
	// token makes it stable, and writes its 64-bit integer strings as
	// numbers (MaxExactInt).
	if b, err = numbers64(b, resp.ProtoReflect().Descriptor()); err != nil {
		return nil, fmt.Errorf("toolschema: %s: encode result: %w", t.Name, err)
	}
	return json.RawMessage(b), nil
}
