package projects

import (
	"strings"
	"time"

	"ghops.dev/services/fakehub/internal/graphql"
	"ghops.dev/services/fakehub/internal/hub"
)

// parseDate reads a GraphQL Date: YYYY-MM-DD, or an ISO 8601 timestamp of that day (what
// clients that encode dates as timestamps, githubv4's Date among them, send).
func parseDate(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, err
	}
	return day(t), nil
}

// defaultIterations is the configuration GitHub gives an iteration field created without
// one: three iterations of two weeks from today.
func (x *resolver) defaultIterations() *IterationConfigSpec {
	return &IterationConfigSpec{Start: day(x.h.Now()), Duration: 14, Count: 3}
}

// updateField runs updateProjectV2Field: a new name, and for an iteration field a new
// iteration configuration, whose iterations replace the field's (values naming a removed
// iteration are dropped, as GitHub clears them).
func (x *resolver) updateField(f graphql.Field) (hub.Obj, *graphql.Error) {
	in := input(f)
	id, _ := in["fieldId"].(string)
	if err := x.needScope(f.Name, scopeWrite); err != nil {
		return nil, err
	}
	at, ok := x.s.lookup(id)
	if !ok || at.field == nil || !x.canRead(at.p) {
		return nil, unresolvable(id)
	}
	if !x.canWrite(at.p) {
		return nil, graphql.Refusal(graphql.Forbidden, "Resource not accessible by personal access token")
	}
	p, field := at.p, at.field
	name, renamed := in["name"].(string)
	if renamed {
		if strings.TrimSpace(name) == "" {
			return nil, unprocessable("Name can't be blank")
		}
		if other := p.FieldNamed(name); (other != nil && other != field) || reservedName(name) || field.DataType == TypeTitle {
			return nil, unprocessable(errNameTaken.Error())
		}
	}
	var spec *IterationConfigSpec
	if cfg, ok := in["iterationConfiguration"].(map[string]any); ok {
		if field.DataType != TypeIteration {
			return nil, unprocessable("Only iteration fields take an iteration configuration")
		}
		var gerr *graphql.Error
		if spec, gerr = iterationSpec(cfg); gerr != nil {
			return nil, gerr
		}
	}
	return answer(f, func() hub.Obj { return payloadOf(f, "projectV2Field", x.fieldObj(p, field)) }, func() {
		if renamed {
			field.Name = name
		}
		if spec != nil {
			x.reconfigure(p, field, spec)
		}
		field.Updated = x.h.Stamp()
		p.Updated = field.Updated
	})
}

// reconfigure replaces field's iterations by those spec describes.
func (x *resolver) reconfigure(p *Project, field *Field, spec *IterationConfigSpec) {
	tmp := addField(x.h, &Project{}, field.Name, TypeIteration, nil, spec)
	field.Iteration = tmp.Iteration
	for _, it := range p.Items {
		if v := it.Values[field.ID]; v != nil && iterationByID(field, v.IterationID) == nil {
			delete(it.Values, field.ID)
		}
	}
}
