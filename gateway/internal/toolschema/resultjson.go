package toolschema

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// The result encoder writes a response as the bytes protojson gives with
// UseProtoNames and EmitDefaultValues, compacted, except that 64-bit
// integers are JSON numbers (MaxExactInt): every call renders its
// result, and protojson (it sorts each message's fields on every call, and
// randomises its whitespace so that a compaction pass must follow) was the
// larger part of the gateway's own CPU per call (docs/benchmarks.md). The
// plan of each message type (its fields in declaration order, each name
// quoted once) is built with the registry. Maps with string keys are
// written with their keys sorted, as protojson does. A type the plan does
// not cover (maps with other keys, extensions, well-known types other than
// Timestamp) keeps protojson,
// and so does a value it cannot write the same way (invalid UTF-8, a
// timestamp out of range: protojson's error is then the answer). The
// agreement is tested on every response type with generated values and
// fuzzed (resultjson_test.go).

// errNoPlan sends a value back to protojson.
var errNoPlan = errors.New("toolschema: value outside the result plan")

// MaxExactInt is the largest magnitude a 64-bit integer of an answer may
// have: 2^53-1, the largest integer every JSON reader holds exactly (a
// JavaScript number, a float64). Answers write 64-bit integers as JSON
// numbers, unlike protojson's decimal strings, so that a value an answer
// gives (job_id, a comment's or review's id) is passed back to the tool
// that takes it as given: input schemas take integers. GitHub's ids are
// below it (GitHub's own answers write them as numbers); a value beyond it
// fails the call (-32603) rather than reach a client rounded, and the
// output schemas (tools/schemagen) state the bound.
const MaxExactInt = 1<<53 - 1

// errInexact is a 64-bit integer of an answer beyond MaxExactInt.
var errInexact = errors.New("toolschema: 64-bit integer beyond 2^53-1")

// inexact is errInexact for the value text of field fd.
func inexact(fd protoreflect.FieldDescriptor, text string) error {
	return fmt.Errorf("%w: %s = %s", errInexact, fd.FullName(), text)
}

// resultPlan is how one message type is written.
type resultPlan struct {
	fields []resultField
}

// resultField is one field of a resultPlan.
type resultField struct {
	fd protoreflect.FieldDescriptor
	// name is the quoted proto name and the colon.
	name string
	// optional fields (presence, oneof members) are left out when unset;
	// every other field is written, zero or empty included.
	optional bool
	list     bool
	// mapValue is how a map field's values are written (nil: not a map);
	// its keys are strings.
	mapValue *resultField
	kind     protoreflect.Kind
	sub      *resultPlan // message fields other than Timestamp
	stamp    bool        // google.protobuf.Timestamp
	enum     protoreflect.EnumValueDescriptors
}

// timestampName is the one well-known type the plan writes itself.
const timestampName protoreflect.FullName = "google.protobuf.Timestamp"

// planFor returns the plan of md, or nil when protojson must write it.
func planFor(md protoreflect.MessageDescriptor) *resultPlan {
	return (&planner{done: map[protoreflect.FullName]*resultPlan{}}).plan(md)
}

// planner builds the plans of one response type and the types it nests,
// each once (a recursive type refers to its own plan).
type planner struct {
	done map[protoreflect.FullName]*resultPlan
	bad  bool
}

func (pl *planner) plan(md protoreflect.MessageDescriptor) *resultPlan {
	p := pl.build(md)
	if pl.bad {
		return nil
	}
	return p
}

func (pl *planner) build(md protoreflect.MessageDescriptor) *resultPlan {
	if p, ok := pl.done[md.FullName()]; ok {
		return p
	}
	p := &resultPlan{}
	pl.done[md.FullName()] = p
	if md.ExtensionRanges().Len() > 0 || md.FullName().Parent() == "google.protobuf" {
		pl.bad = true
		return p
	}
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if fd.IsWeak() {
			pl.bad = true
			return p
		}
		f := resultField{
			fd:       fd,
			optional: fd.HasPresence() || fd.ContainingOneof() != nil,
			list:     fd.IsList(),
		}
		var err error
		if f.name, err = quotedName(fd.TextName()); err != nil {
			pl.bad = true
			return p
		}
		if fd.IsMap() {
			if fd.MapKey().Kind() != protoreflect.StringKind {
				pl.bad = true
				return p
			}
			f.mapValue = &resultField{fd: fd.MapValue()}
			pl.valueOf(f.mapValue)
		} else {
			pl.valueOf(&f)
		}
		if pl.bad {
			return p
		}
		p.fields = append(p.fields, f)
	}
	return p
}

// valueOf fills in how f's values are written, from f.fd's kind.
func (pl *planner) valueOf(f *resultField) {
	fd := f.fd
	f.kind = fd.Kind()
	switch f.kind {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if fd.Message().FullName() == timestampName {
			f.stamp = true
		} else {
			f.sub = pl.build(fd.Message())
		}
	case protoreflect.EnumKind:
		if fd.Enum().FullName() == "google.protobuf.NullValue" {
			pl.bad = true
			return
		}
		f.enum = fd.Enum().Values()
	}
}

// quotedName is a field's JSON name followed by its colon.
func quotedName(name string) (string, error) {
	b, err := appendProtoString(nil, name)
	if err != nil {
		return "", err
	}
	return string(append(b, ':')), nil
}

// appendMessage writes m by plan p.
func (p *resultPlan) appendMessage(b []byte, m protoreflect.Message) ([]byte, error) {
	b = append(b, '{')
	first := true
	for i := range p.fields {
		f := &p.fields[i]
		if f.optional && !m.Has(f.fd) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, f.name...)
		v := m.Get(f.fd)
		var err error
		if f.mapValue != nil {
			if b, err = f.mapValue.appendMap(b, v.Map()); err != nil {
				return nil, err
			}
			continue
		}
		if f.list {
			l := v.List()
			b = append(b, '[')
			for j := range l.Len() {
				if j > 0 {
					b = append(b, ',')
				}
				if b, err = f.appendValue(b, l.Get(j)); err != nil {
					return nil, err
				}
			}
			b = append(b, ']')
			continue
		}
		if b, err = f.appendValue(b, v); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendMap writes mp with its keys sorted (protojson's order), each value
// as f says.
func (f *resultField) appendMap(b []byte, mp protoreflect.Map) ([]byte, error) {
	keys := make([]string, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k.String())
		return true
	})
	slices.Sort(keys)
	b = append(b, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendProtoString(b, k); err != nil {
			return nil, err
		}
		b = append(b, ':')
		if b, err = f.appendValue(b, mp.Get(protoreflect.ValueOfString(k).MapKey())); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendValue writes one value of f's kind (a list's item or the field).
func (f *resultField) appendValue(b []byte, v protoreflect.Value) ([]byte, error) {
	switch f.kind {
	case protoreflect.BoolKind:
		return strconv.AppendBool(b, v.Bool()), nil
	case protoreflect.StringKind:
		return appendProtoString(b, v.String())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		// 64-bit integers are JSON numbers, not proto's strings (int64Rule).
		n := v.Int()
		if n > MaxExactInt || n < -MaxExactInt {
			return nil, inexact(f.fd, strconv.FormatInt(n, 10))
		}
		return strconv.AppendInt(b, n, 10), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		n := v.Uint()
		if n > MaxExactInt {
			return nil, inexact(f.fd, strconv.FormatUint(n, 10))
		}
		return strconv.AppendUint(b, n, 10), nil
	case protoreflect.FloatKind:
		return appendProtoFloat(b, v.Float(), 32), nil
	case protoreflect.DoubleKind:
		return appendProtoFloat(b, v.Float(), 64), nil
	case protoreflect.BytesKind:
		b = append(b, '"')
		return append(base64.StdEncoding.AppendEncode(b, v.Bytes()), '"'), nil
	case protoreflect.EnumKind:
		if d := f.enum.ByNumber(v.Enum()); d != nil {
			return appendProtoString(b, string(d.Name()))
		}
		return strconv.AppendInt(b, int64(v.Enum()), 10), nil
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if f.stamp {
			return appendTimestamp(b, v.Message())
		}
		return f.sub.appendMessage(b, v.Message())
	}
	return nil, errNoPlan
}

// AppendEscapedASCII appends the JSON escape of c, an ASCII byte that a
// JSON string may not hold as it is ('"', '\\' or a control character):
// \b \f \n \r \t by name, the other control characters as \u00XX. Both
// dialects the gateway writes (protojson's here, encoding/json's in the MCP
// result text) escape these bytes alike and differ only beyond ASCII.
func AppendEscapedASCII(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
}

// appendProtoString writes s quoted as protojson does: only '"', '\\' and
// the control characters are escaped (\b \f \n \r \t by name, the others
// as \u00XX); everything else, '<' '>' '&' and U+2028 included, stays as it
// is. Invalid UTF-8 is an error, as in protojson.
func appendProtoString(b []byte, s string) ([]byte, error) {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				return nil, errNoPlan
			}
			i += n
			continue
		}
		if c >= ' ' && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		b = AppendEscapedASCII(b, c)
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"'), nil
}

// appendProtoFloat writes n as protojson does: NaN and the infinities as
// strings, else the shortest form, in exponent notation only for very
// small or very large magnitudes (with a one-digit negative exponent
// unpadded), as encoding/json writes floats.
func appendProtoFloat(b []byte, n float64, bits int) []byte {
	switch {
	case math.IsNaN(n):
		return append(b, `"NaN"`...)
	case math.IsInf(n, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(n, -1):
		return append(b, `"-Infinity"`...)
	}
	format := byte('f')
	if a := math.Abs(n); a != 0 {
		if bits == 64 && (a < 1e-6 || a >= 1e21) || bits == 32 && (float32(a) < 1e-6 || float32(a) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, n, format, -1, bits)
	if format == 'e' {
		// e-07 is written e-7.
		if k := len(b); k >= 4 && b[k-4] == 'e' && b[k-3] == '-' && b[k-2] == '0' {
			b[k-2] = b[k-1]
			b = b[:k-1]
		}
	}
	return b
}

// The range of a Timestamp protojson writes: years 0001 to 9999.
const (
	minStampSeconds = -62135596800
	maxStampSeconds = 253402300799
)

// appendTimestamp writes a Timestamp as RFC 3339 in UTC with 0, 3, 6 or 9
// fractional digits, as protojson does; one out of its range goes back to
// protojson, whose error is the answer.
func appendTimestamp(b []byte, m protoreflect.Message) ([]byte, error) {
	fds := m.Descriptor().Fields()
	secs := m.Get(fds.ByNumber(1)).Int()
	nanos := m.Get(fds.ByNumber(2)).Int()
	if secs < minStampSeconds || secs > maxStampSeconds || nanos < 0 || nanos > 999999999 {
		return nil, errNoPlan
	}
	t := time.Unix(secs, nanos).UTC()
	b = append(b, '"')
	b = t.AppendFormat(b, "2006-01-02T15:04:05")
	if ns := t.Nanosecond(); ns != 0 {
		digits := 9
		for ns%1000 == 0 {
			ns /= 1000
			digits -= 3
		}
		b = append(b, '.')
		s := strconv.Itoa(ns)
		for range digits - len(s) {
			b = append(b, '0')
		}
		b = append(b, s...)
	}
	return append(b, 'Z', '"'), nil
}

// numbers64 rewrites src, a message of type md as protojson writes it
// (compact, proto names), with its 64-bit integers as JSON numbers, the
// rest byte for byte: the protojson path of EncodeResult follows the
// result plan's rule (MaxExactInt).
func numbers64(src []byte, md protoreflect.MessageDescriptor) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	return rewriteMessage(dec, make([]byte, 0, len(src)), md)
}

// rewriteMessage copies the next value of dec, an object of message md.
func rewriteMessage(dec *json.Decoder, b []byte, md protoreflect.MessageDescriptor) ([]byte, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok == nil {
		return append(b, "null"...), nil
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("toolschema: %s: want an object, got %v", md.FullName(), tok)
	}
	b = append(b, '{')
	for first := true; dec.More(); first = false {
		if !first {
			b = append(b, ',')
		}
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := key.(string)
		if b, err = appendProtoString(b, name); err != nil {
			return nil, err
		}
		b = append(b, ':')
		fd := md.Fields().ByName(protoreflect.Name(name))
		switch {
		case fd == nil:
			b, err = copyValue(dec, b)
		case fd.IsMap():
			b, err = rewriteMap(dec, b, fd.MapValue())
		case fd.IsList():
			b, err = rewriteList(dec, b, fd)
		default:
			b, err = rewriteValue(dec, b, fd)
		}
		if err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil { // '}'
		return nil, err
	}
	return append(b, '}'), nil
}

// rewriteMap copies the next value of dec, a map whose values are val's.
func rewriteMap(dec *json.Decoder, b []byte, val protoreflect.FieldDescriptor) ([]byte, error) {
	if _, err := dec.Token(); err != nil { // '{'
		return nil, err
	}
	b = append(b, '{')
	for first := true; dec.More(); first = false {
		if !first {
			b = append(b, ',')
		}
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := key.(string)
		if b, err = appendProtoString(b, k); err != nil {
			return nil, err
		}
		b = append(b, ':')
		if b, err = rewriteValue(dec, b, val); err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil { // '}'
		return nil, err
	}
	return append(b, '}'), nil
}

// rewriteList copies the next value of dec, a list of fd's values.
func rewriteList(dec *json.Decoder, b []byte, fd protoreflect.FieldDescriptor) ([]byte, error) {
	if _, err := dec.Token(); err != nil { // '['
		return nil, err
	}
	b = append(b, '[')
	for first := true; dec.More(); first = false {
		if !first {
			b = append(b, ',')
		}
		var err error
		if b, err = rewriteValue(dec, b, fd); err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil { // ']'
		return nil, err
	}
	return append(b, ']'), nil
}

// rewriteValue copies the next value of dec, one value of fd's kind: a
// 64-bit integer as a number, a message (other than a well-known type,
// which protojson writes in its own form) field by field, the rest as is.
func rewriteValue(dec *json.Decoder, b []byte, fd protoreflect.FieldDescriptor) ([]byte, error) {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if fd.Message().FullName().Parent() == "google.protobuf" {
			return copyValue(dec, b)
		}
		return rewriteMessage(dec, b, fd.Message())
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		var s string
		if err := dec.Decode(&s); err != nil {
			return nil, err
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, err
		}
		if n > MaxExactInt || n < -MaxExactInt {
			return nil, inexact(fd, s)
		}
		return strconv.AppendInt(b, n, 10), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		var s string
		if err := dec.Decode(&s); err != nil {
			return nil, err
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, err
		}
		if n > MaxExactInt {
			return nil, inexact(fd, s)
		}
		return strconv.AppendUint(b, n, 10), nil
	}
	return copyValue(dec, b)
}

// copyValue copies the next value of dec as it is.
func copyValue(dec *json.Decoder, b []byte) ([]byte, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	return append(b, raw...), nil
}
