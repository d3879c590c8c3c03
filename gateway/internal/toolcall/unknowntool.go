package toolcall

import (
	"context"

	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolset"
)

// maxUnknownNameBytes bounds how much of an unknown name the message quotes.
const maxUnknownNameBytes = 100

// maxListedTools bounds data.tools of UnknownMethod, so that the answer
// stays small however many tools a gateway offers.
const maxListedTools = 100

// UnknownTool is MCP's answer to a tools/call of a tool the gateway does
// not offer (/mcp and stdio; docs/errors.md): -32602 "Unknown tool: <name>"
// with one enum violation at /name whose allowed values are the tools
// ctx's caller may call (its tools/list), never the ones its policy hides.
// -32602 because MCP says so for tools/call.
func (c *Caller) UnknownTool(ctx context.Context, name string) *rpcerror.Error {
	names := c.callable(ctx)
	allowed := make([]any, len(names))
	for i, n := range names {
		allowed[i] = n
	}
	quoted := name
	if len(quoted) > maxUnknownNameBytes {
		quoted = quoted[:maxUnknownNameBytes] + "..."
	}
	return rpcerror.New(rpcerror.InvalidParamsCode, "Unknown tool: "+quoted, rpcerror.Tool(name), rpcerror.Violations([]rpcerror.Violation{{
		Message: "must be equal to one of the allowed values", Path: "/name", Keyword: "enum",
		Params: map[string]any{"allowedValues": allowed}, Value: name,
	}}))
}

// UnknownMethod is /rpc's answer to a method that is no tool its caller
// may call (docs/errors.md): JSON-RPC's -32601 "Method not found", since
// on /rpc a tool is a method, with data.tool the name when it has a tool
// name's shape (tool says whether it had) and data.tools the tools the
// caller may call (at most maxListedTools), as on /mcp tools/list would.
func (c *Caller) UnknownMethod(ctx context.Context, name string, tool bool) *rpcerror.Error {
	if !tool {
		name = ""
	}
	e := rpcerror.New(rpcerror.MethodNotFound, "", rpcerror.Tool(name))
	names := c.callable(ctx)
	if len(names) > maxListedTools {
		e.Data.ToolsOmitted = int32(len(names) - maxListedTools)
		names = names[:maxListedTools]
	}
	e.Data.Tools = names
	return e
}

// callable returns the names of the tools ctx's caller may call, in
// tools/list order.
func (c *Caller) callable(ctx context.Context) []string {
	var pr *policy.Principal
	if cl := policy.CallerFrom(ctx); cl != nil {
		pr = cl.Principal
	}
	return policy.Allowed(pr, c.offered(), c.readOnly)
}

// offered returns the tools of the gateway's toolsets, in registry order,
// as the policy sees them (computed once).
func (c *Caller) offered() []policy.Tool {
	c.offeredOnce.Do(func() {
		for _, t := range c.reg.Tools() {
			set := toolset.Of(t.Method)
			if toolset.Includes(c.toolsets, set) {
				c.offeredTools = append(c.offeredTools, policy.Tool{Name: t.Name, ReadOnly: t.Annotations.ReadOnlyHint, Toolset: set})
			}
		}
	})
	return c.offeredTools
}
