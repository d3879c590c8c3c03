package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/infra/callmeta"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/structpb"

	"ghops.dev/services/github/servicetest"
)

// TestProjectsSprint plans a sprint over fakehub's GraphQL through the real service: a
// project with an iteration field, issues added with their status, a 5-item update in one
// read and one mutation, a filtered listing of the current sprint's unfinished items, the
// roll to the next sprint, a status update; every outcome read back.
func TestProjectsSprint(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	c := e.svc.Client
	cp, err := c.CreateProject(ctx(t), &ghopsv1.CreateProjectRequest{Owner: "octo-org", Title: "Planning", Repo: ptr(repo)})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().UTC().AddDate(0, 0, -7).Format(time.DateOnly)
	fr, err := c.CreateProjectField(ctx(t), &ghopsv1.CreateProjectFieldRequest{Project: cp.Project, Name: "Sprint", Type: "iteration",
		Iteration: &ghopsv1.IterationSetup{StartDate: start, DurationDays: 14, Count: ptr[int32](3)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(fr.Field.Iterations) != 3 || !fr.Field.Iterations[0].Current {
		t.Fatalf("sprints %v: want 3, the first current", fr.Field.Iterations)
	}
	if _, err := c.CreateProjectField(ctx(t), &ghopsv1.CreateProjectFieldRequest{Project: cp.Project, Name: "Estimate", Type: "number"}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 5 {
		is, err := c.CreateIssue(ctx(t), &ghopsv1.CreateIssueRequest{Repo: repo, Title: "Task " + string(rune('A'+i))})
		if err != nil {
			t.Fatal(err)
		}
		it, err := c.AddProjectItem(ctx(t), &ghopsv1.AddProjectItemRequest{Project: cp.Project, Repo: ptr(repo), Number: ptr(is.Issue.Number),
			Fields: vals(map[string]any{"Status": "Todo", "Sprint": "@current"})})
		if err != nil {
			t.Fatal(err)
		}
		if it.Item.Fields["Sprint"].GetSprint() != "Sprint 1" || it.Item.Fields["Status"].GetOption() != "Todo" {
			t.Fatalf("added item %v", it.Item)
		}
		ids = append(ids, it.Item.Id)
	}
	e.hub.ResetStats()
	up, err := c.UpdateProjectItems(ctx(t), &ghopsv1.UpdateProjectItemsRequest{Project: cp.Project, ItemIds: ids[:2], Fields: vals(map[string]any{"Status": "Done", "Estimate": 3})})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.hub.Stats().Total; got != 2 || up.Cost.GetRequests() != 2 {
		t.Errorf("update of 2 items and 2 fields: %d GitHub requests (cost %v), want 2", got, up.Cost)
	}
	list, err := c.ListProjectItems(ctx(t), &ghopsv1.ListProjectItemsRequest{Project: cp.Project, Filter: ptr("sprint:@current -status:Done")})
	if err != nil {
		t.Fatal(err)
	}
	var open []string
	for _, it := range list.Items {
		open = append(open, it.Id)
	}
	if len(open) != 3 {
		t.Fatalf("current unfinished: %v, want 3 items", list.Items)
	}
	if _, err := c.UpdateProjectItems(ctx(t), &ghopsv1.UpdateProjectItemsRequest{Project: cp.Project, ItemIds: open, Fields: vals(map[string]any{"Sprint": "@next"})}); err != nil {
		t.Fatal(err)
	}
	next, err := c.ListProjectItems(ctx(t), &ghopsv1.ListProjectItemsRequest{Project: cp.Project, Filter: ptr(`sprint:"Sprint 2"`), Fields: []string{"Sprint"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Items) != 3 || len(next.Items[0].Fields) != 1 {
		t.Fatalf("next sprint: %v, want the 3 items with only Sprint", next.Items)
	}
	su, err := c.CreateProjectStatusUpdate(ctx(t), &ghopsv1.CreateProjectStatusUpdateRequest{Project: cp.Project, Status: "at_risk", Body: "Three tasks rolled over."})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetProject(ctx(t), &ghopsv1.GetProjectRequest{Project: cp.Project})
	if err != nil {
		t.Fatal(err)
	}
	if got.Project.StatusUpdate.GetStatus() != "at_risk" || su.StatusUpdate.GetStatus() != "at_risk" || len(got.Project.Fields) < 3 {
		t.Fatalf("project %v", got.Project)
	}
	if _, err := c.ArchiveProjectItem(ctx(t), &ghopsv1.ArchiveProjectItemRequest{Project: cp.Project, ItemId: ids[0], Archived: true}); err != nil {
		t.Fatal(err)
	}
	arch, err := c.ListProjectItems(ctx(t), &ghopsv1.ListProjectItemsRequest{Project: cp.Project, Filter: ptr("is:archived")})
	if err != nil || len(arch.Items) != 1 {
		t.Fatalf("archived: %v %v", arch, err)
	}
	if _, err := c.DeleteProjectItem(ctx(t), &ghopsv1.DeleteProjectItemRequest{Project: cp.Project, ItemId: ids[1]}); err != nil {
		t.Fatal(err)
	}
	all, err := c.ListProjectItems(ctx(t), &ghopsv1.ListProjectItemsRequest{Project: cp.Project})
	if err != nil || len(all.Items) != 4 {
		t.Fatalf("after delete: %v %v", all, err)
	}
}

// TestProjectsRefusals shows the contract's answers for names, types and ids, each before
// anything is written.
func TestProjectsRefusals(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	c := e.svc.Client
	cp, err := c.CreateProject(ctx(t), &ghopsv1.CreateProjectRequest{Owner: "octo-org", Title: "Refusals"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateProjectField(ctx(t), &ghopsv1.CreateProjectFieldRequest{Project: cp.Project, Name: "Estimate", Type: "number"}); err != nil {
		t.Fatal(err)
	}
	is, err := c.CreateIssue(ctx(t), &ghopsv1.CreateIssueRequest{Repo: repo, Title: "x"})
	if err != nil {
		t.Fatal(err)
	}
	it, err := c.AddProjectItem(ctx(t), &ghopsv1.AddProjectItemRequest{Project: cp.Project, Repo: ptr(repo), Number: ptr(is.Issue.Number)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateProjectField(ctx(t), &ghopsv1.CreateProjectFieldRequest{Project: cp.Project, Name: "Sprint", Type: "iteration",
		Iteration: &ghopsv1.IterationSetup{StartDate: time.Now().UTC().Format(time.DateOnly), DurationDays: 7, Count: ptr[int32](2)}}); err != nil {
		t.Fatal(err)
	}
	other, err := c.CreateProject(ctx(t), &ghopsv1.CreateProjectRequest{Owner: "octo-org", Title: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call func() error
		code codes.Code
		res  string
	}{
		{"unknown field", func() error {
			_, err := c.UpdateProjectItems(ctx(t), &ghopsv1.UpdateProjectItemsRequest{Project: cp.Project, ItemIds: []string{it.Item.Id}, Fields: vals(map[string]any{"Priority": "P1"})})
			return err
		}, codes.InvalidArgument, "field"},
		{"unknown option", func() error {
			_, err := c.UpdateProjectItems(ctx(t), &ghopsv1.UpdateProjectItemsRequest{Project: cp.Project, ItemIds: []string{it.Item.Id}, Fields: vals(map[string]any{"Status": "Blocked"})})
			return err
		}, codes.InvalidArgument, "field"},
		{"date for a number", func() error {
			_, err := c.UpdateProjectItems(ctx(t), &ghopsv1.UpdateProjectItemsRequest{Project: cp.Project, ItemIds: []string{it.Item.Id}, Fields: vals(map[string]any{"Estimate": "2026-12-01"})})
			return err
		}, codes.InvalidArgument, "field"},
		{"text for a number field", func() error {
			_, err := c.UpdateProjectItems(ctx(t), &ghopsv1.UpdateProjectItemsRequest{Project: cp.Project, ItemIds: []string{it.Item.Id}, Fields: vals(map[string]any{"Estimate": "three"})})
			return err
		}, codes.InvalidArgument, "field"},
		{"unknown sprint", func() error {
			_, err := c.UpdateProjectItems(ctx(t), &ghopsv1.UpdateProjectItemsRequest{Project: cp.Project, ItemIds: []string{it.Item.Id}, Fields: vals(map[string]any{"Sprint": "Sprint 12"})})
			return err
		}, codes.InvalidArgument, "sprint"},
		{"no previous sprint", func() error {
			_, err := c.UpdateProjectItems(ctx(t), &ghopsv1.UpdateProjectItemsRequest{Project: cp.Project, ItemIds: []string{it.Item.Id}, Fields: vals(map[string]any{"Sprint": "@previous"})})
			return err
		}, codes.InvalidArgument, "sprint"},
		{"unknown sprint on add", func() error {
			_, err := c.AddProjectItem(ctx(t), &ghopsv1.AddProjectItemRequest{Project: cp.Project, Draft: &ghopsv1.DraftIssue{Title: "d"}, Fields: vals(map[string]any{"Sprint": 3})})
			return err
		}, codes.InvalidArgument, "sprint"},
		{"unknown view", func() error {
			_, err := c.ListProjectItems(ctx(t), &ghopsv1.ListProjectItemsRequest{Project: cp.Project, View: ptr("Board of nothing")})
			return err
		}, codes.InvalidArgument, "view"},
		{"item of another project", func() error {
			_, err := c.UpdateProjectItems(ctx(t), &ghopsv1.UpdateProjectItemsRequest{Project: other.Project, ItemIds: []string{it.Item.Id}, Fields: vals(map[string]any{"Status": "Done"})})
			return err
		}, codes.NotFound, "item"},
		{"missing project", func() error {
			_, err := c.GetProject(ctx(t), &ghopsv1.GetProjectRequest{Project: "octo-org/999"})
			return err
		}, codes.NotFound, "project"},
		{"bad filter", func() error {
			_, err := c.ListProjectItems(ctx(t), &ghopsv1.ListProjectItemsRequest{Project: cp.Project, Filter: ptr(`status:"Todo`)})
			return err
		}, codes.InvalidArgument, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.hub.ResetStats()
			err := tt.call()
			d := detailsOf(t, err)
			if d.st.Code() != tt.code {
				t.Fatalf("%v, want %v", err, tt.code)
			}
			got := d.gh.GetResource().GetType()
			if d.st.Code() == codes.InvalidArgument {
				got = d.res.GetResourceType()
			}
			if got != tt.res {
				t.Errorf("resource %v %v, want %q", d.gh.GetResource(), d.res, tt.res)
			}
			t.Logf("%v", d.st.Message())
			for k := range e.hub.Stats().ByRoute {
				if k != "POST /graphql" {
					t.Errorf("request %s", k)
				}
			}
		})
	}
}

// TestProjectsDemoWithheld lists the demo's octo-org/1, whose items include some of a
// private repository the demo token cannot see: GitHub redacts them, and the answer counts
// them in withheld without any of their data; the current sprint resolves by date.
func TestProjectsDemoWithheld(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	c := e.svc.Client
	all, err := c.ListProjectItems(ctx(t), &ghopsv1.ListProjectItemsRequest{Project: "octo-org/1"})
	if err != nil {
		t.Fatal(err)
	}
	if all.Withheld == 0 || len(all.Items) == 0 {
		t.Fatalf("items %d, withheld %d: want both", len(all.Items), all.Withheld)
	}
	for _, it := range all.Items {
		if it.Repo == "octo-org/secret" {
			t.Errorf("an item of the private repository is listed: %v", it)
		}
	}
	cur, err := c.ListProjectItems(ctx(t), &ghopsv1.ListProjectItemsRequest{Project: "octo-org/1", Filter: ptr("sprint:@current")})
	if err != nil {
		t.Fatal(err)
	}
	if len(cur.Items) == 0 || len(cur.Items) >= len(all.Items) {
		t.Errorf("current sprint: %d of %d items", len(cur.Items), len(all.Items))
	}
	// The view "Current sprint" filters iteration:@current -status:Done; with filter
	// its filter narrows further.
	view, err := c.ListProjectItems(ctx(t), &ghopsv1.ListProjectItemsRequest{Project: "octo-org/1", View: ptr("current SPRINT")})
	if err != nil {
		t.Fatal(err)
	}
	narrowed, err := c.ListProjectItems(ctx(t), &ghopsv1.ListProjectItemsRequest{Project: "octo-org/1", View: ptr("Current sprint"), Filter: ptr("status:Todo")})
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Items) == 0 || len(view.Items) > len(cur.Items) || len(narrowed.Items) == 0 || len(narrowed.Items) >= len(view.Items) {
		t.Errorf("view: %d items, with status:Todo %d, of %d in the current sprint", len(view.Items), len(narrowed.Items), len(cur.Items))
	}
	for _, it := range append(view.Items, narrowed.Items...) {
		if it.Fields["Status"].GetOption() == "Done" || it.Fields["Sprint"].GetSprint() != "Sprint 2" {
			t.Errorf("the view lists %v", it)
		}
	}
	for _, it := range all.Items {
		if e := it.Fields["Estimate"]; e != nil && e.GetNumber() == 0 {
			t.Errorf("Estimate of %v is no number", it)
		}
	}
	t.Logf("octo-org/1: %d items, %d withheld, %d in the current sprint; cost %v", len(all.Items), all.Withheld, len(cur.Items), cur.Cost)
}

// TestProjectsItemOutsideRepos: a caller limited to some repositories (the gateway's
// x-ghops-repos) that holds the id of an item from another repository cannot update, archive
// or delete it; the answer is the one an item of another project gets (-32002 naming only the
// item id), nothing is written, and a draft or an allowed repository's item is written as usual.
func TestProjectsItemOutsideRepos(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	c := e.svc.Client
	cp, err := c.CreateProject(ctx(t), &ghopsv1.CreateProjectRequest{Owner: "octo-org", Title: "Confined"})
	if err != nil {
		t.Fatal(err)
	}
	is, err := c.CreateIssue(ctx(t), &ghopsv1.CreateIssueRequest{Repo: repo, Title: "Outside"})
	if err != nil {
		t.Fatal(err)
	}
	it, err := c.AddProjectItem(ctx(t), &ghopsv1.AddProjectItemRequest{Project: cp.Project, Repo: ptr(repo), Number: ptr(is.Issue.Number), Fields: vals(map[string]any{"Status": "Todo"})})
	if err != nil {
		t.Fatal(err)
	}
	draft, err := c.AddProjectItem(ctx(t), &ghopsv1.AddProjectItemRequest{Project: cp.Project, Draft: &ghopsv1.DraftIssue{Title: "A draft"}})
	if err != nil {
		t.Fatal(err)
	}
	limited := func(globs ...string) context.Context {
		kv := []string{}
		for _, g := range globs {
			kv = append(kv, callmeta.Repos, g)
		}
		return metadata.AppendToOutgoingContext(ctx(t), kv...)
	}
	refused := []struct {
		name string
		call func(context.Context) error
	}{
		{"update", func(x context.Context) error {
			_, err := c.UpdateProjectItems(x, &ghopsv1.UpdateProjectItemsRequest{Project: cp.Project, ItemIds: []string{it.Item.Id}, Fields: vals(map[string]any{"Status": "Done"})})
			return err
		}},
		{"update with an allowed draft", func(x context.Context) error {
			_, err := c.UpdateProjectItems(x, &ghopsv1.UpdateProjectItemsRequest{Project: cp.Project, ItemIds: []string{draft.Item.Id, it.Item.Id}, Fields: vals(map[string]any{"Status": "Done"})})
			return err
		}},
		{"archive", func(x context.Context) error {
			_, err := c.ArchiveProjectItem(x, &ghopsv1.ArchiveProjectItemRequest{Project: cp.Project, ItemId: it.Item.Id, Archived: true})
			return err
		}},
		{"delete", func(x context.Context) error {
			_, err := c.DeleteProjectItem(x, &ghopsv1.DeleteProjectItemRequest{Project: cp.Project, ItemId: it.Item.Id})
			return err
		}},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			e.hub.ResetStats()
			err := tt.call(limited("octocat/*", "octo-org/other"))
			d := detailsOf(t, err)
			if d.st.Code() != codes.NotFound || d.gh.GetResource().GetType() != "item" || d.gh.GetResource().GetId() != it.Item.Id {
				t.Fatalf("%v (resource %v), want NotFound naming the item", err, d.gh.GetResource())
			}
			if strings.Contains(d.st.Message(), repo) || strings.Contains(d.st.Message(), "Outside") {
				t.Errorf("the refusal speaks of the item: %s", d.st.Message())
			}
			if got := e.hub.Stats().Total; got != 1 {
				t.Errorf("%d GitHub requests, want only the project read", got)
			}
		})
	}
	all, err := c.ListProjectItems(ctx(t), &ghopsv1.ListProjectItemsRequest{Project: cp.Project})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Items) != 2 {
		t.Fatalf("items after the refusals: %v, want both", all.Items)
	}
	for _, x := range all.Items {
		if x.Archived || x.Fields["Status"].GetOption() == "Done" {
			t.Errorf("a refused call changed %v", x)
		}
	}
	if _, err := c.UpdateProjectItems(limited("octocat/*"), &ghopsv1.UpdateProjectItemsRequest{Project: cp.Project, ItemIds: []string{draft.Item.Id}, Fields: vals(map[string]any{"Status": "Done"})}); err != nil {
		t.Errorf("a draft under repos globs: %v", err)
	}
	if _, err := c.ArchiveProjectItem(limited("OCTO-ORG/hello-*"), &ghopsv1.ArchiveProjectItemRequest{Project: cp.Project, ItemId: it.Item.Id, Archived: true}); err != nil {
		t.Errorf("an item of an allowed repository: %v", err)
	}
}

// vals are field values as a caller writes them (strings and numbers).
func vals(m map[string]any) map[string]*structpb.Value {
	out := map[string]*structpb.Value{}
	for k, v := range m {
		x, err := structpb.NewValue(v)
		if err != nil {
			panic(err)
		}
		out[k] = x
	}
	return out
}
