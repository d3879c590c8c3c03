package projects

import (
	"sort"
	"strconv"
	"strings"

	"ghops.dev/services/fakehub/internal/graphql"
	"ghops.dev/services/fakehub/internal/hub"
)

// Scopes GitHub asks of classic tokens for projects.
const (
	scopeRead  = "read:project"
	scopeWrite = "project"
)

// insufficientScopes is the type of GitHub's refusal of a token without a needed scope.
const insufficientScopes = "INSUFFICIENT_SCOPES"

// needScope refuses field when the token holds none of scopes, in GitHub's words.
func (x *resolver) needScope(field string, scopes ...string) *graphql.Error {
	if x.c.Tok.HasScope(scopes...) {
		return nil
	}
	quote := func(list []string) string {
		q := make([]string, len(list))
		for i, s := range list {
			q[i] = "'" + s + "'"
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	return graphql.Refusal(insufficientScopes, "Your token has not been granted the required scopes to execute this query. The '"+field+
		"' field requires one of the following scopes: "+quote(scopes[:1])+", but your token has only been granted the: "+
		quote(x.c.Tok.GrantedScopes())+" scopes. Please modify your token's scopes at: https://github.com/settings/tokens.")
}

// member reports whether the token reaches one of owner's repositories with at least perm: the
// emulator's stand-in for organization membership.
func (x *resolver) member(owner string, perm hub.Permission) bool {
	t := x.c.Tok
	if t == nil {
		return false
	}
	if strings.EqualFold(t.Login, owner) {
		return true
	}
	for name, p := range t.Repos {
		o, _, _ := strings.Cut(name, "/")
		if p >= perm && (name == "*" || strings.EqualFold(o, owner)) {
			return true
		}
	}
	return false
}

// canRead reports whether the token sees p: public projects, its own and its organizations'.
func (x *resolver) canRead(p *Project) bool { return p.Public || x.member(p.Owner, hub.PermRead) }

// canWrite reports whether the token may change p: its own, or an organization's it can push to.
func (x *resolver) canWrite(p *Project) bool { return x.member(p.Owner, hub.PermWrite) }

// isOrg reports whether login is an organization, as recorded by MarkOrganization; any other
// login is a user.
func (x *resolver) isOrg(login string) bool { return x.s.orgs[strings.ToLower(login)] }

// known reports whether login is a user or organization fakehub knows of.
func (x *resolver) known(login string) bool {
	if x.s.orgs[strings.ToLower(login)] || (x.c.Tok != nil && strings.EqualFold(x.c.Tok.Login, login)) {
		return true
	}
	for _, p := range x.s.projects {
		if strings.EqualFold(p.Owner, login) {
			return true
		}
	}
	for _, r := range x.h.Repos {
		if strings.EqualFold(r.Opts.Owner, login) {
			return true
		}
	}
	return false
}

// ownerQuery answers user(login:), organization(login:) and repositoryOwner(login:).
func (x *resolver) ownerQuery(f graphql.Field) (hub.Obj, *graphql.Error) {
	login, _ := f.Args["login"].(string)
	org := x.isOrg(login)
	switch {
	case !x.known(login) || (f.Name == "user" && org) || (f.Name == "organization" && !org):
		what := map[string]string{"user": "a User", "organization": "an Organization", "repositoryOwner": "a RepositoryOwner"}[f.Name]
		return nil, graphql.Refusal(graphql.NotFound, "Could not resolve to "+what+" with the login of '"+login+"'.")
	}
	return f.Select(x.ownerObj(login))
}

// ownerObj is a user or organization with its projects.
func (x *resolver) ownerObj(login string) hub.Obj {
	typename := "User"
	if x.isOrg(login) {
		typename = "Organization"
	}
	return hub.Obj{
		"__typename": typename, "id": x.h.UserNodeID(login), "login": login, "url": x.c.Web + "/" + login, "resourcePath": "/" + login,
		"avatarUrl": x.c.Web + "/avatars/" + login,
		"projectV2": lazy(func(a map[string]any) (any, *graphql.Error) {
			if err := x.needScope("projectV2", scopeRead, scopeWrite); err != nil {
				return nil, err
			}
			n, _ := intArg(a["number"])
			p := x.s.project(login, n)
			if p == nil || !x.canRead(p) {
				return nil, graphql.Refusal(graphql.NotFound, "Could not resolve to a ProjectV2 with the number "+strconv.Itoa(n)+".")
			}
			return x.projectObj(p), nil
		}),
		"projectsV2": lazy(func(a map[string]any) (any, *graphql.Error) {
			if err := x.needScope("projectsV2", scopeRead, scopeWrite); err != nil {
				return nil, err
			}
			list := x.projectsOf(login, a)
			return connection(a, "projectsV2", "ProjectV2", len(list), func(i int) any { return x.projectObj(list[i]) })
		}),
	}
}

// projectsOf lists login's projects the token sees, filtered by query (words of the title,
// is:open, is:closed) and ordered by orderBy (NUMBER descending by default, as GitHub).
func (x *resolver) projectsOf(login string, a map[string]any) []*Project {
	query, _ := a["query"].(string)
	var list []*Project
	for _, p := range x.s.projects {
		if strings.EqualFold(p.Owner, login) && x.canRead(p) && matches(p, query) {
			list = append(list, p)
		}
	}
	order, _ := a["orderBy"].(map[string]any)
	field, _ := order["field"].(string)
	desc := order["direction"] != "ASC"
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if desc {
			a, b = b, a
		}
		switch field {
		case "TITLE":
			return strings.ToLower(a.Title) < strings.ToLower(b.Title)
		case "UPDATED_AT":
			return a.Updated.Before(b.Updated)
		case "CREATED_AT":
			return a.Created.Before(b.Created)
		}
		return a.Number < b.Number
	})
	return list
}

func matches(p *Project, query string) bool {
	for _, w := range strings.Fields(query) {
		switch strings.ToLower(w) {
		case "is:open":
			if p.Closed {
				return false
			}
		case "is:closed":
			if !p.Closed {
				return false
			}
		default:
			if !strings.Contains(strings.ToLower(p.Title), strings.ToLower(w)) {
				return false
			}
		}
	}
	return true
}

// node answers node(id:) for a project, item, field, view or status update the token sees;
// ok is false for any other id.
func (x *resolver) node(f graphql.Field) (hub.Obj, *graphql.Error, bool) {
	id, _ := f.Args["id"].(string)
	at, ok := x.s.lookup(id)
	if !ok {
		return nil, nil, false
	}
	if err := x.needScope("node", scopeRead, scopeWrite); err != nil {
		return nil, err, true
	}
	if !x.canRead(at.p) {
		return nil, graphql.Refusal(graphql.NotFound, "Could not resolve to a node with the global id of '"+id+"'."), true
	}
	var o hub.Obj
	switch {
	case at.item != nil:
		o = x.itemObj(at.p, at.item)
	case at.field != nil:
		o = x.fieldObj(at.p, at.field)
	case at.view != nil:
		o = x.viewObj(at.p, at.view)
	case at.update != nil:
		o = x.updateObj(at.p, at.update)
	default:
		o = x.projectObj(at.p)
	}
	res, err := f.Select(o)
	return res, err, true
}
