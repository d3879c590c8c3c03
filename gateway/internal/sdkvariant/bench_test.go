package sdkvariant

import (
	"bytes"
	"net/http"
	"testing"
)

// BenchmarkToolsCall measures one tools/call through today's gateway
// ("ours": the pipeline and the gateway's own MCP layer) and through the SDK
// variant ("sdk"), each over net/http on 127.0.0.1 as ghops-load calls it
// (2025-06-18, after initialize, with the session id when one is given), to
// the fake service over loopback gRPC. Client, fake service and call path are
// the same on both sides, so the difference in B/op and allocs/op is the MCP
// layer's (docs/benchmarks.md, "MCP through the SDK or our own (issue 21)").
func BenchmarkToolsCall(b *testing.B) {
	st := newStack(b)
	calls := []struct{ tool, args, want string }{
		{"read_file", `{"repo":"octo-org/hello-world","path":"README.md","branch":"main"}`, `A demo repository`},
		{"get_branches", `{"repo":"octo-org/hello-world"}`, `feature/greeting`},
	}
	for _, side := range []struct{ name, base string }{{"ours", st.ours}, {"sdk", st.sdk}} {
		for _, c := range calls {
			b.Run(side.name+"/"+c.tool, func(b *testing.B) {
				cl := newClient(b, side.base, "2025-06-18")
				body := callBody(c.tool, c.args)
				b.ReportAllocs()
				for b.Loop() {
					resp, out := cl.post(b, body)
					if resp.StatusCode != http.StatusOK || !bytes.Contains(out, []byte(c.want)) || bytes.Contains(out, []byte(`"isError":true`)) {
						b.Fatalf("HTTP %d: %s", resp.StatusCode, out)
					}
				}
			})
		}
	}
}
