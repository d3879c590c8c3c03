package toolgen

import (
	"bytes"
	"encoding/json"
	"strconv"
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
	strs := func(ss []string) {
		b.WriteByte('[')
		for i, s := range ss {
			if i > 0 {
				b.WriteByte(',')
			}
			str(s)
		}
		b.WriteByte(']')
	}
	nodes := func(ns []*node) {
		b.WriteByte('[')
		for i, s := range ns {
			if i > 0 {
				b.WriteByte(',')
			}
			s.writeJSON(b)
		}
		b.WriteByte(']')
	}
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
		strs(n.required)
	}
	if len(n.depRequired) > 0 {
		key("dependentRequired")
		b.WriteByte('{')
		for i, d := range n.depRequired {
			if i > 0 {
				b.WriteByte(',')
			}
			str(d.prop)
			b.WriteByte(':')
			strs(d.deps)
		}
		b.WriteByte('}')
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
