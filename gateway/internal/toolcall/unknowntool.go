package toolcall

import (
	"context"

	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolschema"
	"ghops.dev/gateway/internal/toolset"
)

// maxUnknownNameBytes bounds how much of an unknown name the message quotes.
const maxUnknownNameBytes = 100

// UnknownTool is the one answer to a call of a tool the gateway does not
// offer, on every transport (/rpc, /mcp, stdio; docs/errors.md): -32602
// "Unknown tool: <name>" with one enum violation at /name whose allowed
// values are the tools ctx's caller may call (its tools/list), never the
// ones its policy hides. -32602 because MCP says so for tools/call, and
// /rpc maps its method onto the same call.
func (c *Caller) UnknownTool(ctx context.Context, name string) *rpcerror.Error {
	var pr *policy.Principal
	if cl := policy.CallerFrom(ctx); cl != nil {
		pr = cl.Principal
	}
	names := policy.Allowed(pr, c.offered(), c.readOnly)
	allowed := make([]any, len(names))
	for i, n := range names {
		allowed[i] = n
	}
	e := rpcerror.InvalidParams(name, []toolschema.Violation{{
		Message: "must be equal to one of the allowed values", Path: "/name", Keyword: "enum",
		Params: map[string]any{"allowedValues": allowed}, Value: name,
	}})
	quoted := name
	if len(quoted) > maxUnknownNameBytes {
		quoted = quoted[:maxUnknownNameBytes] + "..."
	}
	e.Message = "Unknown tool: " + quoted
	return e
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
