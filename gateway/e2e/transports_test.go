package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"ghops.dev/gateway/gatewaytest"
	"ghops.dev/gateway/internal/app"
	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/httpcall"
)

// deadAddr returns a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// transportUnderTest sends one raw message and returns the one JSON-RPC
// error object of its answer.
type transportUnderTest struct {
	name string
	// wrap turns a tool call (name, arguments JSON) into the transport's
	// request body.
	wrap func(tool, args string) string
	send func(t *testing.T, body string) []byte
}

// TestEveryTransportRefusesTheSameWay sends the same bad inputs over /rpc,
// /mcp and stdio and requires the same code and message from each: a
// duplicate key in the envelope, in the arguments beside _meta, in a
// wrapper; an id that is not valid UTF-8; and a call while the service is
// unreachable (-32603 "Service unavailable", the cause only in the log).
func TestEveryTransportRefusesTheSameWay(t *testing.T) {
	cfg := config.Default()
	cfg.Addr = "127.0.0.1:0"
	cfg.ServiceAddr = deadAddr(t)
	cfg.CallTimeout = 3 * time.Second
	logs := &gatewaytest.SyncBuffer{}
	a, err := app.New(cfg, logs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = a.Serve(ctx, lis) }()
	t.Cleanup(cancel)
	url := "http://" + lis.Addr().String()

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { _ = a.ServeStdio(ctx, inR, outW); _ = outW.Close() }()
	t.Cleanup(func() { _ = inW.Close() })
	lines := bufio.NewReader(outR)

	post := func(path string) func(t *testing.T, body string) []byte {
		return func(t *testing.T, body string) []byte {
			_, b := httpcall.Do(t, http.MethodPost, url+path, body, "Content-Type", "application/json")
			return b
		}
	}
	transports := []transportUnderTest{
		{"rpc", func(tool, args string) string {
			return `{"jsonrpc":"2.0","id":1,"method":"` + tool + `","params":` + args + `}`
		}, post("/rpc")},
		{"mcp", mcpWrap, post("/mcp")},
		{"stdio", mcpWrap, func(t *testing.T, body string) []byte {
			if _, err := io.WriteString(inW, body+"\n"); err != nil {
				t.Fatal(err)
			}
			line, err := lines.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			return line
		}},
	}
	cases := []struct {
		name string
		body func(tr transportUnderTest) string
		code int
		msg  string
	}{
		{"duplicate envelope key", func(tr transportUnderTest) string {
			return strings.Replace(tr.wrap("fetch", `{"repo":"octo-org/hello-world"}`), `"id":1`, `"id":1,"id":2`, 1)
		}, -32700, `Parse error: duplicate key at "/id"`},
		{"duplicate argument beside _meta", func(tr transportUnderTest) string {
			return tr.wrap("fetch", `{"_meta":{"progressToken":1},"repo":"octo-org/hello-world","repo":"octo-org/secret"}`)
		}, -32700, "Parse error: duplicate key"},
		{"duplicate inside a wrapper", func(tr transportUnderTest) string {
			return tr.wrap("fetch", `{"args":{"repo":"a/b","repo":"c/d"}}`)
		}, -32700, "Parse error: duplicate key"},
		{"id not UTF-8", func(tr transportUnderTest) string {
			return strings.Replace(tr.wrap("fetch", `{"repo":"octo-org/hello-world"}`), `"id":1`, "\"id\":\"\xff\xfe\"", 1)
		}, -32700, `Parse error: invalid UTF-8 at "/id"`},
		{"service unreachable", func(tr transportUnderTest) string {
			return tr.wrap("fetch", `{"repo":"octo-org/hello-world"}`)
		}, -32603, "Service unavailable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, tr := range transports {
				out := tr.send(t, tc.body(tr))
				var m struct {
					ID    json.RawMessage `json:"id"`
					Error *struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				if err := json.Unmarshal(out, &m); err != nil || m.Error == nil {
					t.Fatalf("%s: %q", tr.name, out)
				}
				if m.Error.Code != tc.code || !strings.HasPrefix(m.Error.Message, tc.msg) {
					t.Errorf("%s: %d %q, want %d %q", tr.name, m.Error.Code, m.Error.Message, tc.code, tc.msg)
				}
				if tc.code == -32700 && string(m.ID) != "null" {
					t.Errorf("%s: a refused body answered with id %s", tr.name, m.ID)
				}
			}
		})
	}
	if !strings.Contains(logs.String(), "connection refused") && !strings.Contains(logs.String(), "connect") {
		t.Errorf("the cause of -32603 is not in the log: %s", logs.String())
	}
}

// mcpWrap is a tools/call naming no protocol version (so failures are
// JSON-RPC errors, as on /rpc).
func mcpWrap(tool, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}
