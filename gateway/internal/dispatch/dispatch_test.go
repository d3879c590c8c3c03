package dispatch

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolschema"
)

// failingCaller offers one tool, "known", whose every call fails; it
// counts what the Handler asks of it.
type failingCaller struct{ calls, spent, unknown int }

func (c *failingCaller) Lookup(name string) (*toolschema.Tool, bool) {
	return &toolschema.Tool{Name: name}, name == "known"
}

func (c *failingCaller) Call(context.Context, string, json.RawMessage, toolcall.CallInfo) (json.RawMessage, *rpcerror.Error) {
	c.calls++
	return nil, rpcerror.New(rpcerror.NotFound, "", rpcerror.Tool("known"))
}

func (c *failingCaller) Spend(context.Context, string) *rpcerror.Error { c.spent++; return nil }

func (c *failingCaller) UnknownTool(_ context.Context, name string) *rpcerror.Error {
	c.unknown++
	return rpcerror.New(rpcerror.InvalidParamsCode, "", rpcerror.Tool(name))
}

func (c *failingCaller) UnknownMethod(_ context.Context, name string, _ bool) *rpcerror.Error {
	c.unknown++
	return rpcerror.New(rpcerror.MethodNotFound, "", rpcerror.Tool(name))
}

// TestToolErrorRule: the rule of docs/architecture.md for every mode and
// framing — an isError result only on MCP, when the request named a
// version or the mode forces it; never for /rpc nor for an unknown tool,
// which is charged to the rate and answered by UnknownTool.
func TestToolErrorRule(t *testing.T) {
	mcpNamed := Framing{Version: "2025-11-25", Named: true}
	mcpDefault := Framing{Version: "2025-03-26"}
	tests := []struct {
		name     string
		mode     string
		tool     string
		framing  Framing
		asResult bool
		code     int
		label    string
	}{
		{"auto, MCP, version named", ToolErrorsAuto, "known", mcpNamed, true, rpcerror.NotFound, "known"},
		{"auto, MCP, no version named", ToolErrorsAuto, "known", mcpDefault, false, rpcerror.NotFound, "known"},
		{"auto, rpc", ToolErrorsAuto, "known", Framing{}, false, rpcerror.NotFound, "known"},
		{"jsonrpc forces errors", ToolErrorsJSONRPC, "known", mcpNamed, false, rpcerror.NotFound, "known"},
		{"result forces results", ToolErrorsResult, "known", mcpDefault, true, rpcerror.NotFound, "known"},
		{"result mode, rpc stays an error", ToolErrorsResult, "known", Framing{}, false, rpcerror.NotFound, "known"},
		{"unknown tool, result mode", ToolErrorsResult, "nope", mcpNamed, false, rpcerror.InvalidParamsCode, UnknownLabel},
		{"unknown mode is auto", "bogus", "known", mcpDefault, false, rpcerror.NotFound, "known"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &failingCaller{}
			o := New(c, WithToolErrors(tc.mode)).ToolsCall(context.Background(), ToolCall{Name: tc.tool, RequestID: "r1", Framing: tc.framing})
			if o.Err == nil || o.Err.Code != tc.code {
				t.Fatalf("error %+v, want code %d", o.Err, tc.code)
			}
			if o.AsResult != tc.asResult || o.Tool != tc.label {
				t.Errorf("AsResult %v Tool %q, want %v %q", o.AsResult, o.Tool, tc.asResult, tc.label)
			}
			if o.Err.RequestID != "r1" && tc.label == UnknownLabel {
				t.Errorf("request id %q", o.Err.RequestID)
			}
			wantCalls, wantUnknown := 1, 0
			if tc.label == UnknownLabel {
				wantCalls, wantUnknown = 0, 1
			}
			if c.calls != wantCalls || c.unknown != wantUnknown || c.spent != wantUnknown {
				t.Errorf("calls %d spent %d unknown %d", c.calls, c.spent, c.unknown)
			}
		})
	}
}

// fakeProtocol answers MCP's own methods with their names, noting which
// ran: the table, not the protocol, must decide which.
type fakeProtocol struct{ ran []string }

func (p *fakeProtocol) Initialize(json.RawMessage) (json.RawMessage, string, *rpcerror.Error) {
	p.ran = append(p.ran, "initialize")
	return json.RawMessage(`"initialize"`), "2025-06-18", nil
}

func (p *fakeProtocol) Ping(json.RawMessage) (json.RawMessage, *rpcerror.Error) {
	p.ran = append(p.ran, "ping")
	return json.RawMessage(`"ping"`), nil
}

func (p *fakeProtocol) ToolsList(context.Context, json.RawMessage, bool) (json.RawMessage, *rpcerror.Error) {
	p.ran = append(p.ran, "tools/list")
	return json.RawMessage(`"tools/list"`), nil
}

func (p *fakeProtocol) Discover(json.RawMessage) (json.RawMessage, *rpcerror.Error) {
	p.ran = append(p.ran, "server/discover")
	return json.RawMessage(`"server/discover"`), nil
}

func (p *fakeProtocol) ToolResult(Outcome, string, bool) json.RawMessage {
	p.ran = append(p.ran, "tool result")
	return json.RawMessage(`"tool result"`)
}

func (p *fakeProtocol) NewSession(context.Context, string) string {
	p.ran = append(p.ran, "session")
	return "sid"
}

// TestMethodTable: which method runs, at which version, and how an unknown
// one is worded, for plain JSON-RPC and MCP's two wires.
func TestMethodTable(t *testing.T) {
	handshake := Framing{Version: "2025-11-25", Named: true, HTTP: true}
	stdio := Framing{Version: "2025-11-25", Named: true}
	modern := Framing{Version: "2026-07-28", Named: true, Modern: true, HTTP: true}
	modernStdio := Framing{Version: "2026-07-28", Named: true, Modern: true}
	tests := []struct {
		name  string
		req   Request
		plain bool // no Protocol: /rpc
		ran   string
		res   string
		code  int
		msg   string
		want  Outcome // the members the framing applies
	}{
		{name: "rpc unmapped method", req: Request{Method: "tools/list"}, plain: true, code: rpcerror.MethodNotFound, msg: "Method not found", want: Outcome{Tool: UnknownLabel}},
		{name: "rpc tools/call as sent", req: Request{Method: "tools/call", Tool: "known"}, plain: true, code: rpcerror.MethodNotFound, msg: "Method not found", want: Outcome{Tool: UnknownLabel}},
		{name: "rpc unmapped notification", req: Request{Method: "x/y", Notification: true}, plain: true, code: rpcerror.MethodNotFound, msg: "Method not found", want: Outcome{Tool: UnknownLabel, NoReply: true}},
		{name: "rpc mapped tool", req: Request{Method: "tools/call", Mapped: true, Tool: "known"}, plain: true, code: rpcerror.NotFound, msg: "Not found", want: Outcome{Tool: "known"}},
		{name: "initialize over HTTP", req: Request{Method: "initialize", Framing: handshake}, ran: "initialize,session", res: `"initialize"`, want: Outcome{Negotiated: "2025-06-18", SessionHeader: "sid"}},
		{name: "initialize over stdio", req: Request{Method: "initialize", Framing: stdio}, ran: "initialize", res: `"initialize"`, want: Outcome{Negotiated: "2025-06-18"}},
		{name: "initialize in a batch", req: Request{Method: "initialize", Batch: true, Framing: handshake}, code: rpcerror.InvalidRequest, msg: "Invalid Request: initialize must not be part of a JSON-RPC batch"},
		{name: "initialize at 2026-07-28", req: Request{Method: "initialize", Framing: modern}, code: rpcerror.MethodNotFound, msg: "Method not found: initialize was removed in protocol version 2026-07-28", want: Outcome{Status: 404}},
		{name: "ping at 2026-07-28 over stdio", req: Request{Method: "ping", Framing: modernStdio}, code: rpcerror.MethodNotFound, msg: "Method not found: ping was removed in protocol version 2026-07-28"},
		{name: "ping", req: Request{Method: "ping", Framing: stdio}, ran: "ping", res: `"ping"`},
		{name: "tools/list", req: Request{Method: "tools/list", Framing: modern}, ran: "tools/list", res: `"tools/list"`},
		{name: "server/discover before 2026-07-28", req: Request{Method: "server/discover", Framing: handshake}, code: rpcerror.MethodNotFound, msg: "method not found"},
		{name: "server/discover", req: Request{Method: "server/discover", Framing: modern}, ran: "server/discover", res: `"server/discover"`},
		{name: "undeclared capability", req: Request{Method: "logging/setLevel", Framing: handshake}, code: rpcerror.MethodNotFound, msg: "Method not found: logging/setLevel (the gateway serves tools only)"},
		{name: "unknown method at 2026-07-28", req: Request{Method: "no/such", Framing: modern}, code: rpcerror.MethodNotFound, msg: "method not found", want: Outcome{Status: 404}},
		{name: "unknown method over stdio", req: Request{Method: "no/such", Framing: modernStdio}, code: rpcerror.MethodNotFound, msg: "method not found"},
		{name: "cancellation", req: Request{Method: "notifications/cancelled", Notification: true, Params: json.RawMessage(`{"requestId":1}`), Framing: stdio}, want: Outcome{NoReply: true, Cancel: json.RawMessage(`{"requestId":1}`)}},
		{name: "other notification", req: Request{Method: "notifications/initialized", Notification: true, Framing: stdio}, want: Outcome{NoReply: true}},
		{name: "tool error as result", req: Request{Method: "tools/call", Tool: "known", Framing: stdio}, ran: "tool result", res: `"tool result"`, code: rpcerror.NotFound, msg: "Not found", want: Outcome{Tool: "known", AsResult: true}},
		{name: "tool error as JSON-RPC error", req: Request{Method: "tools/call", Tool: "known", Framing: Framing{Version: "2025-03-26", HTTP: true}}, code: rpcerror.NotFound, msg: "Not found", want: Outcome{Tool: "known"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &fakeProtocol{}
			r := tc.req
			if !tc.plain {
				r.Protocol = p
			}
			o := New(&failingCaller{}).Serve(context.Background(), r)
			if got := strings.Join(p.ran, ","); got != tc.ran {
				t.Errorf("ran %q, want %q", got, tc.ran)
			}
			if string(o.Result) != tc.res {
				t.Errorf("result %s, want %s", o.Result, tc.res)
			}
			switch {
			case tc.code == 0 && o.Err != nil:
				t.Errorf("error %+v", o.Err)
			case tc.code != 0 && (o.Err == nil || o.Err.Code != tc.code || !strings.HasPrefix(o.Err.Message, tc.msg)):
				t.Errorf("error %+v, want %d %q", o.Err, tc.code, tc.msg)
			}
			got := Outcome{Tool: o.Tool, NoReply: o.NoReply, Status: o.Status, Negotiated: o.Negotiated, SessionHeader: o.SessionHeader, Cancel: o.Cancel, AsResult: o.AsResult}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("outcome %+v, want %+v", got, tc.want)
			}
		})
	}
}
