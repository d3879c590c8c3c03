// Package catalog reads the tools out of the compiled descriptors of
// proto/ghops/v1/github_service.proto: every RPC marked (ghops.v1.tool),
// with its name, description, toolset, hints and Go names, in declaration
// order. The client's typed methods and the tool lists of README.md and
// docs/comparison.md are written from it (package emit), so that a new RPC
// reaches them with no hand edit. It checks what those files rely on: a
// tool without a name, description or toolset, or a name used twice, fails
// `make generate`.
package catalog

import (
	"errors"
	"fmt"
	"strings"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Tool is one RPC offered as a tool.
type Tool struct {
	// Name is the wire name, e.g. "get_commit".
	Name string
	// Method is the RPC's name, which is also its Go name, e.g. "GetCommit".
	Method string
	// Request and Response are the Go names of the input and output
	// messages, e.g. "GetCommitRequest".
	Request, Response string
	// Title and Description are the (ghops.v1.tool) texts.
	Title, Description string
	// Toolset is the group's wire name, e.g. "repos".
	Toolset string
	// ReadOnly, Destructive and Idempotent are MCP's hints.
	ReadOnly, Destructive, Idempotent bool
}

// Toolset is one group with its tools.
type Toolset struct {
	// Name is the wire name, e.g. "repos".
	Name string
	// Tools are the group's tools, in declaration order.
	Tools []Tool
}

// Catalog is every tool of one proto file.
type Catalog struct {
	// Tools are in declaration order.
	Tools []Tool
}

// Load reads the tools of every service of fd.
func Load(fd protoreflect.FileDescriptor) (*Catalog, error) {
	c := &Catalog{}
	seen := map[string]bool{}
	for i := 0; i < fd.Services().Len(); i++ {
		methods := fd.Services().Get(i).Methods()
		for j := 0; j < methods.Len(); j++ {
			m := methods.Get(j)
			to, _ := proto.GetExtension(m.Options(), ghopsv1.E_Tool).(*ghopsv1.ToolOptions)
			if to == nil || !proto.HasExtension(m.Options(), ghopsv1.E_Tool) {
				continue
			}
			t, err := tool(m, to)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", m.FullName(), err)
			}
			if seen[t.Name] {
				return nil, fmt.Errorf("%s: tool name %q used twice", m.FullName(), t.Name)
			}
			seen[t.Name] = true
			c.Tools = append(c.Tools, t)
		}
	}
	if len(c.Tools) == 0 {
		return nil, fmt.Errorf("%s declares no tool", fd.Path())
	}
	return c, nil
}

func tool(m protoreflect.MethodDescriptor, to *ghopsv1.ToolOptions) (Tool, error) {
	switch {
	case to.GetName() == "":
		return Tool{}, errors.New("(ghops.v1.tool) without a name")
	case strings.TrimSpace(to.GetDescription()) == "":
		return Tool{}, errors.New("(ghops.v1.tool) without a description")
	case to.GetToolset() == ghopsv1.Toolset_TOOLSET_UNSPECIFIED:
		return Tool{}, errors.New("(ghops.v1.tool) without a toolset")
	}
	return Tool{
		Name: to.GetName(), Method: string(m.Name()),
		Request: string(m.Input().Name()), Response: string(m.Output().Name()),
		Title: to.GetTitle(), Description: strings.TrimSpace(to.GetDescription()),
		Toolset:  ToolsetName(to.GetToolset()),
		ReadOnly: to.GetReadOnly(), Destructive: to.GetDestructive(), Idempotent: to.GetIdempotent(),
	}, nil
}

// ToolsetName is a toolset's wire name: the value's name without the
// TOOLSET_ prefix, lower-cased (tool.proto).
func ToolsetName(ts ghopsv1.Toolset) string {
	return strings.ToLower(strings.TrimPrefix(ts.String(), "TOOLSET_"))
}

// Toolsets returns the groups in the enum's order, each with its tools in
// declaration order; a group without tools is left out.
func (c *Catalog) Toolsets() []Toolset {
	var out []Toolset
	values := ghopsv1.Toolset(0).Descriptor().Values()
	for i := 0; i < values.Len(); i++ {
		ts := ghopsv1.Toolset(values.Get(i).Number())
		if ts == ghopsv1.Toolset_TOOLSET_UNSPECIFIED {
			continue
		}
		g := Toolset{Name: ToolsetName(ts)}
		for _, t := range c.Tools {
			if t.Toolset == g.Name {
				g.Tools = append(g.Tools, t)
			}
		}
		if len(g.Tools) > 0 {
			out = append(out, g)
		}
	}
	return out
}
