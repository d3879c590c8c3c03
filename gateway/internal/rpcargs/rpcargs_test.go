package rpcargs

import (
	"encoding/json"
	"testing"
)

func TestArguments(t *testing.T) {
	tests := []struct {
		name, method, params, want string
	}{
		{"absent", "search", ``, `{}`},
		{"null", "search", `null`, `{}`},
		{"plain object kept byte for byte", "search", `{"query": "x",  "page":1}`, `{"query": "x",  "page":1}`},
		{"args", "search", `{"args":{"query":"x"}}`, `{"query":"x"}`},
		{"arguments", "search", `{"arguments":{"query":"x"}}`, `{"query":"x"}`},
		{"parameters", "search", `{"parameters":{"query":"x"}}`, `{"query":"x"}`},
		{"input", "search", `{"input":{"query":"x"}}`, `{"query":"x"}`},
		{"string-encoded", "search", `{"arguments":"{\"query\":\"x\"}"}`, `{"query":"x"}`},
		{"string-encoded args", "search", `{"args":" {\"query\":\"x\"} "}`, `{"query":"x"}`},
		{"meta stripped at top", "search", `{"query":"x","_meta":{"progressToken":1}}`, `{"query":"x"}`},
		{"meta beside wrapper", "search", `{"_meta":{},"arguments":{"query":"x"}}`, `{"query":"x"}`},
		{"meta inside wrapper", "search", `{"arguments":{"query":"x","_meta":{}}}`, `{"query":"x"}`},
		{"envelope naming the method", "search", `{"name":"search","arguments":{"query":"x"}}`, `{"query":"x"}`},
		{"envelope naming another tool kept", "search", `{"name":"fetch","arguments":{"query":"x"}}`, `{"name":"fetch","arguments":{"query":"x"}}`},
		{"wrapper beside other members kept", "search", `{"query":"x","input":{"a":1}}`, `{"query":"x","input":{"a":1}}`},
		{"positional single object", "search", `[{"query":"x"}]`, `{"query":"x"}`},
		{"positional other kept", "search", `[1,2]`, `[1,2]`},
		{"wrapper with non-object left for the decoder", "search", `{"args":[1]}`, `[1]`},
		{"wrapper with bad string left for the decoder", "search", `{"args":"not json"}`, `"not json"`},
		{"wrapper with null", "search", `{"args":null}`, `null`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(Arguments(tc.method, json.RawMessage(tc.params)))
			if got != tc.want {
				t.Errorf("got %s want %s", got, tc.want)
			}
		})
	}
}

// FuzzArguments checks that normalisation never panics and always returns
// valid JSON for valid input (and the input itself otherwise).
func FuzzArguments(f *testing.F) {
	for _, s := range []string{`{"args":{"q":1}}`, `{"arguments":"{\"a\":\"{}\"}"}`, `[{"_meta":1}]`, `{"name":"m","input":{}}`,
		`{"args":"{\"args\":\"{\\\"args\\\":{}}\"}"}`, `"x"`, `{`, ``} {
		f.Add("m", s)
	}
	f.Fuzz(func(t *testing.T, method, params string) {
		out := Arguments(method, json.RawMessage(params))
		if json.Valid([]byte(params)) && !json.Valid(out) {
			t.Fatalf("invalid output %q for %q", out, params)
		}
		if len(out) == 0 {
			t.Fatal("empty output")
		}
	})
}

// TestWithoutMeta: a top-level _meta leaves an MCP call's arguments, nested
// ones and look-alikes stay, and arguments without one come back as sent.
func TestWithoutMeta(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"absent", ``, `{}`},
		{"null", `null`, `{}`},
		{"no meta, byte for byte", `{"b": 1, "a":2}`, `{"b": 1, "a":2}`},
		{"meta stripped", `{"_meta":{"progressToken":1},"repo":"o/r"}`, `{"repo":"o/r"}`},
		{"nested meta kept", `{"x":{"_meta":1}}`, `{"x":{"_meta":1}}`},
		{"meta in a string kept", `{"q":"\"_meta\""}`, `{"q":"\"_meta\""}`},
		{"not an object", `[1]`, `[1]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(WithoutMeta(json.RawMessage(tc.in))); got != tc.want {
				t.Errorf("WithoutMeta(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}
