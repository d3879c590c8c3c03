package client

import (
	"sync"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ToolInfo describes one tool as the contract's descriptors declare it (the
// (ghops.v1.tool) method option), so the client needs no tools/list call.
type ToolInfo struct {
	// Name is the tool's wire name, also the JSON-RPC method on /rpc.
	Name string
	// Title is the short human-readable name.
	Title string
	// Description tells what the tool does.
	Description string
	// ReadOnly is MCP's readOnlyHint.
	ReadOnly bool
	// Destructive is MCP's destructiveHint.
	Destructive bool
	// Idempotent is MCP's idempotentHint.
	Idempotent bool
	// OpenWorld is MCP's openWorldHint.
	OpenWorld bool
	// Request and Response are the tool's input and output messages.
	Request, Response protoreflect.MessageDescriptor
}

// Retryable reports whether the client may repeat a call of the tool: the
// contract (tool.proto) allows retries only for read-only or idempotent tools.
func (t ToolInfo) Retryable() bool { return t.ReadOnly || t.Idempotent }

var (
	toolsOnce sync.Once
	toolList  []ToolInfo
	toolIndex map[string]ToolInfo
)

func loadTools() {
	toolIndex = map[string]ToolInfo{}
	svcs := ghopsv1.File_ghops_v1_github_service_proto.Services()
	for i := 0; i < svcs.Len(); i++ {
		methods := svcs.Get(i).Methods()
		for j := 0; j < methods.Len(); j++ {
			m := methods.Get(j)
			opts, ok := proto.GetExtension(m.Options(), ghopsv1.E_Tool).(*ghopsv1.ToolOptions)
			if !ok || opts == nil || opts.GetName() == "" {
				continue
			}
			t := ToolInfo{
				Name:        opts.GetName(),
				Title:       opts.GetTitle(),
				Description: opts.GetDescription(),
				ReadOnly:    opts.GetReadOnly(),
				Destructive: opts.GetDestructive(),
				Idempotent:  opts.GetIdempotent(),
				OpenWorld:   opts.GetOpenWorld(),
				Request:     m.Input(),
				Response:    m.Output(),
			}
			toolList = append(toolList, t)
			toolIndex[t.Name] = t
		}
	}
}

// Tools returns every tool of the contract in the service's declaration
// order. The slice is a copy.
func Tools() []ToolInfo {
	toolsOnce.Do(loadTools)
	return append([]ToolInfo(nil), toolList...)
}

// LookupTool returns the tool named name.
func LookupTool(name string) (ToolInfo, bool) {
	toolsOnce.Do(loadTools)
	t, ok := toolIndex[name]
	return t, ok
}
