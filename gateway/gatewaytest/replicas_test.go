package gatewaytest

import (
	"net/http"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/servicetest"

	"ghops.dev/gateway/internal/httpcall"
)

// TestTwoGatewayProcessesAlternate serves one client from two gateways in
// front of one service: /rpc is stateless, and an MCP session opened on one
// replica is accepted by the other (same session secret, no shared store).
func TestTwoGatewayProcessesAlternate(t *testing.T) {
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	svc := servicetest.Start(t, servicetest.Options{GitHubURL: hub.URL, Token: fakehub.DemoToken})
	opts := StackOptions{SessionSecret: []byte("replicas-share-this-secret-0123456789")}
	gws := []*Gateway{StartGateway(t, svc.Addr, opts), StartGateway(t, svc.Addr, opts)}

	for i := range 4 {
		t.Run("rpc via gateway "+string(rune('A'+i%2)), func(t *testing.T) {
			_, _, out := rpc(t, gws[i%2].URL, "fetch", `{"repo":"octo-org/hello-world"}`)
			if code(t, out) != 0 || !strings.Contains(string(out["result"]), `"full_name":"octo-org/hello-world"`) {
				t.Fatalf("answer %s %s", out["result"], out["error"])
			}
		})
	}

	post := func(url, session, body string) (*http.Response, string) {
		t.Helper()
		hdr := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream", "MCP-Protocol-Version", "2025-06-18"}
		if session != "" {
			hdr = append(hdr, "Mcp-Session-Id", session)
		}
		resp, b := httpcall.Do(t, http.MethodPost, url+"/mcp", body, hdr...)
		return resp, string(b)
	}
	resp, body := post(gws[0].URL, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize on A: %d %s", resp.StatusCode, body)
	}
	session := resp.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatal("initialize on A issued no Mcp-Session-Id")
	}
	steps := []struct {
		name, body, want string
		gw               int
	}{
		{"initialized on B", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "", 1},
		{"tools/list on B", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `"name":"merge_pull_request"`, 1},
		{"tools/call on A", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_branches","arguments":{"repo":"octo-org/hello-world"}}}`, `"feature/clean"`, 0},
		{"tools/call on B", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"fetch","arguments":{"repo":"octo-org/hello-world"}}}`, `hello-world`, 1},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			resp, body := post(gws[s.gw].URL, session, s.body)
			if resp.StatusCode/100 != 2 || !strings.Contains(body, s.want) {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
		})
	}
}
