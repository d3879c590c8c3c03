package mcp

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestCallObserver checks that every tools/call is counted once, with the
// code of its answer, in both tool-error modes.
func TestCallObserver(t *testing.T) {
	for _, mode := range []string{ToolErrorsJSONRPC, ToolErrorsResult} {
		t.Run(mode, func(t *testing.T) {
			var (
				mu  sync.Mutex
				got []string
			)
			s := newTestServer(t, WithToolErrorMode(mode), WithCallObserver(func(endpoint, tool string, code int) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, fmt.Sprintf("%s %s %d", endpoint, tool, code))
			}))
			calls := []string{
				`{"name":"merge_pull_request","arguments":{"repo":"a/b","prNumber":1}}`,
				`{"name":"merge_pull_request","arguments":{"repo":"a/b","prNumber":405}}`,
				`{"name":"merge_pull_request","arguments":{"repo":"a/b"}}`,
				`{"name":"no_such_tool","arguments":{}}`,
			}
			for i, params := range calls {
				s.post(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+1, params))
			}
			s.post(t, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
			want := []string{
				"mcp merge_pull_request 0",
				"mcp merge_pull_request -32005",
				"mcp merge_pull_request -32602",
				"mcp unknown -32602",
			}
			mu.Lock()
			defer mu.Unlock()
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("observed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
