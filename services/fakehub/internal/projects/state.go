// Package projects emulates GitHub Projects (v2) in fakehub's GraphQL endpoint, as GitHub's
// GraphQL reference documents them: projects of users and organizations, their built-in Title
// and Status fields and custom text, number, date, single-select and iteration fields, items
// (issues and pull requests of any repository, drafts), archiving, views and status updates.
// graphqlapi installs this package's GraphQL root fields (Install); Register adds the REST
// Projects (v2) routes GitHub serves beside them (fields, items, one item's values), over the
// same state.
//
// Access follows GitHub: a classic token needs the read:project scope (or project) to read a
// project and project to change one; an item whose repository the token cannot read is
// answered as a REDACTED item without content or field values.
package projects

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"ghops.dev/services/fakehub/internal/hub"
)

// areaKey is this package's key in hub.Hub.Areas.
const areaKey = "projects"

// Data types of fields (ProjectV2FieldType) fakehub models.
const (
	TypeTitle        = "TITLE"
	TypeText         = "TEXT"
	TypeNumber       = "NUMBER"
	TypeDate         = "DATE"
	TypeSingleSelect = "SINGLE_SELECT"
	TypeIteration    = "ITERATION"
)

// Item types (ProjectV2ItemType).
const (
	itemIssue    = "ISSUE"
	itemPull     = "PULL_REQUEST"
	itemDraft    = "DRAFT_ISSUE"
	itemRedacted = "REDACTED"
)

// Project is a project (v2) of a user or an organization.
type Project struct {
	ID               int64
	Number           int
	Owner            string // login
	Title            string
	ShortDescription string
	Public, Closed   bool
	Creator          string
	Created, Updated time.Time
	Fields           []*Field
	Items            []*Item
	Views            []*View
	Updates          []*StatusUpdate
	Repos            []*hub.Repo // linked repositories
}

// Field is a project's field; Options serve SINGLE_SELECT, Iteration ITERATION.
type Field struct {
	ID               int64
	Name, DataType   string
	Options          []*Option
	Iteration        *IterationConfig
	Created, Updated time.Time
}

// Option is a single-select field's option.
type Option struct{ ID, Name, Color, Description string }

// IterationConfig is an iteration field's configuration: its default duration and start day,
// and its iterations; which of them are completed follows fakehub's clock.
type IterationConfig struct {
	Duration, StartDay int
	Iterations         []*Iteration
}

// Iteration is one iteration (a sprint): it starts on Start (a day) and lasts Duration days.
type Iteration struct {
	ID, Title string
	Start     time.Time
	Duration  int
}

// end is the first day after the iteration.
func (it *Iteration) end() time.Time { return it.Start.AddDate(0, 0, it.Duration) }

// Item is a project item: an issue or pull request (Repo and Number) or a draft.
type Item struct {
	ID               int64
	Repo             *hub.Repo
	Number           int
	Draft            *Draft
	Archived         bool
	Values           map[int64]*Value // by field id
	Creator          string
	Created, Updated time.Time
}

// Draft is a draft issue's content.
type Draft struct {
	ID          int64
	Title, Body string
	Created     time.Time
}

// Value is an item's value of one field; which part counts follows the field's data type.
type Value struct {
	ID                                int64
	Text, Date, OptionID, IterationID string
	Number                            float64
	Updated                           time.Time
}

// View is a project view.
type View struct {
	ID                   int64
	Number               int
	Name, Layout, Filter string
	Created              time.Time
}

// StatusUpdate is a project status update.
type StatusUpdate struct {
	ID                              int64
	Status, Body, Start, TargetDate string // dates as YYYY-MM-DD, "" for none
	Creator                         string
	Created                         time.Time
}

// store is the projects of one hub, and the kind of their owners.
type store struct {
	projects []*Project
	orgs     map[string]bool // lower-case logins known to be organizations
}

// stateOf returns h's projects, creating them on first use; callers hold h.Mu exclusively or
// only read.
func stateOf(h *hub.Hub) *store {
	if s, ok := h.Areas[areaKey].(*store); ok {
		return s
	}
	s := &store{orgs: map[string]bool{}}
	if h.Areas == nil {
		h.Areas = map[string]any{}
	}
	h.Areas[areaKey] = s
	return s
}

// nextID takes the hub's next object id.
func nextID(h *hub.Hub) int64 {
	h.NextID++
	return h.NextID
}

// Node id prefixes, as GitHub's: a project, an item, a plain field, a single-select field, an
// iteration field, a view, a status update, a field value and a draft issue.
const (
	prefixProject = "PVT_"
	prefixItem    = "PVTI_"
	prefixField   = "PVTF_"
	prefixSelect  = "PVTSSF_"
	prefixIter    = "PVTIF_"
	prefixView    = "PVTV_"
	prefixUpdate  = "PVTSU_"
	prefixValue   = "PVTFV_"
	prefixDraft   = "DI_"
)

// nodeID is the global id of the object with database id id.
func nodeID(prefix string, id int64) string {
	return prefix + base64.RawURLEncoding.EncodeToString([]byte("fh"+strconv.FormatInt(id, 10)))
}

// parseNodeID splits a global id into prefix and database id.
func parseNodeID(id string) (string, int64, bool) {
	prefix, raw, ok := strings.Cut(id, "_")
	if !ok {
		return "", 0, false
	}
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return "", 0, false
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(string(b), "fh"), 10, 64)
	if err != nil || !strings.HasPrefix(string(b), "fh") {
		return "", 0, false
	}
	return prefix + "_", n, true
}

// shortID is the id of an option or iteration: eight hex digits, as GitHub's.
func shortID(id int64) string { return fmt.Sprintf("%08x", uint32(id)*2654435761) }

// fieldPrefix is the global id prefix of a field of dataType.
func fieldPrefix(dataType string) string {
	switch dataType {
	case TypeSingleSelect:
		return prefixSelect
	case TypeIteration:
		return prefixIter
	}
	return prefixField
}

// lookup finds the project, and the item, field, view or status update, a global id names.
type found struct {
	p      *Project
	item   *Item
	field  *Field
	view   *View
	update *StatusUpdate
}

func (s *store) lookup(id string) (found, bool) {
	prefix, n, ok := parseNodeID(id)
	if !ok {
		return found{}, false
	}
	for _, p := range s.projects {
		switch prefix {
		case prefixProject:
			if p.ID == n {
				return found{p: p}, true
			}
		case prefixItem:
			if it := p.item(n); it != nil {
				return found{p: p, item: it}, true
			}
		case prefixField, prefixSelect, prefixIter:
			for _, f := range p.Fields {
				if f.ID == n && fieldPrefix(f.DataType) == prefix {
					return found{p: p, field: f}, true
				}
			}
		case prefixView:
			for _, v := range p.Views {
				if v.ID == n {
					return found{p: p, view: v}, true
				}
			}
		case prefixUpdate:
			for _, u := range p.Updates {
				if u.ID == n {
					return found{p: p, update: u}, true
				}
			}
		}
	}
	return found{}, false
}

func (p *Project) item(id int64) *Item {
	for _, it := range p.Items {
		if it.ID == id {
			return it
		}
	}
	return nil
}

// FieldNamed is the project's field called name (case-insensitive), nil when none is.
func (p *Project) FieldNamed(name string) *Field {
	for _, f := range p.Fields {
		if strings.EqualFold(f.Name, name) {
			return f
		}
	}
	return nil
}

// project is owner's project numbered n.
func (s *store) project(owner string, n int) *Project {
	for _, p := range s.projects {
		if strings.EqualFold(p.Owner, owner) && p.Number == n {
			return p
		}
	}
	return nil
}

// IterationTitled is the iteration of f titled title, nil when none is.
func (f *Field) IterationTitled(title string) *Iteration {
	if f.Iteration == nil {
		return nil
	}
	for _, it := range f.Iteration.Iterations {
		if strings.EqualFold(it.Title, title) {
			return it
		}
	}
	return nil
}

// OptionNamed is the option of f called name, nil when none is.
func (f *Field) OptionNamed(name string) *Option {
	for _, o := range f.Options {
		if strings.EqualFold(o.Name, name) {
			return o
		}
	}
	return nil
}
