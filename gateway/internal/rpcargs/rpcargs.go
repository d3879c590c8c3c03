// Package rpcargs turns the params of a /rpc call into the tool's
// arguments object, accepting the shapes seed 003 lists:
//
//   - the arguments object itself: {"query":"x"}
//   - wrapped in one of args, arguments, parameters or input:
//     {"arguments":{"query":"x"}}
//   - the wrapper's value sent as a JSON string: {"args":"{\"query\":\"x\"}"}
//   - an MCP-style envelope naming the method: {"name":"search","arguments":{...}}
//   - by-position params holding one object: [{"query":"x"}]
//
// and a "_meta" member is stripped at each level. A wrapper is unwrapped only
// when it is the single member left besides "_meta" (and "name" equal to the
// method): no tool has a parameter called args, arguments, parameters or
// input, and an object with other members is taken as the arguments
// themselves. Normalisation never fails: whatever it cannot make sense of is
// returned for the argument decoder to reject with a proper violation.
// Bodies that need no change are returned byte for byte, so the decoder sees
// exactly what the client sent.
//
// The API: Arguments(method string, params json.RawMessage) json.RawMessage.
package rpcargs

import (
	"bytes"
	"encoding/json"
)

// wrappers are the members that may wrap the arguments.
var wrappers = []string{"args", "arguments", "parameters", "input"}

// MetaKey is the metadata member stripped from arguments.
const MetaKey = "_meta"

// Arguments returns the arguments of a call to method from its raw params
// (nil or null: {}).
func Arguments(method string, params json.RawMessage) json.RawMessage {
	p := bytes.TrimSpace(params)
	if len(p) == 0 || bytes.Equal(p, []byte("null")) {
		return json.RawMessage("{}")
	}
	if p[0] == '[' {
		var elems []json.RawMessage
		if json.Unmarshal(p, &elems) == nil && len(elems) == 1 {
			if e := bytes.TrimSpace(elems[0]); len(e) > 0 && e[0] == '{' {
				return unwrap(method, e, 0)
			}
		}
		return params
	}
	if p[0] != '{' {
		return params
	}
	return unwrap(method, p, 0)
}

// unwrap handles one object level; depth bounds the recursion through
// string-encoded wrappers.
func unwrap(method string, obj json.RawMessage, depth int) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return obj
	}
	changed := false
	if _, ok := m[MetaKey]; ok {
		delete(m, MetaKey)
		changed = true
	}
	if depth < 2 {
		if name, ok := m["name"]; ok && len(m) == 2 {
			var s string
			if json.Unmarshal(name, &s) == nil && s == method {
				for _, w := range wrappers {
					if _, ok := m[w]; ok {
						delete(m, "name")
						break
					}
				}
			}
		}
		if len(m) == 1 {
			for _, w := range wrappers {
				inner, ok := m[w]
				if !ok {
					continue
				}
				inner = bytes.TrimSpace(inner)
				if len(inner) > 0 && inner[0] == '"' {
					var s string
					if json.Unmarshal(inner, &s) == nil {
						t := bytes.TrimSpace([]byte(s))
						if len(t) > 0 && t[0] == '{' && json.Valid(t) {
							return unwrap(method, t, depth+1)
						}
					}
					return inner
				}
				if len(inner) > 0 && inner[0] == '{' {
					return unwrap(method, inner, depth+1)
				}
				return inner
			}
		}
	}
	if !changed {
		return obj
	}
	b, err := json.Marshal(m)
	if err != nil {
		return obj
	}
	return b
}

// WithoutMeta removes a top-level "_meta" member from an MCP tools/call's
// arguments object (MCP reserves it for metadata, never a tool's
// parameter); absent or null arguments become {}. Arguments strips it the
// same way at each level of /rpc's wrappers. An object without the member
// comes back byte for byte and undecoded: arguments may hold a megabyte.
func WithoutMeta(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return json.RawMessage("{}")
	}
	if t[0] != '{' || !bytes.Contains(t, []byte(`"_meta"`)) {
		return args
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(t, &m) != nil {
		return args
	}
	if _, ok := m[MetaKey]; !ok {
		return args
	}
	delete(m, MetaKey)
	b, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return b
}
