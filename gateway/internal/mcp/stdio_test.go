package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// stdioClient drives ServeStdio through pipes.
type stdioClient struct {
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan error
}

func startStdio(t *testing.T, s *testServer) *stdioClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &stdioClient{in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
	c.out.Buffer(make([]byte, 1<<20), 1<<22)
	go func() {
		c.done <- s.h.ServeStdio(context.Background(), inR, outW)
		_ = outW.Close()
	}()
	t.Cleanup(func() { _ = inW.Close() })
	return c
}

func (c *stdioClient) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (c *stdioClient) recv(t *testing.T) map[string]any {
	t.Helper()
	if !c.out.Scan() {
		t.Fatalf("no answer: %v", c.out.Err())
	}
	return decode(t, c.out.Bytes())
}

// TestStdio runs a handshake session, a stateless one and a cancellation
// over stdio, then checks a clean end of input.
func TestStdio(t *testing.T) {
	s := newTestServer(t)
	c := startStdio(t, s)
	steps := []struct {
		name, send, want string
	}{
		{"initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, `"protocolVersion":"2025-06-18"`},
		{"tools/list", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `"outputSchema"`},
		{"tools/call", mergeCall(1), `"structuredContent"`},
		{"discover probe", `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, `"supportedVersions"`},
		{"stateless removed method", `{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, `"code":-32601`},
		{"parse error", `{"jsonrpc":`, `"code":-32700`},
		{"batch refused after 2025-06-18 handshake", `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, `"code":-32600`},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			c.send(t, st.send)
			got := c.recv(t)
			b, _ := json.Marshal(got)
			if !strings.Contains(string(b), st.want) {
				t.Fatalf("answer %s lacks %s", b, st.want)
			}
		})
	}
	t.Run("notifications/cancelled stops a running call", func(t *testing.T) {
		c.send(t, `{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"merge_pull_request","arguments":{"repo":"a/b","prNumber":999}}}`)
		<-blockStarted
		c.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"user"}}`)
		got := c.recv(t)
		if got["id"] != "slow" || got["error"].(map[string]any)["code"].(float64) != -32603 {
			t.Fatalf("answer %v", got)
		}
	})
	t.Run("end of input", func(t *testing.T) {
		_ = c.in.Close()
		if err := <-c.done; err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
	})
}
