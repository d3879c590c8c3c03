package catalog

import (
	"os"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
)

// Small reads testdata/small.textproto and returns its catalogue after
// breaking it with edit (nil: as it is).
func small(t *testing.T, edit func(*descriptorpb.FileDescriptorProto)) (*Catalog, error) {
	t.Helper()
	b, err := os.ReadFile("testdata/small.textproto")
	if err != nil {
		t.Fatal(err)
	}
	fdp := &descriptorpb.FileDescriptorProto{}
	if err := prototext.Unmarshal(b, fdp); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(fdp)
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	return Load(fd)
}

func toolOpt(fdp *descriptorpb.FileDescriptorProto, i int) *ghopsv1.ToolOptions {
	return proto.GetExtension(fdp.Service[0].Method[i].Options, ghopsv1.E_Tool).(*ghopsv1.ToolOptions)
}

func TestLoadSmall(t *testing.T) {
	c, err := small(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Tool{
		{Name: "get_thing", Method: "GetThing", Request: "GetThingRequest", Response: "GetThingResponse", Title: "Get thing",
			Description: "One | thing.", Toolset: "repos", ReadOnly: true},
		{Name: "drop_thing", Method: "DropThing", Request: "Empty", Response: "Empty", Description: "Drop a thing.", Toolset: "issues", Destructive: true},
	}
	if len(c.Tools) != len(want) {
		t.Fatalf("tools = %+v", c.Tools)
	}
	for i := range want {
		if c.Tools[i] != want[i] {
			t.Errorf("tool %d = %+v, want %+v", i, c.Tools[i], want[i])
		}
	}
	sets := c.Toolsets()
	if len(sets) != 2 || sets[0].Name != "repos" || sets[1].Name != "issues" || sets[1].Tools[0].Name != "drop_thing" {
		t.Errorf("toolsets in the enum's order, empty ones left out: %+v", sets)
	}
}

func TestLoadRefuses(t *testing.T) {
	tests := []struct {
		name string
		edit func(*descriptorpb.FileDescriptorProto)
		want string
	}{
		{"no name", func(f *descriptorpb.FileDescriptorProto) { toolOpt(f, 0).Name = "" }, "without a name"},
		{"no description", func(f *descriptorpb.FileDescriptorProto) { toolOpt(f, 0).Description = " " }, "without a description"},
		{"no toolset", func(f *descriptorpb.FileDescriptorProto) { toolOpt(f, 2).Toolset = ghopsv1.Toolset_TOOLSET_UNSPECIFIED }, "without a toolset"},
		{"name used twice", func(f *descriptorpb.FileDescriptorProto) { toolOpt(f, 2).Name = "get_thing" }, `"get_thing" used twice`},
		{"no tool at all", func(f *descriptorpb.FileDescriptorProto) {
			f.Service[0].Method = f.Service[0].Method[1:2]
		}, "declares no tool"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := small(t, tc.edit); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestLoadService is the real file: every RPC of GitHubService is a tool,
// get_commit among the repos tools.
func TestLoadService(t *testing.T) {
	c, err := Load(ghopsv1.File_ghops_v1_github_service_proto)
	if err != nil {
		t.Fatal(err)
	}
	if n := ghopsv1.File_ghops_v1_github_service_proto.Services().Get(0).Methods().Len(); len(c.Tools) != n {
		t.Errorf("%d tools of %d RPCs", len(c.Tools), n)
	}
	found := false
	for _, tl := range c.Tools {
		if tl.Name == ghopsv1.ToolGetCommit {
			found = tl.Toolset == "repos" && tl.Method == "GetCommit" && tl.ReadOnly
		}
	}
	if !found {
		t.Error("get_commit is not a read-only repos tool named GetCommit")
	}
}
