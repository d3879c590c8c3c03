package rpcerror

import (
	"encoding/json"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// fillData sets every field of m (recursively) to a value that is not its
// zero, so that a field added to errors.proto's ErrorData is covered.
func fillData(m protoreflect.Message) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		switch {
		case fd.Message() != nil && fd.Message().FullName() == "google.protobuf.Struct":
			s, _ := structpb.NewStruct(map[string]any{"b": "x", "a": []any{1.5, true}})
			m.Set(fd, protoreflect.ValueOfMessage(s.ProtoReflect()))
		case fd.Message() != nil && fd.Message().FullName() == "google.protobuf.Value":
			m.Set(fd, protoreflect.ValueOfMessage(structpb.NewStringValue("v").ProtoReflect()))
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			fillData(m.Mutable(fd).List().AppendMutable().Message())
		case fd.IsList():
			m.Mutable(fd).List().Append(protoreflect.ValueOfString("s"))
		case fd.Kind() == protoreflect.MessageKind:
			fillData(m.Mutable(fd).Message())
		case fd.Kind() == protoreflect.StringKind:
			m.Set(fd, protoreflect.ValueOfString(string(fd.Name())))
		case fd.Kind() == protoreflect.Int32Kind:
			m.Set(fd, protoreflect.ValueOfInt32(7))
		case fd.Kind() == protoreflect.Int64Kind:
			m.Set(fd, protoreflect.ValueOfInt64(1795000000))
		}
	}
}

// TestEncodedDataDecodes: the data object the gateway writes is read back
// by protojson (the client's decoder) into the very message it was written
// from, every field of ErrorData filled: the members' names are the
// json_names of errors.proto, and nothing is lost on the way.
func TestEncodedDataDecodes(t *testing.T) {
	fixedNow(t)
	tests := []struct {
		name string
		e    func() *Error
	}{
		{"every field", func() *Error {
			e := New(NotFound, "", Tool("fetch"))
			fillData(e.Data.ProtoReflect())
			return e
		}},
		{"zero members written where the contract says always", func() *Error {
			e := New(RateLimited, "")
			e.Data.RateLimit = &RateLimit{}
			e.Data.Resource = &Resource{}
			e.Data.Patch = &Patch{}
			e.Data.Policy = &Policy{}
			e.Data.Protocol = &Protocol{}
			return e
		}},
		{"violations", func() *Error {
			return InvalidParams("search", []Violation{{Message: "m", Path: "root", Keyword: "required",
				Params: map[string]any{"missingProperty": "query", "n": 3}, Value: json.RawMessage(`{"z":1,"a":[true,null]}`)}})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			enc := tc.e().Encoded()
			var got ghopsv1.ErrorData
			if err := protojson.Unmarshal(enc.DataJSON, &got); err != nil {
				t.Fatalf("%s: %v", enc.DataJSON, err)
			}
			if !proto.Equal(enc.Data, &got) {
				t.Errorf("decoded data differs:\nwritten %v\ndecoded %v\nJSON    %s", enc.Data, &got, enc.DataJSON)
			}
			var generic map[string]any
			if err := json.Unmarshal(enc.DataJSON, &generic); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"tool", "timestamp"} {
				if _, ok := generic[k]; !ok {
					t.Errorf("%s missing: %s", k, enc.DataJSON)
				}
			}
		})
	}
}

// TestEncodedMemberOrder pins the wire shape of the zero members and the
// declaration order (tool first, timestamp last).
func TestEncodedMemberOrder(t *testing.T) {
	fixedNow(t)
	e := New(RateLimited, "", Tool("search"))
	e.Data.RateLimit = &RateLimit{Limit: 5000}
	ra := int32(0)
	e.Data.RetryAfter = &ra
	e.Data.Policy = &Policy{Rule: "rate_per_minute"}
	want := `{"tool":"search","retryAfter":0,"rateLimit":{"limit":5000,"remaining":0,"reset":0,"retryAfter":0},"policy":{"rule":"rate_per_minute"},"timestamp":"` + Timestamp(now()) + `"}`
	if got := string(e.Encoded().DataJSON); got != want {
		t.Errorf("data\n got %s\nwant %s", got, want)
	}
}
