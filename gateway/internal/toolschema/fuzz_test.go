package toolschema

import (
	"encoding/json"
	"testing"
)

func FuzzDecode(f *testing.F) {
	seeds := []string{
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
