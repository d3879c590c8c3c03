package projects

import (
	"ghops.dev/services/fakehub/internal/graphql"
	"ghops.dev/services/fakehub/internal/hub"
)

// Install adds the project root fields to engine for one request of c: the queries user,
// organization and repositoryOwner, node for project ids (other ids fall through to the node
// resolver already installed), rateLimit when none is, and the project mutations.
func Install(h *hub.Hub, c *hub.ReqCtx, engine *graphql.Engine) {
	x := &resolver{h: h, c: c, s: stateOf(h)}
	if engine.Queries == nil {
		engine.Queries = map[string]graphql.Resolver{}
	}
	if engine.Mutations == nil {
		engine.Mutations = map[string]graphql.Resolver{}
	}
	for _, name := range []string{"user", "organization", "repositoryOwner"} {
		engine.Queries[name] = x.ownerQuery
	}
	next := engine.Queries["node"]
	engine.Queries["node"] = func(f graphql.Field) (hub.Obj, *graphql.Error) {
		if o, err, ok := x.node(f); ok {
			return o, err
		}
		if next != nil {
			return next(f)
		}
		id, _ := f.Args["id"].(string)
		return nil, unresolvable(id)
	}
	if engine.Queries["rateLimit"] == nil {
		engine.Queries["rateLimit"] = x.rateLimit
	}
	for name, run := range map[string]graphql.Resolver{
		"addProjectV2ItemById":          x.addItemByID,
		"addProjectV2DraftIssue":        x.addDraft,
		"updateProjectV2ItemFieldValue": x.updateValue,
		"clearProjectV2ItemFieldValue":  x.clearValue,
		"archiveProjectV2Item":          x.archive,
		"unarchiveProjectV2Item":        x.archive,
		"deleteProjectV2Item":           x.deleteItem,
		"createProjectV2":               x.createProject,
		"createProjectV2Field":          x.createField,
		"updateProjectV2Field":          x.updateField,
		"createProjectV2StatusUpdate":   x.createStatusUpdate,
	} {
		engine.Mutations[name] = run
	}
}

// rateLimit answers rateLimit as GitHub does, for the bucket as it stands once this request is
// paid for: each request costs one point here (the serving layer spends it after the handler).
func (x *resolver) rateLimit(f graphql.Field) (hub.Obj, *graphql.Error) {
	const cost = 1
	s := x.h.Bucket(x.c, "graphql")
	return f.Select(hub.Obj{"__typename": "RateLimit", "cost": cost, "limit": s.Limit, "remaining": max(s.Remaining-cost, 0),
		"used": min(s.Used+cost, s.Limit), "resetAt": hub.Ts(s.Reset), "nodeCount": 1})
}
