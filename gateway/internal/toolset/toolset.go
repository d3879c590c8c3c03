// Package toolset names the groups of tools an operator (the gateway's
// -toolsets) or a policy file (a principal's toolsets) offers as a whole:
// repos, pulls, issues, actions, search, meta, projects. Which tool is in which group
// is proto's decision (the toolset field of the (ghops.v1.tool) option,
// enum ghops.v1.Toolset), read here from the descriptors, so that a new
// tool joins its group with no gateway code.
package toolset

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// All is the -toolsets value that offers every group (the default).
const All = "all"

// prefix is what the enum values' names carry before the wire name.
const prefix = "TOOLSET_"

// Names returns every group's wire name, in the enum's order.
func Names() []string {
	vals := ghopsv1.Toolset(0).Descriptor().Values()
	var out []string
	for i := 0; i < vals.Len(); i++ {
		v := vals.Get(i)
		if v.Number() == 0 {
			continue
		}
		out = append(out, Name(ghopsv1.Toolset(v.Number())))
	}
	return out
}

// Name returns a group's wire name: the enum value's name without
// TOOLSET_, lower-cased ("" for TOOLSET_UNSPECIFIED).
func Name(t ghopsv1.Toolset) string {
	if t == ghopsv1.Toolset_TOOLSET_UNSPECIFIED {
		return ""
	}
	return strings.ToLower(strings.TrimPrefix(t.String(), prefix))
}

// Of returns the wire name of the group of the tool RPC m ("" when its
// option names none).
func Of(m protoreflect.MethodDescriptor) string {
	if m == nil {
		return ""
	}
	// The policy asks on every call; the answer is the descriptor's, read
	// once (descriptors are the binary's, so the map stays small).
	if v, ok := ofMethod.Load(m); ok {
		return v.(string)
	}
	s := of(m)
	ofMethod.Store(m, s)
	return s
}

// ofMethod caches Of by method descriptor.
var ofMethod sync.Map

// of reads the group from m's tool option.
func of(m protoreflect.MethodDescriptor) string {
	opts, ok := m.Options().(*descriptorpb.MethodOptions)
	if !ok || opts == nil || !proto.HasExtension(opts, ghopsv1.E_Tool) {
		return ""
	}
	to, _ := proto.GetExtension(opts, ghopsv1.E_Tool).(*ghopsv1.ToolOptions)
	return Name(to.GetToolset())
}

// Check returns an error naming every entry of sets that is not a group.
func Check(sets []string) error {
	known := Names()
	var errs []error
	for _, s := range sets {
		if !slices.Contains(known, s) {
			errs = append(errs, fmt.Errorf("unknown toolset %q (toolsets: %s)", s, strings.Join(known, ", ")))
		}
	}
	return errors.Join(errs...)
}

// Parse reads a comma-separated list of groups (spaces allowed around
// names): nil for "" or "all" (every group), else the named groups, each
// once, in the order given; an unknown name is an error that lists the
// known ones, so that a typo never silently hides tools.
func Parse(list string) ([]string, error) {
	list = strings.TrimSpace(list)
	if list == "" || list == All {
		return nil, nil
	}
	var out []string
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, errors.New(`empty toolset name (give "all" or a comma-separated list: ` + strings.Join(Names(), ", ") + ")")
		}
		if s == All {
			return nil, errors.New(`"all" cannot be combined with other toolsets`)
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if err := Check(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Includes reports whether set (nil: every group) includes group.
func Includes(sets []string, group string) bool {
	return sets == nil || slices.Contains(sets, group)
}
