package fakehub

import (
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"ghops.dev/services/fakehub/internal/graphql"
)

// Reviews through GraphQL, as GitHub serves them beside the REST reviews API (reviews.go) and
// on the same model: viewer, a pull request's reviews connection (filtered by author and
// states), and the mutations addPullRequestReview (pending without an event, submitted with
// one), addPullRequestReviewThread (a line comment in the viewer's pending review),
// submitPullRequestReview and deletePullRequestReview. Clients that review through GraphQL
// alone (github-mcp-server's review tools among them) need nothing else.

func init() {
	gqlQueries["viewer"] = (*Hub).viewerQuery
	gqlMutations["addPullRequestReview"] = (*Hub).addReviewMutation
	gqlMutations["addPullRequestReviewThread"] = (*Hub).addThreadMutation
	gqlMutations["submitPullRequestReview"] = (*Hub).submitReviewMutation
	gqlMutations["deletePullRequestReview"] = (*Hub).deleteReviewMutation
}

// notInDiff is GitHub's reason for a thread on a line outside the pull request's diff; the
// REST reason placeComment gives is worded for the reviews API.
const notInDiff = "Pull request review thread line must be part of the diff"

// viewerQuery answers viewer: the token's user.
func (h *Hub) viewerQuery(c *reqCtx, f graphql.Field) (obj, *graphql.Error) {
	return f.Select(c.userNode(c.tok.Login))
}

// reviewsConnection is a pull request's reviews field: the reviews the viewer sees, oldest
// first, narrowed by author (a login) and states.
func (c *reqCtx) reviewsConnection(r *repo, p *pull) graphql.Lazy {
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
		for _, rv := range p.rv.reviews {
			if !c.visible(rv) || author != "" && !strings.EqualFold(author, rv.user) || states != nil && !slices.Contains(states, rv.state) {
				continue
			}
			nodes = append(nodes, c.reviewNode(r, p, rv))
		}
		return connection("reviews", "PullRequestReviewConnection", nodes, args)
	}
}

// reviewPayload is a review mutation's payload for rv.
func (c *reqCtx) reviewPayload(name string, fields map[string]any, r *repo, p *pull, rv *review) obj {
	return obj{"__typename": strings.ToUpper(name[:1]) + name[1:] + "Payload", "clientMutationId": fields["clientMutationId"],
		"pullRequestReview": c.reviewNode(r, p, rv)}
}

// pendingOf is login's pending review of p, or nil.
func (p *pull) pendingOf(login string) *review {
	for _, rv := range p.rv.reviews {
		if rv.state == reviewPending && strings.EqualFold(rv.user, login) {
			return rv
		}
	}
	return nil
}

// reviewedPull resolves a mutation's pullRequestId to a pull request the token can read.
func (h *Hub) reviewedPull(c *reqCtx, id string) (*repo, *pull, *graphql.Error) {
	r, p, ok := h.pullByNodeID(id)
	if !ok || h.perm(c.tok, r) == PermNone {
		return nil, nil, notResolvable(id)
	}
	return r, p, nil
}

// ownReviewByNodeID resolves a pullRequestReviewId to the viewer's own review; another's pending
// review does not resolve, another's submitted one is refused.
func (h *Hub) ownReviewByNodeID(c *reqCtx, id string) (*repo, *pull, *review, *graphql.Error) {
	r, p, dbID, ok := h.scopedByNodeID(reviewIDPrefix, id)
	if !ok || h.perm(c.tok, r) == PermNone {
		return nil, nil, nil, notResolvable(id)
	}
	rv := p.reviewByID(dbID)
	if rv == nil || !c.visible(rv) {
		return nil, nil, nil, notResolvable(id)
	}
	if !strings.EqualFold(rv.user, c.tok.Login) {
		return nil, nil, nil, graphql.Refusal(graphql.Forbidden, "Resource not accessible by personal access token")
	}
	return r, p, rv, nil
}

// draftThread reads one DraftPullRequestReviewThread (or addPullRequestReviewThread's input)
// as the REST draft comment placeComment anchors.
func draftThread(in map[string]any) draftComment {
	d := draftComment{}
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

// place anchors d on head, with GitHub's GraphQL reason when it cannot.
func (r *repo) place(head, base plumbing.Hash, d draftComment) (*reviewComment, *graphql.Error) {
	if d.Line == nil {
		return nil, graphql.Refusal(graphql.Unprocessable, notInDiff)
	}
	cm, why := r.placeComment(head, base, d)
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
func (h *Hub) addReviewMutation(c *reqCtx, f graphql.Field) (obj, *graphql.Error) {
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
	state := reviewPending
	if event != "" {
		s, ok := reviewEvents[event]
		if !ok {
			return nil, graphql.Refusal(graphql.Unprocessable, "Event is not included in the list")
		}
		state = s
		if p.state != "open" {
			return nil, graphql.Refusal(graphql.Unprocessable, "Pull request is closed")
		}
	}
	if why := eventRefusal(p, c.tok.Login, event, body, len(threads)); why != "" {
		return nil, graphql.Refusal(graphql.Unprocessable, why)
	}
	if p.pendingOf(c.tok.Login) != nil {
		return nil, graphql.Refusal(graphql.Unprocessable, "User can only have one pending review per pull request")
	}
	headStr, baseStr := r.pullSHAs(p)
	head, base := plumbing.NewHash(headStr), plumbing.NewHash(baseStr)
	if oid, _ := fields["commitOID"].(string); oid != "" && oid != headStr {
		sha, ok := r.resolve(oid)
		if !ok || !hexSHA.MatchString(oid) || !r.git.IsAncestor(sha, head) || r.git.IsAncestor(sha, base) {
			return nil, graphql.Refusal(graphql.Unprocessable, "Commit could not be resolved")
		}
		head = sha
	}
	placed := make([]*reviewComment, 0, len(threads))
	for _, t := range threads {
		in, _ := t.(map[string]any)
		cm, gerr := r.place(head, base, draftThread(in))
		if gerr != nil {
			return nil, gerr
		}
		placed = append(placed, cm)
	}
	rv := &review{user: c.tok.Login, body: body, state: state, sha: head.String()}
	payload := func() obj {
		o := c.reviewPayload(f.Name, fields, r, p, rv)
		o["reviewEdge"] = obj{"__typename": "PullRequestReviewEdge", "cursor": cursor(len(p.rv.reviews) - 1), "node": o["pullRequestReview"]}
		return o
	}
	if _, serr := f.Select(payload()); serr != nil {
		return nil, serr
	}
	h.nextID++
	t := h.stamp()
	rv.id = h.nextID
	if state != reviewPending {
		rv.submitted = t
		p.rv.requested = removeFold(p.rv.requested, c.tok.Login)
	}
	p.rv.reviews = append(p.rv.reviews, rv)
	for _, cm := range placed {
		h.nextID++
		cm.id, cm.reviewID, cm.user, cm.created, cm.updated = h.nextID, rv.id, c.tok.Login, t, t
		p.rv.comments = append(p.rv.comments, cm)
	}
	return f.Select(payload())
}

// addThreadMutation runs addPullRequestReviewThread: a line comment in the viewer's pending
// review, named by pullRequestReviewId or found (or begun) by pullRequestId, anchored on the
// commit that review is of.
func (h *Hub) addThreadMutation(c *reqCtx, f graphql.Field) (obj, *graphql.Error) {
	fields := mutationInput(f)
	var (
		r    *repo
		p    *pull
		rv   *review
		gerr *graphql.Error
	)
	if rid, _ := fields["pullRequestReviewId"].(string); rid != "" {
		if r, p, rv, gerr = h.ownReviewByNodeID(c, rid); gerr != nil {
			return nil, gerr
		}
		if rv.state != reviewPending {
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
		rv = p.pendingOf(c.tok.Login)
	}
	if subject, _ := fields["subjectType"].(string); subject == "FILE" {
		return nil, graphql.Refusal(graphql.Unsupported, "fakehub anchors review threads on lines (subjectType LINE)")
	}
	headStr, baseStr := r.pullSHAs(p)
	head := plumbing.NewHash(headStr)
	if rv != nil {
		head = plumbing.NewHash(rv.sha)
	}
	cm, gerr := r.place(head, plumbing.NewHash(baseStr), draftThread(fields))
	if gerr != nil {
		return nil, gerr
	}
	t := h.stamp()
	if rv == nil {
		h.nextID++
		rv = &review{id: h.nextID, user: c.tok.Login, state: reviewPending, sha: head.String()}
		p.rv.reviews = append(p.rv.reviews, rv)
	}
	h.nextID++
	cm.id, cm.reviewID, cm.user, cm.created, cm.updated = h.nextID, rv.id, c.tok.Login, t, t
	p.rv.comments = append(p.rv.comments, cm)
	return f.Select(obj{"__typename": "AddPullRequestReviewThreadPayload", "clientMutationId": fields["clientMutationId"],
		"thread": c.threadNode(r, p, cm)})
}

// submitReviewMutation runs submitPullRequestReview on the viewer's pending review, named by
// pullRequestReviewId or found by pullRequestId.
func (h *Hub) submitReviewMutation(c *reqCtx, f graphql.Field) (obj, *graphql.Error) {
	fields := mutationInput(f)
	r, p, rv, gerr := h.pendingReviewOf(c, fields)
	if gerr != nil {
		return nil, gerr
	}
	event, _ := fields["event"].(string)
	state, ok := reviewEvents[event]
	if !ok {
		return nil, graphql.Refusal(graphql.Unprocessable, "Event is not included in the list")
	}
	body := rv.body
	if b, ok := fields["body"].(string); ok {
		body = b
	}
	n := 0
	for _, cm := range p.rv.comments {
		if cm.reviewID == rv.id {
			n++
		}
	}
	if why := eventRefusal(p, c.tok.Login, event, body, n); why != "" {
		return nil, graphql.Refusal(graphql.Unprocessable, why)
	}
	if _, serr := f.Select(c.reviewPayload(f.Name, fields, r, p, rv)); serr != nil {
		return nil, serr
	}
	rv.body, rv.state, rv.submitted = body, state, h.stamp()
	p.rv.requested = removeFold(p.rv.requested, c.tok.Login)
	return f.Select(c.reviewPayload(f.Name, fields, r, p, rv))
}

// pendingReviewOf resolves submitPullRequestReview's review: pullRequestReviewId, else the
// viewer's pending review of pullRequestId. Only a pending review can be submitted.
func (h *Hub) pendingReviewOf(c *reqCtx, fields map[string]any) (*repo, *pull, *review, *graphql.Error) {
	if rid, _ := fields["pullRequestReviewId"].(string); rid != "" {
		r, p, rv, gerr := h.ownReviewByNodeID(c, rid)
		if gerr != nil {
			return nil, nil, nil, gerr
		}
		if rv.state != reviewPending {
			return nil, nil, nil, graphql.Refusal(graphql.Unprocessable, "Can not submit a non-pending pull request review")
		}
		return r, p, rv, nil
	}
	pid, _ := fields["pullRequestId"].(string)
	r, p, gerr := h.reviewedPull(c, pid)
	if gerr != nil {
		return nil, nil, nil, gerr
	}
	rv := p.pendingOf(c.tok.Login)
	if rv == nil {
		return nil, nil, nil, graphql.Refusal(graphql.Unprocessable, "Could not find a pending review for the viewer")
	}
	return r, p, rv, nil
}

// deleteReviewMutation runs deletePullRequestReview: the viewer's pending review and its
// comments go; a submitted review cannot be deleted.
func (h *Hub) deleteReviewMutation(c *reqCtx, f graphql.Field) (obj, *graphql.Error) {
	fields := mutationInput(f)
	rid, _ := fields["pullRequestReviewId"].(string)
	r, p, rv, gerr := h.ownReviewByNodeID(c, rid)
	if gerr != nil {
		return nil, gerr
	}
	if rv.state != reviewPending {
		return nil, graphql.Refusal(graphql.Unprocessable, "Can not delete a non-pending pull request review")
	}
	payload := c.reviewPayload(f.Name, fields, r, p, rv)
	out, serr := f.Select(payload)
	if serr != nil {
		return nil, serr
	}
	p.rv.reviews = slices.DeleteFunc(p.rv.reviews, func(x *review) bool { return x == rv })
	p.rv.comments = slices.DeleteFunc(p.rv.comments, func(x *reviewComment) bool { return x.reviewID == rv.id })
	return out, nil
}
