package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/tidwall/gjson"
)

// answer simulates a server that answers every valid request with its id
// and method, so the section 7 vectors can be compared as whole bodies.
func answer(t *testing.T, body string) string {
	t.Helper()
	items, batch, bodyErr := ParseBody([]byte(body))
	if bodyErr != nil {
		if items != nil || batch {
			t.Fatalf("body error with items: %v %v", items, batch)
		}
		return string(EncodeResponse(Response{Error: bodyErr}))
	}
	var rs []Response
	for _, it := range items {
		if (it.Request == nil) == (it.Err == nil) {
			t.Fatalf("item must hold a request xor an error: %+v", it)
		}
		if it.Err != nil {
			rs = append(rs, Response{ID: it.ID, Error: it.Err})
			continue
		}
		if it.Request.IsNotification() {
			continue
		}
		res, _ := json.Marshal(it.Request.Method)
		rs = append(rs, Response{ID: it.Request.ID, Result: res})
	}
	if len(rs) == 0 {
		return ""
	}
	if batch {
		return string(EncodeBatch(rs))
	}
	return string(EncodeResponse(rs[0]))
}

func TestSection7Vectors(t *testing.T) {
	const inv = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`
	tests := []struct {
		name, body, want string
	}{
		{"positional params", `{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}`,
			`{"jsonrpc":"2.0","id":1,"result":"subtract"}`},
		{"named params", `{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}`,
			`{"jsonrpc":"2.0","id":3,"result":"subtract"}`},
		{"notification", `{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}`, ``},
		{"notification without params", `{"jsonrpc": "2.0", "method": "foobar"}`, ``},
		{"invalid JSON", `{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"invalid request object", `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`, inv},
		{"batch invalid JSON", `[
  {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
  {"jsonrpc": "2.0", "method"
]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"empty array", `[]`, inv},
		{"non-empty invalid batch", `[1]`, `[` + inv + `]`},
		{"invalid batch", `[1,2,3]`, `[` + inv + `,` + inv + `,` + inv + `]`},
		{"mixed batch", `[
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]`, `[{"jsonrpc":"2.0","id":"1","result":"sum"},{"jsonrpc":"2.0","id":"2","result":"subtract"},` + inv +
			`,{"jsonrpc":"2.0","id":"5","result":"foo.get"},{"jsonrpc":"2.0","id":"9","result":"get_data"}]`},
		{"all notifications", `[
        {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
    ]`, ``},
		{"scalar body", `42`, inv},
		{"string body", `"x"`, inv},
		{"null body", `null`, inv},
		{"empty body", ``, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"wrong version", `{"jsonrpc":"1.0","method":"m","id":7}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request"}}`},
		{"missing version", `{"method":"m","id":7}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request"}}`},
		{"object id", `{"jsonrpc":"2.0","method":"m","id":{}}`, inv},
		{"bool id", `{"jsonrpc":"2.0","method":"m","id":true}`, inv},
		{"scalar params", `{"jsonrpc":"2.0","method":"m","params":5,"id":1}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request"}}`},
		{"null params as absent", `{"jsonrpc":"2.0","method":"m","params":null,"id":1}`, `{"jsonrpc":"2.0","id":1,"result":"m"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := answer(t, tc.body); got != tc.want {
				t.Errorf("answer\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestIDsEchoedExactly(t *testing.T) {
	ids := []string{`1`, `0`, `-5`, `1.0`, `1e3`, `1E+03`, `12345678901234567890123`, `"abc"`, `""`, `"a<b>&\u00e9\"q"`, `null`}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","method":"m","id":` + id + `}`
			items, _, bodyErr := ParseBody([]byte(body))
			if bodyErr != nil || len(items) != 1 || items[0].Request == nil {
				t.Fatalf("parse: %+v %v", items, bodyErr)
			}
			if items[0].Request.IsNotification() {
				t.Fatal("an explicit id (even null) is not a notification")
			}
			got := string(EncodeResponse(Response{ID: items[0].Request.ID, Result: json.RawMessage(`true`)}))
			want := `{"jsonrpc":"2.0","id":` + id + `,"result":true}`
			if got != want {
				t.Errorf("got %s want %s", got, want)
			}
		})
	}
}

func TestResponseResultXorError(t *testing.T) {
	tests := []struct {
		name string
		r    Response
		want string
	}{
		{"nil result is null", Response{ID: json.RawMessage(`1`)}, `{"jsonrpc":"2.0","id":1,"result":null}`},
		{"error wins", Response{ID: json.RawMessage(`1`), Result: json.RawMessage(`{}`), Error: NewError(CodeInternalError, "")},
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`},
		{"data kept", Response{Error: &Error{Code: -32001, Message: "m", Data: map[string]int{"a": 1}}},
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"m","data":{"a":1}}}`},
		{"invalid result falls back", Response{ID: json.RawMessage(`1`), Result: json.RawMessage(`{`)}, string(FallbackBody)},
		{"unencodable data falls back", Response{Error: &Error{Code: 1, Data: func() {}}}, string(FallbackBody)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(EncodeResponse(tc.r)); got != tc.want {
				t.Errorf("got %s want %s", got, tc.want)
			}
		})
	}
}

func TestEncodeBatchIsolatesBadElement(t *testing.T) {
	got := string(EncodeBatch([]Response{
		{ID: json.RawMessage(`1`), Result: json.RawMessage(`{`)},
		{ID: json.RawMessage(`2`), Result: json.RawMessage(`3`)},
	}))
	want := `[{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}},{"jsonrpc":"2.0","id":2,"result":3}]`
	if got != want {
		t.Errorf("got %s want %s", got, want)
	}
}

// FuzzParseBody checks that any body yields a well-formed answer: either one
// body error, or items each holding a request xor an error with a legal id,
// and that the encoded answer is always valid JSON.
func FuzzParseBody(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"search","params":{"query":"x"},"id":1}`,
		`[{"jsonrpc":"2.0","method":"a","id":"x"},{"jsonrpc":"2.0","method":"b"},1,{}]`,
		`[]`, `[1]`, `{"jsonrpc":"2.0","method":"m","id":1e3}`, `{`, `null`, `"\u0000"`,
		`{"jsonrpc":"2.0","method":"m","id":[1]}`, `[[[[]]]]`, ` {"jsonrpc":"2.0","method":"m","id":-0.5} `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		items, batch, bodyErr := ParseBody(b)
		var rs []Response
		if bodyErr != nil {
			if len(items) != 0 || batch {
				t.Fatal("body error must come alone")
			}
			if bodyErr.Code != CodeParseError && bodyErr.Code != CodeInvalidRequest {
				t.Fatalf("body error code %d", bodyErr.Code)
			}
			rs = append(rs, Response{Error: bodyErr})
		}
		for _, it := range items {
			if (it.Request == nil) == (it.Err == nil) {
				t.Fatalf("request xor error: %+v", it)
			}
			id := it.ID
			if it.Request != nil {
				id = it.Request.ID
				if id == nil {
					continue
				}
			}
			if !validID(id) {
				t.Fatalf("illegal id %q", id)
			}
			rs = append(rs, Response{ID: id, Error: it.Err, Result: json.RawMessage(`0`)})
		}
		out := EncodeBatch(rs)
		if !json.Valid(out) {
			t.Fatalf("invalid answer %s", out)
		}
		if strings.Contains(string(out), string(FallbackBody)) {
			t.Fatalf("fallback used for %q", b)
		}
	})
}

// FuzzMembersAgree holds members, the one-pass reader of a request's
// members, to what gjson.GetManyBytes reads for the same names (one scan
// per name), on every body ParseBody hands to parseOne: valid I-JSON
// objects. Where they found the member, type, string value and bytes
// (rawOf) must agree.
func FuzzMembersAgree(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"read_file","arguments":{"repo":"o/r","path":"a"}},"id":7}`,
		`{"id":"x","jsonrpc":"2.0","method":"m"}`,
		` {"method":"m","params":[1,{"id":2}],"jsonrpc":"2.0","id":null} `,
		`{"\u0069d":1,"jsonr\u0070c":"2.0","meth\u006fd":"\u0074ools/list","par\u0061ms":null}`,
		`{"params":{"id":1,"jsonrpc":"1.0","method":"inner"},"other":{"method":"x"}}`,
		`{"jsonrpc":2.0,"method":["m"],"id":{"a":1},"params":"p"}`,
		`{"id":-1.5e+300,"method":"\ud83d\ude00","jsonrpc":"2.0"}`,
		`{}`, `{"":1}`, `{"id":"\"quoted\"","method":""}`,
		`{"name":"read_file","arguments":{"name":"x"},"_meta":{"progressToken":1},"uri":"ghops://x"}`,
	} {
		f.Add([]byte(s))
	}
	// The request's members (parseOne) and those the MCP layer reads from
	// its params.
	nameSets := [][]string{requestMembers, {"name", "uri", "arguments", "_meta"}}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !jsontext.Value(b).IsValid() {
			return
		}
		o := bytes.TrimLeft(b, " \t\r\n")
		if o[0] != '{' {
			return
		}
		for _, names := range nameSets {
			got, want := make([]gjson.Result, len(names)), gjson.GetManyBytes(o, names...)
			Members(o, names, got)
			for i, name := range names {
				g, w := got[i], want[i]
				if g.Exists() != w.Exists() || g.Type != w.Type || g.Str != w.Str || !bytes.Equal(rawOf(o, g), rawOf(o, w)) {
					t.Fatalf("%s of %s: one pass %v %q %q, GetManyBytes %v %q %q", name, o, g.Type, g.Str, rawOf(o, g), w.Type, w.Str, rawOf(o, w))
				}
			}
		}
	})
}
