package e2e

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ghops.dev/services/fakehub"

	"ghops.dev/gateway/gatewaytest"
	"ghops.dev/gateway/internal/app"
	"ghops.dev/gateway/internal/config"
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
		// The session named its version, so a failure is an isError
		// result the model can read, with the contract error in _meta.
		res, err = s.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{}})
		if err != nil || !res.IsError || res.StructuredContent != nil || res.Meta["dev.ghops/error"] == nil ||
			!strings.Contains(res.Content[0].(*sdk.TextContent).Text, "Error -32602: Invalid params\n  - root: must have required property 'query'") {
			t.Fatalf("search {}: %v %+v", err, res)
		}
		if res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "fetch", Arguments: map[string]any{"repo": repo}}); err != nil || res.IsError {
			t.Fatalf("the session is not usable after a failure: %v %+v", err, res)
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

// TestStdioPolicy: over stdio the principal is the local user, and the
// policy file applies to it as to any HTTP caller (here its default rules:
// read-only), in tools/list and in calls.
func TestStdioPolicy(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{})
	cfg := config.Default()
	cfg.ServiceAddr = st.Service.Addr
	cfg.PolicyFile = t.TempDir() + "/policy.yaml"
	if err := writeFile(cfg.PolicyFile, "default:\n  read_only: true\n"); err != nil {
		t.Fatal(err)
	}
	ctx, s := stdioClient(t, cfg)
	names := listedTools(ctx, t, s)
	if want := gatewaytest.DeclaredTools(true); !slices.Equal(names, want) {
		t.Fatalf("tools %v, want the read-only tools %v", names, want)
	}
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "merge_pull_request", Arguments: map[string]any{"repo": repo, "prNumber": 1}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "Error -32001: Permission denied") {
		t.Fatalf("%v %+v", err, res)
	}
}

// stdioClient serves cfg's gateway over in-process stdio pipes, as an MCP
// host runs it, and connects the official Go SDK to it; the app, the
// session and the context end with t.
func stdioClient(t *testing.T, cfg config.Config) (context.Context, *sdk.ClientSession) {
	t.Helper()
	a, err := app.New(cfg, &gatewaytest.SyncBuffer{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		_ = a.ServeStdio(context.Background(), inR, outW)
		_ = outW.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	s, err := sdk.NewClient(&sdk.Implementation{Name: "e2e-stdio", Version: "1"}, nil).Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return ctx, s
}

// listedTools is the session's tools/list, names sorted.
func listedTools(ctx context.Context, t *testing.T, s *sdk.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range s.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}
