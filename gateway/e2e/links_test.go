package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os/user"
	"strings"
	"testing"

	"ghops.dev/gateway/gatewaytest"
	"ghops.dev/gateway/internal/httpcall"
)

const (
	keyLinksRPC = "ghk_links_rpc_0123456789abcdef01234"
	keyLinksMCP = "ghk_links_mcp_0123456789abcdef01234"
)

// TestEveryTransportPassesEveryLink runs the same four calls over /rpc,
// /mcp and stdio, each transport as its own principal (rate_per_minute 3,
// one repository), and requires from each what the links of the one call
// chain do (toolcall's links, the pipeline's metrics): a write that succeeds
// and leaves one audit record naming the transport's principal, a call on
// another repository refused by the policy (-32001), a read that succeeds,
// and a fourth call refused by the rate (-32004); and the metrics count
// every answer by transport and code.
func TestEveryTransportPassesEveryLink(t *testing.T) {
	u, err := user.Current()
	if err != nil || u.Username == "" {
		t.Fatalf("stdio's principal is the local user, and there is none here: %v", err)
	}
	rules := "    rate_per_minute: 3\n    repos: [\"octo-org/hello-world\"]\n"
	pol := "principals:\n" +
		"  - name: via-rpc\n    key_sha256: " + sha256hex(keyLinksRPC) + "\n" + rules +
		"  - name: via-mcp\n    key_sha256: " + sha256hex(keyLinksMCP) + "\n" + rules +
		"  - name: " + u.Username + "\n" + rules
	opts := gatewaytest.StackOptions{Policy: pol}
	st := gatewaytest.StartStack(t, opts)
	logs := &gatewaytest.SyncBuffer{}
	a := gatewaytest.NewApp(t, st, opts, logs)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { _ = a.Serve(ctx, lis); close(served) }()
	t.Cleanup(func() { cancel(); <-served })
	url := "http://" + lis.Addr().String()

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { _ = a.ServeStdio(ctx, inR, outW); _ = outW.Close() }()
	t.Cleanup(func() { _ = inW.Close() })
	lines := bufio.NewReader(outR)

	post := func(path, key string) func(t *testing.T, body string) []byte {
		return func(t *testing.T, body string) []byte {
			_, b := httpcall.Do(t, http.MethodPost, url+path, body, "Content-Type", "application/json", "Authorization", "Bearer "+key)
			return b
		}
	}
	transports := []struct {
		name, principal string
		transportUnderTest
	}{
		{"rpc", "via-rpc", transportUnderTest{"rpc", func(tool, args string) string {
			return `{"jsonrpc":"2.0","id":1,"method":"` + tool + `","params":` + args + `}`
		}, post("/rpc", keyLinksRPC)}},
		{"mcp", "via-mcp", transportUnderTest{"mcp", mcpWrap, post("/mcp", keyLinksMCP)}},
		{"stdio", u.Username, transportUnderTest{"stdio", mcpWrap, func(t *testing.T, body string) []byte {
			if _, err := io.WriteString(inW, body+"\n"); err != nil {
				t.Fatal(err)
			}
			line, err := lines.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			return line
		}}},
	}
	calls := []struct {
		tool, args string
		code       int // 0: a result
	}{
		{"commit_files", `{"repo":"octo-org/hello-world","branch":"main","message":"m","files":[{"path":"LINKS.md","content":"x\n"}]}`, 0},
		{"get_branches", `{"repo":"octo-org/other"}`, -32001},
		{"get_branches", `{"repo":"octo-org/hello-world"}`, 0},
		{"get_branches", `{"repo":"octo-org/hello-world"}`, -32004},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			for i, c := range calls {
				out := tr.send(t, tr.wrap(c.tool, c.args))
				var m struct {
					Result json.RawMessage `json:"result"`
					Error  *struct {
						Code int `json:"code"`
					} `json:"error"`
				}
				if err := json.Unmarshal(out, &m); err != nil {
					t.Fatalf("call %d: %q: %v", i, out, err)
				}
				switch {
				case c.code == 0 && (m.Error != nil || m.Result == nil):
					t.Fatalf("call %d (%s): %s, want a result", i, c.tool, out)
				case c.code != 0 && (m.Error == nil || m.Error.Code != c.code):
					t.Fatalf("call %d (%s): %s, want error %d", i, c.tool, out, c.code)
				}
			}
			audits := 0
			for _, line := range strings.Split(logs.String(), "\n") {
				var r map[string]any
				if json.Unmarshal([]byte(line), &r) == nil && r["msg"] == "audit" && r["principal"] == tr.principal {
					audits++
					if r["tool"] != "commit_files" || r["outcome"] != "ok" {
						t.Errorf("audit record %v", r)
					}
				}
			}
			if audits != 1 {
				t.Errorf("%d audit records of %s, want 1", audits, tr.principal)
			}
			_, metrics := httpcall.Do(t, http.MethodGet, url+"/metrics", "", "Authorization", "Bearer "+keyLinksRPC)
			for _, want := range []string{
				`ghops_gateway_rpc_requests_total{code="0",endpoint="` + tr.name + `",method="commit_files"} 1`,
				`ghops_gateway_rpc_requests_total{code="0",endpoint="` + tr.name + `",method="get_branches"} 1`,
				`ghops_gateway_rpc_requests_total{code="-32001",endpoint="` + tr.name + `",method="get_branches"} 1`,
				`ghops_gateway_rpc_requests_total{code="-32004",endpoint="` + tr.name + `",method="get_branches"} 1`,
			} {
				if !strings.Contains(string(metrics), want) {
					t.Errorf("metrics lack %s", want)
				}
			}
		})
	}
}
