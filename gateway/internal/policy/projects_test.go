package policy

import (
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/proto"
)

// TestCheckProjects decides project references by the projects globs, for every request
// field marked as one, case-insensitively.
func TestCheckProjects(t *testing.T) {
	pr := &Principal{Name: "planner", Rules: Rules{Projects: []string{"octo-org/*", "octocat/3"}}}
	tests := []struct {
		name string
		pr   *Principal
		req  proto.Message
		deny bool
	}{
		{"org glob", pr, &ghopsv1.GetProjectRequest{Project: "octo-org/1"}, false},
		{"owner case", pr, &ghopsv1.ListProjectItemsRequest{Project: "Octo-Org/7"}, false},
		{"exact", pr, &ghopsv1.UpdateProjectItemsRequest{Project: "octocat/3"}, false},
		{"other number", pr, &ghopsv1.DeleteProjectItemRequest{Project: "octocat/4"}, true},
		{"other owner", pr, &ghopsv1.AddProjectItemRequest{Project: "evil/1"}, true},
		{"no globs", &Principal{Name: "all"}, &ghopsv1.GetProjectRequest{Project: "evil/1"}, false},
		{"no principal", nil, &ghopsv1.GetProjectRequest{Project: "evil/1"}, false},
		{"no project field", pr, &ghopsv1.GetIssueRequest{Repo: "evil/x", IssueNumber: 1}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := CheckProjects(tc.pr, tc.req)
			if (d != nil) != tc.deny {
				t.Fatalf("CheckProjects = %+v, want deny %v", d, tc.deny)
			}
			if d != nil && (d.Rule != "projects" || !strings.Contains(d.Detail, "octo-org/*")) {
				t.Errorf("denial %+v", d)
			}
		})
	}
}

// TestEveryProjectToolIsChecked finds a project reference in every tool of the projects
// toolset that names one, from the descriptors alone.
func TestEveryProjectToolIsChecked(t *testing.T) {
	methods := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService").Methods()
	found := 0
	for i := range methods.Len() {
		md := methods.Get(i)
		opts := proto.GetExtension(md.Options(), ghopsv1.E_Tool).(*ghopsv1.ToolOptions)
		if opts.GetToolset() != ghopsv1.Toolset_TOOLSET_PROJECTS {
			continue
		}
		fields := md.Input().Fields()
		for j := range fields.Len() {
			if ResourceKind(fields.Get(j)) == ghopsv1.ResourceKind_RESOURCE_KIND_PROJECT {
				found++
			}
		}
	}
	// Every projects tool but list_projects and create_project (which name an owner).
	if found != 8 {
		t.Fatalf("%d project-marked request fields, want 8", found)
	}
}

// TestProjectGlobsParse refuses a projects entry that is no owner/number glob.
func TestProjectGlobsParse(t *testing.T) {
	for _, tc := range []struct {
		glob string
		ok   bool
	}{{"octo-org/*", true}, {"octocat/3", true}, {"octo-org", false}, {"a/b/c", false}, {"[/1", false}} {
		doc := "principals:\n  - name: p\n    projects: [\"" + tc.glob + "\"]\n"
		_, err := Parse([]byte(doc), []string{"get_project"})
		if (err == nil) != tc.ok {
			t.Errorf("projects %q: err %v, want ok %v", tc.glob, err, tc.ok)
		}
	}
}

// TestConfineCountsWithheldItems removes a project's items of repositories outside the
// globs and counts them beside the ones GitHub itself redacted; drafts stay.
func TestConfineCountsWithheldItems(t *testing.T) {
	resp := &ghopsv1.ListProjectItemsResponse{Withheld: 1, Items: []*ghopsv1.ProjectItem{
		{Id: "1", Repo: "octo-org/hello-world", Title: "ok"},
		{Id: "2", Repo: "elsewhere/secret", Title: "hidden"},
		{Id: "3", Type: "draft", Title: "draft"},
		{Id: "4", Repo: "Elsewhere/Other", Title: "hidden too"},
	}}
	if d := Confine(confined, resp); d != "" {
		t.Fatalf("denied %q", d)
	}
	if len(resp.Items) != 2 || resp.Items[0].Id != "1" || resp.Items[1].Id != "3" || resp.Withheld != 3 {
		t.Fatalf("items %v withheld %d, want 1 and 3 kept and 3 withheld", resp.Items, resp.Withheld)
	}
	if strings.Contains(resp.String(), "hidden") {
		t.Fatal("a withheld item's title is in the answer")
	}
}
