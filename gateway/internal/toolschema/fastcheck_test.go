package toolschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// soundness fails t when the fast check of tl accepts args and the library
// does not, and reports whether the fast check accepted them.
func soundness(t *testing.T, tl *Tool, args string) bool {
	t.Helper()
	inst, err := readInstance([]byte(args))
	if err != nil || !tl.fast.accepts(inst) {
		return false
	}
	if err := tl.schema.Validate(inst); err != nil {
		t.Errorf("%s: fast check accepts %s, the library refuses it: %v", tl.Name, args, err)
	}
	return true
}

// decodeCorpus is every argument the decode tests and FuzzDecode's seeds
// name: the valid ones, the refused ones and the seeds.
func decodeCorpus() []string {
	var corpus []string
	for _, c := range decodeValidCases() {
		corpus = append(corpus, c.args)
	}
	for _, c := range decodeViolationCases() {
		corpus = append(corpus, c.args)
	}
	return append(corpus, decodeFuzzSeeds...)
}

// TestFastSoundTools holds every tool's fast check to its library on the
// decode tests' valid and refused arguments (of every tool, given to every
// tool), FuzzDecode's seeds and mutations of each tool's valid arguments
// (mutations).
func TestFastSoundTools(t *testing.T) {
	total, accepted := overToolCorpus(t, soundness)
	t.Logf("%d arguments, %d accepted by the fast check", total, accepted)
	if accepted < total/20 {
		t.Errorf("the fast check accepted only %d of %d arguments", accepted, total)
	}
}

// overToolCorpus runs judge on every tool with every argument of
// decodeCorpus and of the tool's mutations, one subtest a tool, and returns
// how many arguments there were and how many judge reported true for.
func overToolCorpus(t *testing.T, judge func(*testing.T, *Tool, string) bool) (total, hits int) {
	common := decodeCorpus()
	for _, tl := range registry(t).Tools() {
		t.Run(tl.Name, func(t *testing.T) {
			corpus := append(slices.Clone(common), mutations(t, tl)...)
			for _, args := range corpus {
				if judge(t, tl, args) {
					hits++
				}
			}
			total += len(corpus)
		})
	}
	return total, hits
}

// mutations are variations of tl's valid arguments (decodeValidCases): each
// property of its schema set to values of every JSON type, to lengths and
// numbers on and beside its bounds (in ASCII and in multi-byte characters),
// to each enum value and near misses; each property left out; an extra
// property; every property of a "not" (at most one of) given.
func mutations(t *testing.T, tl *Tool) []string {
	t.Helper()
	var base map[string]json.RawMessage
	for _, c := range decodeValidCases() {
		if c.tool == tl.Name {
			if err := json.Unmarshal([]byte(c.args), &base); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	root := schemaDoc(t, tl.ValidationSchema)
	props, _ := root["properties"].(map[string]any)
	with := func(name string, v json.RawMessage) string {
		m := map[string]json.RawMessage{}
		for k, val := range base {
			m[k] = val
		}
		if v == nil {
			delete(m, name)
		} else {
			m[name] = v
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("%s=%s: %v", name, v, err)
		}
		return string(b)
	}
	var out []string
	for name, sub := range props {
		out = append(out, with(name, nil))
		for _, v := range valuesFor(sub) {
			out = append(out, with(name, json.RawMessage(v)))
		}
	}
	out = append(out, with("zz", json.RawMessage(`1`)), with("zz", json.RawMessage(`"x"`)))
	if not, ok := root["not"].(map[string]any); ok {
		m := map[string]json.RawMessage{}
		for k, val := range base {
			m[k] = val
		}
		for _, n := range not["required"].([]any) {
			m[n.(string)] = json.RawMessage(`"main"`)
		}
		b, _ := json.Marshal(m)
		out = append(out, string(b))
	}
	return out
}

func schemaDoc(t *testing.T, schema []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// anyValues are values of every JSON type and number form.
var anyValues = []string{
	`null`, `true`, `false`, `0`, `-0`, `1`, `-1`, `1.0`, `1e2`, `1E0`, `0.1e1`, `2.5`, `0.5`, `1e400`, `-1e400`,
	`100`, `101`, `2147483647`, `2147483648`, `9223372036854775807`, `9223372036854775808`, `-9223372036854775809`,
	`""`, `"a"`, `"o/r"`, `"main"`, `"a/../b"`, `"abcdef1"`, `"2026-01-02T03:04:05Z"`, `"😀"`, `"\u0000"`, `"x\ny"`,
	`[]`, `["a"]`, `["a","a"]`, `[1]`, `[null]`, `[{}]`, `[[]]`, `{}`, `{"a":1}`, `{"path":"a","content":"x"}`,
}

// valuesFor returns anyValues and values on and beside the bounds of a
// property's (or its items') schema.
func valuesFor(sub any) []string {
	s, _ := sub.(map[string]any)
	out := slices.Clone(anyValues)
	lengths := func(s map[string]any) []string {
		var vs []string
		for _, kw := range []string{"minLength", "maxLength"} {
			n, ok := s[kw].(json.Number)
			if !ok {
				continue
			}
			l, _ := strconv.Atoi(string(n))
			for _, k := range []int{l - 1, l, l + 1} {
				if k < 0 {
					continue
				}
				for _, c := range []string{"a", "é", "😀", "中"} {
					vs = append(vs, strconv.Quote(strings.Repeat(c, k)))
				}
				if k > 0 {
					vs = append(vs, strconv.Quote("a"+strings.Repeat("😀", k-1)))
				}
			}
		}
		return vs
	}
	out = append(out, lengths(s)...)
	for _, kw := range []string{"minimum", "maximum"} {
		n, ok := s[kw].(json.Number)
		if !ok {
			continue
		}
		b, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			continue
		}
		for _, k := range []int64{b - 1, b, b + 1} {
			out = append(out, strconv.FormatInt(k, 10), strconv.FormatInt(k, 10)+".0", strconv.FormatInt(k, 10)+"e0")
		}
	}
	if enum, ok := s["enum"].([]any); ok {
		for _, e := range enum {
			if str, ok := e.(string); ok {
				out = append(out, strconv.Quote(str), strconv.Quote(str+"x"), strconv.Quote(strings.ToUpper(str)))
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		for _, v := range append(lengths(items), `"a"`, `"b"`) {
			out = append(out, "["+v+"]", "["+v+","+v+"]", `["z",`+v+"]")
		}
		if n, ok := s["maxItems"].(json.Number); ok {
			l, _ := strconv.Atoi(string(n))
			for _, k := range []int{l, l + 1} {
				var elems []string
				for i := range k {
					elems = append(elems, strconv.Quote(fmt.Sprint("a", i)))
				}
				out = append(out, "["+strings.Join(elems, ",")+"]", "["+strings.TrimSuffix(strings.Repeat(`"a",`, k), ",")+"]")
			}
		}
	}
	return out
}

// TestFastSoundSchemas holds the fast check to the library on small schemas
// that single out each keyword's semantics (code points, unanchored
// patterns, integers in every number form, at most one of), where the
// registry's schemas do not (no minLength above 1, for one). want is the
// fast check's answer; the library must accept whatever it accepts.
func TestFastSoundSchemas(t *testing.T) {
	tests := []struct {
		name, schema, inst string
		want               bool
	}{
		{"minLength counts code points", `{"type":"string","minLength":2}`, `"😀"`, false},
		{"minLength of two code points", `{"type":"string","minLength":2}`, `"😀😀"`, true},
		{"maxLength counts code points", `{"type":"string","maxLength":2}`, `"😀😀"`, true},
		{"maxLength exceeded", `{"type":"string","maxLength":2}`, `"😀😀😀"`, false},
		{"pattern is unanchored", `{"type":"string","pattern":"b"}`, `"abc"`, true},
		{"pattern not matched", `{"type":"string","pattern":"^b"}`, `"abc"`, false},
		{"integer", `{"type":"integer","minimum":1,"maximum":3}`, `3`, true},
		{"integer above maximum", `{"type":"integer","minimum":1,"maximum":3}`, `4`, false},
		{"integer below minimum", `{"type":"integer","minimum":-1}`, `-2`, false},
		{"negative zero", `{"type":"integer","minimum":0}`, `-0`, true},
		{"integer with a fraction", `{"type":"integer"}`, `2.5`, false},
		{"integer as 1.0: left to the library", `{"type":"integer"}`, `1.0`, false},
		{"integer as 1e2: left to the library", `{"type":"integer"}`, `1e2`, false},
		{"integer beyond int64: left to the library", `{"type":"integer"}`, `9223372036854775808`, false},
		{"number without bounds", `{"type":"number"}`, `2.5e3`, true},
		{"number with bounds: left to the library", `{"type":"number","maximum":3}`, `2.5`, false},
		{"string is not integer", `{"type":"integer"}`, `"1"`, false},
		{"no type: maxLength ignores numbers", `{"maxLength":1}`, `12345`, true},
		{"type list", `{"type":["string","null"]}`, `null`, true},
		{"enum of strings", `{"enum":["open","closed"]}`, `"open"`, true},
		{"enum miss", `{"enum":["open","closed"]}`, `"Open"`, false},
		{"enum with a number", `{"type":"string","enum":["1"]}`, `1`, false},
		{"required", `{"type":"object","required":["a"]}`, `{"b":1}`, false},
		{"additionalProperties false", `{"type":"object","properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"b":2}`, false},
		{"open object", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"a":"x","b":2}`, true},
		{"at most one of: one", `{"type":"object","not":{"required":["a","b"]}}`, `{"a":1}`, true},
		{"at most one of: both", `{"type":"object","not":{"required":["a","b"]}}`, `{"a":1,"b":2}`, false},
		{"not required on a non-object", `{"not":{"required":["a"]}}`, `"x"`, false},
		{"dependentRequired met", `{"dependentRequired":{"a":["b"]}}`, `{"a":1,"b":1}`, true},
		{"dependentRequired missed", `{"dependentRequired":{"a":["b"]}}`, `{"a":1}`, false},
		{"maxProperties", `{"maxProperties":1}`, `{"a":1,"b":1}`, false},
		{"items", `{"type":"array","items":{"type":"string","maxLength":1},"maxItems":2}`, `["a","😀"]`, true},
		{"items too many", `{"type":"array","items":{"type":"string"},"maxItems":2}`, `["a","b","c"]`, false},
		{"items too few", `{"type":"array","minItems":1}`, `[]`, false},
		{"item of a wrong type", `{"type":"array","items":{"type":"string"}}`, `["a",1]`, false},
		{"uniqueItems", `{"type":"array","uniqueItems":true}`, `["a","b"]`, true},
		{"uniqueItems repeated", `{"type":"array","uniqueItems":true}`, `["a","a"]`, false},
		{"uniqueItems of numbers: left to the library", `{"type":"array","uniqueItems":true}`, `[1,2]`, false},
		{"subschema not implemented, absent", `{"type":"object","properties":{"a":{"format":"date-time"}}}`, `{}`, true},
		{"subschema not implemented, present", `{"type":"object","properties":{"a":{"format":"date-time"}}}`, `{"a":"x"}`, false},
		{"oneOf of required: one", `{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}]}`, `{"a":1}`, true},
		{"oneOf of required: both", `{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}]}`, `{"a":1,"b":1}`, false},
		{"oneOf of required: none", `{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}]}`, `{}`, false},
		{"oneOf on a non-object", `{"oneOf":[{"required":["a"]}]}`, `1`, false},
		{"root not implemented", `{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}]}`, `{"a":1}`, false},
		{"false schema", `{"properties":{"a":false}}`, `{"a":1}`, false},
		{"annotations ignored", `{"type":"string","description":"d","title":"t","default":"x"}`, `"y"`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sch, err := compileSchema("test", []byte(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			inst, err := readInstance([]byte(tc.inst))
			if err != nil {
				t.Fatal(err)
			}
			got := compileFast([]byte(tc.schema)).accepts(inst)
			if got != tc.want {
				t.Errorf("accepts(%s) = %v, want %v", tc.inst, got, tc.want)
			}
			if got {
				if err := sch.Validate(inst); err != nil {
					t.Errorf("fast check accepts %s, the library refuses it: %v", tc.inst, err)
				}
			}
		})
	}
}

// TestFastUseful: the fast check vouches for the valid arguments of the
// tools the benchmarks call, so that Decode skips the library for them.
func TestFastUseful(t *testing.T) {
	tests := []struct{ tool, args string }{
		{"read_file", `{"repo":"octo-org/hello-world","path":"README.md","branch":"main"}`},
		{"read_file", `{"repo":"o/r","path":"docs/ünïcode.md","ref":"v1.0"}`},
		{"get_branches", `{"repo":"octo-org/hello-world"}`},
		{"get_branches", `{"repo":"o/r","page":2,"per_page":100}`},
		{"get_commits", `{"repo":"o/r","branch":"main","sha":"abcdef1","page":1,"per_page":100}`},
		{"list_pull_requests", `{"repo":"o/r","state":"all","per_page":50}`},
		{"get_pull_request", `{"repo":"o/r","prNumber":2147483647}`},
		{"search", `{"query":"language:go","page":2,"per_page":50}`},
		{"list_directory", `{"repo":"o/r","path":"/","ref":"v1.0"}`},
		{"get_tree", `{"repo":"o/r","branch":"main"}`},
		{"list_issues", `{"repo":"o/r","state":"closed","labels":["bug","help wanted"],"assignee":"*","since":"2026-01-02T03:04:05Z","milestone":"none"}`},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			tl := tool(t, tc.tool)
			if !soundness(t, tl, tc.args) {
				t.Errorf("the fast check does not vouch for %s", tc.args)
			}
		})
	}
	vouched := map[string]bool{}
	for _, c := range decodeValidCases() {
		inst, err := readInstance([]byte(c.args))
		if err != nil {
			t.Fatal(err)
		}
		if tool(t, c.tool).fast.accepts(inst) {
			vouched[c.tool] = true
		}
	}
	var with, without []string
	for _, tl := range registry(t).Tools() {
		switch {
		case tl.fast == nil:
			without = append(without, tl.Name)
		case vouched[tl.Name]:
			with = append(with, tl.Name)
		default:
			without = append(without, tl.Name+" (in part)")
		}
	}
	t.Logf("the fast path takes the valid example of %d of %d tools; not: %s", len(with), len(with)+len(without), strings.Join(without, ", "))
	if len(with) < minFastTools {
		t.Errorf("the fast path takes the valid example of %d tools, want at least %d", len(with), minFastTools)
	}
}

// minFastTools is how many of the registry's tools' valid examples
// (decodeValidCases) the fast path takes: all but those whose schemas use
// what it leaves to the library.
const minFastTools = 70

// TestFastSameAnswers: Decode answers the same with the fast check as
// without it (the library alone), violations byte for byte.
func TestFastSameAnswers(t *testing.T) {
	corpus := decodeCorpus()
	for _, tl := range registry(t).Tools() {
		t.Run(tl.Name, func(t *testing.T) {
			slow := *tl
			slow.fast, slow.pass = nil, nil
			for _, args := range corpus {
				msg, vs, st := tl.decode(json.RawMessage(args))
				want, wantVs, wantSt := slow.decode(json.RawMessage(args))
				if got, w := mustMarshal(t, vs), mustMarshal(t, wantVs); got != w || st != wantSt || (msg == nil) != (want == nil) {
					t.Errorf("%s: with the fast check %s (stage %d), without %s (stage %d)", args, got, st, w, wantSt)
				}
			}
		})
	}
}

// FuzzFastSound: on arbitrary arguments the fast check of the benchmarks'
// tools accepts only what the library accepts.
func FuzzFastSound(f *testing.F) {
	fuzzDecodeTools(f, []string{"read_file", "search", "list_issues", "list_directory", "get_commits", "list_pull_requests", "get_pull_request"},
		func(t *testing.T, tl *Tool, args string) { soundness(t, tl, args) })
}

// fuzzDecodeTools fuzzes prop over (one of tools, arguments), seeded with
// FuzzDecode's seeds and the decode tests' valid arguments.
func fuzzDecodeTools(f *testing.F, tools []string, prop func(t *testing.T, tl *Tool, args string)) {
	for i, s := range decodeFuzzSeeds {
		f.Add(uint8(i), []byte(s))
	}
	for i, c := range decodeValidCases() {
		f.Add(uint8(i), []byte(c.args))
	}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		prop(t, tool(t, tools[int(which)%len(tools)]), string(args))
	})
}
