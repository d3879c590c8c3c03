package toolschema

import (
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// answerID is an id an answer gives: the fields from the response's root
// to it (through messages and lists), its name and its resource kind.
type answerID struct {
	path []protoreflect.FieldDescriptor
	name string
	kind ghopsv1.ResourceKind
}

// resourceKind is fd's (ghops.v1.resource) kind, or unspecified.
func resourceKind(fd protoreflect.FieldDescriptor) ghopsv1.ResourceKind {
	k, _ := proto.GetExtension(fd.Options(), ghopsv1.E_Resource).(ghopsv1.ResourceKind)
	return k
}

// is64 reports a 64-bit integer field.
func is64(fd protoreflect.FieldDescriptor) bool {
	switch fd.Kind() {
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return true
	}
	return false
}

// isInteger reports an integer field of any width.
func isInteger(fd protoreflect.FieldDescriptor) bool {
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return true
	}
	return is64(fd)
}

// answerIDs walks md for its ids: 64-bit integers named id or *_id, and
// integers marked with a resource kind.
func answerIDs(md protoreflect.MessageDescriptor, at []protoreflect.FieldDescriptor, seen map[protoreflect.FullName]bool) []answerID {
	if seen[md.FullName()] {
		return nil
	}
	seen[md.FullName()] = true
	defer delete(seen, md.FullName())
	var ids []answerID
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		path := append(append([]protoreflect.FieldDescriptor{}, at...), fd)
		switch {
		case fd.IsMap():
		case fd.Kind() == protoreflect.MessageKind:
			if fd.Message().FullName().Parent() != "google.protobuf" {
				ids = append(ids, answerIDs(fd.Message(), path, seen)...)
			}
		case is64(fd) && (fd.Name() == "id" || strings.HasSuffix(string(fd.Name()), "_id")),
			isInteger(fd) && resourceKind(fd) != ghopsv1.ResourceKind_RESOURCE_KIND_UNSPECIFIED:
			ids = append(ids, answerID{path: path, name: string(fd.Name()), kind: resourceKind(fd)})
		}
	}
	return ids
}

// takes reports whether input field in takes the id: the same resource
// kind, or the same name (other than a bare "id", which names a different
// thing in each message).
func (a answerID) takes(in protoreflect.FieldDescriptor) bool {
	if a.kind != ghopsv1.ResourceKind_RESOURCE_KIND_UNSPECIFIED && resourceKind(in) == a.kind {
		return true
	}
	return a.name != "id" && string(in.Name()) == a.name
}

// answerValue is the JSON value tl's answer gives for id when it holds n.
func answerValue(t *testing.T, tl *Tool, id answerID, n int64) json.RawMessage {
	t.Helper()
	resp := tl.NewResponse()
	m := resp.ProtoReflect()
	for _, fd := range id.path[:len(id.path)-1] {
		if fd.IsList() {
			l := m.Mutable(fd).List()
			v := l.NewElement()
			l.Append(v)
			m = v.Message()
			continue
		}
		m = m.Mutable(fd).Message()
	}
	last := id.path[len(id.path)-1]
	v := protoreflect.ValueOfInt64(n)
	switch last.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		v = protoreflect.ValueOfInt32(int32(n))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		v = protoreflect.ValueOfUint32(uint32(n))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		v = protoreflect.ValueOfUint64(uint64(n))
	}
	m.Set(last, v)
	out, err := tl.EncodeResult(resp)
	if err != nil {
		t.Fatalf("%s: EncodeResult: %v", tl.Name, err)
	}
	// Follow the path in the answer's JSON (proto names; a list's first item).
	var raw json.RawMessage = out
	for _, fd := range id.path {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			t.Fatalf("%s: %s: %v", tl.Name, out, err)
		}
		raw = obj[string(fd.Name())]
		if fd.IsList() && fd != last {
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
				t.Fatalf("%s: %s: list %s: %v", tl.Name, out, fd.Name(), err)
			}
			raw = items[0]
		}
	}
	return raw
}

// TestAnswerIDsPassBack feeds every id an answer gives, as the answer
// writes it, into every tool whose request takes it (by resource kind or
// name), and checks the input validation accepts it there: a model passes
// values back as given. It walks the descriptors, so every tool added is
// covered.
func TestAnswerIDsPassBack(t *testing.T) {
	tools := registry(t).Tools()
	pairs := 0
	for _, out := range tools {
		for _, id := range answerIDs(out.respType.Descriptor(), nil, map[protoreflect.FullName]bool{}) {
			for _, in := range tools {
				fds := in.reqType.Descriptor().Fields()
				for i := range fds.Len() {
					fd := fds.Get(i)
					if !id.takes(fd) {
						continue
					}
					pairs++
					t.Run(out.Name+"."+id.name+"->"+in.Name+"."+string(fd.Name()), func(t *testing.T) {
						for _, n := range []int64{1, 4242424242, MaxExactInt} {
							if !isInteger(fd) || !is64(fd) && n > 1<<31-1 {
								n = 1
							}
							val := answerValue(t, out, id, n)
							args := `{"` + fd.JSONName() + `":` + string(val) + `}`
							_, vs := in.Decode(json.RawMessage(args))
							if refused(vs, fd) {
								t.Errorf("%s gives %s = %s; %s refuses it as %s", out.Name, id.name, val, in.Name, fd.JSONName())
							}
						}
						// The check bites: protojson's string form, which
						// answers gave before, is refused by the input.
						if is64(fd) {
							_, vs := in.Decode(json.RawMessage(`{"` + fd.JSONName() + `":"4242424242"}`))
							if !refused(vs, fd) {
								t.Errorf("%s takes %s as a string too: the check cannot fail", in.Name, fd.JSONName())
							}
						}
					})
				}
			}
		}
	}
	// get_ci_failures' job_id into get_job_log, a review's id into
	// submit_review, at least.
	if pairs < 2 {
		t.Fatalf("%d answer id and input pairs; the walk finds too few", pairs)
	}
	t.Logf("%d answer id and input pairs", pairs)
}

// refused reports a violation of input field fd among vs.
func refused(vs []Violation, fd protoreflect.FieldDescriptor) bool {
	for _, v := range vs {
		if v.Path == "/"+fd.JSONName() {
			return true
		}
	}
	return false
}
