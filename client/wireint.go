package client

import (
	"bytes"
	"encoding/json"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// marshalArgs encodes a request by the contract's wire rules: protojson with
// JSON names, except that 64-bit integers are JSON numbers. protojson writes
// them as decimal strings and has no option to do otherwise, while the
// published input schemas take one form per value, integers (docs/architecture.md,
// field kinds), so get_job_log's job_id would be refused as "must be integer".
// The strings protojson wrote are turned back into numbers here, guided by
// the message's descriptor.
func marshalArgs(req proto.Message) ([]byte, error) {
	b, err := (protojson.MarshalOptions{}).Marshal(req)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if !numbers64(req.ProtoReflect().Descriptor(), v) {
		return b, nil
	}
	return json.Marshal(v)
}

// numbers64 turns the 64-bit integer strings of obj (a message as protojson
// wrote it) into json.Numbers in place; it reports whether it changed any.
func numbers64(md protoreflect.MessageDescriptor, obj any) bool {
	m, ok := obj.(map[string]any)
	if !ok {
		return false
	}
	changed := false
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		val, ok := m[fd.JSONName()]
		if !ok {
			continue
		}
		switch {
		case fd.IsMap():
			if vals, ok := val.(map[string]any); ok {
				for k, x := range vals {
					if n, ok := number64(fd.MapValue(), x); ok {
						vals[k], changed = n, true
					} else if fd.MapValue().Kind() == protoreflect.MessageKind {
						changed = numbers64(fd.MapValue().Message(), x) || changed
					}
				}
			}
		case fd.IsList():
			if items, ok := val.([]any); ok {
				for j, x := range items {
					if n, ok := number64(fd, x); ok {
						items[j], changed = n, true
					} else if fd.Kind() == protoreflect.MessageKind {
						changed = numbers64(fd.Message(), x) || changed
					}
				}
			}
		default:
			if n, ok := number64(fd, val); ok {
				m[fd.JSONName()], changed = n, true
			} else if fd.Kind() == protoreflect.MessageKind && !wellKnown(fd.Message()) {
				changed = numbers64(fd.Message(), val) || changed
			}
		}
	}
	return changed
}

// number64 returns x as a JSON number when fd is a 64-bit integer field and
// x the decimal string protojson writes for it.
func number64(fd protoreflect.FieldDescriptor, x any) (json.Number, bool) {
	switch fd.Kind() {
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
	default:
		return "", false
	}
	s, ok := x.(string)
	if !ok {
		return "", false
	}
	n := json.Number(s)
	if _, err := n.Int64(); err != nil {
		if _, err := n.Float64(); err != nil { // uint64 above 2^63
			return "", false
		}
	}
	return n, true
}

// wellKnown reports a google.protobuf type, which protojson writes in its
// own form (a Timestamp is a string), not as an object of its fields.
func wellKnown(md protoreflect.MessageDescriptor) bool {
	return md.ParentFile().Package() == "google.protobuf"
}
