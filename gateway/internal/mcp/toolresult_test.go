package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
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
	s := newModeServer(t, ToolErrorsResult)
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

// TestProtocolAnswersDecodeInSDK decodes the protocol's own answers with
// the official SDK's result types (what its client hands an application):
// initialize at every handshake version, server/discover, and every
// tools/list page at 2025-11-25 and 2026-07-28, whose tools must be the
// registry's, each with its input schema, and whose cache fields the SDK
// reads.
func TestProtocolAnswersDecodeInSDK(t *testing.T) {
	s := newPrincipalServer(t, WithPageSize(7))
	result := func(t *testing.T, r reply, into any) {
		t.Helper()
		var ans struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(r.body, &ans); err != nil || ans.Result == nil {
			t.Fatalf("HTTP %d %s: %v", r.status, r.body, err)
		}
		if err := json.Unmarshal(ans.Result, into); err != nil {
			t.Fatalf("the SDK cannot decode %s: %v", ans.Result, err)
		}
	}
	for _, v := range legacyVersions {
		t.Run("initialize "+v, func(t *testing.T) {
			var res sdk.InitializeResult
			result(t, s.post(t, initializeWith(v)), &res)
			if res.ProtocolVersion != v || res.ServerInfo == nil || res.ServerInfo.Name != ServerName ||
				res.Capabilities == nil || res.Capabilities.Tools == nil || res.Instructions != Instructions {
				t.Errorf("%+v", res)
			}
		})
	}
	t.Run("server/discover", func(t *testing.T) {
		var res sdk.DiscoverResult
		result(t, s.post(t, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+statelessMeta+`}}`, statelessHeaders("server/discover", "")...), &res)
		if len(res.SupportedVersions) != len(SupportedVersions) || res.Capabilities == nil || res.Capabilities.Tools == nil || res.CacheScope != "public" {
			t.Errorf("%+v", res)
		}
	})
	for _, run := range []struct {
		name    string
		meta    bool
		headers []string
		want    int
		scope   string
	}{
		{"tools/list 2025-11-25", false, v1125, len(newRegistry(t).Tools()), "public"},
		{"tools/list 2026-07-28", true, statelessHeaders("tools/list", ""), len(newRegistry(t).Tools()), "public"},
		{"tools/list narrowed", false, append(append([]string{}, v1125...), principalHeader, "search,read_file,get_branches"), 3, "private"},
	} {
		t.Run(run.name, func(t *testing.T) {
			cursor, seen := "", map[string]bool{}
			for page := 0; page < 20; page++ {
				var members []string
				if cursor != "" {
					members = append(members, `"cursor":"`+cursor+`"`)
				}
				if run.meta {
					members = append(members, statelessMeta)
				}
				var res sdk.ListToolsResult
				result(t, s.post(t, listAt(`{`+strings.Join(members, ",")+`}`), run.headers...), &res)
				if res.CacheScope != run.scope || (run.scope == "private") != (res.TTLMs > 0) {
					t.Errorf("cacheScope %q ttlMs %d, want %q", res.CacheScope, res.TTLMs, run.scope)
				}
				for _, tl := range res.Tools {
					if seen[tl.Name] || tl.InputSchema == nil || tl.Description == "" {
						t.Errorf("tool %+v (seen before: %v)", tl, seen[tl.Name])
					}
					seen[tl.Name] = true
				}
				if cursor = res.NextCursor; cursor == "" {
					break
				}
			}
			if len(seen) != run.want {
				t.Errorf("%d tools over the pages, want %d", len(seen), run.want)
			}
		})
	}
}
