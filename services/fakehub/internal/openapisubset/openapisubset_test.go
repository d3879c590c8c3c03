package openapisubset

import (
	"encoding/json"
	"strings"
	"testing"
)

const description = `{"openapi":"3.0.3","info":{"title":"GitHub","version":"1.1.4","description":"long"},"paths":{
 "/a":{"get":{"responses":{"200":{"content":{"application/json":{"schema":{"type":"object",
   "properties":{"example":{"type":"string","example":"x"},"n":{"type":"integer","minimum":1.50}}},
   "examples":{"default":{"value":{}}}}}}}},"post":{"responses":{}}},
 "/b":{"get":{"responses":{}}}}}`

func TestExtract(t *testing.T) {
	tests := []struct {
		name    string
		ops     []Operation
		want    string // a fragment the output must hold
		absent  []string
		wantErr string
	}{
		{"keeps the listed operation", []Operation{{"GET", "/a"}}, `"minimum": 1.50`, []string{`"post"`, `"/b"`, `"examples"`, `"example": "x"`, `"long"`}, ""},
		{"keeps a property named example", []Operation{{"GET", "/a"}}, `"example": {`, nil, ""},
		{"two methods of one path", []Operation{{"GET", "/a"}, {"POST", "/a"}}, `"post"`, []string{`"/b"`}, ""},
		{"unknown operation", []Operation{{"GET", "/a"}, {"DELETE", "/b"}, {"GET", "/c"}}, "", nil, "DELETE /b, GET /c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Extract(strings.NewReader(description), tc.ops)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(out) {
				t.Fatalf("not JSON: %s", out)
			}
			if !strings.Contains(string(out), tc.want) {
				t.Errorf("output lacks %s:\n%s", tc.want, out)
			}
			for _, a := range tc.absent {
				if strings.Contains(string(out), a) {
					t.Errorf("output holds %s:\n%s", a, out)
				}
			}
		})
	}
}

func TestReadOperations(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Operation
		wantErr  bool
	}{
		{"lines and comments", "# why\nGET /a\n\nPOST /b/{x}\n", []Operation{{"GET", "/a"}, {"POST", "/b/{x}"}}, false},
		{"no path", "GET\n", nil, true},
		{"relative path", "GET a\n", nil, true},
		{"lower-case method", "get /a\n", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadOperations(strings.NewReader(tc.in))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}
