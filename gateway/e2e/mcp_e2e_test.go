package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgotypes "github.com/mark3labs/mcp-go/mcp"
	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// recorder is an http.RoundTripper that remembers the last JSON-RPC error
// code and Retry-After header the gateway answered, so that the tests see
// codes even where an SDK reduces an error to its message.
type recorder struct {
	mu         sync.Mutex
	lastCode   int
	retryAfter string
	versions   map[string]bool // MCP-Protocol-Version headers sent
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.versions == nil {
		r.versions = map[string]bool{}
	}
	if v := req.Header.Get("MCP-Protocol-Version"); v != "" {
		r.versions[v] = true
	}
	if json.Unmarshal(body, &msg) == nil && msg.Error != nil {
		r.lastCode = msg.Error.Code
	}
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		r.retryAfter = ra
	}
	return resp, nil
}

// sent reports whether some request carried MCP-Protocol-Version v.
func (r *recorder) sent(v string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.versions[v]
}

// take returns and clears the last error code and Retry-After.
func (r *recorder) take() (int, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ra := r.lastCode, r.retryAfter
	r.lastCode, r.retryAfter = 0, ""
	return c, ra
}

// outcome is what a tools/call came to: a result (code 0) or an error code,
// from a JSON-RPC error or from an isError result's _meta["dev.ghops/error"].
type outcome struct {
	code       int
	asResult   bool            // the failure came as an isError tool result
	errObj     json.RawMessage // the isError result's contract error object
	structured json.RawMessage
	text       string
	retryAfter string
}

// errorMetaKey is where an isError result carries the contract error.
const errorMetaKey = "dev.ghops/error"

// fromErrorResult fills o from an isError result's _meta error object.
func (o *outcome) fromErrorResult(meta map[string]any) {
	o.asResult = true
	o.errObj, _ = json.Marshal(meta[errorMetaKey])
	var e struct {
		Code int `json:"code"`
	}
	if json.Unmarshal(o.errObj, &e) != nil || e.Code == 0 {
		o.code = -1 // an error result without the contract object: fails every comparison
		return
	}
	o.code = e.Code
}

// client is the little the tests need from an MCP client SDK.
type client interface {
	tools(ctx context.Context) ([]string, error)
	call(ctx context.Context, name string, args map[string]any) (outcome, error)
	protocolVersion() string
	sentVersion(v string) bool
}

// sdkClient is the official MCP Go SDK.
type sdkClient struct {
	s   *sdk.ClientSession
	rec *recorder
}

func newSDKClient(t *testing.T, url, pin string) client {
	t.Helper()
	rec := &recorder{}
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e-go-sdk", Version: "1.0.0"}, nil)
	var opts *sdk.ClientSessionOptions
	if pin != "" {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: pin}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: rec}, DisableStandaloneSSE: true, MaxRetries: -1}, opts)
	if err != nil {
		t.Fatalf("go-sdk connect: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return &sdkClient{s: s, rec: rec}
}

func (c *sdkClient) sentVersion(v string) bool { return c.rec.sent(v) }

func (c *sdkClient) protocolVersion() string { return c.s.InitializeResult().ProtocolVersion }

func (c *sdkClient) tools(ctx context.Context) ([]string, error) {
	var names []string
	for tool, err := range c.s.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		names = append(names, tool.Name)
	}
	return names, nil
}

func (c *sdkClient) call(ctx context.Context, name string, args map[string]any) (outcome, error) {
	c.rec.take()
	res, err := c.s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	code, ra := c.rec.take()
	if err != nil {
		var we *sdkjsonrpc.Error
		if errors.As(err, &we) {
			return outcome{code: int(we.Code), retryAfter: ra}, nil
		}
		// The SDK reads -32003 and -32004 as its own "client/server is
		// closing" codes and reports ErrConnectionClosed (without the wire
		// error) although the session stays usable: take the code the
		// gateway actually sent.
		if errors.Is(err, sdk.ErrConnectionClosed) && (code == -32003 || code == -32004) {
			return outcome{code: code, retryAfter: ra}, nil
		}
		return outcome{}, err
	}
	o := outcome{retryAfter: ra}
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*sdk.TextContent); ok {
			o.text = tc.Text
		}
	}
	if res.StructuredContent != nil {
		o.structured, _ = json.Marshal(res.StructuredContent)
	}
	if res.IsError {
		o.fromErrorResult(res.Meta)
	}
	return o, nil
}

// mcpgoClient is github.com/mark3labs/mcp-go.
type mcpgoClient struct {
	c       *mcpgo.Client
	rec     *recorder
	version string
}

func newMCPGoClient(t *testing.T, url, pin string) client {
	t.Helper()
	rec := &recorder{}
	tr, err := mcpgotransport.NewStreamableHTTP(url, mcpgotransport.WithHTTPBasicClient(&http.Client{Transport: rec}))
	if err != nil {
		t.Fatal(err)
	}
	var opts []mcpgo.ClientOption
	if pin != "" {
		opts = append(opts, mcpgo.WithProtocolVersion(pin))
	}
	c := mcpgo.NewClient(tr, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	req := mcpgotypes.InitializeRequest{}
	req.Params.ClientInfo = mcpgotypes.Implementation{Name: "e2e-mcp-go", Version: "1.0.0"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("mcp-go initialize: %v", err)
	}
	return &mcpgoClient{c: c, rec: rec, version: res.ProtocolVersion}
}

func (c *mcpgoClient) sentVersion(v string) bool { return c.rec.sent(v) }

func (c *mcpgoClient) protocolVersion() string { return c.version }

func (c *mcpgoClient) tools(ctx context.Context) ([]string, error) {
	res, err := c.c.ListTools(ctx, mcpgotypes.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	return names, nil
}

func (c *mcpgoClient) call(ctx context.Context, name string, args map[string]any) (outcome, error) {
	c.rec.take()
	req := mcpgotypes.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.c.CallTool(ctx, req)
	code, ra := c.rec.take()
	if err != nil {
		if code != 0 {
			return outcome{code: code, retryAfter: ra}, nil
		}
		return outcome{}, err
	}
	o := outcome{retryAfter: ra}
	if len(res.Content) > 0 {
		switch tc := res.Content[0].(type) {
		case mcpgotypes.TextContent:
			o.text = tc.Text
		case *mcpgotypes.TextContent:
			o.text = tc.Text
		}
	}
	if res.StructuredContent != nil {
		o.structured, _ = json.Marshal(res.StructuredContent)
	}
	if res.IsError {
		var meta map[string]any
		if res.Meta != nil {
			meta = res.Meta.AdditionalFields
		}
		o.fromErrorResult(meta)
	}
	return o, nil
}
