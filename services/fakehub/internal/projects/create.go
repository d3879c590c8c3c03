package projects

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"ghops.dev/services/fakehub/internal/hub"
)

// statusOptions are the options of the Status field GitHub gives every new project.
var statusOptions = []Option{{Name: "Todo", Color: "GREEN"}, {Name: "In Progress", Color: "YELLOW"}, {Name: "Done", Color: "PURPLE"}}

// MarkOrganization records that login is an organization (organization(login:) resolves it
// and user(login:) does not).
func MarkOrganization(h *hub.Hub, login string) { stateOf(h).orgs[strings.ToLower(login)] = true }

// NewProject creates owner's next project as GitHub does: the built-in Title field, the Status
// field (Todo, In Progress, Done) and one table view, "View 1". Callers hold h.Mu exclusively.
func NewProject(h *hub.Hub, owner, title, creator string) *Project {
	s := stateOf(h)
	n := 1
	for _, p := range s.projects {
		if strings.EqualFold(p.Owner, owner) && p.Number >= n {
			n = p.Number + 1
		}
	}
	now := h.Stamp()
	p := &Project{ID: nextID(h), Number: n, Owner: owner, Title: title, Creator: creator, Created: now, Updated: now}
	p.Fields = append(p.Fields, &Field{ID: nextID(h), Name: "Title", DataType: TypeTitle, Created: now, Updated: now})
	addField(h, p, "Status", TypeSingleSelect, statusOptions, nil)
	AddView(h, p, "View 1", "TABLE_LAYOUT", "")
	s.projects = append(s.projects, p)
	return p
}

// IterationSpec describes an iteration to create; Title empty numbers it ("Iteration 3").
type IterationSpec struct {
	Title    string
	Start    time.Time
	Duration int
}

// errNameTaken is GitHub's refusal of a field name the project already has.
var errNameTaken = errors.New("Name has already been taken")

// AddField adds a field of dataType (TEXT, NUMBER, DATE, SINGLE_SELECT with options, ITERATION
// with iterations of duration days from start, count of them when iterations is empty).
func AddField(h *hub.Hub, p *Project, name, dataType string, options []Option, iter *IterationConfigSpec) (*Field, error) {
	if p.FieldNamed(name) != nil || reservedName(name) {
		return nil, errNameTaken
	}
	return addField(h, p, name, dataType, options, iter), nil
}

// addField adds a field without checking its name: GitHub's built-in ones.
func addField(h *hub.Hub, p *Project, name, dataType string, options []Option, iter *IterationConfigSpec) *Field {
	now := h.Stamp()
	f := &Field{ID: nextID(h), Name: name, DataType: dataType, Created: now, Updated: now}
	for _, o := range options {
		if o.Color == "" {
			o.Color = "GRAY"
		}
		o.ID = shortID(nextID(h))
		f.Options = append(f.Options, &o)
	}
	if dataType == TypeIteration && iter != nil {
		f.Iteration = &IterationConfig{Duration: iter.Duration, StartDay: int(iter.Start.Weekday())}
		if f.Iteration.StartDay == 0 {
			f.Iteration.StartDay = 7 // GitHub numbers the days of the week from Monday, 1, to Sunday, 7
		}
		specs := iter.Iterations
		for i := 0; len(iter.Iterations) == 0 && i < iter.Count; i++ {
			specs = append(specs, IterationSpec{Start: iter.Start.AddDate(0, 0, i*iter.Duration), Duration: iter.Duration})
		}
		for i, sp := range specs {
			if sp.Title == "" {
				sp.Title = "Iteration " + strconv.Itoa(i+1)
			}
			f.Iteration.Iterations = append(f.Iteration.Iterations, &Iteration{ID: shortID(nextID(h)), Title: sp.Title, Start: day(sp.Start), Duration: sp.Duration})
		}
	}
	p.Fields = append(p.Fields, f)
	p.Updated = now
	return f
}

// IterationConfigSpec is an iteration field's configuration to create: Count iterations of
// Duration days from Start, or the Iterations given.
type IterationConfigSpec struct {
	Start      time.Time
	Duration   int
	Count      int
	Iterations []IterationSpec
}

// reservedName reports names GitHub keeps for its built-in fields.
func reservedName(name string) bool {
	switch strings.ToLower(name) {
	case "title", "assignees", "status", "labels", "linked pull requests", "milestone", "repository", "reviewers",
		"parent issue", "sub-issues progress", "type", "tracks", "tracked by":
		return true
	}
	return false
}

// AddItem adds issue or pull request number of r to p, or returns the item it already is, as
// GitHub does.
func AddItem(h *hub.Hub, p *Project, r *hub.Repo, number int, creator string) *Item {
	for _, it := range p.Items {
		if it.Repo == r && it.Number == number {
			return it
		}
	}
	now := h.Stamp()
	it := &Item{ID: nextID(h), Repo: r, Number: number, Values: map[int64]*Value{}, Creator: creator, Created: now, Updated: now}
	p.Items = append(p.Items, it)
	p.Updated = now
	return it
}

// AddDraft adds a draft issue to p.
func AddDraft(h *hub.Hub, p *Project, title, body, creator string) *Item {
	now := h.Stamp()
	it := &Item{ID: nextID(h), Draft: &Draft{ID: nextID(h), Title: title, Body: body, Created: now},
		Values: map[int64]*Value{}, Creator: creator, Created: now, Updated: now}
	p.Items = append(p.Items, it)
	p.Updated = now
	return it
}

// SetValue sets it's value of f (a copy of v).
func SetValue(h *hub.Hub, it *Item, f *Field, v Value) {
	now := h.Stamp()
	if old := it.Values[f.ID]; old != nil {
		v.ID = old.ID
	} else {
		v.ID = nextID(h)
	}
	v.Updated = now
	it.Values[f.ID] = &v
	it.Updated = now
}

// AddView adds a view with layout (TABLE_LAYOUT, BOARD_LAYOUT, ROADMAP_LAYOUT) and filter.
func AddView(h *hub.Hub, p *Project, name, layout, filter string) *View {
	v := &View{ID: nextID(h), Number: len(p.Views) + 1, Name: name, Layout: layout, Filter: filter, Created: h.Stamp()}
	p.Views = append(p.Views, v)
	return v
}

// AddStatusUpdate posts a status update (ON_TRACK, AT_RISK, OFF_TRACK, COMPLETE, INACTIVE or
// empty) with optional start and target dates (YYYY-MM-DD).
func AddStatusUpdate(h *hub.Hub, p *Project, status, body, start, target, creator string) *StatusUpdate {
	u := &StatusUpdate{ID: nextID(h), Status: status, Body: body, Start: start, TargetDate: target, Creator: creator, Created: h.Stamp()}
	p.Updates = append(p.Updates, u)
	p.Updated = u.Created
	return u
}

// day is t's date at midnight UTC.
func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
