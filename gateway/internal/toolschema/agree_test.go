package toolschema

import (
	"ghops.dev/gateway/internal/rpcerror"

	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"buf.build/go/protovalidate"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/encoding/protojson"
)

// node is a subschema of a published input schema, for the generator below.
type node struct {
	typ                  string
	enum                 []string
	minLength, maxLength int
	props                []prop
	required             []string
	items                *node
	raw                  map[string]any
	once                 sync.Once
	compiled             *jsonschema.Schema
}

type prop struct {
	name string
	s    *node
}

// testNode reads the subschema at ptr of a tool's published input schema.
func testNode(tb testing.TB, tl *Tool, raw map[string]any, ptr string) *node {
	n := &node{minLength: -1, maxLength: -1, raw: raw}
	n.typ, _ = raw["type"].(string)
	if e, ok := raw["enum"].([]any); ok {
		for _, x := range e {
			n.enum = append(n.enum, x.(string))
		}
	}
	if l, ok := raw["minLength"].(json.Number); ok {
		v, _ := l.Int64()
		n.minLength = int(v)
	}
	if l, ok := raw["maxLength"].(json.Number); ok {
		v, _ := l.Int64()
		n.maxLength = int(v)
	}
	if r, ok := raw["required"].([]any); ok {
		for _, x := range r {
			n.required = append(n.required, x.(string))
		}
	}
	if it, ok := raw["items"].(map[string]any); ok {
		n.items = testNode(tb, tl, it, ptr+"/items")
	}
	if ps, ok := raw["properties"].(map[string]any); ok {
		n.props = make([]prop, len(ps))
		for name, sub := range ps {
			n.props[tl.index[ptr].props[name]] = prop{name: name, s: testNode(tb, tl, sub.(map[string]any), ptr+"/properties/"+escapePointer(name))}
		}
	}
	return n
}

func (n *node) accepts(v any) bool {
	n.once.Do(func() {
		b, _ := json.Marshal(n.raw)
		doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		c := jsonschema.NewCompiler()
		url := fmt.Sprintf("https://test.invalid/%p.json", n)
		if err := c.AddResource(url, doc); err == nil {
			n.compiled, _ = c.Compile(url)
		}
	})
	b, _ := json.Marshal(v)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	return err == nil && n.compiled != nil && n.compiled.Validate(inst) == nil
}

// randomArgs builds a type-correct argument object for a schema: every
// property is absent, valid or invalid at random, never of the wrong JSON
// type and never unknown, so protojson can always decode it and the verdicts
// of the schema and of protovalidate can be compared.
//
// With good set, values are drawn from those the schema accepts (required
// properties always present), so that whole valid objects come up often
// enough for tools with many required fields; protovalidate is the judge.
func randomArgs(rng *rand.Rand, n *node, good bool) map[string]any {
	obj := map[string]any{}
	for _, p := range n.props {
		req := false
		for _, r := range n.required {
			req = req || r == p.name
		}
		if rng.IntN(3) == 0 && !(good && req) {
			continue
		}
		obj[p.name] = randomValue(rng, p.s, good)
	}
	return obj
}

// pick draws from pool, only among the values the node accepts when good.
func pick[T any](rng *rand.Rand, n *node, pool []T, good bool) T {
	if good {
		var ok []T
		for _, c := range pool {
			if n.accepts(c) {
				ok = append(ok, c)
			}
		}
		if len(ok) > 0 {
			pool = ok
		}
	}
	return pool[rng.IntN(len(pool))]
}

func randomValue(rng *rand.Rand, n *node, good bool) any {
	switch n.typ {
	case "string":
		pool := []string{"", "a", "o/r", "owner/repo", "a b", "!!", "aGk=", "abcdef", "abcdef1",
			strings.Repeat("a", 40), strings.Repeat("a", 41), "main", "feature/x", "😀",
			"a/../b", "../..", "o/..", "./r", "a//b", "/a", "a/", ".a", "a.", "a/.b", "a.lock", "a.lock/b", "a@{1}", "a\x01", "o/1", "2026-12-01", "ci.yml"}
		pool = append(pool, n.enum...)
		if n.enum != nil {
			pool = append(pool, "nope", "OPEN")
		}
		for _, l := range []int{n.minLength, n.maxLength} {
			if l >= 0 {
				pool = append(pool, strings.Repeat("x", l), strings.Repeat("x", l+1), strings.Repeat("😀", l+1))
				if l > 0 {
					pool = append(pool, strings.Repeat("y", l-1))
				}
			}
		}
		if n.maxLength > 3 {
			pool = append(pool, "o/"+strings.Repeat("r", n.maxLength-2), "o/"+strings.Repeat("r", n.maxLength-1))
		}
		return pick(rng, n, pool, good)
	case "integer":
		pool := []int64{-1, 0, 1, 2, 50, 99, 100, 101, 2147483647, -2147483648}
		return pick(rng, n, pool, good)
	case "boolean":
		return rng.IntN(2) == 0
	case "array":
		k := rng.IntN(23)
		if good || rng.IntN(2) == 0 {
			k = 1 + rng.IntN(3)
		}
		out := make([]any, k)
		for i := range out {
			out[i] = randomValue(rng, n.items, good)
		}
		return out
	case "object":
		return randomArgs(rng, n, good)
	}
	return nil
}

func TestSchemaAgreesWithProtovalidate(t *testing.T) {
	rng := rand.New(rand.NewPCG(20261122, 1))
	// protovalidate is the service's check; here it judges the schema.
	validator, err := protovalidate.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range registry(t).Tools() {
		t.Run(tl.Name, func(t *testing.T) {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tl.ValidationSchema))
			if err != nil {
				t.Fatal(err)
			}
			in := testNode(t, tl, doc.(map[string]any), "")
			accepted, rejected := 0, 0
			for i := 0; i < 200; i++ {
				args, err := json.Marshal(randomArgs(rng, in, i%2 == 0))
				if err != nil {
					t.Fatal(err)
				}
				msg, vs, st := tl.decode(args)
				switch st {
				case stageOK:
					accepted++
					if msg == nil || len(vs) != 0 {
						t.Fatalf("%s: ok stage with %v, %v", args, msg, vs)
					}
				case stageSchema:
					rejected++
					req := tl.NewRequest()
					if err := (protojson.UnmarshalOptions{}).Unmarshal(args, req); err != nil {
						t.Fatalf("%s: type-correct arguments do not decode: %v", args, err)
					}
					if err := validator.Validate(req); err == nil {
						t.Errorf("%s: schema rejects (%s) but protovalidate accepts", args, rpcerror.ValidationMessage(vs))
					}
				default:
					t.Errorf("%s: schema accepts but stage %d rejects: %s", args, st, mustMarshal(t, vs))
				}
			}
			// A tool without parameters (get_me) has nothing to reject.
			if accepted == 0 || rejected == 0 && len(in.props) > 0 {
				t.Errorf("generator too one-sided: %d accepted, %d rejected", accepted, rejected)
			}
		})
	}
}
