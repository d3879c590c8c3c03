package dispatch

import (
	"context"
	"encoding/json"
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
	return nil, rpcerror.New(rpcerror.NotFound, "known")
}

func (c *failingCaller) Spend(context.Context, string) *rpcerror.Error { c.spent++; return nil }

func (c *failingCaller) UnknownTool(_ context.Context, name string) *rpcerror.Error {
	c.unknown++
	return rpcerror.New(rpcerror.InvalidParamsCode, name)
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
