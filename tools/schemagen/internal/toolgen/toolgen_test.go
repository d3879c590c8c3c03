package toolgen

import (
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// TestOnlyToolsAreTools: a service whose methods carry no (ghops.v1.tool)
// option (CallService, the way to a call's progress) gives no tool, while
// GitHubService gives one per method.
func TestOnlyToolsAreTools(t *testing.T) {
	tests := []struct {
		name      string
		file      protoreflect.FileDescriptor
		wantTools int
	}{
		{name: "CallService", file: ghopsv1.File_ghops_v1_progress_proto, wantTools: 0},
		{name: "GitHubService", file: ghopsv1.File_ghops_v1_github_service_proto,
			wantTools: ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService").Methods().Len()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Generate(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			got := 0
			if f != nil {
				got = len(f.Tools)
			}
			if got != tt.wantTools {
				t.Fatalf("%d tools, want %d", got, tt.wantTools)
			}
		})
	}
}
