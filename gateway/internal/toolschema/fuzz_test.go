package toolschema

import (
	"encoding/json"
	"testing"

	"buf.build/go/protovalidate"
)

// decodeFuzzSeeds are FuzzDecode's seed arguments, also the corpus of the
// fast check's soundness test (fastcheck_test.go).
var decodeFuzzSeeds = []string{
	``, `{}`, `[]`, `null`, `"x"`, `1`, `{"query":"x"}`, `{"query":"x","page":2.0,"per_page":1e2}`,
	`{"query":"x","page":2.0000000000000001}`, `{"query":"x","page":-0}`, `{"query":"x","page":1e400}`,
	`{"query":"x","page":0.1e1}`, `{"query":"x","page":10e-1}`, `{"query":"\u00e9\ud83d\ude00"}`,
	`{"query":"\ud800"}`, `{"query":"a","query":"b"}`, `{"repo":"o/r","prNumber":5}`, `{"repo":"o/r","pr_number":5}`,
	`{"repo":"o/r","path":"/","branch":"a","ref":"b"}`,
	`{"repo":"o/r","branch":"main","message":"m","files":[{"path":"a","content":"!!","encoding":"base64"}]}`,
	`{"repo":"o/r","branch":"main","message":"m","files":[{"path":"a","content":"aGk=","encoding":"base64"},{"path":"b","content":null}]}`,
	`{"repo":"o/r","sha":"abcdef0"}`, `{"repo":"o/r","state":"all","page":100}`, `{"a":{"b":[[[[{}]]]]}}`,
	`{"repo":"../..","branch":"a/../../../x","message":"m","patch":"p"}`, `{"repo":"o/r","ref":"a.lock/.b//c@{"}`,
	`{"repo":"o/r","path":"a","branch":"x\u0000y"}`, "{\"query\":\"\xff\"}", `{"query":"x"} {}`, `{"query":"x",}`, `{"query":01}`,
}

func FuzzDecode(f *testing.F) {
	seeds := decodeFuzzSeeds
	n := len(registry(f).Tools())
	for i, s := range seeds {
		f.Add(uint8(i%n), []byte(s))
		f.Add(uint8((i+7)%n), []byte(s))
	}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		tools := registry(t).Tools()
		tl := tools[int(which)%len(tools)]
		msg, vs, st := tl.decode(json.RawMessage(args))
		if (msg == nil) == (len(vs) == 0) {
			t.Fatalf("%s %q: message %v with %d violations", tl.Name, args, msg, len(vs))
		}
		if st == stageProtojson {
			t.Fatalf("%s %q: schema accepted what a later stage refused: %s", tl.Name, args, mustMarshal(t, vs))
		}
		for _, v := range vs {
			if v.Message == "" || v.Keyword == "" || v.Path == "" {
				t.Fatalf("%s %q: incomplete violation %+v", tl.Name, args, v)
			}
		}
		if _, err := json.Marshal(vs); err != nil {
			t.Fatalf("violations do not marshal: %v", err)
		}
		if msg != nil {
			if _, err := tl.EncodeResult(tl.NewResponse()); err != nil {
				t.Fatalf("EncodeResult: %v", err)
			}
		}
	})
}

// FuzzDecodeKinds holds the test tool of every field kind to the same rule
// as the real tools: what the schema accepts decodes, and protovalidate (the
// service's check) accepts it too.
func FuzzDecodeKinds(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"ref":"main"}`, `{"id":9223372036854775807,"sha":"abcdef0"}`, `{"id":1,"prNumber":1,"big":18446744073709551615}`,
		`{"id":1,"ref":"main","state":"open","labels":["a"],"items":[{"name":"n"}],"env":{"k":"v"},"draft":true,"ratio":0.5,"since":"2024-01-02T03:04:05Z","limit":7}`,
		`{"id":1e2,"ref":"main"}`, `{"id":1,"ref":"main","ratio":1e400}`, `{"id":1,"ref":"main","since":"2024-01-02t03:04:05z"}`,
		`{"id":1,"ref":"main","since":"0000-01-01T00:00:00Z"}`, `{"id":1,"ref":"main","env":{"":""}}`, `{"id":1,"ref":"..","sha":"x"}`,
	} {
		f.Add([]byte(s))
	}
	tl := kindsTool(f)
	validator, err := protovalidate.New()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		msg, vs, st := tl.decode(json.RawMessage(args))
		if (msg == nil) == (len(vs) == 0) {
			t.Fatalf("%q: message %v with %d violations", args, msg, len(vs))
		}
		if st == stageProtojson {
			t.Fatalf("%q: schema accepted what protojson refused: %s", args, mustMarshal(t, vs))
		}
		if msg != nil {
			if err := validator.Validate(msg); err != nil {
				t.Fatalf("%q: schema accepted what protovalidate refuses: %v", args, err)
			}
		}
	})
}
