package mcp

import (
	"encoding/json"
	"fmt"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolResultsDecodeInSDK sends the same tools/call at every protocol
// version, for a success and failures answered as results, and decodes the
// answer with the official SDK's CallToolResult (what its client hands an
// application): the text content, structuredContent from 2025-06-18 on,
// isError with the contract error in _meta["dev.ghops/error"], and the
// serverInfo _meta at 2026-07-28 must all come through.
func TestToolResultsDecodeInSDK(t *testing.T) {
	s := newTestServer(t, WithToolErrorMode(ToolErrorsResult))
	for _, pr := range []int{1, 404, 429} {
		for _, v := range SupportedVersions {
			modern := isModern(v)
			t.Run(fmt.Sprintf("%s/pr %d", v, pr), func(t *testing.T) {
				body := mergeCall(pr, modern)
				hdr := []string{"MCP-Protocol-Version", v}
				if modern {
					hdr = statelessHeaders("tools/call", "merge_pull_request")
				}
				r := s.post(t, body, hdr...)
				var ans struct {
					Result json.RawMessage `json:"result"`
				}
				if err := json.Unmarshal(r.body, &ans); err != nil || ans.Result == nil {
					t.Fatalf("HTTP %d %s: %v", r.status, r.body, err)
				}
				var res sdk.CallToolResult
				if err := json.Unmarshal(ans.Result, &res); err != nil {
					t.Fatalf("the SDK cannot decode %s: %v", ans.Result, err)
				}
				if len(res.Content) != 1 {
					t.Fatalf("content %v", res.Content)
				}
				text, ok := res.Content[0].(*sdk.TextContent)
				if !ok || text.Text == "" {
					t.Fatalf("content %#v", res.Content[0])
				}
				if got := res.IsError; got != (pr != 1) {
					t.Errorf("isError %v for pr %d", got, pr)
				}
				_, hasErr := res.Meta[ErrorMetaKey]
				if hasErr != res.IsError {
					t.Errorf("_meta %v with isError %v", res.Meta, res.IsError)
				}
				wantStructured := pr == 1 && hasStructuredContent(v)
				if got := res.StructuredContent != nil; got != wantStructured {
					t.Errorf("structuredContent %v, want present %v", res.StructuredContent, wantStructured)
				}
				if wantStructured {
					var sc map[string]any
					if err := json.Unmarshal([]byte(text.Text), &sc); err != nil || sc["merged"] != true {
						t.Errorf("text %q does not carry the result", text.Text)
					}
				}
				if _, ok := res.Meta["io.modelcontextprotocol/serverInfo"]; ok != modern {
					t.Errorf("serverInfo _meta %v at %s", res.Meta, v)
				}
			})
		}
	}
}
