package mcp

import (
	"context"
	"encoding/json"
	"testing"

	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/rpcerror"
)

// FuzzProtocolParams feeds any params (a client's bytes, already I-JSON or
// not) to the protocol's own methods: none panics, an error is -32600 or
// -32602, and a result is valid JSON; a tools/list cursor either is
// refused or leads to a page of the caller's tools.
func FuzzProtocolParams(f *testing.F) {
	for _, seed := range []string{
		``, `null`, `{}`, `[]`, `5`, `"x"`,
		`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`,
		`{"protocolVersion":5}`, `{"capabilities":"x"}`, `{"clientInfo":[]}`,
		`{"cursor":"bogus"}`, `{"cursor":"c2VhcmNo"}`, `{"cursor":""}`, `{"cursor":5}`, `{"cursor":"////"}`,
		`{"_meta":{"progressToken":1}}`,
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	s, err := New(newRegistry(f), newEchoCaller(f), WithPageSize(4))
	if err != nil {
		f.Fatal(err)
	}
	narrowed := policy.WithCaller(context.Background(), &policy.Caller{Principal: &policy.Principal{Name: "bot", Rules: policy.Rules{Tools: []string{"search", "fetch", "read_file"}}}})
	f.Fuzz(func(t *testing.T, params []byte, narrow bool) {
		ctx := context.Background()
		if narrow {
			ctx = narrowed
		}
		check := func(method string, res json.RawMessage, e *rpcerror.Error) {
			t.Helper()
			switch {
			case e != nil && e.Code != rpcerror.InvalidParamsCode && e.Code != rpcerror.InvalidRequest:
				t.Fatalf("%s(%q): code %d", method, params, e.Code)
			case e == nil && !json.Valid(res):
				t.Fatalf("%s(%q): invalid JSON %q", method, params, res)
			}
		}
		res, _, e := s.initialize(params)
		check("initialize", res, e)
		res, e = ping(params)
		check("ping", res, e)
		res, e = s.discover(params)
		check("server/discover", res, e)
		for _, modern := range []bool{false, true} {
			res, e = s.toolsList(ctx, params, modern)
			check("tools/list", res, e)
			if e != nil {
				continue
			}
			var page struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(res, &page); err != nil || len(page.Tools) > 4 {
				t.Fatalf("tools/list(%q): %v, %d tools", params, err, len(page.Tools))
			}
			for _, tl := range page.Tools {
				if narrow && tl.Name != "search" && tl.Name != "fetch" && tl.Name != "read_file" {
					t.Fatalf("tools/list(%q) shows %s to a narrowed caller", params, tl.Name)
				}
			}
		}
	})
}
