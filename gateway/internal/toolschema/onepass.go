package toolschema

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strings"
	"sync"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// onePass decodes the common shape of a tool's arguments (an object of
// scalar properties, every one of them in the schema) in one pass over the
// text: each value is checked by the tool's fastSchema and shared-rule
// checks as it is read and appended to the request's wire format, which is
// unmarshalled once at the end, with no instance (map[string]any) built,
// walked by the fast check and walked again by fillMessage. Why beside the general path: argument decoding was the
// largest piece of the gateway's own CPU per tools/call (docs/benchmarks.md),
// and most of it was building and walking that instance.
//
// Like the fast check it never refuses: read reports false for anything it
// is not certain of (an array, an object, null, a name it does not plan
// for, an escaped name, a value a rule or check would refuse, ...) and
// decode then takes the general path from the start, so every violation and
// every request it does not vouch for still comes from there. Where it
// reports true, the request is the one the general path makes of the same
// arguments (TestOnePassAgrees, FuzzOnePassAgrees).
type onePass struct {
	root    *fastSchema
	props   map[string]*passProp
	reqType protoreflect.MessageType
	enums   map[string]map[string]string // the tool's, for scalarValue
}

// passProp is one planned property: its rules, its shared-rule checks, the
// request field it sets and its presence bit.
type passProp struct {
	bit    uint64
	sub    *fastSchema
	checks []check
	fd     protoreflect.FieldDescriptor
}

// planOnePass plans the one-pass reading of a tool's arguments; nil (the
// general path always) when the root has no fast check or uses what the
// one pass does not implement. A property it does not plan (one with
// rules beyond a scalar's, or a field that is not a scalar) sends
// arguments naming it to the general path.
func planOnePass(fast *fastSchema, checked []checkedAt, reqType protoreflect.MessageType, enums map[string]map[string]string) *onePass {
	req := reqType.Descriptor()
	if fast == nil || fast.props == nil || !fast.allows(typeObject) || fast.hasEnum ||
		strings.HasPrefix(string(req.FullName()), "google.protobuf.") {
		return nil
	}
	p := &onePass{root: fast, props: map[string]*passProp{}, reqType: reqType, enums: enums}
	fields := req.Fields()
	seen := map[protoreflect.FieldNumber]bool{}
	for name, sub := range fast.props {
		fd := fields.ByJSONName(name)
		if fd == nil {
			fd = fields.ByTextName(name)
		}
		if sub == nil || sub.notAll != nil || sub.oneOf != nil || // required-only rules on a scalar: see fastSchema.accepts
			fd == nil || fd.IsList() || fd.IsMap() || fd.Message() != nil ||
			(fd.ContainingOneof() != nil && !fd.ContainingOneof().IsSynthetic()) {
			continue
		}
		if seen[fd.Number()] {
			return nil // two names of one field: fillMessage refuses both given
		}
		seen[fd.Number()] = true
		if len(p.props) == 64 {
			return nil
		}
		p.props[name] = &passProp{bit: 1 << len(p.props), sub: sub, fd: fd}
	}
	for _, c := range checked {
		// A check at /properties/<name> applies to that property's string;
		// deeper ones only to values the one pass leaves to the general
		// path. Anything else (additionalProperties, ...) could apply to
		// any property: no plan.
		if len(c.toks) < 2 || c.toks[0] != "properties" {
			return nil
		}
		if len(c.toks) == 2 {
			if pp := p.props[unescapePointer(c.toks[1])]; pp != nil {
				pp.checks = append(pp.checks, c.s.checks...)
			}
		}
	}
	return p
}

// read decodes src (one JSON text) into a new request, reporting false
// when it is not certain.
func (p *onePass) read(src []byte) (proto.Message, bool) {
	r := readers.Get().(*reader)
	defer r.release()
	r.src.Reset(src)
	r.dec.Reset(&r.src)
	dec := r.dec
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, false
	}
	wb := wireBufs.Get().(*[]byte)
	b := (*wb)[:0]
	defer func() {
		if cap(b) <= maxPooledWire {
			*wb = b[:0]
			wireBufs.Put(wb)
		}
	}()
	var present uint64
	count := 0
	for dec.PeekKind() != '}' {
		// The name, checked unique by the decoder. An escaped name is
		// looked up as written and so finds no property: the general path.
		raw, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		pp := p.props[string(raw[1:len(raw)-1])]
		if pp == nil {
			return nil, false
		}
		present |= pp.bit
		count++
		var ok bool
		if b, ok = pp.set(b, dec, p.enums); !ok {
			return nil, false
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, false
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, false
	}
	// A name the object-level rules speak of that is no planned property
	// is never present here: a rule needing it fails, and the general path
	// judges.
	has := func(name string) bool { pp := p.props[name]; return pp != nil && present&pp.bit != 0 }
	if !p.root.holdsObjectRules(count, has) {
		return nil, false
	}
	msg := p.reqType.New().Interface()
	if err := (proto.UnmarshalOptions{Merge: true}).Unmarshal(b, msg); err != nil {
		return nil, false
	}
	return msg, true
}

// wireBufs recycles the wire-format buffers read fills; one grown past
// maxPooledWire by a large argument is left to the collector.
var wireBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

const maxPooledWire = 64 << 10

// set reads the property's value from dec and appends its field to b in
// the wire format, the value being the one fillMessage would set from the
// instance, when its rules and checks surely pass. Why the wire format and
// not protoreflect's Set: Set boxes every string it sets (two allocations
// each); the generated unmarshaller copies it once.
func (pp *passProp) set(b []byte, dec *jsontext.Decoder, enums map[string]map[string]string) ([]byte, bool) {
	kind := dec.PeekKind()
	raw, err := dec.ReadValue()
	if err != nil {
		return b, false
	}
	var v any
	switch kind {
	case '"':
		// s views the text (the decoder's buffer, valid until its next
		// read): the rules and checks keep nothing, and the wire format
		// gets the one copy that is kept.
		var s string
		if bytes.IndexByte(raw, '\\') < 0 {
			s = unsafe.String(&raw[1], len(raw)-2)
		} else {
			u, err := jsontext.AppendUnquote(nil, raw)
			if err != nil {
				return b, false
			}
			s = unsafe.String(unsafe.SliceData(u), len(u))
		}
		if !pp.sub.acceptsString(s) {
			return b, false
		}
		for _, c := range pp.checks {
			if c.broken(s) {
				return b, false
			}
		}
		if pp.fd.Kind() == protoreflect.StringKind {
			// Not through scalarValue: s in an any would be copied to the heap.
			return appendScalar(b, pp.fd, protoreflect.ValueOfString(s)), true
		}
		v = s // an enum's name, looked up and not kept
	case '0':
		n := json.Number(raw)
		if !pp.sub.acceptsNumber(n) {
			return b, false
		}
		v = n
	case 't', 'f':
		if !pp.sub.allows(typeBoolean) || pp.sub.hasEnum {
			return b, false
		}
		v = kind == 't'
	default: // null, objects, arrays: the general path
		return b, false
	}
	sv, ok := scalarValue(pp.fd, v, enums)
	if !ok {
		return b, false
	}
	return appendScalar(b, pp.fd, sv), true
}

// appendScalar appends field fd with the scalar value v in the wire format.
func appendScalar(b []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) []byte {
	num := fd.Number()
	switch fd.Kind() {
	case protoreflect.StringKind:
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendString(b, v.String())
	case protoreflect.BoolKind:
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(v.Bool()))
	case protoreflect.EnumKind:
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(v.Enum()))
	case protoreflect.Int32Kind, protoreflect.Int64Kind:
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(v.Int()))
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeZigZag(v.Int()))
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind:
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, v.Uint())
	case protoreflect.Sfixed32Kind:
		b = protowire.AppendTag(b, num, protowire.Fixed32Type)
		return protowire.AppendFixed32(b, uint32(v.Int()))
	case protoreflect.Fixed32Kind:
		b = protowire.AppendTag(b, num, protowire.Fixed32Type)
		return protowire.AppendFixed32(b, uint32(v.Uint()))
	case protoreflect.Sfixed64Kind:
		b = protowire.AppendTag(b, num, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, uint64(v.Int()))
	case protoreflect.Fixed64Kind:
		b = protowire.AppendTag(b, num, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, v.Uint())
	case protoreflect.FloatKind:
		b = protowire.AppendTag(b, num, protowire.Fixed32Type)
		return protowire.AppendFixed32(b, math.Float32bits(float32(v.Float())))
	case protoreflect.DoubleKind:
		b = protowire.AppendTag(b, num, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(v.Float()))
	}
	panic("toolschema: appendScalar of " + fd.Kind().String()) // planOnePass plans scalars only
}
