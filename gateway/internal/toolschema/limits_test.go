package toolschema

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// manyUnknownKeys is the hostile call: a valid search plus n
// unknown keys.
func manyUnknownKeys(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"query":"x"`)
	for i := 0; i < n; i++ {
		b.WriteString(`,"k` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString("}")
	return json.RawMessage(b.String())
}

// TestManyViolationsCapped: 25,000 unknown keys give maxViolations
// violations, the first ones in the order sent, and the object they echo is
// compacted once and shared (rpcerror cuts each echoed value and the answer,
// docs/errors.md).
func TestManyViolationsCapped(t *testing.T) {
	tests := []struct {
		name string
		keys int
		want int
	}{
		{"one", 1, 1},
		{"exactly the cap", maxViolations, maxViolations},
		{"25,000", 25000, maxViolations},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, vs := tool(t, "search").Decode(manyUnknownKeys(tc.keys))
			if len(vs) != tc.want {
				t.Fatalf("%d violations, want %d", len(vs), tc.want)
			}
			for i, v := range vs {
				if got := v.Params["additionalProperty"]; got != "k"+strconv.Itoa(i) {
					t.Fatalf("violation %d names %v, want k%d (input order)", i, got, i)
				}
				if &v.Value.(json.RawMessage)[0] != &vs[0].Value.(json.RawMessage)[0] {
					t.Fatalf("violation %d echoes its own copy of the object", i)
				}
			}
		})
	}
}

func BenchmarkDecodeManyUnknownKeys(b *testing.B) {
	tl := tool(b, "search")
	args := manyUnknownKeys(25000)
	b.ReportAllocs()
	b.SetBytes(int64(len(args)))
	for b.Loop() {
		tl.Decode(args)
	}
}
