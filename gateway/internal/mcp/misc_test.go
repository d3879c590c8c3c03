package mcp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolschema"
)

// ExampleRenderError shows the text an isError result carries for -32602.
func ExampleRenderError() {
	e := rpcerror.InvalidParams("search", []toolschema.Violation{
		{Message: "must have required property 'query'", Path: "root", Keyword: "required", Params: map[string]any{"missingProperty": "query"}, Value: map[string]any{}},
		{Message: "must be <= 100", Path: "/per_page", Keyword: "maximum", Params: map[string]any{"comparison": "<=", "limit": 100}, Value: 101},
	})
	fmt.Println(RenderError(e))
	// Output:
	// Error -32602: Invalid params
	//   - root: must have required property 'query'
	//   - /per_page: must be <= 100
}

// TestDecodeHeaderValue covers the Base64 sentinel of Mcp-Name.
func TestDecodeHeaderValue(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"plain", "search", "search", true},
		{"sentinel", "=?base64?c2VhcmNo?=", "search", true},
		{"sentinel of non-ASCII", "=?base64?SGVsbG8sIOS4lueVjA==?=", "Hello, 世界", true},
		{"bad base64", "=?base64?***?=", "", false},
		{"control character", "a\x01b", "", false},
		{"non-ASCII raw", "é", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := decodeHeaderValue(tc.in)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("decodeHeaderValue(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestReadLine covers the stdio line reader's limit.
func TestReadLine(t *testing.T) {
	tests := []struct {
		name, in string
		max      int64
		want     []string // "!" marks a too-long line
	}{
		{"lines", "a\nbb\r\nccc", 10, []string{"a", "bb", "ccc"}},
		{"too long then fine", strings.Repeat("x", 100) + "\nok\n", 10, []string{"!", "ok"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(tc.in), 16)
			var got []string
			for {
				line, err := readLine(r, tc.max)
				switch {
				case errors.Is(err, errLineTooLong):
					got = append(got, "!")
					continue
				case len(line) > 0:
					got = append(got, string(line))
				}
				if err != nil {
					if !errors.Is(err, io.EOF) {
						t.Fatal(err)
					}
					break
				}
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("lines %q, want %q", got, tc.want)
			}
		})
	}
}

// TestNoSecretsAndOneLinePerError checks that an internal error's cause
// (holding a token) reaches neither the answer nor the log unredacted, and
// that a batch logs one jsonrpc_error line per error element.
func TestNoSecretsAndOneLinePerError(t *testing.T) {
	s := newTestServer(t)
	r := s.post(t, mergeCall(500), "MCP-Protocol-Version", V20251125)
	if strings.Contains(string(r.body), "ghp_") || strings.Contains(s.log.String(), "ghp_SECRET") {
		t.Fatalf("token leaked: %s\n%s", r.body, s.log.String())
	}
	before := len(s.log.ErrorLines())
	r = s.post(t, `[`+mergeCall(404)+`,`+mergeCall(1)+`,{"jsonrpc":"2.0","id":9,"method":"nope"},{"jsonrpc":"2.0","method":"nope"}]`, "MCP-Protocol-Version", V20250326)
	if r.status != 200 {
		t.Fatalf("batch status %d: %s", r.status, r.body)
	}
	lines := s.log.ErrorLines()[before:]
	if len(lines) != 2 {
		t.Fatalf("batch with two error answers logged %d lines: %q", len(lines), lines)
	}
	if !strings.Contains(lines[0]+lines[1], "jsonrpc_error tool=merge_pull_request code=-32002 repo=octo-org/hello-world pr=2") {
		t.Errorf("lines %q", lines)
	}
}

// TestStdioOversizedLine answers a line over the limit with -32600 and goes on.
func TestStdioOversizedLine(t *testing.T) {
	s := newTestServer(t, WithMaxBodyBytes(64))
	c := startStdio(t, s)
	c.send(t, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`+strings.Repeat("x", 100)+`"}}`)
	if got := c.recv(t); !strings.Contains(fmt.Sprint(got), "-32600") {
		t.Fatalf("answer %v", got)
	}
	c.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if got := c.recv(t); got["id"].(float64) != 2 {
		t.Fatalf("answer %v", got)
	}
}
