package ops

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"
	"google.golang.org/protobuf/types/known/structpb"

	"ghops.dev/services/github/internal/ghpath"
	"ghops.dev/services/github/internal/ghstatus"
	"ghops.dev/services/github/internal/projectfilter"
)

// Documents of the project writes: whole constants, validated by
// TestGraphQLDocuments (update_project_items' batch is built from its
// templates, projectbatch.go).
const (
	addItemMutation      = `mutation($project: ID!, $content: ID!) { addProjectV2ItemById(input: {projectId: $project, contentId: $content}) { item { id } } }`
	addDraftMutation     = `mutation($project: ID!, $title: String!, $body: String) { addProjectV2DraftIssue(input: {projectId: $project, title: $title, body: $body}) { projectItem { id } } }`
	archiveItemMutation  = `mutation($project: ID!, $item: ID!) { archiveProjectV2Item(input: {projectId: $project, itemId: $item}) { item { id isArchived } } }`
	restoreItemMutation  = `mutation($project: ID!, $item: ID!) { unarchiveProjectV2Item(input: {projectId: $project, itemId: $item}) { item { id isArchived } } }`
	deleteItemMutation   = `mutation($project: ID!, $item: ID!) { deleteProjectV2Item(input: {projectId: $project, itemId: $item}) { deletedItemId } }`
	createProjectMut     = `mutation($owner: ID!, $title: String!, $repo: ID) { createProjectV2(input: {ownerId: $owner, title: $title, repositoryId: $repo}) { projectV2 { number url } } }`
	createFieldMutation  = `mutation($input: CreateProjectV2FieldInput!) { createProjectV2Field(input: $input) { projectV2Field { ... on ProjectV2FieldCommon { id name dataType } ... on ProjectV2SingleSelectField { options { id name } } ... on ProjectV2IterationField { configuration { iterations { id title startDate duration } completedIterations { id title startDate duration } } } } } }`
	statusUpdateMutation = `mutation($input: CreateProjectV2StatusUpdateInput!) { createProjectV2StatusUpdate(input: $input) { statusUpdate { status body startDate targetDate createdAt creator { login } } } }`
)

// settable are the data types a value can be written to.
var settable = []string{"SINGLE_SELECT", "ITERATION", "TEXT", "NUMBER", "DATE"}

// resolveValue turns value, as the caller wrote it (a string, or a JSON
// number), into GitHub's ProjectV2FieldValue for field f: an option's
// name, a sprint's title or @current/@next/@previous, a number, a date, or
// text; and the value the answer shows. A wrong value is -32602 naming the
// field's type and, for options and sprints, the valid names (data.resource
// the field; an unknown sprint, the sprint); the type comes from the
// project, never from the value.
func resolveValue(c ghstatus.Context, f *gqlField, value *structpb.Value) (map[string]any, *ghopsv1.ProjectFieldValue, error) {
	bad := func(msg string) (map[string]any, *ghopsv1.ProjectFieldValue, error) {
		if c.Resource == nil || c.Resource.Type != "sprint" {
			c.Resource = &ghopsv1.Resource{Type: "field", Id: f.Name}
		}
		return nil, nil, ghstatus.InvalidName(c, msg, "fields."+f.Name, "project_field_value")
	}
	text, isNumber := "", false
	switch v := value.GetKind().(type) {
	case *structpb.Value_StringValue:
		text = v.StringValue
	case *structpb.Value_NumberValue:
		text, isNumber = strconv.FormatFloat(v.NumberValue, 'f', -1, 64), true
	case nil:
	default:
		return bad(fmt.Sprintf("field %q: a value is a string or a number", f.Name))
	}
	if len(text) > maxValueLen {
		return bad(fmt.Sprintf("field %q: a value has at most %d characters", f.Name, maxValueLen))
	}
	switch f.DataType {
	case "SINGLE_SELECT":
		var names []string
		for _, o := range f.Options {
			if strings.EqualFold(o.Name, text) {
				return map[string]any{"singleSelectOptionId": o.ID}, &ghopsv1.ProjectFieldValue{Value: &ghopsv1.ProjectFieldValue_Option{Option: o.Name}}, nil
			}
			names = append(names, strconv.Quote(o.Name))
		}
		return bad(fmt.Sprintf("field %q is single_select: %q is none of its options %s", f.Name, text, boundedList(names)))
	case "ITERATION":
		c.Resource = &ghopsv1.Resource{Type: "sprint", Id: text}
		title := text
		if strings.HasPrefix(text, "@") {
			t, ok := projectfilter.Relative(iterations(f), text, today())
			if !ok {
				return bad(fmt.Sprintf("field %q is iteration: it has no %s sprint", f.Name, text))
			}
			title = t
		}
		var names []string
		for _, it := range f.sprints() {
			if strings.EqualFold(it.Title, title) {
				return map[string]any{"iterationId": it.ID}, &ghopsv1.ProjectFieldValue{Value: &ghopsv1.ProjectFieldValue_Sprint{Sprint: it.Title}}, nil
			}
			names = append(names, strconv.Quote(it.Title))
		}
		return bad(fmt.Sprintf("field %q is iteration: %q is none of its sprints %s (or @current, @next, @previous)", f.Name, text, boundedList(names)))
	case "NUMBER":
		n, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return bad(fmt.Sprintf("field %q is number: %q is not a number", f.Name, text))
		}
		return map[string]any{"number": n}, &ghopsv1.ProjectFieldValue{Value: &ghopsv1.ProjectFieldValue_Number{Number: n}}, nil
	case "DATE":
		if _, err := time.Parse(time.DateOnly, text); err != nil || isNumber {
			return bad(fmt.Sprintf("field %q is date: %q is not a date (YYYY-MM-DD)", f.Name, text))
		}
		return map[string]any{"date": text}, &ghopsv1.ProjectFieldValue{Value: &ghopsv1.ProjectFieldValue_Date{Date: text}}, nil
	case "TEXT":
		return map[string]any{"text": text}, &ghopsv1.ProjectFieldValue{Value: &ghopsv1.ProjectFieldValue_Text{Text: text}}, nil
	}
	return bad(fmt.Sprintf("field %q is %s, which GitHub fills itself; settable fields are of types single_select, iteration, text, number and date", f.Name, strings.ToLower(f.DataType)))
}

// maxValueLen bounds a field value given as text (the input schema's
// bound, checked again here since protovalidate has no rule for a
// google.protobuf.Value).
const maxValueLen = 1024

// plan resolves fields (name to value) and clear (names) against p for
// every item, in a stable order: the changes and, per field name, the value
// the answer shows (nil: cleared).
func (p *project) plan(c ghstatus.Context, items []string, fields map[string]*structpb.Value, clear []string) ([]fieldChange, map[string]*ghopsv1.ProjectFieldValue, error) {
	type one struct {
		f     *gqlField
		value map[string]any
	}
	var resolved []one
	shown := map[string]*ghopsv1.ProjectFieldValue{}
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	slices.Sort(names)
	unknown := func(name, where string) error {
		c.Resource = &ghopsv1.Resource{Type: "field", Id: name}
		return ghstatus.InvalidName(c, fmt.Sprintf("project %s has no field %q; its settable fields: %s", p.ref, name, p.fieldNames(settable...)), where, "project_field")
	}
	for _, n := range names {
		f := p.field(n)
		if f == nil {
			return nil, nil, unknown(n, "fields")
		}
		v, show, err := resolveValue(c, f, fields[n])
		if err != nil {
			return nil, nil, err
		}
		resolved = append(resolved, one{f, v})
		shown[f.Name] = show
	}
	for _, n := range clear {
		f := p.field(n)
		if f == nil {
			return nil, nil, unknown(n, "clear")
		}
		if _, both := shown[f.Name]; both {
			return nil, nil, ghstatus.InvalidField(c, fmt.Sprintf("field %q is both set and cleared", f.Name), "clear", "project_field")
		}
		if !slices.Contains(settable, f.DataType) {
			_, _, err := resolveValue(c, f, nil)
			return nil, nil, err
		}
		resolved = append(resolved, one{f: f})
		shown[f.Name] = nil
	}
	var changes []fieldChange
	for _, it := range items {
		for _, r := range resolved {
			changes = append(changes, fieldChange{item: it, field: r.f.ID, value: r.value})
		}
	}
	return changes, shown, nil
}

// apply sends changes, maxBatchAliases a document.
func (s *Service) apply(ctx context.Context, gh *github.Client, m *meter, projectID string, changes []fieldChange) error {
	for len(changes) > 0 {
		n := min(len(changes), maxBatchAliases)
		doc, vars, err := batchDocument(projectID, changes[:n])
		if err != nil {
			return err
		}
		var out map[string]any
		if err := graphQL(ctx, gh, m, doc, vars, &out); err != nil {
			return err
		}
		changes = changes[n:]
	}
	return nil
}

// withValues is it as answered after shown was applied to it.
func withValues(it *ghopsv1.ProjectItem, shown map[string]*ghopsv1.ProjectFieldValue) *ghopsv1.ProjectItem {
	for name, v := range shown {
		if v == nil {
			delete(it.Fields, name)
		} else {
			it.Fields[name] = v
		}
	}
	return it
}

// UpdateProjectItems implements the update_project_items tool: one read
// (the project's fields and the named items, each checked to belong to the
// project) and one mutation document with an alias per change (two or more
// only past maxBatchAliases changes): a 50-item update of one field is two
// GitHub requests. Values are resolved by field name and option or sprint
// title before anything is written.
func (s *Service) UpdateProjectItems(ctx context.Context, req *ghopsv1.UpdateProjectItemsRequest) (*ghopsv1.UpdateProjectItemsResponse, error) {
	c := projectContext(ghopsv1.ToolUpdateProjectItems, req.GetProject())
	if len(req.GetFields())+len(req.GetClear()) == 0 {
		return nil, ghstatus.InvalidField(c, "fields or clear must name at least one field", "fields", "update_project_items.change")
	}
	gh, m := s.client(ctx), &meter{}
	p, err := s.loadProject(ctx, gh, m, c, req.GetProject(), req.GetItemIds())
	if err != nil {
		return nil, err
	}
	changes, _, err := p.plan(c, req.GetItemIds(), req.GetFields(), req.GetClear())
	if err != nil {
		return nil, err
	}
	if err := s.apply(ctx, gh, m, p.id, changes); err != nil {
		return nil, s.failProject(ctx, err, c, nil)
	}
	out := &ghopsv1.UpdateProjectItemsResponse{Updated: int32(len(p.items))}
	out.Cost = m.cost()
	return out, nil
}

// AddProjectItem implements the add_project_item tool: the project read,
// the issue's or pull request's node id (for repo and number), the add,
// and the fields set in one mutation document; names and values are
// resolved before anything is written.
func (s *Service) AddProjectItem(ctx context.Context, req *ghopsv1.AddProjectItemRequest) (*ghopsv1.AddProjectItemResponse, error) {
	c := projectContext(ghopsv1.ToolAddProjectItem, req.GetProject())
	gh, m := s.client(ctx), &meter{}
	p, err := s.loadProject(ctx, gh, m, c, req.GetProject(), nil)
	if err != nil {
		return nil, err
	}
	if _, _, err := p.plan(c, []string{""}, req.GetFields(), nil); err != nil {
		return nil, err
	}
	item := &ghopsv1.ProjectItem{Fields: map[string]*ghopsv1.ProjectFieldValue{}}
	var itemID string
	if req.Draft != nil {
		var out struct {
			AddProjectV2DraftIssue struct {
				ProjectItem struct {
					ID string `json:"id"`
				} `json:"projectItem"`
			} `json:"addProjectV2DraftIssue"`
		}
		vars := map[string]any{"project": p.id, "title": req.GetDraft().GetTitle(), "body": req.GetDraft().Body}
		if err := graphQL(ctx, gh, m, addDraftMutation, vars, &out); err != nil {
			return nil, s.failProject(ctx, err, c, nil)
		}
		itemID = out.AddProjectV2DraftIssue.ProjectItem.ID
		item.Type, item.Title = "draft", req.GetDraft().GetTitle()
	} else {
		ic := c
		ic.Repo, ic.Resource = req.GetRepo(), &ghopsv1.Resource{Type: "issue", Id: fmt.Sprintf("%s#%d", req.GetRepo(), req.GetNumber())}
		// GitHub's REST answer carries the issue's or pull request's node
		// id; issueKind checks it is that number of the call's repository.
		is, err := s.issueKind(ctx, gh, req.GetRepo(), int(req.GetNumber()))
		if err != nil {
			return nil, s.fail(ctx, err, ic)
		}
		if is.GetNodeID() == "" {
			return nil, ghstatus.NotFound(ic, "GitHub answered no node id")
		}
		var out struct {
			AddProjectV2ItemByID struct {
				Item struct {
					ID string `json:"id"`
				} `json:"item"`
			} `json:"addProjectV2ItemById"`
		}
		if err := graphQL(ctx, gh, m, addItemMutation, map[string]any{"project": p.id, "content": is.GetNodeID()}, &out); err != nil {
			return nil, s.failProject(ctx, err, c, nil)
		}
		itemID = out.AddProjectV2ItemByID.Item.ID
		item.Repo, item.Number = req.GetRepo(), req.GetNumber()
	}
	item.Id = itemID
	if len(req.GetFields()) > 0 {
		changes, shown, err := p.plan(c, []string{itemID}, req.GetFields(), nil)
		if err != nil {
			return nil, err
		}
		if err := s.apply(ctx, gh, m, p.id, changes); err != nil {
			return nil, s.failProject(ctx, err, c, nil)
		}
		withValues(item, shown)
	}
	return &ghopsv1.AddProjectItemResponse{Item: item, Cost: m.cost()}, nil
}

// ArchiveProjectItem implements the archive_project_item tool, after
// checking the item belongs to the project.
func (s *Service) ArchiveProjectItem(ctx context.Context, req *ghopsv1.ArchiveProjectItemRequest) (*ghopsv1.ArchiveProjectItemResponse, error) {
	c := projectContext(ghopsv1.ToolArchiveProjectItem, req.GetProject())
	gh, m := s.client(ctx), &meter{}
	p, err := s.loadProject(ctx, gh, m, c, req.GetProject(), []string{req.GetItemId()})
	if err != nil {
		return nil, err
	}
	doc, field := restoreItemMutation, "unarchiveProjectV2Item"
	if req.GetArchived() {
		doc, field = archiveItemMutation, "archiveProjectV2Item"
	}
	var out map[string]*struct {
		Item *struct {
			IsArchived bool `json:"isArchived"`
		} `json:"item"`
	}
	if err := graphQL(ctx, gh, m, doc, map[string]any{"project": p.id, "item": req.GetItemId()}, &out); err != nil {
		return nil, s.failProject(ctx, err, c, nil)
	}
	archived := req.GetArchived()
	if r := out[field]; r != nil && r.Item != nil {
		archived = r.Item.IsArchived
	}
	return &ghopsv1.ArchiveProjectItemResponse{ItemId: req.GetItemId(), Archived: archived}, nil
}

// DeleteProjectItem implements the delete_project_item tool, after checking
// the item belongs to the project (the issue or pull request stays).
func (s *Service) DeleteProjectItem(ctx context.Context, req *ghopsv1.DeleteProjectItemRequest) (*ghopsv1.DeleteProjectItemResponse, error) {
	c := projectContext(ghopsv1.ToolDeleteProjectItem, req.GetProject())
	gh, m := s.client(ctx), &meter{}
	p, err := s.loadProject(ctx, gh, m, c, req.GetProject(), []string{req.GetItemId()})
	if err != nil {
		return nil, err
	}
	var out struct {
		DeleteProjectV2Item struct {
			DeletedItemID string `json:"deletedItemId"`
		} `json:"deleteProjectV2Item"`
	}
	if err := graphQL(ctx, gh, m, deleteItemMutation, map[string]any{"project": p.id, "item": req.GetItemId()}, &out); err != nil {
		return nil, s.failProject(ctx, err, c, nil)
	}
	return &ghopsv1.DeleteProjectItemResponse{DeletedItemId: out.DeleteProjectV2Item.DeletedItemID}, nil
}

// CreateProject implements the create_project tool: the owner's (and the
// repository's) node id, then createProjectV2.
func (s *Service) CreateProject(ctx context.Context, req *ghopsv1.CreateProjectRequest) (*ghopsv1.CreateProjectResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolCreateProject, Repo: req.GetRepo(), Resource: &ghopsv1.Resource{Type: "owner", Id: req.GetOwner()}}
	gh, m := s.client(ctx), &meter{}
	var ids struct {
		RepositoryOwner *struct {
			ID    string `json:"id"`
			Login string `json:"login"`
		} `json:"repositoryOwner"`
	}
	if err := graphQL(ctx, gh, m, ownerQuery, map[string]any{"owner": req.GetOwner()}, &ids); err != nil {
		return nil, s.failProject(ctx, err, c, nil)
	}
	if ids.RepositoryOwner == nil {
		return nil, ghstatus.NotFound(c, "GitHub GraphQL answered no owner")
	}
	vars := map[string]any{"owner": ids.RepositoryOwner.ID, "title": req.GetTitle(), "repo": nil}
	if req.Repo != nil {
		// GitHub's REST answer carries the repository's node id.
		u, err := ghpath.Repo("repo", req.GetRepo())
		if err != nil {
			return nil, s.fail(ctx, err, c)
		}
		rc := c
		rc.Resource = &ghopsv1.Resource{Type: "repository", Id: req.GetRepo()}
		r, _, err := get[*github.Repository](ctx, s, gh, u, nil)
		if err == nil && !sameRepo(r.GetFullName(), req.GetRepo()) {
			err = &foreignError{what: "a repository", got: r.GetFullName()}
		}
		if err != nil {
			return nil, s.fail(ctx, err, rc)
		}
		vars["repo"] = r.GetNodeID()
	}
	var out struct {
		CreateProjectV2 struct {
			ProjectV2 *struct {
				Number int    `json:"number"`
				URL    string `json:"url"`
			} `json:"projectV2"`
		} `json:"createProjectV2"`
	}
	if err := graphQL(ctx, gh, m, createProjectMut, vars, &out); err != nil {
		return nil, s.failProject(ctx, err, c, nil)
	}
	if out.CreateProjectV2.ProjectV2 == nil {
		return nil, ghstatus.Internal(c)
	}
	pv := out.CreateProjectV2.ProjectV2
	return &ghopsv1.CreateProjectResponse{Project: ids.RepositoryOwner.Login + "/" + strconv.Itoa(pv.Number), Url: pv.URL}, nil
}

// CreateProjectField implements the create_project_field tool. An
// iteration field gets count sprints of duration_days from start_date,
// titled "Sprint 1", "Sprint 2", ...; single-select options are grey.
func (s *Service) CreateProjectField(ctx context.Context, req *ghopsv1.CreateProjectFieldRequest) (*ghopsv1.CreateProjectFieldResponse, error) {
	c := projectContext(ghopsv1.ToolCreateProjectField, req.GetProject())
	typ := req.GetType()
	switch {
	case (typ == "single_select") != (len(req.GetOptions()) > 0):
		return nil, ghstatus.InvalidField(c, "options are for single_select, which needs at least one", "options", "create_project_field.options")
	case (typ == "iteration") != (req.Iteration != nil):
		return nil, ghstatus.InvalidField(c, "iteration is for type iteration, which needs it", "iteration", "create_project_field.iteration")
	}
	input := map[string]any{"name": req.GetName(), "dataType": strings.ToUpper(typ)}
	if it := req.GetIteration(); it != nil {
		start, err := time.Parse(time.DateOnly, it.GetStartDate())
		if err != nil {
			return nil, ghstatus.InvalidField(c, fmt.Sprintf("iteration.start_date %q is not a date", it.GetStartDate()), "iteration.start_date", "date")
		}
		count := 3
		if it.Count != nil {
			count = int(it.GetCount())
		}
		var sprints []map[string]any
		for i := range count {
			d := start.AddDate(0, 0, i*int(it.GetDurationDays()))
			sprints = append(sprints, map[string]any{"title": fmt.Sprintf("Sprint %d", i+1), "startDate": d.Format(time.DateOnly), "duration": it.GetDurationDays()})
		}
		input["iterationConfiguration"] = map[string]any{"startDate": it.GetStartDate(), "duration": it.GetDurationDays(), "iterations": sprints}
	}
	var opts []map[string]any
	for _, o := range req.GetOptions() {
		opts = append(opts, map[string]any{"name": o, "color": "GRAY", "description": ""})
	}
	if opts != nil {
		input["singleSelectOptions"] = opts
	}
	gh, m := s.client(ctx), &meter{}
	p, err := s.loadProject(ctx, gh, m, c, req.GetProject(), nil)
	if err != nil {
		return nil, err
	}
	if f := p.field(req.GetName()); f != nil {
		return nil, ghstatus.InvalidField(c, fmt.Sprintf("project %s already has a field %q", p.ref, f.Name), "name", "project_field.unique")
	}
	input["projectId"] = p.id
	var out struct {
		CreateProjectV2Field struct {
			ProjectV2Field *gqlField `json:"projectV2Field"`
		} `json:"createProjectV2Field"`
	}
	if err := graphQL(ctx, gh, m, createFieldMutation, map[string]any{"input": input}, &out); err != nil {
		return nil, s.failProject(ctx, err, c, nil)
	}
	if out.CreateProjectV2Field.ProjectV2Field == nil {
		return nil, ghstatus.Internal(c)
	}
	return &ghopsv1.CreateProjectFieldResponse{Field: toField(out.CreateProjectV2Field.ProjectV2Field)}, nil
}

// CreateProjectStatusUpdate implements the create_project_status_update tool.
func (s *Service) CreateProjectStatusUpdate(ctx context.Context, req *ghopsv1.CreateProjectStatusUpdateRequest) (*ghopsv1.CreateProjectStatusUpdateResponse, error) {
	c := projectContext(ghopsv1.ToolCreateProjectStatusUpdate, req.GetProject())
	gh, m := s.client(ctx), &meter{}
	p, err := s.loadProject(ctx, gh, m, c, req.GetProject(), nil)
	if err != nil {
		return nil, err
	}
	input := map[string]any{"projectId": p.id, "status": strings.ToUpper(req.GetStatus()), "body": req.GetBody()}
	if req.StartDate != nil {
		input["startDate"] = req.GetStartDate()
	}
	if req.TargetDate != nil {
		input["targetDate"] = req.GetTargetDate()
	}
	var out struct {
		CreateProjectV2StatusUpdate struct {
			StatusUpdate *gqlStatusUpdate `json:"statusUpdate"`
		} `json:"createProjectV2StatusUpdate"`
	}
	if err := graphQL(ctx, gh, m, statusUpdateMutation, map[string]any{"input": input}, &out); err != nil {
		return nil, s.failProject(ctx, err, c, nil)
	}
	if out.CreateProjectV2StatusUpdate.StatusUpdate == nil {
		return nil, ghstatus.Internal(c)
	}
	return &ghopsv1.CreateProjectStatusUpdateResponse{StatusUpdate: toStatusUpdate(out.CreateProjectV2StatusUpdate.StatusUpdate)}, nil
}
