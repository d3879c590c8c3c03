package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// protoViolations runs protovalidate on a decoded request and translates
// what it finds into the AJV shape, using the tool's own schema for limits,
// patterns and allowed values so that the messages are the ones the schema
// layer would have produced:
//
//	required                      -> required (path of the object)
//	string.min_len / max_len      -> minLength / maxLength
//	string.pattern                -> pattern
//	string.in                     -> enum
//	int32.gte, int32.lte, ...     -> minimum / maximum (by which bound is broken)
//	repeated.min_items/max_items  -> minItems / maxItems
//	message.oneof                 -> not (path of the object)
//	file.content_base64 (CEL)     -> pattern on the content field, the rule the schema states with if/then
//	ref_name.*, repo_name.*       -> the shared rule's keyword, its message, params {"rule": id}
//
// Anything else keeps protovalidate's rule id as keyword and its message.
// src and root may be nil (no JSON at hand); value is then taken from the
// message.
func (t *Tool) protoViolations(msg proto.Message, src []byte, root *jvalue) []Violation {
	err := t.validator.Validate(msg)
	if err == nil {
		return nil
	}
	var ve *protovalidate.ValidationError
	if !errors.As(err, &ve) {
		// A runtime or compilation error is a bug here, not the caller's
		// fault, but the request must not pass either.
		return []Violation{{Message: "must be valid", Path: "root", Keyword: "protovalidate", Params: map[string]any{}}}
	}
	var out []Violation
	for _, pv := range ve.Violations {
		out = append(out, t.translate(pv, msg.ProtoReflect(), src, root))
	}
	if len(out) == 0 {
		out = []Violation{{Message: "must be valid", Path: "root", Keyword: "protovalidate", Params: map[string]any{}}}
	}
	return out
}

func (t *Tool) translate(pv *protovalidate.Violation, msg protoreflect.Message, src []byte, root *jvalue) Violation {
	// Walk the field path, tracking the JSON pointer, the schema node and the
	// JSON instance (when there is one) of the field and of its parent.
	path, parentPath := "", ""
	n := t.in
	var jv, jparent *jvalue = root, root
	var lastName string
	md := t.reqType.Descriptor()
	for _, el := range pv.Proto.GetField().GetElements() {
		parentPath, jparent = path, jv
		fd := md.Fields().ByNumber(protoreflect.FieldNumber(el.GetFieldNumber()))
		if fd == nil {
			break
		}
		lastName = fd.JSONName()
		path += "/" + escapePointer(lastName)
		n = nodeProp(n, lastName)
		jv = jchild(jv, lastName)
		if el.HasIndex() {
			i := int(el.GetIndex())
			path += "/" + strconv.Itoa(i)
			if n != nil {
				n = n.items
			}
			jv = jindex(jv, i)
		}
		if fd.Message() != nil {
			md = fd.Message()
		}
	}
	value := func(v *jvalue) any {
		if v != nil && src != nil {
			return v.raw(src)
		}
		return fieldValue(pv)
	}
	rule := pv.Proto.GetRuleId()
	vio := Violation{Path: displayPath(path), Keyword: rule, Message: pv.Proto.GetMessage(), Params: map[string]any{}, Value: value(jv)}
	if vio.Keyword == "" {
		vio.Keyword = "protovalidate"
	}
	if vio.Message == "" {
		vio.Message = "must be valid"
	}
	switch {
	case rule == "required":
		vio = Violation{
			Message: "must have required property '" + lastName + "'",
			Path:    displayPath(parentPath),
			Keyword: "required",
			Params:  map[string]any{"missingProperty": lastName},
			Value:   value(jparent),
		}
		if jparent == nil {
			vio.Value = nil
		}
	case rule == "message.oneof":
		vio.Keyword, vio.Message = "not", "must NOT be valid"
	case rule == "string.pattern" && n != nil && n.pattern != "":
		vio.Keyword, vio.Message = "pattern", `must match pattern "`+n.pattern+`"`
		vio.Params = map[string]any{"pattern": n.pattern}
	case rule == "string.max_len" && n != nil && n.maxLength >= 0:
		vio.Keyword, vio.Message = "maxLength", "must NOT be longer than "+strconv.Itoa(n.maxLength)+" characters"
		vio.Params = map[string]any{"limit": n.maxLength}
	case rule == "string.min_len" && n != nil && n.minLength >= 0:
		vio.Keyword, vio.Message = "minLength", "must NOT be shorter than "+strconv.Itoa(n.minLength)+" characters"
		vio.Params = map[string]any{"limit": n.minLength}
	case rule == "string.in" && n != nil && n.enum != nil:
		vio.Keyword, vio.Message = "enum", "must be equal to one of the allowed values"
		vio.Params = map[string]any{"allowedValues": n.enum}
	case strings.HasPrefix(rule, "int32.") && n != nil && n.minimum != nil && n.maximum != nil && pv.FieldValue.IsValid():
		if x := pv.FieldValue.Int(); x < *n.minimum {
			vio.Keyword, vio.Message = "minimum", "must be >= "+strconv.FormatInt(*n.minimum, 10)
			vio.Params = map[string]any{"comparison": ">=", "limit": *n.minimum}
		} else {
			vio.Keyword, vio.Message = "maximum", "must be <= "+strconv.FormatInt(*n.maximum, 10)
			vio.Params = map[string]any{"comparison": "<=", "limit": *n.maximum}
		}
	case rule == "repeated.min_items" && n != nil && n.minItems >= 0:
		vio.Keyword, vio.Message = "minItems", "must NOT have fewer than "+strconv.Itoa(n.minItems)+" items"
		vio.Params = map[string]any{"limit": n.minItems}
	case rule == "repeated.max_items" && n != nil && n.maxItems >= 0:
		vio.Keyword, vio.Message = "maxItems", "must NOT have more than "+strconv.Itoa(n.maxItems)+" items"
		vio.Params = map[string]any{"limit": n.maxItems}
	case knownStringRules[rule].broken != nil:
		vio.Keyword, vio.Message = rule[:strings.IndexByte(rule, '.')], pv.Proto.GetMessage()
		vio.Params = map[string]any{"rule": rule}
	default:
		if frag, ok := knownCEL[rule]; ok && n != nil && n.thenS != nil {
			vio.Path = displayPath(path + "/" + frag.thenField)
			vio.Keyword, vio.Message = "pattern", `must match pattern "`+frag.pattern+`"`
			vio.Params = map[string]any{"pattern": frag.pattern}
			vio.Value = nil
			if c := jchild(jv, frag.thenField); c != nil && src != nil {
				vio.Value = c.raw(src)
			} else if m, ok := messageAt(msg, pv); ok {
				if fd := m.Descriptor().Fields().ByName(protoreflect.Name(frag.thenField)); fd != nil {
					vio.Value = jsonValue(m.Get(fd).Interface())
				}
			}
		}
	}
	return vio
}

func nodeProp(n *node, name string) *node {
	if n == nil {
		return nil
	}
	return n.prop(name)
}

func jchild(v *jvalue, key string) *jvalue {
	if v == nil || v.kind != jObject {
		return nil
	}
	c, _ := v.get(key)
	return c
}

func jindex(v *jvalue, i int) *jvalue {
	if v == nil || v.kind != jArray || i < 0 || i >= len(v.elems) {
		return nil
	}
	return &v.elems[i]
}

// fieldValue converts protovalidate's field value to a JSON-ready value.
func fieldValue(pv *protovalidate.Violation) any {
	if !pv.FieldValue.IsValid() {
		return nil
	}
	return jsonValue(pv.FieldValue.Interface())
}

func jsonValue(x any) any {
	switch x := x.(type) {
	case string, bool, int32, int64, uint32, uint64:
		return x
	case protoreflect.Message:
		b, err := protojson.Marshal(x.Interface())
		if err != nil {
			return nil
		}
		var c bytes.Buffer
		if json.Compact(&c, b) != nil {
			return nil
		}
		return json.RawMessage(c.Bytes())
	case protoreflect.List:
		out := make([]any, x.Len())
		for i := range out {
			out[i] = jsonValue(x.Get(i).Interface())
		}
		return out
	}
	return nil
}

// messageAt walks the request along a violation's field path to the message
// a message-level violation is about.
func messageAt(m protoreflect.Message, pv *protovalidate.Violation) (protoreflect.Message, bool) {
	for _, el := range pv.Proto.GetField().GetElements() {
		fd := m.Descriptor().Fields().ByNumber(protoreflect.FieldNumber(el.GetFieldNumber()))
		if fd == nil || fd.Message() == nil {
			return nil, false
		}
		if el.HasIndex() {
			if !fd.IsList() {
				return nil, false
			}
			l := m.Get(fd).List()
			i := int(el.GetIndex())
			if i < 0 || i >= l.Len() {
				return nil, false
			}
			m = l.Get(i).Message()
		} else {
			if fd.IsList() || fd.IsMap() {
				return nil, false
			}
			m = m.Get(fd).Message()
		}
	}
	return m, true
}
