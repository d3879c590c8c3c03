package toolschema

import (
	"encoding/json"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// protoEnumNames rewrites, in a validated instance, every enum value from the
// contract's name (lowercase, unprefixed: "open") to its proto name
// (STATE_OPEN), which is what protojson reads. Our own code because protojson
// has no option for another naming of enum values; names come from the
// generated table (tools/schemagen), not from a second copy of the rule.
// Tools without enums never get here.
func protoEnumNames(md protoreflect.MessageDescriptor, obj map[string]any, names map[string]map[string]string) {
	for k, v := range obj {
		fd := md.Fields().ByJSONName(k)
		if fd == nil {
			fd = md.Fields().ByTextName(k) // protojson reads both names
		}
		if fd == nil {
			continue
		}
		if fd.IsMap() {
			fd = fd.MapValue()
			if m, ok := v.(map[string]any); ok {
				for mk, mv := range m {
					m[mk] = protoEnumValue(fd, mv, names)
				}
			}
			continue
		}
		if fd.IsList() {
			if a, ok := v.([]any); ok {
				for i := range a {
					a[i] = protoEnumValue(fd, a[i], names)
				}
			}
			continue
		}
		obj[k] = protoEnumValue(fd, v, names)
	}
}

func protoEnumValue(fd protoreflect.FieldDescriptor, v any, names map[string]map[string]string) any {
	switch fd.Kind() {
	case protoreflect.EnumKind:
		if s, ok := v.(string); ok {
			if n, ok := names[string(fd.Enum().FullName())][s]; ok {
				return n
			}
		}
	case protoreflect.MessageKind:
		if m, ok := v.(map[string]any); ok {
			protoEnumNames(fd.Message(), m, names)
		}
	}
	return v
}

// encodeInstance renders a rewritten instance for protojson; numbers stay
// as sent (json.Number).
func encodeInstance(inst any) ([]byte, error) { return json.Marshal(inst) }
