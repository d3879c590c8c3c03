package rpcerror

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"sync"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The data object is written from the generated message by appendMessage,
// not by protojson: protojson's output is deliberately unstable (it adds
// random spaces so that nobody depends on its bytes), and the contract's
// goldens pin the bytes of every answer. appendMessage writes the members in
// the declaration order of errors.proto, each under its json_name, with no
// space; a field is written when it is set (proto3 presence) or when
// errors.proto marks it (json_always), as docs/errors.md's data table says.
// Strings and numbers are written by encoding/json without HTML escaping,
// as the transports write the error object (jsonrpc.Response). A
// violation's value is written as the caller spelled it (its members'
// order and its numbers, redacted and cut), which the Value message cannot
// hold: dataWriter.values carries that text.

// dataWriter writes the data object.
type dataWriter struct {
	// values is the JSON text of each listed violation's value (nil: from
	// the message).
	values [][]byte
	// value is the text of the violation being written.
	value []byte
}

// appendMessage appends the JSON object of m.
func (w *dataWriter) appendMessage(b []byte, m protoreflect.Message) []byte {
	switch m.Descriptor().FullName() {
	case "google.protobuf.Struct":
		return w.appendStruct(b, m)
	case "google.protobuf.Value":
		return w.appendValue(b, m)
	case "google.protobuf.ListValue":
		return w.appendList(b, m.Get(m.Descriptor().Fields().ByNumber(1)).List(), nil)
	}
	b = append(b, '{')
	fields := m.Descriptor().Fields()
	n := 0
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !m.Has(fd) && !jsonAlways(fd) {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = appendString(b, fd.JSONName())
		b = append(b, ':')
		switch {
		case fd.FullName() == "ghops.v1.Violation.value" && w.value != nil:
			b = append(b, w.value...)
		case fd.FullName() == "ghops.v1.ErrorData.validation_errors" && w.values != nil:
			l := m.Get(fd).List()
			b = append(b, '[')
			for i := range l.Len() {
				if i > 0 {
					b = append(b, ',')
				}
				if i < len(w.values) {
					w.value = w.values[i]
				}
				b = w.appendMessage(b, l.Get(i).Message())
				w.value = nil
			}
			b = append(b, ']')
		case fd.IsList():
			if !m.Has(fd) {
				b = append(b, "null"...) // as encoding/json writes a nil slice
				continue
			}
			b = w.appendList(b, m.Get(fd).List(), fd)
		case fd.Kind() == protoreflect.MessageKind:
			if !m.Has(fd) {
				b = append(b, "null"...) // as encoding/json writes a nil map or value
				continue
			}
			b = w.appendMessage(b, m.Get(fd).Message())
		default:
			b = w.appendScalar(b, fd, m.Get(fd))
		}
	}
	return append(b, '}')
}

// alwaysFields caches jsonAlways by field (reading an extension is costly).
var alwaysFields sync.Map // protoreflect.FullName -> bool

// jsonAlways reports errors.proto's (json_always) option of fd.
func jsonAlways(fd protoreflect.FieldDescriptor) bool {
	if v, ok := alwaysFields.Load(fd.FullName()); ok {
		return v.(bool)
	}
	v := false
	if opts := fd.Options(); opts != nil {
		v, _ = proto.GetExtension(opts, ghopsv1.E_JsonAlways).(bool)
	}
	alwaysFields.Store(fd.FullName(), v)
	return v
}

// appendList appends a repeated field (fd) or a ListValue's values (fd nil).
func (w *dataWriter) appendList(b []byte, l protoreflect.List, fd protoreflect.FieldDescriptor) []byte {
	b = append(b, '[')
	for i := range l.Len() {
		if i > 0 {
			b = append(b, ',')
		}
		if fd == nil || fd.Kind() == protoreflect.MessageKind {
			b = w.appendMessage(b, l.Get(i).Message())
			continue
		}
		b = w.appendScalar(b, fd, l.Get(i))
	}
	return append(b, ']')
}

// appendScalar appends a singular non-message value.
func (w *dataWriter) appendScalar(b []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) []byte {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return appendString(b, v.String())
	case protoreflect.BoolKind:
		return strconv.AppendBool(b, v.Bool())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return strconv.AppendInt(b, v.Int(), 10)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return strconv.AppendUint(b, v.Uint(), 10)
	case protoreflect.EnumKind:
		return strconv.AppendInt(b, int64(v.Enum()), 10)
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return appendNumber(b, v.Float())
	}
	// bytes: not used by the data object; written as encoding/json would.
	return appendJSON(b, v.Bytes())
}

// appendStruct appends a google.protobuf.Struct, its members sorted by key
// (as encoding/json writes a map).
func (w *dataWriter) appendStruct(b []byte, m protoreflect.Message) []byte {
	fields := m.Get(m.Descriptor().Fields().ByNumber(1)).Map()
	keys := make([]string, 0, fields.Len())
	fields.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k.String())
		return true
	})
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = w.appendMessage(b, fields.Get(protoreflect.ValueOfString(k).MapKey()).Message())
	}
	return append(b, '}')
}

// appendValue appends a google.protobuf.Value; an unset one is null.
func (w *dataWriter) appendValue(b []byte, m protoreflect.Message) []byte {
	od := m.Descriptor().Oneofs().ByName("kind")
	fd := m.WhichOneof(od)
	if fd == nil {
		return append(b, "null"...)
	}
	v := m.Get(fd)
	switch fd.Name() {
	case "number_value":
		return appendNumber(b, v.Float())
	case "string_value":
		return appendString(b, v.String())
	case "bool_value":
		return strconv.AppendBool(b, v.Bool())
	case "struct_value", "list_value":
		return w.appendMessage(b, v.Message())
	}
	return append(b, "null"...)
}

// appendNumber appends f as encoding/json writes a float64 (null for the
// values JSON cannot hold).
func appendNumber(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return appendJSON(b, f)
}

// appendString appends s as encoding/json writes it. Most strings of an
// error (names, paths, shas, ids) are printable ASCII without a quote or a
// backslash, which encoding/json writes as they are: those skip the
// encoder, the others take it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return appendJSON(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSON appends v as encoding/json writes it without HTML escaping
// (a value that does not encode is null).
func appendJSON(b []byte, v any) []byte {
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return append(b, "null"...)
	}
	out := buf.Bytes()
	return out[:len(out)-1] // Encode's newline
}

// encodeData is the JSON text of d, each listed violation's value written
// from values (when given).
func encodeData(d *ghopsv1.ErrorData, values [][]byte) []byte {
	w := &dataWriter{values: values}
	return w.appendMessage(make([]byte, 0, 256), d.ProtoReflect())
}
