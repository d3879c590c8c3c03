package emit

import (
	"strings"
	"testing"

	"ghops.dev/tools/errgen/internal/catalog"
)

// smallCatalog is two tools of two toolsets, one with a "|" that a table
// cell must escape.
func smallCatalog() *catalog.Catalog {
	return &catalog.Catalog{Tools: []catalog.Tool{
		{Name: "drop_thing", Method: "DropThing", Request: "DropThingRequest", Response: "DropThingResponse",
			Description: "Drop a thing; it is gone for good.", Toolset: "issues", Destructive: true},
		{Name: "get_thing", Method: "GetThing", Request: "GetThingRequest", Response: "GetThingResponse",
			Description: "One | thing.", Toolset: "repos", ReadOnly: true},
	}}
}

// TestToolsGolden pins the rendering of every tool output: the client's
// methods and the three Markdown sections (repos before issues: the enum's
// order, not the declaration's).
func TestToolsGolden(t *testing.T) {
	cat := smallCatalog()
	client, err := ClientMethods(cat)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "tools_client.go.golden", client)
	md := "## README tools\n\n" + ToolsTable(cat) + "\n## README toolsets\n\n" + ToolsetsTable(cat) + "\n## comparison\n\n" + ToolList(cat)
	golden(t, "tools.md.golden", []byte(md))
}

func TestToolFilesNeedMarkers(t *testing.T) {
	for _, f := range ToolFiles(smallCatalog()) {
		if !strings.HasSuffix(f.Path, ".md") {
			continue
		}
		t.Run(f.Path, func(t *testing.T) {
			if _, err := f.Render(nil); err == nil || !strings.Contains(err.Error(), "is missing") {
				t.Errorf("missing file: err = %v", err)
			}
			if _, err := f.Render([]byte("no markers\n")); err == nil || !strings.Contains(err.Error(), "markers") {
				t.Errorf("no markers: err = %v", err)
			}
			doc := "intro\n" + beginMarkerFrom("tools", ToolSource) + "stale\n" + endMarker("tools") + "\n" +
				beginMarkerFrom("toolsets", ToolSource) + endMarker("toolsets") + "\noutro\n"
			out, err := f.Render([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			if s := string(out); strings.Contains(s, "stale") || !strings.Contains(s, "`get_thing`") || !strings.HasPrefix(s, "intro\n") || !strings.HasSuffix(s, "outro\n") {
				t.Errorf("rendered:\n%s", s)
			}
		})
	}
}
