package projects

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"ghops.dev/services/fakehub/internal/hub"
)

// Register adds GitHub's REST Projects (v2) routes over the same projects as the GraphQL ones:
// a project's fields, its items (with the q filter and the fields to include), one item, and a
// change of one item's field values, for organizations and users alike. Items carry their
// numeric id (REST) beside the node id (GraphQL), as on GitHub.
func Register(h *hub.Hub, add hub.AddFunc) {
	for _, owner := range []string{"/orgs/{org}", "/users/{username}"} {
		base := owner + "/projectsV2/{project_number}"
		add("GET", base+"/fields", restHandler(h, false, (*resolver).restFields))
		add("GET", base+"/items", restHandler(h, false, (*resolver).restItems))
		add("GET", base+"/items/{item_id}", restHandler(h, false, (*resolver).restItem))
		add("PATCH", base+"/items/{item_id}", restHandler(h, true, (*resolver).restUpdateItem))
	}
}

// restHandler resolves the project of a REST route and enforces GitHub's access rules: a
// project the token cannot see is 404, a change needs a token (401), the project scope and
// write access to the owner (403).
func restHandler(h *hub.Hub, write bool, fn func(*resolver, *Project) *hub.Reply) func(*hub.ReqCtx) *hub.Reply {
	return func(c *hub.ReqCtx) *hub.Reply {
		x := &resolver{h: h, c: c, s: stateOf(h)}
		if write && c.Tok == nil {
			return hub.ErrReply(401, "Requires authentication", hub.DocRest)
		}
		n, err := strconv.Atoi(c.Params["project_number"])
		if err != nil {
			return hub.NotFound()
		}
		p := x.s.project(c.Params["org"]+c.Params["username"], n)
		if p == nil || !x.canRead(p) || (c.Tok != nil && !c.Tok.HasScope(scopeRead, scopeWrite)) {
			return hub.NotFound()
		}
		if write && (!x.canWrite(p) || !c.Tok.HasScope(scopeWrite)) {
			return hub.ErrReply(403, "Resource not accessible by personal access token", hub.DocRest)
		}
		return fn(x, p)
	}
}

// restProjectURL is the REST address of p.
func (x *resolver) restProjectURL(p *Project) string {
	kind := "users"
	if x.isOrg(p.Owner) {
		kind = "orgs"
	}
	return x.c.APIRoot() + "/" + kind + "/" + p.Owner + "/projectsV2/" + strconv.Itoa(p.Number)
}

// restDataType is a field's data_type as REST spells it.
func restDataType(t string) string { return strings.ToLower(t) }

// rich is REST's {raw, html} pair of a name or title.
func rich(s string) hub.Obj { return hub.Obj{"raw": s, "html": htmlEscape(s)} }

// restField is a field as REST answers it.
func (x *resolver) restField(p *Project, f *Field) hub.Obj {
	o := hub.Obj{"id": f.ID, "node_id": nodeID(fieldPrefix(f.DataType), f.ID), "name": f.Name,
		"data_type": restDataType(f.DataType), "project_url": x.restProjectURL(p),
		"created_at": hub.Ts(f.Created), "updated_at": hub.Ts(f.Updated)}
	if f.DataType == TypeSingleSelect {
		opts := make([]hub.Obj, 0, len(f.Options))
		for _, op := range f.Options {
			opts = append(opts, hub.Obj{"id": op.ID, "name": rich(op.Name), "color": op.Color, "description": rich(op.Description)})
		}
		o["options"] = opts
	}
	if f.DataType == TypeIteration && f.Iteration != nil {
		its := make([]hub.Obj, 0, len(f.Iteration.Iterations))
		for _, it := range f.Iteration.Iterations {
			its = append(its, x.restIteration(it))
		}
		o["configuration"] = hub.Obj{"start_day": f.Iteration.StartDay, "duration": f.Iteration.Duration, "iterations": its}
	}
	return o
}

// restIteration is an iteration as REST answers it; completed follows fakehub's clock.
func (x *resolver) restIteration(it *Iteration) hub.Obj {
	return hub.Obj{"id": it.ID, "title": rich(it.Title), "start_date": date(it.Start), "duration": it.Duration,
		"completed": !it.end().After(day(x.h.Now()))}
}

// restFields answers GET .../fields.
func (x *resolver) restFields(p *Project) *hub.Reply {
	return hub.PageReply(x.c, p.Fields, func(f *Field) hub.Obj { return x.restField(p, f) })
}

// restValue is an item's value of f as REST answers it, nil when it has none.
func (x *resolver) restValue(it *Item, f *Field) any {
	if f.DataType == TypeTitle {
		return rich(x.title(it))
	}
	v := it.Values[f.ID]
	if v == nil {
		return nil
	}
	switch f.DataType {
	case TypeText:
		return v.Text
	case TypeNumber:
		return v.Number
	case TypeDate:
		return v.Date
	case TypeSingleSelect:
		if op := optionByID(f, v.OptionID); op != nil {
			return hub.Obj{"id": op.ID, "name": rich(op.Name), "color": op.Color, "description": rich(op.Description)}
		}
	case TypeIteration:
		if iter := iterationByID(f, v.IterationID); iter != nil {
			return x.restIteration(iter)
		}
	}
	return nil
}

// restItemObj renders it; fields are the fields whose values to include (GitHub's fields
// parameter: only the Title when none is asked for).
func (x *resolver) restItemObj(p *Project, it *Item, fields []*Field) hub.Obj {
	typ := x.itemType(it)
	kind := typ
	if typ == itemRedacted { // REST names the content's type and leaves the content out
		kind = itemIssue
		if _, ref, ok := it.Repo.IssueNumbered(it.Number); ok && ref.P != nil {
			kind = itemPull
		}
	}
	o := hub.Obj{"id": it.ID, "node_id": nodeID(prefixItem, it.ID), "project_url": x.restProjectURL(p),
		"item_url":     x.restProjectURL(p) + "/items/" + strconv.FormatInt(it.ID, 10),
		"content_type": map[string]string{itemIssue: "Issue", itemPull: "PullRequest", itemDraft: "DraftIssue"}[kind], "content": nil,
		"created_at": hub.Ts(it.Created), "updated_at": hub.Ts(it.Updated), "archived_at": nil}
	if it.Archived {
		o["archived_at"] = hub.Ts(it.Updated)
	}
	if typ == itemRedacted {
		return o
	}
	if it.Draft != nil {
		o["content"] = hub.Obj{"node_id": nodeID(prefixDraft, it.Draft.ID), "title": it.Draft.Title, "body": it.Draft.Body}
	} else if r, ref, ok := it.Repo.IssueNumbered(it.Number); ok {
		o["content"] = x.c.IssueObj(r, ref)
	}
	vals := make([]hub.Obj, 0, len(fields))
	for _, f := range fields {
		vals = append(vals, hub.Obj{"id": f.ID, "name": f.Name, "data_type": restDataType(f.DataType), "value": x.restValue(it, f)})
	}
	o["fields"] = vals
	return o
}

// askedFields are the fields the request's fields parameter names (by id, comma-separated or
// repeated), the Title field when none is named; an unknown id is refused.
func (x *resolver) askedFields(p *Project) ([]*Field, *hub.Reply) {
	q := x.c.Req.URL.Query()
	var ids []string
	for _, v := range append(q["fields"], q["fields[]"]...) {
		ids = append(ids, strings.Split(v, ",")...)
	}
	var out []*Field
	for _, s := range ids {
		id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		f := fieldByID(p, id)
		if err != nil || f == nil {
			return nil, hub.Validation(hub.Invalid("ProjectV2Item", "fields", "invalid", "unknown field id "+strconv.Quote(s)))
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		for _, f := range p.Fields {
			if f.DataType == TypeTitle {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

func fieldByID(p *Project, id int64) *Field {
	for _, f := range p.Fields {
		if f.ID == id {
			return f
		}
	}
	return nil
}

// restItems answers GET .../items: the project's items matching q, unarchived unless q says
// is:archived.
func (x *resolver) restItems(p *Project) *hub.Reply {
	fields, rep := x.askedFields(p)
	if rep != nil {
		return rep
	}
	filter := parseItemFilter(x.c.Req.URL.Query().Get("q"))
	var all []*Item
	for _, it := range p.Items {
		if filter.match(x, p, it) {
			all = append(all, it)
		}
	}
	return hub.PageReply(x.c, all, func(it *Item) hub.Obj { return x.restItemObj(p, it, fields) })
}

// itemParam is the item the route's item_id names, nil when p has none.
func (x *resolver) itemParam(p *Project) *Item {
	id, err := strconv.ParseInt(x.c.Params["item_id"], 10, 64)
	if err != nil {
		return nil
	}
	return p.item(id)
}

// restItem answers GET .../items/{item_id}.
func (x *resolver) restItem(p *Project) *hub.Reply {
	it := x.itemParam(p)
	if it == nil {
		return hub.NotFound()
	}
	fields, rep := x.askedFields(p)
	if rep != nil {
		return rep
	}
	return hub.OkReply(200, x.restItemObj(p, it, fields))
}

// restUpdateItem answers PATCH .../items/{item_id}: {"fields": [{"id": n, "value": v}]}, v a
// text, number, date, option id or iteration id, null to clear. Every change is checked
// before any is made, so a refused request changes nothing.
func (x *resolver) restUpdateItem(p *Project) *hub.Reply {
	it := x.itemParam(p)
	if it == nil {
		return hub.NotFound()
	}
	var body struct {
		Fields []struct {
			ID    int64           `json:"id"`
			Value json.RawMessage `json:"value"`
		} `json:"fields"`
	}
	if rep := hub.Decode(x.c, &body); rep != nil {
		return rep
	}
	if len(body.Fields) == 0 {
		return invalidField("fields", "fields must name at least one field")
	}
	type change struct {
		f *Field
		v *Value // nil clears
	}
	var changes []change
	for _, in := range body.Fields {
		f := fieldByID(p, in.ID)
		if f == nil {
			return invalidField("fields", "unknown field id "+strconv.FormatInt(in.ID, 10))
		}
		v, rep := restValueFor(f, in.Value)
		if rep != nil {
			return rep
		}
		changes = append(changes, change{f, v})
	}
	for _, ch := range changes {
		if ch.v == nil {
			delete(it.Values, ch.f.ID)
			it.Updated = x.h.Stamp()
		} else {
			SetValue(x.h, it, ch.f, *ch.v)
		}
	}
	p.Updated = it.Updated
	fields := make([]*Field, 0, len(changes))
	for _, ch := range changes {
		fields = append(fields, ch.f)
	}
	return hub.OkReply(200, x.restItemObj(p, it, fields))
}

func invalidField(field, msg string) *hub.Reply {
	return hub.Validation(hub.Invalid("ProjectV2Item", field, "invalid", msg))
}

// restValueFor checks a PATCH value against f's data type; nil (JSON null) clears the value.
func restValueFor(f *Field, raw json.RawMessage) (*Value, *hub.Reply) {
	if len(raw) == 0 || string(raw) == "null" {
		if f.DataType == TypeTitle {
			return nil, invalidField("value", "the Title field cannot be cleared")
		}
		return nil, nil
	}
	bad := invalidField("value", "invalid value for the "+restDataType(f.DataType)+" field "+f.Name)
	var v Value
	var s string
	switch f.DataType {
	case TypeNumber:
		if json.Unmarshal(raw, &v.Number) != nil {
			return nil, bad
		}
		return &v, nil
	case TypeText, TypeDate, TypeSingleSelect, TypeIteration:
		if json.Unmarshal(raw, &s) != nil {
			return nil, bad
		}
	default:
		return nil, invalidField("value", "the "+restDataType(f.DataType)+" field "+f.Name+" cannot be updated here")
	}
	switch f.DataType {
	case TypeText:
		v.Text = s
	case TypeDate:
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return nil, bad
		}
		v.Date = s
	case TypeSingleSelect:
		if optionByID(f, s) == nil {
			return nil, bad
		}
		v.OptionID = s
	case TypeIteration:
		if iterationByID(f, s) == nil {
			return nil, bad
		}
		v.IterationID = s
	}
	return &v, nil
}
