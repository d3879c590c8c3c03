package projects

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"ghops.dev/services/fakehub/internal/graphql"
	"ghops.dev/services/fakehub/internal/hub"
)

// resolver answers one GraphQL request's project fields for the request's token.
type resolver struct {
	h *hub.Hub
	c *hub.ReqCtx
	s *store
}

func lazy(f func(args map[string]any) (any, *graphql.Error)) graphql.Lazy { return graphql.Lazy(f) }

// constant is a lazily built value that takes no arguments.
func constant(f func() any) graphql.Lazy {
	return func(map[string]any) (any, *graphql.Error) { return f(), nil }
}

func date(t time.Time) string { return t.UTC().Format(time.DateOnly) }

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// actor is a user as GraphQL's Actor.
func (x *resolver) actor(login string) any {
	if login == "" {
		return nil
	}
	return hub.Obj{"__typename": "User", "login": login, "id": x.h.UserNodeID(login), "url": x.c.Web + "/" + login,
		"avatarUrl": x.c.Web + "/avatars/" + login, "resourcePath": "/" + login}
}

// projectURL is the project's web address: under /orgs/ or /users/ as its owner is.
func (x *resolver) projectURL(p *Project) string {
	kind := "users"
	if x.s.orgs[strings.ToLower(p.Owner)] {
		kind = "orgs"
	}
	return x.c.Web + "/" + kind + "/" + p.Owner + "/projects/" + strconv.Itoa(p.Number)
}

func (x *resolver) projectObj(p *Project) hub.Obj {
	u := x.projectURL(p)
	closedAt := any(nil)
	if p.Closed {
		closedAt = hub.Ts(p.Updated)
	}
	writable := x.canWrite(p)
	return hub.Obj{
		"__typename": "ProjectV2", "id": nodeID(prefixProject, p.ID), "databaseId": p.ID, "fullDatabaseId": strconv.FormatInt(p.ID, 10),
		"number": p.Number, "title": p.Title, "closed": p.Closed, "closedAt": closedAt, "public": p.Public,
		"shortDescription": nullable(p.ShortDescription), "readme": nil, "template": false,
		"url": u, "resourcePath": strings.TrimPrefix(u, x.c.Web), "createdAt": hub.Ts(p.Created), "updatedAt": hub.Ts(p.Updated),
		"viewerCanUpdate": writable, "viewerCanClose": writable && !p.Closed, "viewerCanReopen": writable && p.Closed,
		"creator": x.actor(p.Creator), "owner": constant(func() any { return x.ownerObj(p.Owner) }),
		"items": lazy(func(a map[string]any) (any, *graphql.Error) {
			return connection(a, "items", "ProjectV2Item", len(p.Items), func(i int) any { return x.itemObj(p, p.Items[i]) })
		}),
		"fields": lazy(func(a map[string]any) (any, *graphql.Error) { return x.fieldConnection(p, a) }),
		"field": lazy(func(a map[string]any) (any, *graphql.Error) {
			name, _ := a["name"].(string)
			if f := p.FieldNamed(name); f != nil {
				return x.fieldObj(p, f), nil
			}
			return nil, nil
		}),
		"views": lazy(func(a map[string]any) (any, *graphql.Error) {
			return connection(a, "views", "ProjectV2View", len(p.Views), func(i int) any { return x.viewObj(p, p.Views[i]) })
		}),
		"view": lazy(func(a map[string]any) (any, *graphql.Error) {
			n, _ := intArg(a["number"])
			for _, v := range p.Views {
				if v.Number == n {
					return x.viewObj(p, v), nil
				}
			}
			return nil, nil
		}),
		"statusUpdates": lazy(func(a map[string]any) (any, *graphql.Error) { return x.updateConnection(p, a) }),
		"repositories": lazy(func(a map[string]any) (any, *graphql.Error) {
			return connection(a, "repositories", "Repository", len(p.Repos), func(i int) any { return x.repoObj(p.Repos[i]) })
		}),
	}
}

func (x *resolver) fieldConnection(p *Project, a map[string]any) (any, *graphql.Error) {
	return connection(a, "fields", "ProjectV2FieldConfiguration", len(p.Fields), func(i int) any { return x.fieldObj(p, p.Fields[i]) })
}

// updateConnection lists status updates, newest first unless orderBy asks otherwise.
func (x *resolver) updateConnection(p *Project, a map[string]any) (any, *graphql.Error) {
	ups := append([]*StatusUpdate(nil), p.Updates...)
	order, _ := a["orderBy"].(map[string]any)
	if dir, _ := order["direction"].(string); dir != "ASC" {
		sort.SliceStable(ups, func(i, j int) bool { return ups[i].ID > ups[j].ID })
	}
	return connection(a, "statusUpdates", "ProjectV2StatusUpdate", len(ups), func(i int) any { return x.updateObj(p, ups[i]) })
}

func (x *resolver) repoObj(r *hub.Repo) hub.Obj {
	return hub.Obj{"__typename": "Repository", "id": r.NodeID(), "name": r.Opts.Name, "nameWithOwner": r.FullName(),
		"isPrivate": r.Opts.Private, "url": x.c.Web + "/" + r.FullName()}
}

func (x *resolver) viewObj(p *Project, v *View) hub.Obj {
	return hub.Obj{"__typename": "ProjectV2View", "id": nodeID(prefixView, v.ID), "databaseId": v.ID, "fullDatabaseId": strconv.FormatInt(v.ID, 10),
		"number": v.Number, "name": v.Name, "layout": v.Layout, "filter": nullable(v.Filter),
		"createdAt": hub.Ts(v.Created), "updatedAt": hub.Ts(v.Created),
		"project": constant(func() any { return x.projectObj(p) }),
		"fields":  lazy(func(a map[string]any) (any, *graphql.Error) { return x.fieldConnection(p, a) }),
	}
}

func (x *resolver) updateObj(p *Project, u *StatusUpdate) hub.Obj {
	return hub.Obj{"__typename": "ProjectV2StatusUpdate", "id": nodeID(prefixUpdate, u.ID), "databaseId": u.ID, "fullDatabaseId": strconv.FormatInt(u.ID, 10),
		"status": nullable(u.Status), "body": u.Body, "bodyHTML": "<p>" + htmlEscape(u.Body) + "</p>",
		"startDate": nullable(u.Start), "targetDate": nullable(u.TargetDate), "creator": x.actor(u.Creator),
		"createdAt": hub.Ts(u.Created), "updatedAt": hub.Ts(u.Created), "project": constant(func() any { return x.projectObj(p) }),
	}
}

func (x *resolver) fieldObj(p *Project, f *Field) hub.Obj {
	typename := "ProjectV2Field"
	o := hub.Obj{"id": nodeID(fieldPrefix(f.DataType), f.ID), "databaseId": f.ID, "name": f.Name, "dataType": f.DataType,
		"createdAt": hub.Ts(f.Created), "updatedAt": hub.Ts(f.Updated), "project": constant(func() any { return x.projectObj(p) })}
	switch f.DataType {
	case TypeSingleSelect:
		typename = "ProjectV2SingleSelectField"
		o["options"] = lazy(func(a map[string]any) (any, *graphql.Error) {
			names, _ := a["names"].([]any)
			out := []any{}
			for _, opt := range f.Options {
				if len(names) == 0 || containsFold(names, opt.Name) {
					out = append(out, optionObj(opt))
				}
			}
			return out, nil
		})
	case TypeIteration:
		typename = "ProjectV2IterationField"
		o["configuration"] = constant(func() any { return x.iterationConfig(f) })
	}
	o["__typename"] = typename
	return o
}

func containsFold(list []any, s string) bool {
	for _, v := range list {
		if t, _ := v.(string); strings.EqualFold(t, s) {
			return true
		}
	}
	return false
}

func optionObj(o *Option) hub.Obj {
	return hub.Obj{"__typename": "ProjectV2SingleSelectFieldOption", "id": o.ID, "name": o.Name, "nameHTML": htmlEscape(o.Name),
		"color": o.Color, "description": o.Description, "descriptionHTML": htmlEscape(o.Description)}
}

// iterationConfig splits the iterations as GitHub does: those that ended before today are
// completed (most recent first), the others (the current one and those to come) are listed in
// order of start.
func (x *resolver) iterationConfig(f *Field) hub.Obj {
	cfg := f.Iteration
	if cfg == nil {
		cfg = &IterationConfig{}
	}
	today := day(x.h.Now())
	var open, done []*Iteration
	for _, it := range cfg.Iterations {
		if !it.end().After(today) {
			done = append(done, it)
		} else {
			open = append(open, it)
		}
	}
	sort.SliceStable(open, func(i, j int) bool { return open[i].Start.Before(open[j].Start) })
	sort.SliceStable(done, func(i, j int) bool { return done[i].Start.After(done[j].Start) })
	list := func(its []*Iteration) []any {
		out := []any{}
		for _, it := range its {
			out = append(out, iterationObj(it))
		}
		return out
	}
	return hub.Obj{"__typename": "ProjectV2IterationFieldConfiguration", "duration": cfg.Duration, "startDay": cfg.StartDay,
		"iterations": list(open), "completedIterations": list(done)}
}

func iterationObj(it *Iteration) hub.Obj {
	return hub.Obj{"__typename": "ProjectV2IterationFieldIteration", "id": it.ID, "title": it.Title, "titleHTML": htmlEscape(it.Title),
		"startDate": date(it.Start), "duration": it.Duration}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;").Replace(s)
}

// intArg reads an Int argument (int64 after coercion).
func intArg(v any) (int, bool) {
	switch n := v.(type) {
	case int64:
		return int(n), true
	case int:
		return n, true
	case float64:
		return int(n), n == float64(int(n))
	}
	return 0, false
}
