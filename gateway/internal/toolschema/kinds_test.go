package toolschema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"ghops.dev/gateway/internal/toolschema/internal/kindsv1"
)

// kindsTool is the test tool of every field kind (testdata/proto), with the
// schemas make generate wrote for it.
func kindsTool(tb testing.TB) *Tool {
	tb.Helper()
	r, err := newRegistry(kindsv1.File_kindstest_v1_kinds_proto.Services().ByName("KindsService"), kindsv1.ToolSchemas)
	if err != nil {
		tb.Fatalf("newRegistry: %v", err)
	}
	tl, ok := r.Lookup("kinds")
	if !ok {
		tb.Fatal("no tool kinds")
	}
	return tl
}

// TestKindsAccepted decodes valid values of every kind into the request as
// protojson would read the proto names.
func TestKindsAccepted(t *testing.T) {
	tl := kindsTool(t)
	tests := []struct {
		name, args, want string
	}{
		{"int64 and one of the oneof", `{"id":1,"ref":"main"}`, `{"id":"1","ref":"main"}`},
		{"int64 maximum, exact", `{"id":9223372036854775807,"sha":"abcdef0"}`, `{"id":"9223372036854775807","sha":"abcdef0"}`},
		{"uint64 maximum, exact", `{"id":1,"prNumber":5,"big":18446744073709551615}`, `{"id":"1","big":"18446744073709551615","prNumber":5}`},
		{"enum by its contract name", `{"id":1,"ref":"main","state":"closed"}`, `{"id":"1","state":"STATE_CLOSED","ref":"main"}`},
		{"repeated strings", `{"id":1,"ref":"main","labels":["bug","ui"]}`, `{"id":"1","labels":["bug","ui"],"ref":"main"}`},
		{"repeated messages", `{"id":1,"ref":"main","items":[{"name":"a"},{"name":"b"}]}`, `{"id":"1","items":[{"name":"a"},{"name":"b"}],"ref":"main"}`},
		{"map", `{"id":1,"ref":"main","env":{"A":"x","B":""}}`, `{"id":"1","env":{"A":"x","B":""},"ref":"main"}`},
		{"optional bool false is kept", `{"id":1,"ref":"main","draft":false}`, `{"id":"1","ref":"main","draft":false}`},
		{"double bounds inclusive", `{"id":1,"ref":"main","ratio":1}`, `{"id":"1","ref":"main","ratio":1}`},
		{"double fraction", `{"id":1,"ref":"main","ratio":0.25}`, `{"id":"1","ref":"main","ratio":0.25}`},
		{"timestamp RFC 3339 with offset", `{"id":1,"ref":"main","since":"2024-01-02T03:04:05+02:00"}`, `{"id":"1","ref":"main","since":"2024-01-02T01:04:05Z"}`},
		{"optional int32", `{"id":1,"ref":"main","limit":100,"draft":true}`, `{"id":"1","ref":"main","draft":true,"limit":100}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg, vs := tl.Decode(json.RawMessage(tc.args))
			if len(vs) > 0 {
				t.Fatalf("violations: %s", mustMarshal(t, vs))
			}
			b, err := protojson.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			if got := compactJSON(t, string(b)); got != tc.want {
				t.Errorf("decoded\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestKindsRefused records each refusal's payload in testdata/kinds.golden.json
// (go test -update rewrites it; review the diff).
func TestKindsRefused(t *testing.T) {
	tl := kindsTool(t)
	tests := []struct {
		name, args string
	}{
		{"int64 as a string", `{"id":"1","ref":"main"}`},
		{"int64 zero breaks gt 0", `{"id":0,"ref":"main"}`},
		{"int64 above its range", `{"id":9223372036854775808,"ref":"main"}`},
		{"int64 fraction", `{"id":1.5,"ref":"main"}`},
		{"uint64 negative", `{"id":1,"ref":"main","big":-1}`},
		{"enum proto name", `{"id":1,"ref":"main","state":"STATE_OPEN"}`},
		{"enum zero value", `{"id":1,"ref":"main","state":"unspecified"}`},
		{"enum number", `{"id":1,"ref":"main","state":1}`},
		{"repeated duplicate", `{"id":1,"ref":"main","labels":["a","b","a"]}`},
		{"repeated too many", `{"id":1,"ref":"main","labels":["a","b","c","d"]}`},
		{"repeated item rule", `{"id":1,"ref":"main","labels":[""]}`},
		{"repeated message required", `{"id":1,"ref":"main","items":[{"name":"a"},{}]}`},
		{"map value rule", `{"id":1,"ref":"main","env":{"A":"toolong"}}`},
		{"map too many pairs", `{"id":1,"ref":"main","env":{"A":"","B":"","C":""}}`},
		{"map value type", `{"id":1,"ref":"main","env":{"A":1}}`},
		{"oneof none", `{"id":1}`},
		{"oneof two", `{"id":1,"ref":"main","sha":"abcdef0"}`},
		{"oneof member rule", `{"id":1,"sha":"xyz"}`},
		{"shared rule on a oneof member", `{"id":1,"ref":"a..b"}`},
		{"bool as a string", `{"id":1,"ref":"main","draft":"true"}`},
		{"double above", `{"id":1,"ref":"main","ratio":1.5}`},
		{"double as NaN string", `{"id":1,"ref":"main","ratio":"NaN"}`},
		{"timestamp not RFC 3339", `{"id":1,"ref":"main","since":"2024-01-02"}`},
		{"timestamp lower-case t, which protojson refuses", `{"id":1,"ref":"main","since":"2024-01-02t03:04:05Z"}`},
		{"timestamp month 13", `{"id":1,"ref":"main","since":"2024-13-02T03:04:05Z"}`},
		{"optional int32 below", `{"id":1,"ref":"main","limit":0}`},
		{"unknown property named", `{"id":1,"ref":"main","perPage":5}`},
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg, vs := tl.Decode(json.RawMessage(tc.args))
			if msg != nil || len(vs) == 0 {
				t.Fatalf("accepted: %v", msg)
			}
			sep := ","
			if i == len(tests)-1 {
				sep = ""
			}
			b.WriteString("  " + marshalPlain(t, tc.name+": "+tc.args) + ": " + marshalPlain(t, vs) + sep + "\n")
		})
	}
	b.WriteString("}\n")
	golden := filepath.Join("testdata", "kinds.golden.json")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("refusals differ from %s (run go test -update after checking the change):\n%s", golden, b.String())
	}
}

// TestKindsSchema pins the generated input schema of every kind.
func TestKindsSchema(t *testing.T) {
	tl := kindsTool(t)
	for _, want := range []string{
		`"id":{"type":"integer","description":"An int64 id, positive.","minimum":1,"maximum":9223372036854775807}`,
		`"big":{"type":"integer","description":"A uint64 with no rule: the whole uint64 range.","minimum":0,"maximum":18446744073709551615}`,
		`"state":{"type":"string","description":"An enum.","enum":["open","closed"]}`,
		`"items":{"type":"string","minLength":1,"maxLength":20},"maxItems":3,"uniqueItems":true`,
		`"env":{"type":"object","description":"A map of strings.","additionalProperties":{"type":"string","maxLength":5},"maxProperties":2}`,
		`"oneOf":[{"required":["ref"]},{"required":["sha"]},{"required":["prNumber"]}]`,
		`"draft":{"type":"boolean"`,
		`"ratio":{"type":"number","description":"A double between 0 and 1.","minimum":0,"maximum":1}`,
		`"since":{"type":"string","description":"A timestamp (RFC 3339).","format":"date-time","pattern":"^(?:[1-9][0-9]{3}|`,
		`"required":["id"]`,
	} {
		if !strings.Contains(string(tl.ValidationSchema), want) {
			t.Errorf("input schema lacks %s:\n%s", want, tl.ValidationSchema)
		}
	}
}
