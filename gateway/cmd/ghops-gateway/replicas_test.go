package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/servicetest"
)

// TestTwoProcessesServeOneClient runs two real gateway processes that share
// nothing but the session secret, and drives one client across both: /rpc
// calls alternate, and an MCP session opened on one process is used on the
// other. A third process with another secret must refuse that session.
func TestTwoProcessesServeOneClient(t *testing.T) {
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	svc := servicetest.Start(t, servicetest.Options{GitHubURL: hub.URL, Token: fakehub.DemoToken})
	const secret = "replicas-share-this-secret-0123456789"
	a := startChild(t, "-addr", "127.0.0.1:0", "-service", svc.Addr, "-session-secret", secret)
	b := startChild(t, "-addr", "127.0.0.1:0", "-service", svc.Addr, "-session-secret", secret)
	other := startChild(t, "-addr", "127.0.0.1:0", "-service", svc.Addr, "-session-secret", "another-secret-entirely-0123456789")
	for _, c := range []*child{a, b, other} {
		go func() {
			for c.logs.Scan() {
			}
		}()
	}

	post := func(t *testing.T, addr, path, session, body string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, "http://"+addr+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if path == "/mcp" {
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		}
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(out)
	}

	for i, c := range []*child{a, b, a, b} {
		_, body := post(t, c.addr, "/rpc", "", `{"jsonrpc":"2.0","id":`+string(rune('1'+i))+`,"method":"get_branches","params":{"repo":"octo-org/hello-world"}}`)
		if !strings.Contains(body, `"name":"main"`) {
			t.Fatalf("/rpc call %d on %s: %s", i, c.addr, body)
		}
	}

	resp, body := post(t, a.addr, "/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize on A: %d session %q: %s", resp.StatusCode, session, body)
	}
	tests := []struct {
		name string
		c    *child
		want int
	}{
		{"same secret accepts", b, http.StatusOK},
		{"origin process accepts", a, http.StatusOK},
		{"other secret refuses", other, http.StatusNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, tc.c.addr, "/mcp", session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_branches","arguments":{"repo":"octo-org/hello-world"}}}`)
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.want, body)
			}
			if tc.want == http.StatusOK && !strings.Contains(body, `"name":"main"`) {
				t.Fatalf("no branches in %s", body)
			}
		})
	}
}
