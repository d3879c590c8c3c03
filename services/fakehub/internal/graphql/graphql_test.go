package graphql

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, src   string
		op          string
		keys        []string
		args        map[string]any // of the first field
		unsupported bool
		bad         bool
	}{
		{name: "mutation with variables", src: `mutation M($id: ID!, $n: [Int!]! = [1, 2]) { a: convert(input: {pullRequestId: $id}) { pullRequest { id } } }`,
			op: "mutation", keys: []string{"a"}, args: map[string]any{"input": map[string]any{"pullRequestId": Var("id")}}},
		{name: "literals", src: "mutation {\n f(s: \"x\\\"y\\u00e9\", i: -12, x: 1.5e3, b: true, n: null, e: OPEN, l: [], o: {}) { id }\n}",
			op: "mutation", keys: []string{"f"}, args: map[string]any{"s": "x\"yé", "i": json.Number("-12"), "x": json.Number("1.5e3"), "b": true, "n": nil, "e": Enum("OPEN"), "l": []any{}, "o": map[string]any{}}},
		{name: "shorthand query", src: `{ viewer { login } }`, op: "query", keys: []string{"viewer"}},
		{name: "commas and comments", src: "query Q # c\n{ a, b, }", op: "query", keys: []string{"a", "b"}},
		{name: "fragment spread", src: `mutation { f { ...F } }`, unsupported: true},
		{name: "fragment definition", src: `fragment F on X { a }`, unsupported: true},
		{name: "directive", src: `mutation { f @skip(if: true) }`, unsupported: true},
		{name: "block string", src: `mutation { f(s: """x""") }`, unsupported: true},
		{name: "two operations", src: `mutation { a } mutation { b }`, unsupported: true},
		{name: "unterminated", src: `mutation { f(s: "x) }`, bad: true},
		{name: "unclosed", src: `mutation { f`, bad: true},
		{name: "empty selection", src: `mutation { }`, bad: true},
		{name: "leading zero", src: `mutation { f(i: 012) }`, bad: true},
		{name: "variable in default", src: `mutation($a: Int = $b) { f }`, bad: true},
		{name: "duplicate argument", src: `mutation { f(a: 1, a: 2) }`, bad: true},
		{name: "stray character", src: `mutation { f; }`, bad: true},
		{name: "empty", src: ``, bad: true},
		{name: "too deep", src: "mutation { f(a: " + strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2) + ") }", bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(tc.src)
			if tc.unsupported || tc.bad {
				var e *Error
				if !errors.As(err, &e) || e.Unsupported != tc.unsupported || e.Line < 1 || e.Column < 1 {
					t.Fatalf("err = %#v, want unsupported=%v", err, tc.unsupported)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, f := range d.Fields {
				keys = append(keys, f.Key())
			}
			if d.Operation != tc.op || !reflect.DeepEqual(keys, tc.keys) {
				t.Fatalf("op %q keys %v, want %q %v", d.Operation, keys, tc.op, tc.keys)
			}
			if tc.args != nil && !reflect.DeepEqual(d.Fields[0].Args, tc.args) {
				t.Fatalf("args %#v, want %#v", d.Fields[0].Args, tc.args)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	d, err := Parse(`mutation($id: ID!, $cm: String = "dflt") { f(input: {pullRequestId: $id, clientMutationId: $cm, x: [$id]}) { a } }`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		value   any
		vars    map[string]any
		want    any
		wantErr bool
	}{
		{name: "given and default", value: d.Fields[0].Args["input"], vars: map[string]any{"id": "PR_1"},
			want: map[string]any{"pullRequestId": "PR_1", "clientMutationId": "dflt", "x": []any{"PR_1"}}},
		{name: "missing value", value: Var("id"), vars: nil, wantErr: true},
		{name: "undeclared", value: Var("other"), vars: map[string]any{"other": "x"}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := d.Resolve(tc.value, tc.vars)
			if tc.wantErr {
				if !errors.Is(err, ErrUndefinedVariable) {
					t.Fatalf("err = %v, want ErrUndefinedVariable", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v, %v; want %#v", got, err, tc.want)
			}
		})
	}
}

// FuzzParse feeds arbitrary documents to Parse: it never panics, failures are *Error with a
// position, and every parsed field has a name.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) { pullRequest { id isDraft } } }`,
		`mutation { a: markPullRequestReadyForReview(input: {pullRequestId: "PR_kwx", clientMutationId: "c"}) { clientMutationId } }`,
		`{ viewer { login } }`, `query Q($a: [Int!]! = [1,2]) { f(a: $a) @d { ...F } }`, "\uFEFF# c\nmutation{f}",
		`mutation { f(s: "\u00e9\"", n: -1.5e-3, e: OPEN, o: {a: [null, true]}) }`, `mutation { f(s: """b""") }`,
		`mutation {`, `"`, `-`, `mutation { f(i: 01) }`, strings.Repeat("{", 100),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		d, err := Parse(src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Line < 1 || e.Column < 1 || d != nil {
				t.Fatalf("error %#v (doc %v)", err, d)
			}
			return
		}
		var walk func(fs []*Field, depth int)
		walk = func(fs []*Field, depth int) {
			if len(fs) == 0 || depth > MaxDepth+1 {
				t.Fatalf("empty or too deep selection at depth %d", depth)
			}
			for _, x := range fs {
				if x.Name == "" || x.Key() == "" {
					t.Fatalf("field without a name in %q", src)
				}
				if x.Fields != nil {
					walk(x.Fields, depth+1)
				}
			}
		}
		walk(d.Fields, 0)
	})
}
