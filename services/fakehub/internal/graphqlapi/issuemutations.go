package graphqlapi

import (
	"strconv"
	"strings"

	"ghops.dev/services/fakehub/internal/graphql"
	"ghops.dev/services/fakehub/internal/hub"
)

// The issue and label mutations clients that work on issues through GraphQL send
// (github-mcp-server closes and reopens issues and renames labels this way): closeIssue with its
// state reason and, for a duplicate, the issue it repeats; reopenIssue; updateLabel. They change
// what the REST API changes for the same request, so either API reads the outcome.
func init() {
	gqlMutations["closeIssue"] = (*api).closeIssueMutation
	gqlMutations["reopenIssue"] = (*api).reopenIssueMutation
	gqlMutations["updateLabel"] = (*api).updateLabelMutation
}

// writableIssue resolves an issue's global id for a write: NOT_FOUND for an id that names no
// issue the token can see (a pull request's included, as GitHub's Issue mutations do), FORBIDDEN
// without push access.
func (h *api) writableIssue(c *hub.ReqCtx, id string) (*hub.Repo, *hub.Issue, *graphql.Error) {
	r, x, ok := h.ContentByNodeID(id)
	if !ok || x.P != nil || h.Perm(c.Tok, r) == hub.PermNone {
		return nil, nil, notResolvable(id)
	}
	if h.Perm(c.Tok, r) != hub.PermWrite {
		return nil, nil, graphql.Refusal(graphql.Forbidden, "Resource not accessible by personal access token")
	}
	return r, x.Is, nil
}

// issuePayload is a close or reopen mutation's payload: the issue and the client's id.
func (h *api) issuePayload(c *hub.ReqCtx, f graphql.Field, r *hub.Repo, is *hub.Issue) (hub.Obj, *graphql.Error) {
	name := strings.ToUpper(f.Name[:1]) + f.Name[1:] + "Payload"
	return f.Select(hub.Obj{"__typename": name, "clientMutationId": mutationInput(f)["clientMutationId"], "issue": h.issueNode(c, r, is)})
}

// issueNode is an issue as GraphQL's Issue type gives the fields fakehub emulates.
func (h *api) issueNode(c *hub.ReqCtx, r *hub.Repo, is *hub.Issue) hub.Obj {
	reason := any(nil)
	if is.StateReason != "" {
		reason = strings.ToUpper(is.StateReason)
	}
	return hub.Obj{"__typename": "Issue", "id": hub.NodeID("Issue", is.ID), "databaseId": is.ID, "number": is.Number,
		"title": is.Title, "state": strings.ToUpper(is.State), "stateReason": reason,
		"url": c.Web + "/" + r.FullName() + "/issues/" + strconv.Itoa(is.Number)}
}

// closeIssueMutation closes an open issue with stateReason (COMPLETED by default; DUPLICATE
// with duplicateIssueId, which must name another issue). Closing a closed issue changes only
// its reason, as the REST PATCH does.
func (h *api) closeIssueMutation(c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error) {
	in := mutationInput(f)
	id, _ := in["issueId"].(string)
	r, is, gerr := h.writableIssue(c, id)
	if gerr != nil {
		return nil, gerr
	}
	reason := "completed"
	if s, _ := in["stateReason"].(string); s != "" {
		reason = strings.ToLower(s)
	}
	if dup, _ := in["duplicateIssueId"].(string); dup != "" {
		if _, x, ok := h.ContentByNodeID(dup); !ok || x.P != nil || x.Is == is {
			return nil, notResolvable(dup)
		}
		if reason != "duplicate" {
			return nil, graphql.Refusal(graphql.Unprocessable, "duplicateIssueId can only be given with the state reason DUPLICATE")
		}
	}
	t := h.Stamp()
	if is.State == "open" {
		is.State, is.ClosedAt, is.ClosedBy = "closed", t, c.Tok.Login
	}
	is.StateReason, is.Updated = reason, t
	return h.issuePayload(c, f, r, is)
}

// reopenIssueMutation reopens a closed issue (reason reopened); an open one is left as it is.
func (h *api) reopenIssueMutation(c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error) {
	id, _ := mutationInput(f)["issueId"].(string)
	r, is, gerr := h.writableIssue(c, id)
	if gerr != nil {
		return nil, gerr
	}
	if is.State == "closed" {
		t := h.Stamp()
		is.State, is.ClosedAt, is.StateReason, is.ClosedBy, is.Updated = "open", hub.TimeZero, "reopened", "", t
	}
	return h.issuePayload(c, f, r, is)
}

// labelNode is a label as GraphQL's Label type gives the fields fakehub emulates; its id is the
// REST node_id.
func labelNode(c *hub.ReqCtx, r *hub.Repo, l *hub.Label) hub.Obj {
	o := c.LabelObj(r, l)
	return hub.Obj{"__typename": "Label", "id": o["node_id"], "name": l.Name, "color": l.Color(), "description": o["description"],
		"isDefault": l.IsDefault, "url": c.Web + "/" + r.FullName() + "/labels/" + l.Name}
}

// labelByNodeID finds the label whose global id is id, in any repository.
func (h *api) labelByNodeID(c *hub.ReqCtx, id string) (*hub.Repo, *hub.Label, bool) {
	for _, r := range h.Repos {
		for _, l := range r.Labels {
			if c.LabelObj(r, l)["node_id"] == id {
				return r, l, true
			}
		}
	}
	return nil, nil, false
}

// updateLabelMutation renames a label or changes its colour or description, as PATCH
// .../labels/{name} does: a name another label has, an empty one or a colour that is not six hex
// digits is refused and changes nothing.
func (h *api) updateLabelMutation(c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error) {
	in := mutationInput(f)
	id, _ := in["id"].(string)
	r, l, ok := h.labelByNodeID(c, id)
	if !ok || h.Perm(c.Tok, r) == hub.PermNone {
		return nil, notResolvable(id)
	}
	if h.Perm(c.Tok, r) != hub.PermWrite {
		return nil, graphql.Refusal(graphql.Forbidden, "Resource not accessible by personal access token")
	}
	str := func(k string) *string {
		if s, ok := in[k].(string); ok {
			return &s
		}
		return nil
	}
	name, color, desc := str("name"), str("color"), str("description")
	if name != nil {
		if strings.TrimSpace(*name) == "" {
			return nil, graphql.Refusal(graphql.Unprocessable, "Name can't be blank")
		}
		if o := r.LabelNamed(*name); o != nil && o != l {
			return nil, graphql.Refusal(graphql.Unprocessable, "Name has already been taken")
		}
	}
	if color != nil {
		if !isHexColor(*color) {
			return nil, graphql.Refusal(graphql.Unprocessable, "Color is invalid")
		}
		lower := strings.ToLower(*color)
		color = &lower
	}
	r.UpdateLabel(l, name, color, desc)
	return f.Select(hub.Obj{"__typename": "UpdateLabelPayload", "clientMutationId": in["clientMutationId"], "label": labelNode(c, r, l)})
}

// isHexColor is a label colour as GitHub takes it: six hex digits without "#".
func isHexColor(s string) bool {
	if len(s) != 6 {
		return false
	}
	for _, ch := range strings.ToLower(s) {
		if (ch < '0' || ch > '9') && (ch < 'a' || ch > 'f') {
			return false
		}
	}
	return true
}
