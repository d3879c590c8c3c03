package projects

import (
	"strings"
	"time"

	"ghops.dev/services/fakehub/internal/graphql"
	"ghops.dev/services/fakehub/internal/hub"
)

func input(f graphql.Field) map[string]any {
	in, _ := f.Args["input"].(map[string]any)
	return in
}

func unresolvable(id string) *graphql.Error {
	return graphql.Refusal(graphql.NotFound, "Could not resolve to a node with the global id of '"+id+"'.")
}

func unprocessable(msg string) *graphql.Error { return graphql.Refusal(graphql.Unprocessable, msg) }

// writable resolves the input's projectId to a project the token may change: the project
// scope, a project it sees (else NOT_FOUND) and write access (else FORBIDDEN).
func (x *resolver) writable(f graphql.Field) (*Project, *graphql.Error) {
	if err := x.needScope(f.Name, scopeWrite); err != nil {
		return nil, err
	}
	id, _ := input(f)["projectId"].(string)
	at, ok := x.s.lookup(id)
	if !ok || at.item != nil || at.field != nil || at.view != nil || at.update != nil || !x.canRead(at.p) {
		return nil, unresolvable(id)
	}
	if !x.canWrite(at.p) {
		return nil, graphql.Refusal(graphql.Forbidden, "Resource not accessible by personal access token")
	}
	return at.p, nil
}

// itemOf resolves the input's itemId to an item of p.
func (x *resolver) itemOf(p *Project, f graphql.Field) (*Item, *graphql.Error) {
	id, _ := input(f)["itemId"].(string)
	at, ok := x.s.lookup(id)
	if !ok || at.item == nil || at.p != p {
		return nil, unresolvable(id)
	}
	return at.item, nil
}

// answer selects payload, built before anything changes so that an unanswerable selection is
// refused first, then runs change and selects the payload again.
func answer(f graphql.Field, payload func() hub.Obj, change func()) (hub.Obj, *graphql.Error) {
	if _, err := f.Select(payload()); err != nil {
		return nil, err
	}
	change()
	return f.Select(payload())
}

func payloadOf(f graphql.Field, key string, v any) hub.Obj {
	return hub.Obj{"__typename": strings.ToUpper(f.Name[:1]) + f.Name[1:] + "Payload", "clientMutationId": input(f)["clientMutationId"], key: v}
}

// addItemByID runs addProjectV2ItemById: an issue or pull request the token can read joins the
// project, or the item it already is answers.
func (x *resolver) addItemByID(f graphql.Field) (hub.Obj, *graphql.Error) {
	p, err := x.writable(f)
	if err != nil {
		return nil, err
	}
	id, _ := input(f)["contentId"].(string)
	r, ref, ok := x.h.ContentByNodeID(id)
	if !ok || x.h.Perm(x.c.Tok, r) == hub.PermNone {
		return nil, unresolvable(id)
	}
	var it *Item
	return answer(f, func() hub.Obj {
		if it == nil {
			return payloadOf(f, "item", x.itemObj(p, &Item{Repo: r, Number: ref.Is.Number}))
		}
		return payloadOf(f, "item", x.itemObj(p, it))
	}, func() { it = AddItem(x.h, p, r, ref.Is.Number, x.c.Tok.Login) })
}

// addDraft runs addProjectV2DraftIssue.
func (x *resolver) addDraft(f graphql.Field) (hub.Obj, *graphql.Error) {
	p, err := x.writable(f)
	if err != nil {
		return nil, err
	}
	title, _ := input(f)["title"].(string)
	body, _ := input(f)["body"].(string)
	if strings.TrimSpace(title) == "" {
		return nil, unprocessable("Title can't be blank")
	}
	it := &Item{Draft: &Draft{Title: title, Body: body}}
	return answer(f, func() hub.Obj { return payloadOf(f, "projectItem", x.itemObj(p, it)) },
		func() { it = AddDraft(x.h, p, title, body, x.c.Tok.Login) })
}

// fieldOf resolves the input's fieldId to a field of p.
func (x *resolver) fieldOf(p *Project, f graphql.Field) (*Field, *graphql.Error) {
	id, _ := input(f)["fieldId"].(string)
	at, ok := x.s.lookup(id)
	if !ok || at.field == nil || at.p != p {
		return nil, unresolvable(id)
	}
	return at.field, nil
}

// itemField resolves what a value mutation names: the writable project,
// its item and its field.
func (x *resolver) itemField(f graphql.Field) (*Project, *Item, *Field, *graphql.Error) {
	p, err := x.writable(f)
	if err != nil {
		return nil, nil, nil, err
	}
	it, err := x.itemOf(p, f)
	if err != nil {
		return nil, nil, nil, err
	}
	field, err := x.fieldOf(p, f)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, it, field, nil
}

// updateValue runs updateProjectV2ItemFieldValue: the value must be of the field's kind, an
// option or iteration of the field, as GitHub checks.
func (x *resolver) updateValue(f graphql.Field) (hub.Obj, *graphql.Error) {
	p, it, field, err := x.itemField(f)
	if err != nil {
		return nil, err
	}
	raw, _ := input(f)["value"].(map[string]any)
	v, err := valueFor(field, raw)
	if err != nil {
		return nil, err
	}
	return answer(f, func() hub.Obj { return payloadOf(f, "projectV2Item", x.itemObj(p, it)) },
		func() { SetValue(x.h, it, field, v); p.Updated = it.Updated })
}

// valueFor checks a ProjectV2FieldValue against field: exactly the member of the field's kind.
func valueFor(field *Field, raw map[string]any) (Value, *graphql.Error) {
	want := map[string]string{TypeText: "text", TypeNumber: "number", TypeDate: "date",
		TypeSingleSelect: "singleSelectOptionId", TypeIteration: "iterationId"}[field.DataType]
	what := map[string]string{TypeText: "a text value", TypeNumber: "a number value", TypeDate: "a date value",
		TypeSingleSelect: "a single select option Id", TypeIteration: "an iteration Id"}[field.DataType]
	if want == "" {
		return Value{}, unprocessable("The field " + field.Name + " of type " + strings.ToLower(field.DataType) + " cannot be updated with updateProjectV2ItemFieldValue")
	}
	got, present := raw[want]
	if !present || got == nil {
		return Value{}, unprocessable("Did not receive " + what + " to update a field of type " + strings.ToLower(field.DataType))
	}
	var v Value
	switch field.DataType {
	case TypeText:
		v.Text, _ = got.(string)
	case TypeNumber:
		switch n := got.(type) {
		case float64:
			v.Number = n
		case int64:
			v.Number = float64(n)
		}
	case TypeDate:
		s, _ := got.(string)
		if _, perr := time.Parse(time.DateOnly, s); perr != nil {
			return Value{}, unprocessable("Did not receive a valid date value to update a field of type date")
		}
		v.Date = s
	case TypeSingleSelect:
		v.OptionID, _ = got.(string)
		if optionByID(field, v.OptionID) == nil {
			return Value{}, unprocessable("The single select option Id does not belong to the field")
		}
	case TypeIteration:
		v.IterationID, _ = got.(string)
		if iterationByID(field, v.IterationID) == nil {
			return Value{}, unprocessable("The iteration Id does not belong to the field")
		}
	}
	return v, nil
}

// clearValue runs clearProjectV2ItemFieldValue.
func (x *resolver) clearValue(f graphql.Field) (hub.Obj, *graphql.Error) {
	p, it, field, err := x.itemField(f)
	if err != nil {
		return nil, err
	}
	if field.DataType == TypeTitle {
		return nil, unprocessable("The field " + field.Name + " cannot be cleared")
	}
	return answer(f, func() hub.Obj { return payloadOf(f, "projectV2Item", x.itemObj(p, it)) }, func() {
		if it.Values[field.ID] != nil {
			delete(it.Values, field.ID)
			it.Updated = x.h.Stamp()
		}
	})
}

// archive runs archiveProjectV2Item and unarchiveProjectV2Item.
func (x *resolver) archive(f graphql.Field) (hub.Obj, *graphql.Error) {
	p, err := x.writable(f)
	if err != nil {
		return nil, err
	}
	it, err := x.itemOf(p, f)
	if err != nil {
		return nil, err
	}
	archived := f.Name == "archiveProjectV2Item"
	return answer(f, func() hub.Obj { return payloadOf(f, "item", x.itemObj(p, it)) }, func() {
		if it.Archived != archived {
			it.Archived, it.Updated = archived, x.h.Stamp()
		}
	})
}

// deleteItem runs deleteProjectV2Item.
func (x *resolver) deleteItem(f graphql.Field) (hub.Obj, *graphql.Error) {
	p, err := x.writable(f)
	if err != nil {
		return nil, err
	}
	it, err := x.itemOf(p, f)
	if err != nil {
		return nil, err
	}
	return answer(f, func() hub.Obj { return payloadOf(f, "deletedItemId", nodeID(prefixItem, it.ID)) }, func() {
		for i, o := range p.Items {
			if o == it {
				p.Items = append(p.Items[:i:i], p.Items[i+1:]...)
				break
			}
		}
		p.Updated = x.h.Stamp()
	})
}
