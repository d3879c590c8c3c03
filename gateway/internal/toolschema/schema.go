package toolschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// node is one JSON Schema (sub)schema. It is both what the tool publishes
// (written by writeJSON with a fixed key order) and what Decode evaluates, so
// the published schema and the enforced one cannot drift apart.
type node struct {
	typ         string // "object", "string", "integer", "boolean", "array"; "" for an untyped subschema
	description string // published only; no effect on validation
	format      string

	constVal *string
	enum     []string

	minLength, maxLength int // -1: absent
	pattern              string
	re                   *regexp.Regexp
	// named are the contract's shared string rules (ref_name, repo_name)
	// this string obeys. They are enforced but not published: JSON Schema
	// has no keyword that states them in words (a pattern would say only
	// "must match pattern"), and the service enforces them again anyway.
	named []namedRule

	minimum, maximum *int64

	items              *node
	minItems, maxItems int // -1: absent

	props      []prop // nil with hasProps false: no "properties" keyword
	hasProps   bool
	required   []string
	closed     bool // additionalProperties: false
	not        *node
	ifS, thenS *node
}

type prop struct {
	name string
	s    *node
	fd   protoreflect.FieldDescriptor
}

func newNode(typ string) *node {
	return &node{typ: typ, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
}

func (n *node) prop(name string) *node {
	for i := range n.props {
		if n.props[i].name == name {
			return n.props[i].s
		}
	}
	return nil
}

// hasStringRules, hasArrayRules and hasObjectRules tell whether AJV would put
// keywords of this schema in the string, array or object rule group; when it
// does, a type mismatch is reported in that group's turn, otherwise up front.
func (n *node) hasStringRules() bool {
	return n.minLength >= 0 || n.maxLength >= 0 || n.pattern != "" || len(n.named) > 0
}

func (n *node) hasArrayRules() bool {
	return n.items != nil || n.minItems >= 0 || n.maxItems >= 0
}

func (n *node) hasObjectRules() bool {
	return n.hasProps || len(n.required) > 0 || n.closed
}

// writeJSON writes the schema compactly with a fixed key order:
// type, description, format, const, enum, minLength, maxLength, pattern, minimum, maximum,
// items, minItems, maxItems, properties, required, additionalProperties, not,
// if, then.
func (n *node) writeJSON(b *bytes.Buffer) {
	b.WriteByte('{')
	first := true
	key := func(k string) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteByte('"')
		b.WriteString(k)
		b.WriteString(`":`)
	}
	str := func(s string) {
		out, _ := json.Marshal(s) // a string always marshals
		b.Write(out)
	}
	if n.typ != "" {
		key("type")
		str(n.typ)
	}
	if n.description != "" {
		key("description")
		str(n.description)
	}
	if n.format != "" {
		key("format")
		str(n.format)
	}
	if n.constVal != nil {
		key("const")
		str(*n.constVal)
	}
	if n.enum != nil {
		key("enum")
		b.WriteByte('[')
		for i, e := range n.enum {
			if i > 0 {
				b.WriteByte(',')
			}
			str(e)
		}
		b.WriteByte(']')
	}
	if n.minLength >= 0 {
		key("minLength")
		b.WriteString(strconv.Itoa(n.minLength))
	}
	if n.maxLength >= 0 {
		key("maxLength")
		b.WriteString(strconv.Itoa(n.maxLength))
	}
	if n.pattern != "" {
		key("pattern")
		str(n.pattern)
	}
	if n.minimum != nil {
		key("minimum")
		b.WriteString(strconv.FormatInt(*n.minimum, 10))
	}
	if n.maximum != nil {
		key("maximum")
		b.WriteString(strconv.FormatInt(*n.maximum, 10))
	}
	if n.items != nil {
		key("items")
		n.items.writeJSON(b)
	}
	if n.minItems >= 0 {
		key("minItems")
		b.WriteString(strconv.Itoa(n.minItems))
	}
	if n.maxItems >= 0 {
		key("maxItems")
		b.WriteString(strconv.Itoa(n.maxItems))
	}
	if n.hasProps {
		key("properties")
		b.WriteByte('{')
		for i, p := range n.props {
			if i > 0 {
				b.WriteByte(',')
			}
			str(p.name)
			b.WriteByte(':')
			p.s.writeJSON(b)
		}
		b.WriteByte('}')
	}
	if len(n.required) > 0 {
		key("required")
		b.WriteByte('[')
		for i, r := range n.required {
			if i > 0 {
				b.WriteByte(',')
			}
			str(r)
		}
		b.WriteByte(']')
	}
	if n.closed {
		key("additionalProperties")
		b.WriteString("false")
	}
	if n.not != nil {
		key("not")
		n.not.writeJSON(b)
	}
	if n.ifS != nil {
		key("if")
		n.ifS.writeJSON(b)
	}
	if n.thenS != nil {
		key("then")
		n.thenS.writeJSON(b)
	}
	b.WriteByte('}')
}

func (n *node) marshal() json.RawMessage {
	var b bytes.Buffer
	n.writeJSON(&b)
	return json.RawMessage(b.Bytes())
}

// celFragment is a message-level CEL rule that the schema expresses with
// if/then. The expression is pinned: a rule whose id is known but whose
// expression changed fails NewRegistry instead of being published stale.
type celFragment struct {
	expression string
	ifField    string // the field that must equal ifConst for the rule to apply
	ifConst    string
	thenField  string // the field that must then match thenPattern
	pattern    string
}

var knownCEL = map[string]celFragment{
	"file.content_base64": {
		expression: "!has(this.encoding) || this.encoding != 'base64' || this.content.matches('^[A-Za-z0-9+/]*={0,2}$')",
		ifField:    "encoding",
		ifConst:    "base64",
		thenField:  "content",
		pattern:    "^[A-Za-z0-9+/]*={0,2}$",
	},
}

// namedRule is one check of a shared string rule of the contract (a
// protovalidate predefined rule of proto/ghops/v1/rules.proto): keyword is
// the rule's name (the extension, e.g. "ref_name"), id and message the
// check's own, broken its Go equivalent of the check's CEL expression.
type namedRule struct {
	keyword, id, message string
	broken               func(string) bool
}

// knownStringRules are the checks of the shared string rules this package
// can evaluate, by id. As with knownCEL, the expression is pinned: a check
// whose expression changed in proto, or a new check, fails NewRegistry
// instead of being enforced stale. They are hand-written because the
// gateway evaluates rules in its AJV-style evaluator, not with CEL.
var knownStringRules = map[string]struct {
	expression string
	broken     func(string) bool
}{
	"ref_name.dot_dot": {"!rule || !this.contains('..')",
		func(s string) bool { return strings.Contains(s, "..") }},
	"ref_name.empty_segment": {"!rule || !this.contains('//')",
		func(s string) bool { return strings.Contains(s, "//") }},
	"ref_name.slash_edge": {"!rule || !(this.startsWith('/') || this.endsWith('/'))",
		func(s string) bool { return strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") }},
	"ref_name.dot_edge": {"!rule || !(this.startsWith('.') || this.endsWith('.'))",
		func(s string) bool { return strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") }},
	"ref_name.dot_segment": {"!rule || !this.contains('/.')",
		func(s string) bool { return strings.Contains(s, "/.") }},
	"ref_name.lock_suffix": {"!rule || !this.matches('[.]lock(/|$)')",
		regexp.MustCompile(`[.]lock(/|$)`).MatchString},
	"ref_name.at_brace": {"!rule || !this.contains('@{')",
		func(s string) bool { return strings.Contains(s, "@{") }},
	"ref_name.control": {"!rule || !this.matches('[[:cntrl:]]')",
		regexp.MustCompile(`[[:cntrl:]]`).MatchString},
	"repo_name.dot_segment": {"!rule || !this.matches('^[.]{1,2}/|/[.]{1,2}$')",
		regexp.MustCompile(`^[.]{1,2}/|/[.]{1,2}$`).MatchString},
}

// namedRules returns the shared rules set on a field's string rules (true
// boolean extensions of buf.validate.StringRules) and the rules without
// them, for onlyFields.
func namedRules(sr *validate.StringRules) ([]namedRule, *validate.StringRules, error) {
	plain, _ := proto.Clone(sr).(*validate.StringRules)
	var out []namedRule
	var err error
	sr.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if !fd.IsExtension() {
			return true
		}
		plain.ProtoReflect().Clear(fd)
		pr, _ := proto.GetExtension(fd.Options(), validate.E_Predefined).(*validate.PredefinedRules)
		if fd.Kind() != protoreflect.BoolKind || fd.IsList() || len(pr.GetCel()) == 0 {
			err = fmt.Errorf("string rule %s cannot be expressed in JSON Schema", fd.FullName())
			return false
		}
		if !v.Bool() {
			return true
		}
		for _, c := range pr.GetCel() {
			k, ok := knownStringRules[c.GetId()]
			if !ok || k.expression != c.GetExpression() {
				err = fmt.Errorf("string rule %s: check %q cannot be expressed in JSON Schema", fd.FullName(), c.GetId())
				return false
			}
			out = append(out, namedRule{keyword: string(fd.Name()), id: c.GetId(), message: c.GetMessage(), broken: k.broken})
		}
		return true
	})
	return out, plain, err
}

// builder turns message descriptors into schemas.
type builder struct {
	visiting map[protoreflect.FullName]bool
	docs     *descriptions // nil: no parameter descriptions
}

// enter marks md as being built and returns the function that unmarks it;
// a message met again while it is being built is recursive, which a schema
// without $ref cannot describe.
func (bd *builder) enter(md protoreflect.MessageDescriptor, role string) (leave func(), err error) {
	if bd.visiting[md.FullName()] {
		return nil, fmt.Errorf("%s: recursive messages cannot be tool %s", md.FullName(), role)
	}
	bd.visiting[md.FullName()] = true
	return func() { delete(bd.visiting, md.FullName()) }, nil
}

// inputSchema builds the closed input schema of a request message, with every
// protovalidate rule expressed.
func (bd *builder) inputSchema(md protoreflect.MessageDescriptor) (*node, error) {
	leave, err := bd.enter(md, "input")
	if err != nil {
		return nil, err
	}
	defer leave()

	n := newNode("object")
	n.hasProps = true
	n.closed = true
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			return nil, fmt.Errorf("%s: oneof %s is not supported in tool input", fd.FullName(), od.Name())
		}
		ps, required, err := bd.inputField(fd)
		if err != nil {
			return nil, err
		}
		ps.description = bd.docs.of(fd)
		n.props = append(n.props, prop{name: fd.JSONName(), s: ps, fd: fd})
		if required {
			n.required = append(n.required, fd.JSONName())
		}
	}
	if err := bd.messageRules(md, n); err != nil {
		return nil, err
	}
	return n, nil
}

func (bd *builder) messageRules(md protoreflect.MessageDescriptor, n *node) error {
	opts, ok := md.Options().(*descriptorpb.MessageOptions)
	if !ok || opts == nil || !proto.HasExtension(opts, validate.E_Message) {
		return nil
	}
	mr, _ := proto.GetExtension(opts, validate.E_Message).(*validate.MessageRules)
	if err := onlyFields(mr, "oneof", "cel"); err != nil {
		return fmt.Errorf("%s: %w", md.FullName(), err)
	}
	for _, oo := range mr.GetOneof() {
		if oo.GetRequired() {
			return fmt.Errorf("%s: required message oneof is not supported", md.FullName())
		}
		if len(oo.GetFields()) < 2 {
			return fmt.Errorf("%s: message oneof needs at least two fields", md.FullName())
		}
		if len(oo.GetFields()) != 2 {
			// "not both" of three or more fields needs a pairwise not/anyOf; no
			// tool needs it yet, so refuse rather than publish a weaker schema.
			return fmt.Errorf("%s: message oneof over %d fields is not supported", md.FullName(), len(oo.GetFields()))
		}
		if n.not != nil {
			return fmt.Errorf("%s: more than one message oneof is not supported", md.FullName())
		}
		not := newNode("")
		for _, name := range oo.GetFields() {
			fd := md.Fields().ByName(protoreflect.Name(name))
			if fd == nil || !fd.HasPresence() {
				return fmt.Errorf("%s: message oneof field %q must exist and have presence", md.FullName(), name)
			}
			not.required = append(not.required, fd.JSONName())
		}
		n.not = not
	}
	for _, c := range mr.GetCel() {
		frag, ok := knownCEL[c.GetId()]
		if !ok || frag.expression != c.GetExpression() {
			return fmt.Errorf("%s: CEL rule %q cannot be expressed in JSON Schema", md.FullName(), c.GetId())
		}
		if n.ifS != nil {
			return fmt.Errorf("%s: more than one CEL rule is not supported", md.FullName())
		}
		ifFD := md.Fields().ByName(protoreflect.Name(frag.ifField))
		thenFD := md.Fields().ByName(protoreflect.Name(frag.thenField))
		if ifFD == nil || thenFD == nil {
			return fmt.Errorf("%s: CEL rule %q refers to missing fields", md.FullName(), c.GetId())
		}
		cv := frag.ifConst
		ifN := newNode("")
		ifN.hasProps = true
		cn := newNode("")
		cn.constVal = &cv
		ifN.props = []prop{{name: ifFD.JSONName(), s: cn, fd: ifFD}}
		ifN.required = []string{ifFD.JSONName()}
		thenN := newNode("")
		thenN.hasProps = true
		pn := newNode("")
		pn.pattern = frag.pattern
		pn.re = regexp.MustCompile(frag.pattern)
		thenN.props = []prop{{name: thenFD.JSONName(), s: pn, fd: thenFD}}
		n.ifS, n.thenS = ifN, thenN
	}
	return nil
}

// inputField returns a field's schema and whether the field is required.
func (bd *builder) inputField(fd protoreflect.FieldDescriptor) (*node, bool, error) {
	var fr *validate.FieldRules
	if opts, ok := fd.Options().(*descriptorpb.FieldOptions); ok && opts != nil && proto.HasExtension(opts, validate.E_Field) {
		fr, _ = proto.GetExtension(opts, validate.E_Field).(*validate.FieldRules)
	}
	if err := onlyFields(fr, "required", "string", "int32", "repeated"); err != nil {
		return nil, false, fmt.Errorf("%s: %w", fd.FullName(), err)
	}
	if fd.IsMap() {
		return nil, false, fmt.Errorf("%s: map fields are not supported in tool input", fd.FullName())
	}
	if fd.IsList() {
		if fr.GetString_() != nil || fr.GetInt32() != nil {
			return nil, false, fmt.Errorf("%s: scalar rules on a repeated field need repeated.items", fd.FullName())
		}
		item, err := bd.inputScalarOrMessage(fd, nil)
		if err != nil {
			return nil, false, err
		}
		n := newNode("array")
		n.items = item
		if rr := fr.GetRepeated(); rr != nil {
			if err := onlyFields(rr, "min_items", "max_items"); err != nil {
				return nil, false, fmt.Errorf("%s: %w", fd.FullName(), err)
			}
			if rr.MinItems != nil {
				n.minItems = int(rr.GetMinItems())
			}
			if rr.MaxItems != nil {
				n.maxItems = int(rr.GetMaxItems())
			}
		}
		// An absent list is an empty one: required when empty is not allowed.
		return n, fr.GetRequired() || n.minItems > 0, nil
	}
	if fr.GetRepeated() != nil {
		return nil, false, fmt.Errorf("%s: repeated rules on a singular field", fd.FullName())
	}
	n, err := bd.inputScalarOrMessage(fd, fr)
	if err != nil {
		return nil, false, err
	}
	required := fr.GetRequired()
	if !required && !fd.HasPresence() && zeroFails(n) {
		// Without presence, an absent field is its zero value, which protovalidate
		// checks: when the zero value breaks a rule, the field is required.
		required = true
	}
	return n, required, nil
}

func (bd *builder) inputScalarOrMessage(fd protoreflect.FieldDescriptor, fr *validate.FieldRules) (*node, error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if fr.GetInt32() != nil {
			return nil, fmt.Errorf("%s: int32 rules on a string field", fd.FullName())
		}
		n := newNode("string")
		if sr := fr.GetString_(); sr != nil {
			named, plain, err := namedRules(sr)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", fd.FullName(), err)
			}
			if err := onlyFields(plain, "min_len", "max_len", "pattern", "in"); err != nil {
				return nil, fmt.Errorf("%s: %w", fd.FullName(), err)
			}
			n.named = named
			if sr.MinLen != nil {
				n.minLength = int(sr.GetMinLen())
			}
			if sr.MaxLen != nil {
				n.maxLength = int(sr.GetMaxLen())
			}
			if sr.Pattern != nil {
				re, err := regexp.Compile(sr.GetPattern())
				if err != nil {
					return nil, fmt.Errorf("%s: pattern: %w", fd.FullName(), err)
				}
				n.pattern, n.re = sr.GetPattern(), re
			}
			if len(sr.GetIn()) > 0 {
				n.enum = append([]string(nil), sr.GetIn()...)
			}
		}
		return n, nil
	case protoreflect.Int32Kind:
		if fr.GetString_() != nil {
			return nil, fmt.Errorf("%s: string rules on an int32 field", fd.FullName())
		}
		n := newNode("integer")
		lo, hi := int64(math.MinInt32), int64(math.MaxInt32)
		if ir := fr.GetInt32(); ir != nil {
			if err := onlyFields(ir, "gte", "lte"); err != nil {
				return nil, fmt.Errorf("%s: %w", fd.FullName(), err)
			}
			if ir.HasGte() {
				lo = int64(ir.GetGte())
			}
			if ir.HasLte() {
				hi = int64(ir.GetLte())
			}
		}
		// The int32 range is always published: it is enforced either way, and
		// a schema should say what the validator does.
		n.minimum, n.maximum = &lo, &hi
		return n, nil
	case protoreflect.BoolKind:
		if fr.GetString_() != nil || fr.GetInt32() != nil {
			return nil, fmt.Errorf("%s: scalar rules on a bool field", fd.FullName())
		}
		return newNode("boolean"), nil
	case protoreflect.MessageKind:
		if fr.GetString_() != nil || fr.GetInt32() != nil {
			return nil, fmt.Errorf("%s: scalar rules on a message field", fd.FullName())
		}
		if isWellKnown(fd.Message()) {
			return nil, fmt.Errorf("%s: well-known type %s is not supported in tool input", fd.FullName(), fd.Message().FullName())
		}
		return bd.inputSchema(fd.Message())
	default:
		return nil, fmt.Errorf("%s: field kind %s is not supported in tool input", fd.FullName(), fd.Kind())
	}
}

// zeroFails reports whether the zero value of a scalar breaks a rule.
func zeroFails(n *node) bool {
	switch n.typ {
	case "string":
		if n.minLength > 0 || (n.re != nil && !n.re.MatchString("")) {
			return true
		}
		if n.enum != nil {
			for _, e := range n.enum {
				if e == "" {
					return false
				}
			}
			return true
		}
	case "integer":
		return *n.minimum > 0 || *n.maximum < 0
	}
	return false
}

// onlyFields fails when a rules message sets a field outside the allowed
// ones: a rule this package does not translate must not be silently dropped.
func onlyFields(m proto.Message, allowed ...string) error {
	if m == nil || !m.ProtoReflect().IsValid() {
		return nil
	}
	var err error
	m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		for _, a := range allowed {
			if string(fd.Name()) == a {
				return true
			}
		}
		err = fmt.Errorf("protovalidate rule %s cannot be expressed in JSON Schema", fd.FullName())
		return false
	})
	if err == nil && len(m.ProtoReflect().GetUnknown()) > 0 {
		err = fmt.Errorf("unknown protovalidate rule in %s", m.ProtoReflect().Descriptor().FullName())
	}
	return err
}

func isWellKnown(md protoreflect.MessageDescriptor) bool {
	return md.ParentFile() != nil && md.ParentFile().Package() == "google.protobuf"
}

// outputSchema builds the schema of a response message as EncodeResult
// renders it: proto names, Timestamps as date-time strings, and required
// exactly the fields that are always emitted (non-optional scalars and lists).
func (bd *builder) outputSchema(md protoreflect.MessageDescriptor) (*node, error) {
	leave, err := bd.enter(md, "output")
	if err != nil {
		return nil, err
	}
	defer leave()

	n := newNode("object")
	n.hasProps = true
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			return nil, fmt.Errorf("%s: oneof %s is not supported in tool output", fd.FullName(), od.Name())
		}
		if fd.IsMap() {
			return nil, fmt.Errorf("%s: map fields are not supported in tool output", fd.FullName())
		}
		s, err := bd.outputValue(fd)
		if err != nil {
			return nil, err
		}
		if fd.IsList() {
			a := newNode("array")
			a.items = s
			s = a
		}
		n.props = append(n.props, prop{name: string(fd.Name()), s: s, fd: fd})
		if fd.IsList() || !fd.HasPresence() {
			n.required = append(n.required, string(fd.Name()))
		}
	}
	return n, nil
}

func (bd *builder) outputValue(fd protoreflect.FieldDescriptor) (*node, error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return newNode("string"), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return newNode("integer"), nil
	case protoreflect.BoolKind:
		return newNode("boolean"), nil
	case protoreflect.MessageKind:
		if fd.Message().FullName() == "google.protobuf.Timestamp" {
			n := newNode("string")
			n.format = "date-time"
			return n, nil
		}
		if isWellKnown(fd.Message()) {
			return nil, fmt.Errorf("%s: well-known type %s is not supported in tool output", fd.FullName(), fd.Message().FullName())
		}
		return bd.outputSchema(fd.Message())
	default:
		// 64-bit integers, floats, bytes and enums have JSON forms that need a
		// decision (strings, NaN, base64, names); refuse until one is made.
		return nil, fmt.Errorf("%s: field kind %s is not supported in tool output", fd.FullName(), fd.Kind())
	}
}
