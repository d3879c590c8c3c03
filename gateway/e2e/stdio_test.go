package e2e

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ghops.dev/gateway/gatewaytest"
	"ghops.dev/services/fakehub"
)

// TestStdioWithSDK drives `ghops-gateway stdio`'s code path (app.ServeStdio)
// with the official SDK over pipes, at its default version (which probes
// with server/discover) and pinned to 2025-06-18 (initialize): nothing but
// JSON-RPC may reach stdout, so any stray byte would break the session.
func TestStdioWithSDK(t *testing.T) {
	for _, shape := range gatewaytest.Shapes {
		t.Run(shape.Name, func(t *testing.T) {
			st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Embedded: shape.Embedded})
			for _, pin := range []string{"", "2025-06-18"} {
				stdioSession(t, st, pin)
			}
		})
	}
}

// stdioSession runs one SDK session over stdio, pinned to pin ("": the
// SDK's default), against a new gateway of st's shape.
func stdioSession(t *testing.T, st *gatewaytest.Stack, pin string) {
	name := pin
	if name == "" {
		name = "default"
	}
	t.Run(name, func(t *testing.T) {
		logs := &gatewaytest.SyncBuffer{}
		a := gatewaytest.NewApp(t, st, gatewaytest.StackOptions{}, logs)
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- a.ServeStdio(context.Background(), inR, outW)
			_ = outW.Close()
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var opts *sdk.ClientSessionOptions
		if pin != "" {
			opts = &sdk.ClientSessionOptions{ProtocolVersion: pin}
		}
		c := sdk.NewClient(&sdk.Implementation{Name: "e2e-stdio", Version: "1.0.0"}, nil)
		s, err := c.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, opts)
		if err != nil {
			t.Fatal(err)
		}
		want := pin
		if want == "" {
			want = "2026-07-28"
		}
		if got := s.InitializeResult().ProtocolVersion; got != want {
			t.Errorf("negotiated %q, want %q", got, want)
		}
		res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"repo": repo, "path": "go.mod"}})
		if err != nil || res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "hello-world") {
			t.Fatalf("read_file: %v %+v", err, res)
		}
		if _, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "must have required property 'query'") {
			t.Fatalf("search {}: %v", err)
		}
		_ = s.Close()
		if err := <-done; err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
		if !strings.Contains(logs.String(), "jsonrpc_error tool=search code=-32602") {
			t.Errorf("no jsonrpc_error line in the logs: %s", logs.String())
		}
		if strings.Contains(logs.String(), fakehub.DemoToken) {
			t.Error("the service token reached the logs")
		}
	})
}
