package projects

import (
	"strconv"
	"strings"

	"ghops.dev/services/fakehub/internal/graphql"
	"ghops.dev/services/fakehub/internal/hub"
)

// visible reports whether the token may see the item's content: a draft always, an issue or
// pull request when the token can read its repository.
func (x *resolver) visible(it *Item) bool {
	return it.Draft != nil || (x.c.Tok != nil && x.h.Perm(x.c.Tok, it.Repo) != hub.PermNone)
}

// itemType is the item's ProjectV2ItemType for the token.
func (x *resolver) itemType(it *Item) string {
	switch {
	case it.Draft != nil:
		return itemDraft
	case !x.visible(it):
		return itemRedacted
	}
	if _, ref, ok := it.Repo.IssueNumbered(it.Number); ok && ref.P != nil {
		return itemPull
	}
	return itemIssue
}

// itemObj is a project item. An item the token may not see is REDACTED: no content, no
// creator and no field values, so that nothing of a private repository leaks.
func (x *resolver) itemObj(p *Project, it *Item) hub.Obj {
	typ := x.itemType(it)
	o := hub.Obj{
		"__typename": "ProjectV2Item", "id": nodeID(prefixItem, it.ID), "databaseId": it.ID, "fullDatabaseId": strconv.FormatInt(it.ID, 10),
		"type": typ, "isArchived": it.Archived, "createdAt": hub.Ts(it.Created), "updatedAt": hub.Ts(it.Updated),
		"creator": x.actor(it.Creator), "content": nil, "project": constant(func() any { return x.projectObj(p) }),
	}
	var values []hub.Obj
	if typ == itemRedacted {
		o["creator"] = nil
	} else {
		o["content"] = x.content(it)
		values = x.values(p, it)
	}
	o["fieldValues"] = lazy(func(a map[string]any) (any, *graphql.Error) {
		return connection(a, "fieldValues", "ProjectV2ItemFieldValue", len(values), func(i int) any { return values[i] })
	})
	o["fieldValueByName"] = lazy(func(a map[string]any) (any, *graphql.Error) {
		name, _ := a["name"].(string)
		for _, v := range values {
			if f, _ := v["field"].(hub.Obj); f != nil && strings.EqualFold(f["name"].(string), name) {
				return v, nil
			}
		}
		return nil, nil
	})
	return o
}

// content is the item's issue, pull request or draft issue.
func (x *resolver) content(it *Item) any {
	if d := it.Draft; d != nil {
		return hub.Obj{"__typename": "DraftIssue", "id": nodeID(prefixDraft, d.ID), "title": d.Title, "body": d.Body,
			"bodyText": d.Body, "bodyHTML": "<p>" + htmlEscape(d.Body) + "</p>", "createdAt": hub.Ts(d.Created),
			"updatedAt": hub.Ts(it.Updated), "creator": x.actor(it.Creator),
			"assignees": lazy(func(a map[string]any) (any, *graphql.Error) { return connection(a, "assignees", "User", 0, nil) })}
	}
	r, ref, ok := it.Repo.IssueNumbered(it.Number)
	if !ok {
		return nil
	}
	var o hub.Obj
	if ref.P != nil {
		o = x.c.PullNode(r, ref.P)
		o["body"] = ref.P.Body
	} else {
		is := ref.Is
		state := strings.ToUpper(is.State)
		o = hub.Obj{"__typename": "Issue", "id": hub.NodeID("Issue", is.ID), "number": is.Number, "title": is.Title, "body": is.Body,
			"state": state, "closed": state == "CLOSED", "url": x.c.Web + "/" + r.FullName() + "/issues/" + strconv.Itoa(is.Number)}
	}
	f := ref.Fields()
	o["createdAt"], o["updatedAt"] = hub.Ts(f.Created), hub.Ts(ref.Updated())
	o["author"] = x.actor(f.User)
	o["repository"] = x.repoObj(r)
	assignees, labels := ref.Is.Assignees, ref.Is.Labels
	o["assignees"] = lazy(func(a map[string]any) (any, *graphql.Error) {
		return connection(a, "assignees", "User", len(assignees), func(i int) any { return x.actor(assignees[i]) })
	})
	o["labels"] = lazy(func(a map[string]any) (any, *graphql.Error) {
		return connection(a, "labels", "Label", len(labels), func(i int) any {
			return hub.Obj{"__typename": "Label", "name": labels[i]}
		})
	})
	o["milestone"] = nil
	if m := r.MilestoneNumbered(ref.Is.Milestone); m != nil {
		o["milestone"] = hub.Obj{"__typename": "Milestone", "id": hub.NodeID("Milestone", m.ID), "number": m.Number, "title": m.Title,
			"state": strings.ToUpper(m.State), "dueOn": nil}
		if !m.DueOn.IsZero() {
			o["milestone"].(hub.Obj)["dueOn"] = hub.Ts(m.DueOn)
		}
	}
	return o
}

// title is the item's title: its draft's, issue's or pull request's.
func (x *resolver) title(it *Item) string {
	if it.Draft != nil {
		return it.Draft.Title
	}
	if _, ref, ok := it.Repo.IssueNumbered(it.Number); ok {
		return ref.Fields().Title
	}
	return ""
}

// values are the item's field values in the order of the project's fields: the Title always,
// then every field the item has a value of.
func (x *resolver) values(p *Project, it *Item) []hub.Obj {
	var out []hub.Obj
	for _, f := range p.Fields {
		fo := x.fieldObj(p, f)
		base := func(typename string, id int64) hub.Obj {
			return hub.Obj{"__typename": typename, "id": nodeID(prefixValue, id), "databaseId": id, "field": fo,
				"createdAt": hub.Ts(it.Created), "updatedAt": hub.Ts(it.Updated), "creator": x.actor(it.Creator),
				"item": constant(func() any { return x.itemObj(p, it) })}
		}
		if f.DataType == TypeTitle {
			o := base("ProjectV2ItemFieldTextValue", it.ID)
			o["text"] = x.title(it)
			out = append(out, o)
			continue
		}
		v := it.Values[f.ID]
		if v == nil {
			continue
		}
		var o hub.Obj
		switch f.DataType {
		case TypeText:
			o = base("ProjectV2ItemFieldTextValue", v.ID)
			o["text"] = v.Text
		case TypeNumber:
			o = base("ProjectV2ItemFieldNumberValue", v.ID)
			o["number"] = v.Number
		case TypeDate:
			o = base("ProjectV2ItemFieldDateValue", v.ID)
			o["date"] = v.Date
		case TypeSingleSelect:
			opt := optionByID(f, v.OptionID)
			if opt == nil {
				continue // the option was deleted
			}
			o = base("ProjectV2ItemFieldSingleSelectValue", v.ID)
			o["name"], o["nameHTML"], o["optionId"], o["color"] = opt.Name, htmlEscape(opt.Name), opt.ID, opt.Color
			o["description"], o["descriptionHTML"] = opt.Description, htmlEscape(opt.Description)
		case TypeIteration:
			iter := iterationByID(f, v.IterationID)
			if iter == nil {
				continue
			}
			o = base("ProjectV2ItemFieldIterationValue", v.ID)
			o["title"], o["titleHTML"], o["iterationId"] = iter.Title, htmlEscape(iter.Title), iter.ID
			o["startDate"], o["duration"] = date(iter.Start), iter.Duration
		default:
			continue
		}
		out = append(out, o)
	}
	return out
}

func optionByID(f *Field, id string) *Option {
	for _, o := range f.Options {
		if o.ID == id {
			return o
		}
	}
	return nil
}

func iterationByID(f *Field, id string) *Iteration {
	if f.Iteration == nil {
		return nil
	}
	for _, it := range f.Iteration.Iterations {
		if it.ID == id {
			return it
		}
	}
	return nil
}
