package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// TestFastPathMatchesSDK runs the same tools/call through an SDK session
// and through the envelope's own path, at every protocol version, for a
// success and a failure answered as a result, and requires the same bytes
// (timestamps aside): the fast path must never drift from what the SDK
// would answer, whatever SDK version the module pins.
func TestFastPathMatchesSDK(t *testing.T) {
	s := newTestServer(t, WithToolErrorMode(ToolErrorsResult))
	for _, pr := range []int{1, 404, 429} {
		for _, v := range SupportedVersions {
			modern := isModern(v)
			t.Run(fmt.Sprintf("%s/pr %d", v, pr), func(t *testing.T) {
				meta := ""
				if modern {
					meta = "," + statelessMeta
				}
				params := json.RawMessage(fmt.Sprintf(`{"name":"merge_pull_request","arguments":{"repo":"octo-org/hello-world","prNumber":%d}%s}`, pr, meta))
				r := resolved{version: v, named: true, modern: modern}
				ctx := context.Background()
				cs := &callState{ctx: ctx, requestID: "r", version: v, named: true}
				resp, err := s.s.full.linkFor(r).call(ctx, "tools/call", params, cs.extra())
				if err != nil || resp.Error != nil {
					t.Fatalf("sdk path: %v %v", err, resp.Error)
				}
				cs2 := &callState{ctx: ctx, requestID: "r", version: v, named: true}
				fast := s.s.encodeToolResult(s.s.run(ctx, cs2, "merge_pull_request", json.RawMessage(topValue(params, "arguments"))), modern)
				if got, want := normalize(fast), normalize(resp.Result); string(got) != string(want) {
					t.Fatalf("fast path\n%s\nSDK\n%s", got, want)
				}
			})
		}
	}
}
