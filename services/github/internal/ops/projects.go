package ops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/infra/callmeta"
	"github.com/google/go-github/v66/github"
	"google.golang.org/grpc/metadata"

	"ghops.dev/services/github/internal/ghstatus"
	"ghops.dev/services/github/internal/projectfilter"
)

// gqlIteration is one sprint of an iteration field.
type gqlIteration struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	StartDate string `json:"startDate"`
	Duration  int    `json:"duration"`
}

// gqlField is one project field as projectQuery reads it.
type gqlField struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	DataType string `json:"dataType"`
	Options  []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"options"`
	Configuration *struct {
		Iterations          []gqlIteration `json:"iterations"`
		CompletedIterations []gqlIteration `json:"completedIterations"`
	} `json:"configuration"`
}

// sprints are the field's iterations, current and future first.
func (f *gqlField) sprints() []gqlIteration {
	if f.Configuration == nil {
		return nil
	}
	return append(slices.Clone(f.Configuration.Iterations), f.Configuration.CompletedIterations...)
}

// gqlNames is a connection of logins or names.
type gqlNames struct {
	Nodes []struct {
		Login string `json:"login"`
		Name  string `json:"name"`
	} `json:"nodes"`
}

// gqlItem is one project item as the queries read it.
type gqlItem struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	IsArchived bool   `json:"isArchived"`
	Project    *struct {
		ID string `json:"id"`
	} `json:"project"`
	Content *struct {
		Typename   string `json:"__typename"`
		Number     int    `json:"number"`
		Title      string `json:"title"`
		State      string `json:"state"`
		PRState    string `json:"prState"`
		Repository *struct {
			NameWithOwner string `json:"nameWithOwner"`
		} `json:"repository"`
		Assignees *gqlNames `json:"assignees"`
		Labels    *gqlNames `json:"labels"`
		Milestone *struct {
			Title string `json:"title"`
		} `json:"milestone"`
	} `json:"content"`
	FieldValues struct {
		Nodes []struct {
			Text   *string  `json:"text"`
			Number *float64 `json:"number"`
			Date   *string  `json:"date"`
			Name   *string  `json:"name"`
			Title  *string  `json:"title"`
			Field  *struct {
				Name string `json:"name"`
			} `json:"field"`
		} `json:"nodes"`
	} `json:"fieldValues"`
}

// gqlProject is projectQuery's answer.
type gqlProject struct {
	RepositoryOwner *struct {
		ProjectV2 *struct {
			ID               string `json:"id"`
			Title            string `json:"title"`
			ShortDescription string `json:"shortDescription"`
			Closed           bool   `json:"closed"`
			URL              string `json:"url"`
			Items            struct {
				TotalCount int `json:"totalCount"`
			} `json:"items"`
			Fields struct {
				Nodes []*gqlField `json:"nodes"`
			} `json:"fields"`
			Views struct {
				Nodes []struct {
					Number int    `json:"number"`
					Name   string `json:"name"`
					Layout string `json:"layout"`
					Filter string `json:"filter"`
				} `json:"nodes"`
			} `json:"views"`
			StatusUpdates struct {
				Nodes []gqlStatusUpdate `json:"nodes"`
			} `json:"statusUpdates"`
		} `json:"projectV2"`
	} `json:"repositoryOwner"`
}

// gqlStatusUpdate is one status update.
type gqlStatusUpdate struct {
	Status     string           `json:"status"`
	Body       string           `json:"body"`
	StartDate  string           `json:"startDate"`
	TargetDate string           `json:"targetDate"`
	CreatedAt  github.Timestamp `json:"createdAt"`
	Creator    *struct {
		Login string `json:"login"`
	} `json:"creator"`
}

// project is a project read by loadProject.
type project struct {
	ref    string
	id     string
	raw    *gqlProject
	fields []*gqlField
	// items are the items the call named, in the order named.
	items []*gqlItem
}

// loadProject reads ref with the items ids names, and checks that each of
// them is an item of this project (-32002 naming the item otherwise), so
// that no id of another project is ever written to.
func (s *Service) loadProject(ctx context.Context, gh *github.Client, m *meter, c ghstatus.Context, ref string, ids []string) (*project, error) {
	owner, number := projectRef(ref)
	doc, vars, err := projectDocument(ids)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	vars["owner"], vars["number"] = owner, number
	var raw map[string]json.RawMessage
	if err := graphQL(ctx, gh, m, doc, vars, &raw); err != nil {
		return nil, s.failProject(ctx, err, c, ids)
	}
	var out gqlProject
	if err := json.Unmarshal(raw["repositoryOwner"], &out.RepositoryOwner); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	if out.RepositoryOwner == nil || out.RepositoryOwner.ProjectV2 == nil {
		return nil, ghstatus.NotFound(c, "GitHub GraphQL answered no project")
	}
	p := &project{ref: ref, id: out.RepositoryOwner.ProjectV2.ID, raw: &out, fields: out.RepositoryOwner.ProjectV2.Fields.Nodes}
	allowed := allowedRepos(ctx)
	for i, id := range ids {
		var it *gqlItem
		if b, ok := raw[itemAlias+strconv.Itoa(i)]; ok {
			_ = json.Unmarshal(b, &it)
		}
		if it == nil || it.ID != id || it.Project == nil || it.Project.ID != p.id || !it.allowed(allowed) {
			// An item of a repository outside the principal's repos gets
			// the same answer as an item of another project, so that the
			// refusal tells nothing about it.
			c.Resource = &ghopsv1.Resource{Type: "item", Id: id}
			return nil, ghstatus.Mismatch(c, 0, "item "+id+" is not an item of project "+ref+" (list_project_items gives its item ids); nothing was done")
		}
		p.items = append(p.items, it)
	}
	return p, nil
}

// viewFilter is the filter of p's view named view (its name, any case, or
// its number) followed by filter: -32602 naming the view and listing the
// project's views when it has none of that name.
func (p *project) viewFilter(c ghstatus.Context, view, filter string) (*projectfilter.Filter, error) {
	var names []string
	for _, v := range p.raw.RepositoryOwner.ProjectV2.Views.Nodes {
		if strings.EqualFold(v.Name, view) || strconv.Itoa(v.Number) == view {
			flt, err := projectfilter.Parse(strings.TrimSpace(v.Filter + " " + filter))
			if err != nil {
				c.Resource = &ghopsv1.Resource{Type: "view", Id: view}
				return nil, ghstatus.InvalidName(c, fmt.Sprintf("view %q's filter with filter: %v", v.Name, err), "filter", "project_filter")
			}
			return flt, nil
		}
		names = append(names, strconv.Quote(v.Name))
	}
	c.Resource = &ghopsv1.Resource{Type: "view", Id: view}
	return nil, ghstatus.InvalidName(c, fmt.Sprintf("project %s has no view %q; its views: %s", p.ref, view, boundedList(names)), "view", "project_view")
}

// allowedRepos are the repos globs of the call's principal, as the gateway
// sent them (callmeta.Repos), lower-cased; none: every repository.
func allowedRepos(ctx context.Context) []string {
	md, _ := metadata.FromIncomingContext(ctx)
	globs := md.Get(callmeta.Repos)
	out := make([]string, 0, len(globs))
	for _, g := range globs {
		if g = strings.ToLower(strings.TrimSpace(g)); g != "" {
			out = append(out, g)
		}
	}
	return out
}

// allowed reports whether the item may be written to by a principal
// limited to globs (lower case; none: every item): a draft belongs to no
// repository and is the project's own; an item GitHub redacts names no
// repository the service could check, so it is refused with globs.
func (it *gqlItem) allowed(globs []string) bool {
	if len(globs) == 0 || it.Type == "DRAFT_ISSUE" {
		return true
	}
	if it.Content == nil || it.Content.Repository == nil {
		return false
	}
	repo := strings.ToLower(it.Content.Repository.NameWithOwner)
	return slices.ContainsFunc(globs, func(g string) bool {
		ok, err := path.Match(g, repo)
		return err == nil && ok
	})
}

// field finds a field by name (case-insensitive).
func (p *project) field(name string) *gqlField {
	for _, f := range p.fields {
		if f != nil && strings.EqualFold(f.Name, name) {
			return f
		}
	}
	return nil
}

// fieldNames lists the names of the fields of the given data types (all
// when none), for messages: bounded.
func (p *project) fieldNames(types ...string) string {
	var names []string
	for _, f := range p.fields {
		if f != nil && f.Name != "" && (len(types) == 0 || slices.Contains(types, f.DataType)) {
			names = append(names, strconv.Quote(f.Name))
		}
	}
	return boundedList(names)
}

// boundedList joins at most 20 names, saying how many more there are.
func boundedList(names []string) string {
	const most = 20
	if len(names) > most {
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return strings.Join(names, ", ")
}

// today is the date sprints are placed against (@current).
func today() time.Time { return time.Now().UTC() }

// filterEnv is what a filter's relative values resolve against.
func (p *project) filterEnv() projectfilter.Env {
	env := projectfilter.Env{Today: today(), Iterations: map[string][]projectfilter.Iteration{}, Numeric: map[string]bool{}, Dates: map[string]bool{}}
	for _, f := range p.fields {
		if f == nil {
			continue
		}
		key := strings.ToLower(f.Name)
		switch f.DataType {
		case "ITERATION":
			env.Iterations[key] = iterations(f)
			if f == p.iterationField() && p.field(iterationQualifier) == nil {
				env.Iterations[iterationQualifier] = env.Iterations[key]
			}
		case "NUMBER":
			env.Numeric[key] = true
		case "DATE":
			env.Dates[key] = true
		}
	}
	return env
}

// iterationQualifier is GitHub's filter qualifier for a project's
// iteration field whatever its name (iteration:@current), when no field is
// named so.
const iterationQualifier = "iteration"

// iterationField is p's first iteration field, the one iteration:
// qualifies (nil without one).
func (p *project) iterationField() *gqlField {
	for _, f := range p.fields {
		if f != nil && f.DataType == "ITERATION" {
			return f
		}
	}
	return nil
}

// filterItem is what a filter sees of it in p: its own values, and the
// iteration field's also under iteration.
func (p *project) filterItem(it *gqlItem) projectfilter.Item {
	fi := it.filterItem()
	if f := p.iterationField(); f != nil && p.field(iterationQualifier) == nil {
		if v, ok := fi.Values[strings.ToLower(f.Name)]; ok {
			fi.Values[iterationQualifier] = v
		}
	}
	return fi
}

// iterations are f's sprints for projectfilter.
func iterations(f *gqlField) []projectfilter.Iteration {
	var out []projectfilter.Iteration
	for _, it := range f.sprints() {
		d, err := time.Parse(time.DateOnly, it.StartDate)
		if err == nil {
			out = append(out, projectfilter.Iteration{Title: it.Title, Start: d, Days: it.Duration})
		}
	}
	return out
}

// itemType is the contract's name of GitHub's ProjectV2ItemType.
func itemType(t string) string {
	switch t {
	case "ISSUE":
		return "issue"
	case "PULL_REQUEST":
		return "pull_request"
	case "DRAFT_ISSUE":
		return "draft"
	}
	return strings.ToLower(t)
}

// visible reports whether it may be shown at all: GitHub redacts items the
// token cannot see (type REDACTED, no content).
func (it *gqlItem) visible() bool {
	return it.Type != "REDACTED" && it.Content != nil
}

// values are it's field values by field name, each under its type's key.
func (it *gqlItem) values() map[string]*ghopsv1.ProjectFieldValue {
	out := map[string]*ghopsv1.ProjectFieldValue{}
	for _, v := range it.FieldValues.Nodes {
		if v.Field == nil || v.Field.Name == "" {
			continue
		}
		var fv ghopsv1.ProjectFieldValue
		switch {
		case v.Text != nil:
			fv.Value = &ghopsv1.ProjectFieldValue_Text{Text: *v.Text}
		case v.Number != nil:
			fv.Value = &ghopsv1.ProjectFieldValue_Number{Number: *v.Number}
		case v.Date != nil:
			fv.Value = &ghopsv1.ProjectFieldValue_Date{Date: *v.Date}
		case v.Name != nil:
			fv.Value = &ghopsv1.ProjectFieldValue_Option{Option: *v.Name}
		case v.Title != nil:
			fv.Value = &ghopsv1.ProjectFieldValue_Sprint{Sprint: *v.Title}
		default:
			continue
		}
		out[v.Field.Name] = &fv
	}
	return out
}

// valueText is v as a filter compares it: the text, a number in its
// shortest decimal form.
func valueText(v *ghopsv1.ProjectFieldValue) string {
	if n, ok := v.GetValue().(*ghopsv1.ProjectFieldValue_Number); ok {
		return strconv.FormatFloat(n.Number, 'f', -1, 64)
	}
	return v.GetText() + v.GetDate() + v.GetOption() + v.GetSprint()
}

// filterItem is what a filter sees of it.
func (it *gqlItem) filterItem() projectfilter.Item {
	fi := projectfilter.Item{Type: itemType(it.Type), Archived: it.IsArchived, Values: map[string][]string{}}
	if ct := it.Content; ct != nil {
		fi.Title, fi.State = ct.Title, strings.ToLower(ct.State+ct.PRState)
		if ct.Repository != nil {
			fi.Values["repo"] = []string{ct.Repository.NameWithOwner}
		}
		if ct.Assignees != nil {
			for _, n := range ct.Assignees.Nodes {
				fi.Values["assignees"] = append(fi.Values["assignees"], n.Login)
			}
		}
		if ct.Labels != nil {
			for _, n := range ct.Labels.Nodes {
				fi.Values["labels"] = append(fi.Values["labels"], n.Name)
			}
		}
		if ct.Milestone != nil {
			fi.Values["milestone"] = []string{ct.Milestone.Title}
		}
	}
	for k, v := range it.values() {
		fi.Values[strings.ToLower(k)] = []string{valueText(v)}
	}
	return fi
}

// toItem is the answer's item, with the values of the fields named in
// only (all when none).
func toItem(it *gqlItem, only []string) *ghopsv1.ProjectItem {
	out := &ghopsv1.ProjectItem{Id: it.ID, Type: itemType(it.Type), Archived: it.IsArchived, Fields: map[string]*ghopsv1.ProjectFieldValue{}}
	if ct := it.Content; ct != nil {
		out.Title, out.Number, out.State = ct.Title, int32(ct.Number), strings.ToLower(ct.State+ct.PRState)
		if ct.Repository != nil {
			out.Repo = ct.Repository.NameWithOwner
		}
	}
	for k, v := range it.values() {
		if len(only) == 0 || slices.ContainsFunc(only, func(n string) bool { return strings.EqualFold(n, k) }) {
			out.Fields[k] = v
		}
	}
	return out
}

// ListProjects implements the list_projects tool: an owner's projects (a
// user's or an organization's, resolved by GitHub's repositoryOwner), open
// ones unless include_closed, 20 a page, walking GitHub's cursors.
func (s *Service) ListProjects(ctx context.Context, req *ghopsv1.ListProjectsRequest) (*ghopsv1.ListProjectsResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolListProjects, Resource: &ghopsv1.Resource{Type: "owner", Id: req.GetOwner()}}
	gh, m := s.client(ctx), &meter{}
	q := strings.TrimSpace(req.GetQuery())
	if !req.GetIncludeClosed() {
		q = strings.TrimSpace("is:open " + q)
	}
	page := max(int(req.GetPage()), 1)
	var after any
	for p := 1; ; p++ {
		var out struct {
			RepositoryOwner *struct {
				ProjectsV2 *struct {
					PageInfo struct {
						HasNextPage bool   `json:"hasNextPage"`
						EndCursor   string `json:"endCursor"`
					} `json:"pageInfo"`
					Nodes []struct {
						Number int    `json:"number"`
						Title  string `json:"title"`
						Closed bool   `json:"closed"`
						URL    string `json:"url"`
						Items  struct {
							TotalCount int `json:"totalCount"`
						} `json:"items"`
					} `json:"nodes"`
				} `json:"projectsV2"`
			} `json:"repositoryOwner"`
		}
		vars := map[string]any{"owner": req.GetOwner(), "first": projectsPage, "after": after, "query": q}
		if err := graphQL(ctx, gh, m, projectsQuery, vars, &out); err != nil {
			return nil, s.failProject(ctx, err, c, nil)
		}
		if out.RepositoryOwner == nil || out.RepositoryOwner.ProjectsV2 == nil {
			return nil, ghstatus.NotFound(c, "GitHub GraphQL answered no owner")
		}
		conn := out.RepositoryOwner.ProjectsV2
		if p == page || !conn.PageInfo.HasNextPage {
			resp := &ghopsv1.ListProjectsResponse{Projects: []*ghopsv1.ProjectSummary{},
				Page: &ghopsv1.PageInfo{Page: int32(page), PerPage: projectsPage, HasNext: p == page && conn.PageInfo.HasNextPage}}
			if p == page {
				for _, n := range conn.Nodes {
					resp.Projects = append(resp.Projects, &ghopsv1.ProjectSummary{Project: req.GetOwner() + "/" + strconv.Itoa(n.Number),
						Title: n.Title, Closed: n.Closed, ItemCount: int32(n.Items.TotalCount), Url: n.URL})
				}
			}
			return resp, nil
		}
		after = conn.PageInfo.EndCursor
	}
}

// GetProject implements the get_project tool in one GraphQL request.
func (s *Service) GetProject(ctx context.Context, req *ghopsv1.GetProjectRequest) (*ghopsv1.GetProjectResponse, error) {
	c := projectContext(ghopsv1.ToolGetProject, req.GetProject())
	m := &meter{}
	p, err := s.loadProject(ctx, s.client(ctx), m, c, req.GetProject(), nil)
	if err != nil {
		return nil, err
	}
	raw := p.raw.RepositoryOwner.ProjectV2
	out := &ghopsv1.Project{Project: p.ref, Title: raw.Title, Closed: raw.Closed, Url: raw.URL,
		ItemCount: int32(raw.Items.TotalCount), Fields: []*ghopsv1.ProjectField{}, Views: []*ghopsv1.ProjectView{}}
	for _, f := range p.fields {
		if f != nil && f.ID != "" {
			out.Fields = append(out.Fields, toField(f))
		}
	}
	for _, v := range raw.Views.Nodes {
		out.Views = append(out.Views, &ghopsv1.ProjectView{Number: int32(v.Number), Name: v.Name, Layout: strings.ToLower(strings.TrimSuffix(v.Layout, "_LAYOUT")), Filter: v.Filter})
	}
	if len(raw.StatusUpdates.Nodes) > 0 {
		out.StatusUpdate = toStatusUpdate(&raw.StatusUpdates.Nodes[0])
	}
	return &ghopsv1.GetProjectResponse{Project: out}, nil
}

// toField is the answer's field, with which sprint is current.
func toField(f *gqlField) *ghopsv1.ProjectField {
	out := &ghopsv1.ProjectField{Id: f.ID, Name: f.Name, Type: strings.ToLower(f.DataType)}
	for _, o := range f.Options {
		out.Options = append(out.Options, &ghopsv1.ProjectOption{Id: o.ID, Name: o.Name})
	}
	if f.Configuration != nil {
		cur, _ := projectfilter.Relative(iterations(f), "@current", today())
		for i, it := range f.sprints() {
			out.Iterations = append(out.Iterations, &ghopsv1.ProjectIteration{Id: it.ID, Title: it.Title, StartDate: it.StartDate,
				DurationDays: int32(it.Duration), Current: cur != "" && it.Title == cur, Completed: i >= len(f.Configuration.Iterations)})
		}
	}
	return out
}

// toStatusUpdate is the answer's status update.
func toStatusUpdate(u *gqlStatusUpdate) *ghopsv1.ProjectStatusUpdate {
	out := &ghopsv1.ProjectStatusUpdate{Status: strings.ToLower(u.Status), Body: u.Body, CreatedAt: ts(&u.CreatedAt)}
	if u.Creator != nil {
		out.Author = u.Creator.Login
	}
	return out
}

// ListProjectItems implements the list_project_items tool. GitHub's API
// has no filter on a project's items, so the service reads them, 50 a
// request, and keeps those matching filter (package projectfilter) until
// the page is full, at most ProjectMaxScan items and ProjectPointsCap
// points per call; page n skips the first n-1 pages of matches. Items
// GitHub redacts (from repositories the token cannot see) are counted in
// withheld, never listed; the gateway withholds, and counts there, those
// of repositories outside the caller's policy.
func (s *Service) ListProjectItems(ctx context.Context, req *ghopsv1.ListProjectItemsRequest) (*ghopsv1.ListProjectItemsResponse, error) {
	c := projectContext(ghopsv1.ToolListProjectItems, req.GetProject())
	flt, err := projectfilter.Parse(req.GetFilter())
	if err != nil {
		return nil, ghstatus.InvalidField(c, "invalid filter: "+err.Error(), "filter", "project_filter")
	}
	gh, m := s.client(ctx), &meter{}
	p, err := s.loadProject(ctx, gh, m, c, req.GetProject(), nil)
	if err != nil {
		return nil, err
	}
	if req.View != nil {
		if flt, err = p.viewFilter(c, req.GetView(), req.GetFilter()); err != nil {
			return nil, err
		}
	}
	for _, name := range req.GetFields() {
		if p.field(name) == nil {
			return nil, ghstatus.InvalidField(c, fmt.Sprintf("project %s has no field %q; its fields: %s", p.ref, name, p.fieldNames()), "fields", "project_field")
		}
	}
	for _, key := range flt.Keys() {
		if key == iterationQualifier && p.iterationField() != nil {
			continue
		}
		if p.field(key) == nil && p.field(strings.ReplaceAll(key, "-", " ")) == nil && !slices.Contains([]string{"assignee", "assignees", "label", "labels", "milestone", "repo"}, key) {
			return nil, ghstatus.InvalidField(c, fmt.Sprintf("filter names no field of project %s: %q; its fields: %s", p.ref, key, p.fieldNames()), "filter", "project_field")
		}
	}
	env := p.filterEnv()
	page := max(int(req.GetPage()), 1)
	skip := (page - 1) * projectResultPage
	out := &ghopsv1.ListProjectItemsResponse{Items: []*ghopsv1.ProjectItem{}}
	var after any
	more := true
	for more && len(out.Items) < projectResultPage && out.Scanned < ProjectMaxScan {
		var ans struct {
			Node *struct {
				Items struct {
					PageInfo struct {
						HasNextPage bool   `json:"hasNextPage"`
						EndCursor   string `json:"endCursor"`
					} `json:"pageInfo"`
					Nodes []*gqlItem `json:"nodes"`
				} `json:"items"`
			} `json:"node"`
		}
		err := graphQL(ctx, gh, m, projectItemsQuery, map[string]any{"id": p.id, "first": projectItemsPage, "after": after}, &ans)
		if errors.Is(err, errCostCap) {
			break
		}
		if err != nil {
			return nil, s.failProject(ctx, err, c, nil)
		}
		if ans.Node == nil {
			return nil, ghstatus.NotFound(c, "GitHub GraphQL answered no project")
		}
		conn := ans.Node.Items
		rest := false
		for _, it := range conn.Nodes {
			if len(out.Items) == projectResultPage {
				rest = true
				break
			}
			if it == nil {
				continue
			}
			out.Scanned++
			if !it.visible() {
				out.Withheld++
				continue
			}
			if !flt.Match(p.filterItem(it), env) {
				continue
			}
			if skip > 0 {
				skip--
				continue
			}
			out.Items = append(out.Items, toItem(it, req.GetFields()))
		}
		more = rest || conn.PageInfo.HasNextPage
		after = conn.PageInfo.EndCursor
	}
	out.Page = &ghopsv1.PageInfo{Page: int32(page), PerPage: projectResultPage, HasNext: more}
	out.Cost = m.cost()
	return out, nil
}
