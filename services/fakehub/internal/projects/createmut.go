package projects

import (
	"strings"

	"ghops.dev/services/fakehub/internal/graphql"
	"ghops.dev/services/fakehub/internal/hub"
)

// createProject runs createProjectV2: a project of the token's user or of an organization it
// can push to, linked to repositoryId when given (write access to it needed).
func (x *resolver) createProject(f graphql.Field) (hub.Obj, *graphql.Error) {
	if err := x.needScope(f.Name, scopeWrite); err != nil {
		return nil, err
	}
	in := input(f)
	ownerID, _ := in["ownerId"].(string)
	title, _ := in["title"].(string)
	owner := x.ownerByNodeID(ownerID)
	if owner == "" {
		return nil, unresolvable(ownerID)
	}
	if !x.member(owner, hub.PermWrite) {
		return nil, graphql.Refusal(graphql.Forbidden, x.c.Tok.Login+" does not have permission to create projects on behalf of "+owner+".")
	}
	if strings.TrimSpace(title) == "" {
		return nil, unprocessable("Title can't be blank")
	}
	var repo *hub.Repo
	if rid, ok := in["repositoryId"].(string); ok {
		r, found := x.h.RepoByNodeID(rid)
		if !found || x.h.Perm(x.c.Tok, r) == hub.PermNone {
			return nil, unresolvable(rid)
		}
		if x.h.Perm(x.c.Tok, r) != hub.PermWrite {
			return nil, graphql.Refusal(graphql.Forbidden, "Resource not accessible by personal access token")
		}
		repo = r
	}
	draft := &Project{Owner: owner, Title: title, Creator: x.c.Tok.Login}
	var p *Project
	return answer(f, func() hub.Obj {
		if p == nil {
			return payloadOf(f, "projectV2", x.projectObj(draft))
		}
		return payloadOf(f, "projectV2", x.projectObj(p))
	}, func() {
		p = NewProject(x.h, owner, title, x.c.Tok.Login)
		if repo != nil {
			p.Repos = append(p.Repos, repo)
		}
	})
}

// ownerByNodeID is the login whose user or organization id is id, "" when none is known.
func (x *resolver) ownerByNodeID(id string) string {
	if x.c.Tok != nil && x.h.UserNodeID(x.c.Tok.Login) == id {
		return x.c.Tok.Login
	}
	for login := range x.s.orgs {
		if x.h.UserNodeID(login) == id {
			return x.ownerLogin(login)
		}
	}
	for _, r := range x.h.Repos {
		if x.h.UserNodeID(r.Opts.Owner) == id {
			return r.Opts.Owner
		}
	}
	return ""
}

// ownerLogin spells login as the repositories of its owner do.
func (x *resolver) ownerLogin(login string) string {
	for _, r := range x.h.Repos {
		if strings.EqualFold(r.Opts.Owner, login) {
			return r.Opts.Owner
		}
	}
	return login
}

// createField runs createProjectV2Field for the custom types TEXT, NUMBER, DATE, SINGLE_SELECT
// (options needed) and ITERATION (iterationConfiguration needed).
func (x *resolver) createField(f graphql.Field) (hub.Obj, *graphql.Error) {
	p, err := x.writable(f)
	if err != nil {
		return nil, err
	}
	in := input(f)
	name, _ := in["name"].(string)
	dataType, _ := in["dataType"].(string)
	if strings.TrimSpace(name) == "" {
		return nil, unprocessable("Name can't be blank")
	}
	if p.FieldNamed(name) != nil || reservedName(name) {
		return nil, unprocessable(errNameTaken.Error())
	}
	var options []Option
	raw, _ := in["singleSelectOptions"].([]any)
	for _, o := range raw {
		m, _ := o.(map[string]any)
		n, _ := m["name"].(string)
		color, _ := m["color"].(string)
		desc, _ := m["description"].(string)
		options = append(options, Option{Name: n, Color: color, Description: desc})
	}
	var iter *IterationConfigSpec
	switch dataType {
	case TypeSingleSelect:
		if len(options) == 0 {
			return nil, unprocessable("Single select fields must have at least one option")
		}
	case TypeIteration:
		iter = x.defaultIterations()
		if cfg, ok := in["iterationConfiguration"].(map[string]any); ok {
			var gerr *graphql.Error
			if iter, gerr = iterationSpec(cfg); gerr != nil {
				return nil, gerr
			}
		}
	}
	field := &Field{Name: name, DataType: dataType}
	return answer(f, func() hub.Obj { return payloadOf(f, "projectV2Field", x.fieldObj(p, field)) }, func() {
		field, _ = AddField(x.h, p, name, dataType, options, iter)
	})
}

// iterationSpec reads a ProjectV2IterationFieldConfigurationInput; with no iterations GitHub
// creates three from startDate.
func iterationSpec(cfg map[string]any) (*IterationConfigSpec, *graphql.Error) {
	start, err := parseDate(str(cfg["startDate"]))
	duration, _ := intArg(cfg["duration"])
	if err != nil || duration < 1 {
		return nil, unprocessable("Iteration configuration needs a startDate and a duration of at least one day")
	}
	spec := &IterationConfigSpec{Start: start, Duration: duration, Count: 3}
	list, _ := cfg["iterations"].([]any)
	for _, item := range list {
		m, _ := item.(map[string]any)
		s, err := parseDate(str(m["startDate"]))
		d, _ := intArg(m["duration"])
		if err != nil || d < 1 || strings.TrimSpace(str(m["title"])) == "" {
			return nil, unprocessable("Each iteration needs a title, a startDate and a duration of at least one day")
		}
		spec.Iterations = append(spec.Iterations, IterationSpec{Title: str(m["title"]), Start: s, Duration: d})
	}
	return spec, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// createStatusUpdate runs createProjectV2StatusUpdate.
func (x *resolver) createStatusUpdate(f graphql.Field) (hub.Obj, *graphql.Error) {
	p, err := x.writable(f)
	if err != nil {
		return nil, err
	}
	in := input(f)
	start, target := str(in["startDate"]), str(in["targetDate"])
	if start != "" && target != "" && target < start {
		return nil, unprocessable("Target date must be on or after the start date")
	}
	u := &StatusUpdate{Status: str(in["status"]), Body: str(in["body"]), Start: start, TargetDate: target, Creator: x.c.Tok.Login}
	return answer(f, func() hub.Obj { return payloadOf(f, "statusUpdate", x.updateObj(p, u)) }, func() {
		u = AddStatusUpdate(x.h, p, u.Status, u.Body, start, target, x.c.Tok.Login)
	})
}
