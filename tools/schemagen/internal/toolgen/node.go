package toolgen

import (
	"bytes"
	"encoding/json"
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// node is one JSON Schema (2020-12) subschema as the generator writes it.
// writeJSON emits keywords in one fixed order so that the committed output
// is byte-stable and the tools/list goldens do not move when a field kind is
// added.
type node struct {
	typ         string // "object", "string", "integer", "number", "boolean", "array"; "" for an untyped subschema
	description string
	format      string

	constVal *string
	enum     []string

	minLength, maxLength int // -1: absent
	pattern              string

	// Bounds are decimal texts so that the whole uint64 range is exact.
	minimum, maximum                   string
	exclusiveMinimum, exclusiveMaximum string

	items              *node
	minItems, maxItems int // -1: absent
	uniqueItems        bool

	props              []prop // with hasProps false: no "properties" keyword
	hasProps           bool
	required           []string
	depRequired        []dependency // dependentRequired, in this order
	closed             bool         // additionalProperties: false
	values             *node        // additionalProperties: schema (map values)
	minProps, maxProps int          // -1: absent
	not                *node
	anyOf, oneOf       []*node
	ifS, thenS         *node

	// message is the proto message an output object renders (not written:
	// the publishing rules of publish.go read it).
	message protoreflect.FullName
	// brief is an input field's resource kind's description, published
	// instead of a description that states a long pattern in words.
	brief string
}

type prop struct {
	name string
	s    *node
}

// dependency is one property of dependentRequired: when prop is present,
// deps must be too.
type dependency struct {
	prop string
	deps []string
}

func newNode(typ string) *node {
	return &node{typ: typ, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}
}

// writeJSON writes the schema compactly.
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
	// seq writes a JSON array or object (open, close) of n members, each
	// written by member: the comma rule in one place.
	seq := func(open, close byte, n int, member func(i int)) {
		b.WriteByte(open)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			member(i)
		}
		b.WriteByte(close)
	}
	strs := func(ss []string) { seq('[', ']', len(ss), func(i int) { str(ss[i]) }) }
	nodes := func(ns []*node) { seq('[', ']', len(ns), func(i int) { ns[i].writeJSON(b) }) }
	num := func(k, v string) {
		if v != "" {
			key(k)
			b.WriteString(v)
		}
	}
	count := func(k string, v int) {
		if v >= 0 {
			key(k)
			b.WriteString(strconv.Itoa(v))
		}
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
		strs(n.enum)
	}
	count("minLength", n.minLength)
	count("maxLength", n.maxLength)
	if n.pattern != "" {
		key("pattern")
		str(n.pattern)
	}
	num("minimum", n.minimum)
	num("maximum", n.maximum)
	num("exclusiveMinimum", n.exclusiveMinimum)
	num("exclusiveMaximum", n.exclusiveMaximum)
	if n.items != nil {
		key("items")
		n.items.writeJSON(b)
	}
	count("minItems", n.minItems)
	count("maxItems", n.maxItems)
	if n.uniqueItems {
		key("uniqueItems")
		b.WriteString("true")
	}
	if n.hasProps {
		key("properties")
		seq('{', '}', len(n.props), func(i int) {
			str(n.props[i].name)
			b.WriteByte(':')
			n.props[i].s.writeJSON(b)
		})
	}
	if len(n.required) > 0 {
		key("required")
		strs(n.required)
	}
	if len(n.depRequired) > 0 {
		key("dependentRequired")
		seq('{', '}', len(n.depRequired), func(i int) {
			str(n.depRequired[i].prop)
			b.WriteByte(':')
			strs(n.depRequired[i].deps)
		})
	}
	if n.closed {
		key("additionalProperties")
		b.WriteString("false")
	} else if n.values != nil {
		key("additionalProperties")
		n.values.writeJSON(b)
	}
	count("minProperties", n.minProps)
	count("maxProperties", n.maxProps)
	if n.not != nil {
		key("not")
		n.not.writeJSON(b)
	}
	if n.anyOf != nil {
		key("anyOf")
		nodes(n.anyOf)
	}
	if n.oneOf != nil {
		key("oneOf")
		nodes(n.oneOf)
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
