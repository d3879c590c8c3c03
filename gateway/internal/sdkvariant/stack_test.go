package sdkvariant

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	ghopsv1 "ghops.dev/gen/ghops/v1"

	"ghops.dev/gateway/internal/app"
	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/fakeservicetest"
	"ghops.dev/gateway/internal/server"
)

// fakeGitHub answers read_file and get_branches at once with answers of the
// size fakehub's demo data gives; the repository "o/missing" is not found.
type fakeGitHub struct {
	ghopsv1.UnimplementedGitHubServiceServer
}

// missing is the not-found status the real service answers with.
var missing = fakeservicetest.Status(codes.NotFound, "Not Found", ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND,
	map[string]string{"repo": "o/missing", "tool": "read_file"},
	&ghopsv1.GitHubError{Status: 404, Message: "Not Found", Resource: &ghopsv1.Resource{Type: "repository", Id: "o/missing"}})

// ReadFile implements the fake.
func (fakeGitHub) ReadFile(_ context.Context, req *ghopsv1.ReadFileRequest) (*ghopsv1.ReadFileResponse, error) {
	if req.GetRepo() == "o/missing" {
		return nil, missing
	}
	content := "# hello-world\n\nA demo repository.\n"
	return &ghopsv1.ReadFileResponse{Path: req.GetPath(), Sha: "3d21ec53a331a6f037a91c368710b99387d012c1",
		Size: int32(len(content)), Encoding: "utf-8", Content: content}, nil
}

// GetBranches implements the fake.
func (fakeGitHub) GetBranches(context.Context, *ghopsv1.GetBranchesRequest) (*ghopsv1.GetBranchesResponse, error) {
	return &ghopsv1.GetBranchesResponse{
		Branches: []*ghopsv1.Branch{
			{Name: "main", Sha: "7fd1a60b01f91b314f59955a4e4d4e80d8edf11d", Protected: true},
			{Name: "feature/greeting", Sha: "553c2077f0edc3d5dc5d17262f6aa498e69d6f8e"},
		},
		Page: &ghopsv1.PageInfo{Page: 1, PerPage: 30},
	}, nil
}

// stack is today's gateway and the SDK variant, each on its own 127.0.0.1
// listener, over one fake service.
type stack struct {
	ours, sdk string // base URLs
}

// newStack starts both with the default configuration plus flags args,
// stopped when the test ends.
func newStack(t testing.TB, args ...string) stack {
	t.Helper()
	conn := fakeservicetest.Serve(t, fakeGitHub{})
	ours := serveApp(t, conn, args, func(a *app.App) http.Handler { return a.Server.Handler() })
	variant := serveApp(t, conn, args, func(a *app.App) http.Handler { return newHandler(a, server.NewMetrics()) })
	return stack{ours: ours, sdk: variant}
}

// serveApp assembles a gateway over conn with the default configuration plus
// flags args and serves handler(app) on a fresh loopback listener; it
// returns the base URL.
func serveApp(t testing.TB, conn grpc.ClientConnInterface, args []string, handler func(*app.App) http.Handler) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(append([]string{"-addr", lis.Addr().String()}, args...), func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(cfg, io.Discard, app.WithService(conn, nil))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler(a), ReadHeaderTimeout: server.ReadHeaderTimeout}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() {
		_ = srv.Close()
		_ = a.Close()
	})
	return "http://" + lis.Addr().String()
}

// client speaks MCP to one base URL as ghops-load does: initialize once,
// then requests with the negotiated version and the session id, if any.
type client struct {
	http    *http.Client
	url     string
	version string // MCP-Protocol-Version sent; "" sends none
	session string
	key     string // API key sent as the bearer token; "" sends none
}

// newClient returns a client of base sending key (none when ""); version
// "" skips initialize and sends no protocol version.
func newClient(t testing.TB, base, version string, key ...string) *client {
	t.Helper()
	c := &client{http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}, url: base + "/mcp"}
	if len(key) > 0 {
		c.key = key[0]
	}
	t.Cleanup(c.http.CloseIdleConnections)
	if version == "" {
		return c
	}
	resp, body := c.post(t, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+
		`","capabilities":{},"clientInfo":{"name":"sdkvariant","version":"1"}}}`))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: HTTP %d: %s", resp.StatusCode, body)
	}
	c.version, c.session = version, resp.Header.Get("Mcp-Session-Id")
	if resp, body = c.post(t, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); resp.StatusCode/100 != 2 {
		t.Fatalf("notifications/initialized: HTTP %d: %s", resp.StatusCode, body)
	}
	return c
}

// post sends one JSON-RPC message and returns the answer and its body.
func (c *client) post(t testing.TB, msg []byte) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.version != "" {
		req.Header.Set("MCP-Protocol-Version", c.version)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// callBody is a tools/call of tool with args.
func callBody(tool, args string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`)
}

// answer is the part of a JSON-RPC answer the comparison looks at.
type answer struct {
	Result any `json:"result"`
	Error  any `json:"error"`
}

// decode reads a JSON-RPC answer, without the error data's timestamp (the
// time of each answer).
func decode(t testing.TB, body []byte) answer {
	t.Helper()
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("not a JSON-RPC answer: %v: %s", err, body)
	}
	dropTimestamps(a.Result)
	dropTimestamps(a.Error)
	return a
}

// dropTimestamps deletes every "timestamp" member in v.
func dropTimestamps(v any) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "timestamp")
		for _, e := range v {
			dropTimestamps(e)
		}
	case []any:
		for _, e := range v {
			dropTimestamps(e)
		}
	}
}
