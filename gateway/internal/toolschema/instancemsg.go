package toolschema

import (
	"encoding/json"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// fillMessage sets m from a validated instance (readInstance's values), so
// that the arguments are parsed once: the validator's instance becomes the
// request without a second parse by protojson. It reports false, leaving m
// partly set, for anything whose reading it does not reproduce exactly
// (well-known types, bytes, null, numbers in exponent or fraction form,
// enum numbers, a field named twice, two members of one oneof, an unknown
// key); the caller then takes protojson, the reference. Where it reports
// true, m is what protojson makes of the same arguments, enum names
// translated from the contract's (held by TestFillMessageAgreesWithProtojson
// and FuzzFillMessageAgreesWithProtojson).
func fillMessage(m protoreflect.Message, obj map[string]any, names map[string]map[string]string) bool {
	md := m.Descriptor()
	if strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
		return false
	}
	fields := md.Fields()
	// set holds the fields already set, to refuse a field named twice (its
	// JSON and proto names) and two members of a oneof, as protojson does.
	var setBuf [16]protoreflect.FieldNumber
	set := setBuf[:0]
	var oneofBuf [4]protoreflect.FullName
	oneofs := oneofBuf[:0]
	for k, v := range obj {
		fd := fields.ByJSONName(k)
		if fd == nil {
			fd = fields.ByTextName(k)
		}
		if fd == nil || v == nil {
			return false
		}
		for _, n := range set {
			if n == fd.Number() {
				return false
			}
		}
		set = append(set, fd.Number())
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			for _, n := range oneofs {
				if n == od.FullName() {
					return false
				}
			}
			oneofs = append(oneofs, od.FullName())
		}
		switch {
		case fd.IsList():
			a, ok := v.([]any)
			if !ok {
				return false
			}
			list := m.Mutable(fd).List()
			for _, e := range a {
				if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
					o, ok := e.(map[string]any)
					if !ok {
						return false
					}
					ev := list.NewElement()
					if !fillMessage(ev.Message(), o, names) {
						return false
					}
					list.Append(ev)
					continue
				}
				ev, ok := scalarValue(fd, e, names)
				if !ok {
					return false
				}
				list.Append(ev)
			}
		case fd.IsMap():
			o, ok := v.(map[string]any)
			if !ok || fd.MapKey().Kind() != protoreflect.StringKind {
				return false
			}
			mm := m.Mutable(fd).Map()
			vd := fd.MapValue()
			for mk, mv := range o {
				if mv == nil {
					return false
				}
				var ev protoreflect.Value
				if vd.Kind() == protoreflect.MessageKind || vd.Kind() == protoreflect.GroupKind {
					vo, ok := mv.(map[string]any)
					if !ok {
						return false
					}
					ev = mm.NewValue()
					if !fillMessage(ev.Message(), vo, names) {
						return false
					}
				} else if ev, ok = scalarValue(vd, mv, names); !ok {
					return false
				}
				mm.Set(protoreflect.ValueOfString(mk).MapKey(), ev)
			}
		case fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind:
			o, ok := v.(map[string]any)
			if !ok || !fillMessage(m.Mutable(fd).Message(), o, names) {
				return false
			}
		default:
			sv, ok := scalarValue(fd, v, names)
			if !ok {
				return false
			}
			m.Set(fd, sv)
		}
	}
	return true
}

// scalarValue is the value of a scalar field from an instance's value, in
// the forms protojson reads the same way: strings, booleans, integers
// written as plain integers, floating-point numbers within range, enums by
// (contract or proto) name.
func scalarValue(fd protoreflect.FieldDescriptor, v any, names map[string]map[string]string) (protoreflect.Value, bool) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if s, ok := v.(string); ok {
			return protoreflect.ValueOfString(s), true
		}
	case protoreflect.BoolKind:
		if b, ok := v.(bool); ok {
			return protoreflect.ValueOfBool(b), true
		}
	case protoreflect.EnumKind:
		s, ok := v.(string)
		if !ok {
			break
		}
		ed := fd.Enum()
		if n, ok := names[string(ed.FullName())][s]; ok {
			s = n
		}
		if ev := ed.Values().ByName(protoreflect.Name(s)); ev != nil {
			return protoreflect.ValueOfEnum(ev.Number()), true
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if n, ok := v.(json.Number); ok {
			if i, err := strconv.ParseInt(string(n), 10, 32); err == nil {
				return protoreflect.ValueOfInt32(int32(i)), true
			}
		}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if n, ok := v.(json.Number); ok {
			if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
				return protoreflect.ValueOfInt64(i), true
			}
		}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if n, ok := v.(json.Number); ok {
			if i, err := strconv.ParseUint(string(n), 10, 32); err == nil {
				return protoreflect.ValueOfUint32(uint32(i)), true
			}
		}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if n, ok := v.(json.Number); ok {
			if i, err := strconv.ParseUint(string(n), 10, 64); err == nil {
				return protoreflect.ValueOfUint64(i), true
			}
		}
	case protoreflect.DoubleKind:
		if n, ok := v.(json.Number); ok {
			if f, err := strconv.ParseFloat(string(n), 64); err == nil {
				return protoreflect.ValueOfFloat64(f), true
			}
		}
	case protoreflect.FloatKind:
		if n, ok := v.(json.Number); ok {
			if f, err := strconv.ParseFloat(string(n), 32); err == nil {
				return protoreflect.ValueOfFloat32(float32(f)), true
			}
		}
	}
	return protoreflect.Value{}, false
}
