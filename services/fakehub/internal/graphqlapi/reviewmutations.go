package graphqlapi

import (
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"ghops.dev/services/fakehub/internal/graphql"
	"ghops.dev/services/fakehub/internal/hub"
)

// Reviews through GraphQL, as GitHub serves them beside the REST reviews API (reviews.go) and
// on the same model: viewer, a pull request's reviews connection (filtered by author and
// states), and the mutations addPullRequestReview (pending without an event, submitted with
// one), addPullRequestReviewThread (a line comment in the viewer's pending review),
// submitPullRequestReview and deletePullRequestReview. Clients that review through GraphQL
// alone (github-mcp-server's review tools among them) need nothing else.

// The fields of this file join gqlQueries and gqlMutations (graphql.go, reviewthreads.go) here,
// beside their resolvers.
func init() {
	gqlQueries["viewer"] = (*api).viewerQuery
	gqlMutations["addPullRequestReview"] = (*api).addReviewMutation
	gqlMutations["addPullRequestReviewThread"] = (*api).addThreadMutation
	gqlMutations["submitPullRequestReview"] = (*api).submitReviewMutation
	gqlMutations["deletePullRequestReview"] = (*api).deleteReviewMutation
}

// notInDiff is GitHub's reason for a thread on a line outside the pull request's diff; the
// REST reason placeComment gives is worded for the reviews API.
const notInDiff = "Pull request review thread line must be part of the diff"

// viewerQuery answers viewer: the token's user.
func (h *api) viewerQuery(c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error) {
	return f.Select(h.userNode(c, c.Tok.Login))
}

// reviewsConnection is a pull request's reviews field: the reviews the viewer sees, oldest
// first, narrowed by author (a login) and states.
func (h *api) reviewsConnection(c *hub.ReqCtx, r *hub.Repo, p *hub.Pull) graphql.Lazy {
	return func(args map[string]any) (any, *graphql.Error) {
		author, _ := args["author"].(string)
		var states []string
		if list, ok := args["states"].([]any); ok {
			for _, s := range list {
				if str, ok := s.(string); ok {
					states = append(states, str)
				}
			}
		}
		var nodes []any
		for _, rv := range p.Reviews.Reviews {
			if !c.Visible(rv) || author != "" && !strings.EqualFold(author, rv.User) || states != nil && !slices.Contains(states, rv.State) {
				continue
			}
			nodes = append(nodes, h.reviewNode(c, r, p, rv))
		}
		return connection("reviews", "PullRequestReviewConnection", nodes, args)
	}
}

// reviewPayload is a review mutation's payload for rv.
func (h *api) reviewPayload(c *hub.ReqCtx, name string, fields map[string]any, r *hub.Repo, p *hub.Pull, rv *hub.Review) hub.Obj {
	return hub.Obj{"__typename": strings.ToUpper(name[:1]) + name[1:] + "Payload", "clientMutationId": fields["clientMutationId"],
		"pullRequestReview": h.reviewNode(c, r, p, rv)}
}

// pendingOf is login's pending review of p, or nil.
func pendingOf(p *hub.Pull, login string) *hub.Review {
	for _, rv := range p.Reviews.Reviews {
		if rv.State == hub.ReviewPending && strings.EqualFold(rv.User, login) {
			return rv
		}
	}
	return nil
}

// reviewedPull resolves a mutation's pullRequestId to a pull request the token can read.
func (h *api) reviewedPull(c *hub.ReqCtx, id string) (*hub.Repo, *hub.Pull, *graphql.Error) {
	r, p, ok := h.pullByNodeID(id)
	if !ok || h.Perm(c.Tok, r) == hub.PermNone {
		return nil, nil, notResolvable(id)
	}
	return r, p, nil
}

// ownReviewByNodeID resolves a pullRequestReviewId to the viewer's own review; another's pending
// review does not resolve, another's submitted one is refused.
func (h *api) ownReviewByNodeID(c *hub.ReqCtx, id string) (*hub.Repo, *hub.Pull, *hub.Review, *graphql.Error) {
	r, p, dbID, ok := h.ScopedByNodeID(hub.ReviewIDPrefix, id)
	if !ok || h.Perm(c.Tok, r) == hub.PermNone {
		return nil, nil, nil, notResolvable(id)
	}
	rv := p.ReviewByID(dbID)
	if rv == nil || !c.Visible(rv) {
		return nil, nil, nil, notResolvable(id)
	}
	if !strings.EqualFold(rv.User, c.Tok.Login) {
		return nil, nil, nil, graphql.Refusal(graphql.Forbidden, "Resource not accessible by personal access token")
	}
	return r, p, rv, nil
}

// draftThread reads one DraftPullRequestReviewThread (or addPullRequestReviewThread's input)
// as the REST draft comment placeComment anchors.
func draftThread(in map[string]any) hub.DraftComment {
	d := hub.DraftComment{}
	d.Path, _ = in["path"].(string)
	d.Body, _ = in["body"].(string)
	d.Side, _ = in["side"].(string)
	d.StartSide, _ = in["startSide"].(string)
	if n, ok := intArg(in["line"]); ok {
		line := int(n)
		d.Line = &line
	}
	if n, ok := intArg(in["startLine"]); ok {
		start := int(n)
		d.StartLine = &start
	}
	return d
}

// place anchors d on r's head, with GitHub's GraphQL reason when it cannot.
func place(r *hub.Repo, head, base plumbing.Hash, d hub.DraftComment) (*hub.ReviewComment, *graphql.Error) {
	if d.Line == nil {
		return nil, graphql.Refusal(graphql.Unprocessable, notInDiff)
	}
	cm, why := r.PlaceComment(head, base, d)
	switch why {
	case "":
		return cm, nil
	case "Line could not be resolved", "Path could not be resolved":
		why = notInDiff
	}
	return nil, graphql.Refusal(graphql.Unprocessable, why)
}

// addReviewMutation runs addPullRequestReview: a pending review without event, a submitted one
// with it, with its threads, all or nothing, on commitOID (the head by default).
func (h *api) addReviewMutation(c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error) {
	fields := mutationInput(f)
	id, _ := fields["pullRequestId"].(string)
	r, p, gerr := h.reviewedPull(c, id)
	if gerr != nil {
		return nil, gerr
	}
	if list, _ := fields["comments"].([]any); len(list) > 0 {
		return nil, graphql.Refusal(graphql.Unsupported, "fakehub takes a review's line comments as threads, not as position-based comments")
	}
	event, _ := fields["event"].(string)
	body, _ := fields["body"].(string)
	threads, _ := fields["threads"].([]any)
	state := hub.ReviewPending
	if event != "" {
		s, ok := hub.ReviewEvents[event]
		if !ok {
			return nil, graphql.Refusal(graphql.Unprocessable, "Event is not included in the list")
		}
		state = s
		if p.State != "open" {
			return nil, graphql.Refusal(graphql.Unprocessable, "Pull request is closed")
		}
	}
	if why := hub.EventRefusal(p, c.Tok.Login, event, body, len(threads)); why != "" {
		return nil, graphql.Refusal(graphql.Unprocessable, why)
	}
	if pendingOf(p, c.Tok.Login) != nil {
		return nil, graphql.Refusal(graphql.Unprocessable, "User can only have one pending review per pull request")
	}
	headStr, baseStr := r.PullSHAs(p)
	head, base := plumbing.NewHash(headStr), plumbing.NewHash(baseStr)
	if oid, _ := fields["commitOID"].(string); oid != "" && oid != headStr {
		sha, ok := r.Resolve(oid)
		if !ok || !hub.HexSHA.MatchString(oid) || !r.Git.IsAncestor(sha, head) || r.Git.IsAncestor(sha, base) {
			return nil, graphql.Refusal(graphql.Unprocessable, "Commit could not be resolved")
		}
		head = sha
	}
	placed := make([]*hub.ReviewComment, 0, len(threads))
	for _, t := range threads {
		in, _ := t.(map[string]any)
		cm, gerr := place(r, head, base, draftThread(in))
		if gerr != nil {
			return nil, gerr
		}
		placed = append(placed, cm)
	}
	rv := &hub.Review{User: c.Tok.Login, Body: body, State: state, SHA: head.String()}
	payload := func() hub.Obj {
		o := h.reviewPayload(c, f.Name, fields, r, p, rv)
		o["reviewEdge"] = hub.Obj{"__typename": "PullRequestReviewEdge", "cursor": cursor(len(p.Reviews.Reviews) - 1), "node": o["pullRequestReview"]}
		return o
	}
	if _, serr := f.Select(payload()); serr != nil {
		return nil, serr
	}
	h.NextID++
	t := h.Stamp()
	rv.ID, rv.Created = h.NextID, t
	if state != hub.ReviewPending {
		rv.Submitted = t
		p.Reviews.Requested = hub.RemoveFold(p.Reviews.Requested, c.Tok.Login)
	}
	p.Reviews.Reviews = append(p.Reviews.Reviews, rv)
	for _, cm := range placed {
		h.NextID++
		cm.ID, cm.ReviewID, cm.User, cm.Created, cm.Updated = h.NextID, rv.ID, c.Tok.Login, t, t
		p.Reviews.Comments = append(p.Reviews.Comments, cm)
	}
	return f.Select(payload())
}

// addThreadMutation runs addPullRequestReviewThread: a line comment in the viewer's pending
// review, named by pullRequestReviewId or found (or begun) by pullRequestId, anchored on the
// commit that review is of.
func (h *api) addThreadMutation(c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error) {
	fields := mutationInput(f)
	var (
		r    *hub.Repo
		p    *hub.Pull
		rv   *hub.Review
		gerr *graphql.Error
	)
	if rid, _ := fields["pullRequestReviewId"].(string); rid != "" {
		if r, p, rv, gerr = h.ownReviewByNodeID(c, rid); gerr != nil {
			return nil, gerr
		}
		if rv.State != hub.ReviewPending {
			return nil, graphql.Refusal(graphql.Unprocessable, "The pull request review is not pending")
		}
	} else {
		pid, _ := fields["pullRequestId"].(string)
		if pid == "" {
			return nil, graphql.Refusal(graphql.Unprocessable, "A pull request review id or a pull request id is required")
		}
		if r, p, gerr = h.reviewedPull(c, pid); gerr != nil {
			return nil, gerr
		}
		rv = pendingOf(p, c.Tok.Login)
	}
	if subject, _ := fields["subjectType"].(string); subject == "FILE" {
		return nil, graphql.Refusal(graphql.Unsupported, "fakehub anchors review threads on lines (subjectType LINE)")
	}
	headStr, baseStr := r.PullSHAs(p)
	head := plumbing.NewHash(headStr)
	if rv != nil {
		head = plumbing.NewHash(rv.SHA)
	}
	cm, gerr := place(r, head, plumbing.NewHash(baseStr), draftThread(fields))
	if gerr != nil {
		return nil, gerr
	}
	t := h.Stamp()
	if rv == nil {
		h.NextID++
		rv = &hub.Review{ID: h.NextID, User: c.Tok.Login, State: hub.ReviewPending, SHA: head.String(), Created: t}
		p.Reviews.Reviews = append(p.Reviews.Reviews, rv)
	}
	h.NextID++
	cm.ID, cm.ReviewID, cm.User, cm.Created, cm.Updated = h.NextID, rv.ID, c.Tok.Login, t, t
	p.Reviews.Comments = append(p.Reviews.Comments, cm)
	return f.Select(hub.Obj{"__typename": "AddPullRequestReviewThreadPayload", "clientMutationId": fields["clientMutationId"],
		"thread": h.threadNode(c, r, p, cm)})
}

// submitReviewMutation runs submitPullRequestReview on the viewer's pending review, named by
// pullRequestReviewId or found by pullRequestId.
func (h *api) submitReviewMutation(c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error) {
	fields := mutationInput(f)
	r, p, rv, gerr := h.pendingReviewOf(c, fields)
	if gerr != nil {
		return nil, gerr
	}
	event, _ := fields["event"].(string)
	state, ok := hub.ReviewEvents[event]
	if !ok {
		return nil, graphql.Refusal(graphql.Unprocessable, "Event is not included in the list")
	}
	body := rv.Body
	if b, ok := fields["body"].(string); ok {
		body = b
	}
	n := 0
	for _, cm := range p.Reviews.Comments {
		if cm.ReviewID == rv.ID {
			n++
		}
	}
	if why := hub.EventRefusal(p, c.Tok.Login, event, body, n); why != "" {
		return nil, graphql.Refusal(graphql.Unprocessable, why)
	}
	if _, serr := f.Select(h.reviewPayload(c, f.Name, fields, r, p, rv)); serr != nil {
		return nil, serr
	}
	rv.Body, rv.State, rv.Submitted = body, state, h.Stamp()
	p.Reviews.Requested = hub.RemoveFold(p.Reviews.Requested, c.Tok.Login)
	return f.Select(h.reviewPayload(c, f.Name, fields, r, p, rv))
}

// pendingReviewOf resolves submitPullRequestReview's review: pullRequestReviewId, else the
// viewer's pending review of pullRequestId. Only a pending review can be submitted.
func (h *api) pendingReviewOf(c *hub.ReqCtx, fields map[string]any) (*hub.Repo, *hub.Pull, *hub.Review, *graphql.Error) {
	if rid, _ := fields["pullRequestReviewId"].(string); rid != "" {
		r, p, rv, gerr := h.ownReviewByNodeID(c, rid)
		if gerr != nil {
			return nil, nil, nil, gerr
		}
		if rv.State != hub.ReviewPending {
			return nil, nil, nil, graphql.Refusal(graphql.Unprocessable, "Can not submit a non-pending pull request review")
		}
		return r, p, rv, nil
	}
	pid, _ := fields["pullRequestId"].(string)
	r, p, gerr := h.reviewedPull(c, pid)
	if gerr != nil {
		return nil, nil, nil, gerr
	}
	rv := pendingOf(p, c.Tok.Login)
	if rv == nil {
		return nil, nil, nil, graphql.Refusal(graphql.Unprocessable, "Could not find a pending review for the viewer")
	}
	return r, p, rv, nil
}

// deleteReviewMutation runs deletePullRequestReview: the viewer's pending review and its
// comments go; a submitted review cannot be deleted.
func (h *api) deleteReviewMutation(c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error) {
	fields := mutationInput(f)
	rid, _ := fields["pullRequestReviewId"].(string)
	r, p, rv, gerr := h.ownReviewByNodeID(c, rid)
	if gerr != nil {
		return nil, gerr
	}
	if rv.State != hub.ReviewPending {
		return nil, graphql.Refusal(graphql.Unprocessable, "Can not delete a non-pending pull request review")
	}
	payload := h.reviewPayload(c, f.Name, fields, r, p, rv)
	out, serr := f.Select(payload)
	if serr != nil {
		return nil, serr
	}
	p.Reviews.Reviews = slices.DeleteFunc(p.Reviews.Reviews, func(x *hub.Review) bool { return x == rv })
	p.Reviews.Comments = slices.DeleteFunc(p.Reviews.Comments, func(x *hub.ReviewComment) bool { return x.ReviewID == rv.ID })
	return out, nil
}
