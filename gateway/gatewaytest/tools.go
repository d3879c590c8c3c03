package gatewaytest

import (
	"slices"

	"google.golang.org/protobuf/proto"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// DeclaredTools returns, sorted, the names of the tools the proto contract
// declares: the GitHubService methods carrying the (ghops.v1.tool) option,
// only those marked read_only when readOnly is set. Tests that check what a
// gateway lists compare with it, so a tool added in proto needs no edit of
// every expected list. It reads the generated descriptors directly, not the
// gateway's registry, so a registry that dropped a tool would be caught.
func DeclaredTools(readOnly bool) []string {
	var names []string
	methods := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService").Methods()
	for i := 0; i < methods.Len(); i++ {
		opts, ok := proto.GetExtension(methods.Get(i).Options(), ghopsv1.E_Tool).(*ghopsv1.ToolOptions)
		if !ok || opts.GetName() == "" || (readOnly && !opts.GetReadOnly()) {
			continue
		}
		names = append(names, opts.GetName())
	}
	slices.Sort(names)
	return names
}
