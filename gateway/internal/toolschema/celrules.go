package toolschema

import (
	"errors"
	"strconv"
	"strings"

	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// celViolations runs protovalidate on a decoded request for the tool's CEL
// rules that JSON Schema cannot express (the generator lists them; every
// other rule is in the schema, so protovalidate stays the service's check
// for those) and reports each broken one AJV-style, as the shared string
// rules are: keyword the rule id's first part, params {"rule": id}, the
// rule's own message, the path and value of the message or field it is on.
func (t *Tool) celViolations(msg proto.Message, src *source) []Violation {
	err := t.validator.Validate(msg)
	if err == nil {
		return nil
	}
	var ve *protovalidate.ValidationError
	if !errors.As(err, &ve) {
		// A compilation or runtime error is a bug here, not the caller's
		// fault; the service checks the request again.
		return nil
	}
	var out []Violation
	for _, pv := range ve.Violations {
		id := pv.Proto.GetRuleId()
		if !t.cel[id] {
			continue
		}
		loc := jsonLocation(t.reqType.Descriptor(), pv)
		keyword := id
		if i := strings.IndexByte(id, '.'); i > 0 {
			keyword = id[:i]
		}
		out = append(out, Violation{
			Message: pv.Proto.GetMessage(),
			Path:    displayPath(pointer(loc)),
			Keyword: keyword,
			Params:  map[string]any{"rule": id},
			Value:   src.raw(loc),
		})
		if len(out) == maxViolations {
			break
		}
	}
	return out
}

// jsonLocation turns a violation's field path into the instance location
// of the arguments (JSON names, list indexes, map keys).
func jsonLocation(md protoreflect.MessageDescriptor, pv *protovalidate.Violation) []string {
	var loc []string
	for _, el := range pv.Proto.GetField().GetElements() {
		fd := md.Fields().ByNumber(protoreflect.FieldNumber(el.GetFieldNumber()))
		if fd == nil {
			break
		}
		loc = append(loc, fd.JSONName())
		switch {
		case el.HasIndex():
			loc = append(loc, strconv.FormatUint(el.GetIndex(), 10))
		case el.HasStringKey():
			loc = append(loc, el.GetStringKey())
		}
		if fd.IsMap() {
			fd = fd.MapValue()
		}
		if fd.Message() != nil {
			md = fd.Message()
		}
	}
	return loc
}
