package fakehub

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"

	"ghops.dev/services/fakehub/internal/graphql"
)

// Review threads through GraphQL, as GitHub serves them: a thread is a root line comment and
// its replies (REST has no thread object); repository.pullRequest.reviewThreads pages them,
// node(id:) finds a thread, review or comment by its global id, and the mutations
// addPullRequestReviewThreadReply, resolveReviewThread and unresolveReviewThread act on one.
// A thread of a pending review is seen only by its author, as the review is.

// gqlQueries are the query fields fakehub serves, by name.
var gqlQueries = map[string]func(h *Hub, c *reqCtx, f graphql.Field) (obj, *graphql.Error){
	"repository": (*Hub).repositoryQuery,
	"node":       (*Hub).nodeQuery,
	"rateLimit":  (*Hub).rateLimitQuery,
}

// maxConnectionPage is GitHub's largest first or last.
const maxConnectionPage = 100

func notResolvable(id string) *graphql.Error {
	return graphql.Refusal(graphql.NotFound, "Could not resolve to a node with the global id of '"+id+"'.")
}

// repositoryQuery answers repository(owner:, name:) for a repository the token can see.
func (h *Hub) repositoryQuery(c *reqCtx, f graphql.Field) (obj, *graphql.Error) {
	owner, _ := f.Args["owner"].(string)
	name, _ := f.Args["name"].(string)
	r, ok := h.repos[repoKey(owner+"/"+name)]
	if !ok || h.perm(c.tok, r) == PermNone {
		return nil, graphql.Refusal(graphql.NotFound, "Could not resolve to a Repository with the name '"+owner+"/"+name+"'.")
	}
	return f.Select(c.repoNode(r))
}

func (c *reqCtx) repoNode(r *repo) obj {
	return obj{
		"__typename": "Repository", "id": nodeID("Repository", r.id), "databaseId": r.id, "name": r.opts.Name,
		"nameWithOwner": r.fullName(), "url": c.web + "/" + r.fullName(), "isPrivate": r.opts.Private,
		"pullRequest": graphql.Lazy(func(args map[string]any) (any, *graphql.Error) {
			n, _ := intArg(args["number"])
			p := r.pullByNumber(int(n))
			if p == nil {
				return nil, graphql.Refusal(graphql.NotFound, "Could not resolve to a PullRequest with the number of "+strconv.FormatInt(n, 10)+".")
			}
			return c.reviewedPullNode(r, p), nil
		}),
	}
}

// reviewedPullNode is pullNode with the pull request's repository, heads and review threads.
func (c *reqCtx) reviewedPullNode(r *repo, p *pull) obj {
	o := c.pullNode(r, p)
	head, _ := r.pullSHAs(p)
	o["headRefOid"], o["headRefName"], o["baseRefName"] = head, p.head, p.base
	o["repository"] = graphql.Lazy(func(map[string]any) (any, *graphql.Error) { return c.repoNode(r), nil })
	o["reviews"] = c.reviewsConnection(r, p)
	o["reviewThreads"] = graphql.Lazy(func(args map[string]any) (any, *graphql.Error) {
		var threads []any
		for _, cm := range p.rv.comments {
			if cm.inReplyTo == 0 && c.visibleComment(p, cm) {
				threads = append(threads, c.threadNode(r, p, cm))
			}
		}
		return connection("reviewThreads", "PullRequestReviewThreadConnection", threads, args)
	})
	return o
}

// connection pages items as a GraphQL connection with first and after; GitHub insists on a
// first or last.
func connection(field, typ string, items []any, args map[string]any) (any, *graphql.Error) {
	if args["last"] != nil || args["before"] != nil {
		return nil, graphql.Refusal(graphql.Unsupported, "fakehub pages connections forward only (first, after)")
	}
	first, ok := intArg(args["first"])
	if !ok {
		return nil, graphql.Refusal("MISSING_PAGINATION_BOUNDARIES", "You must provide a `first` or `last` value to properly paginate the `"+field+"` connection.")
	}
	if first < 0 || first > maxConnectionPage {
		return nil, graphql.Refusal("EXCESSIVE_PAGINATION", "Requesting "+strconv.FormatInt(first, 10)+" records on the `"+field+"` connection exceeds the `first` limit of 100 records.")
	}
	lo := 0
	if after, _ := args["after"].(string); after != "" {
		n, ok := decodeCursor(after)
		if !ok {
			return nil, graphql.Refusal("INVALID_CURSOR_ARGUMENTS", "`"+after+"` does not appear to be a valid cursor.")
		}
		lo = min(n+1, len(items))
	}
	hi := min(lo+int(first), len(items))
	page := items[lo:hi]
	edges := make([]any, len(page))
	for i, item := range page {
		edges[i] = obj{"__typename": strings.TrimSuffix(typ, "Connection") + "Edge", "cursor": cursor(lo + i), "node": item}
	}
	info := obj{"__typename": "PageInfo", "hasNextPage": hi < len(items), "hasPreviousPage": lo > 0, "startCursor": nil, "endCursor": nil}
	if len(page) > 0 {
		info["startCursor"], info["endCursor"] = cursor(lo), cursor(hi-1)
	}
	if page == nil {
		page = []any{}
	}
	return obj{"__typename": typ, "totalCount": len(items), "nodes": page, "edges": edges, "pageInfo": info}, nil
}

// intArg reads an Int argument, whether written in the document or passed as a variable.
func intArg(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case float64:
		return int64(n), n == float64(int64(n))
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

func cursor(i int) string {
	return base64.StdEncoding.EncodeToString([]byte("cursor:v2:" + strconv.Itoa(i)))
}

func decodeCursor(s string) (int, bool) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(b), "cursor:v2:"))
	return n, err == nil && n >= 0 && strings.HasPrefix(string(b), "cursor:v2:")
}

// threadNode is the PullRequestReviewThread rooted at root.
func (c *reqCtx) threadNode(r *repo, p *pull, root *reviewComment) obj {
	at := r.anchorOf(p, root)
	resolver, resolved := p.rv.resolvedBy[root.id]
	canResolve := c.canResolve(r, p)
	o := obj{
		"__typename": "PullRequestReviewThread", "id": reviewThreadNodeID(r, p.number, root.id), "path": root.path,
		"diffSide": root.side, "startDiffSide": nil, "isResolved": resolved, "isOutdated": at.outdated, "isCollapsed": resolved,
		"line": nil, "startLine": nil, "originalLine": root.line, "originalStartLine": nil, "resolvedBy": nil,
		"subjectType": "LINE", "viewerCanReply": c.tok != nil, "viewerCanResolve": canResolve && !resolved,
		"viewerCanUnresolve": canResolve && resolved,
		"pullRequest":        graphql.Lazy(func(map[string]any) (any, *graphql.Error) { return c.reviewedPullNode(r, p), nil }),
		"repository":         graphql.Lazy(func(map[string]any) (any, *graphql.Error) { return c.repoNode(r), nil }),
	}
	if !at.outdated {
		o["line"] = at.line
		if at.startLine != 0 {
			o["startLine"] = at.startLine
		}
	}
	if root.startLine != 0 {
		o["originalStartLine"], o["startDiffSide"] = root.startLine, root.startSide
	}
	if resolved {
		o["resolvedBy"] = c.userNode(resolver)
	}
	o["comments"] = graphql.Lazy(func(args map[string]any) (any, *graphql.Error) {
		var list []any
		for _, cm := range p.rv.comments {
			if (cm == root || cm.inReplyTo == root.id) && c.visibleComment(p, cm) {
				list = append(list, c.commentNode(r, p, cm))
			}
		}
		return connection("comments", "PullRequestReviewCommentConnection", list, args)
	})
	return o
}

func (c *reqCtx) userNode(login string) obj {
	id := c.h.userID(login)
	return obj{"__typename": "User", "login": login, "id": nodeID("User", id), "databaseId": id,
		"url": c.web + "/" + login, "avatarUrl": c.web + "/avatars/" + login}
}

// commentNode is the PullRequestReviewComment cm.
func (c *reqCtx) commentNode(r *repo, p *pull, cm *reviewComment) obj {
	rest := c.reviewCommentObj(r, p, cm)
	state := "SUBMITTED"
	rv := p.reviewByID(cm.reviewID)
	if rv != nil && rv.state == reviewPending {
		state = "PENDING"
	}
	o := obj{
		"__typename": "PullRequestReviewComment", "id": reviewCommentNodeID(r, p.number, cm.id), "databaseId": cm.id,
		"fullDatabaseId": strconv.FormatInt(cm.id, 10), "author": c.userNode(cm.user), "authorAssociation": c.association(r, cm.user),
		"body": cm.body, "bodyText": cm.body, "createdAt": ts(cm.created), "updatedAt": ts(cm.updated), "lastEditedAt": nil,
		"publishedAt": nil, "diffHunk": rest["diff_hunk"], "path": rest["path"], "line": rest["line"], "originalLine": rest["original_line"],
		"startLine": rest["start_line"], "originalStartLine": rest["original_start_line"], "outdated": rest["line"] == nil,
		"state": state, "subjectType": "LINE", "url": rest["html_url"], "viewerDidAuthor": c.viewer() != "" && strings.EqualFold(c.viewer(), cm.user),
		"isMinimized": false, "minimizedReason": nil, "replyTo": nil,
		"pullRequest":       graphql.Lazy(func(map[string]any) (any, *graphql.Error) { return c.reviewedPullNode(r, p), nil }),
		"repository":        graphql.Lazy(func(map[string]any) (any, *graphql.Error) { return c.repoNode(r), nil }),
		"pullRequestReview": nil,
	}
	if state == "SUBMITTED" {
		o["publishedAt"] = ts(cm.created)
	}
	if cm.inReplyTo != 0 {
		if root := p.commentByID(cm.inReplyTo); root != nil {
			o["replyTo"] = obj{"__typename": "PullRequestReviewComment", "id": reviewCommentNodeID(r, p.number, root.id), "databaseId": root.id}
		}
	}
	if rv != nil {
		o["pullRequestReview"] = c.reviewNode(r, p, rv)
	}
	return o
}

// reviewNode is the PullRequestReview rv.
func (c *reqCtx) reviewNode(r *repo, p *pull, rv *review) obj {
	o := obj{
		"__typename": "PullRequestReview", "id": reviewNodeID(r, p.number, rv.id), "databaseId": rv.id,
		"fullDatabaseId": strconv.FormatInt(rv.id, 10), "author": c.userNode(rv.user), "authorAssociation": c.association(r, rv.user),
		"body": rv.body, "bodyText": rv.body, "state": rv.state, "submittedAt": nil, "publishedAt": nil,
		"url":         c.web + "/" + r.fullName() + "/pull/" + strconv.Itoa(p.number) + "#pullrequestreview-" + strconv.FormatInt(rv.id, 10),
		"pullRequest": graphql.Lazy(func(map[string]any) (any, *graphql.Error) { return c.reviewedPullNode(r, p), nil }),
		"repository":  graphql.Lazy(func(map[string]any) (any, *graphql.Error) { return c.repoNode(r), nil }),
	}
	if !rv.submitted.IsZero() {
		o["submittedAt"], o["publishedAt"], o["createdAt"] = ts(rv.submitted), ts(rv.submitted), ts(rv.submitted)
	}
	return o
}

// nodeQuery answers node(id:) for a pull request, review, review comment or review thread the
// token can see; any other id does not resolve.
func (h *Hub) nodeQuery(c *reqCtx, f graphql.Field) (obj, *graphql.Error) {
	id, _ := f.Args["id"].(string)
	if r, p, ok := h.pullByNodeID(id); ok && h.perm(c.tok, r) != PermNone {
		return f.Select(c.reviewedPullNode(r, p))
	}
	if r, p, root, ok := h.threadByNodeID(c, id); ok {
		return f.Select(c.threadNode(r, p, root))
	}
	if r, p, dbID, ok := h.scopedByNodeID(reviewIDPrefix, id); ok && h.perm(c.tok, r) != PermNone {
		if rv := p.reviewByID(dbID); rv != nil && c.visible(rv) {
			return f.Select(c.reviewNode(r, p, rv))
		}
	}
	if r, p, dbID, ok := h.scopedByNodeID(reviewCommentIDPrefix, id); ok && h.perm(c.tok, r) != PermNone {
		if cm := p.commentByID(dbID); cm != nil && c.visibleComment(p, cm) {
			return f.Select(c.commentNode(r, p, cm))
		}
	}
	return nil, notResolvable(id)
}

// threadByNodeID resolves a thread id to a thread the token sees.
func (h *Hub) threadByNodeID(c *reqCtx, id string) (*repo, *pull, *reviewComment, bool) {
	r, p, rootID, ok := h.scopedByNodeID(reviewThreadIDPrefix, id)
	if !ok || h.perm(c.tok, r) == PermNone {
		return nil, nil, nil, false
	}
	root := p.commentByID(rootID)
	if root == nil || root.inReplyTo != 0 || !c.visibleComment(p, root) {
		return nil, nil, nil, false
	}
	return r, p, root, true
}

// rateLimitQuery reports the token's GraphQL bucket as it stands once this request is paid
// for, as GitHub does: each request costs one point here (the serving layer spends it after
// the handler, so it is taken off here).
func (h *Hub) rateLimitQuery(c *reqCtx, f graphql.Field) (obj, *graphql.Error) {
	const cost = 1
	id, limit, window := h.bucketFor(c, "graphql")
	s := h.limiter.Peek(id, "graphql", limit, window)
	return f.Select(obj{"__typename": "RateLimit", "cost": cost, "limit": s.Limit, "remaining": max(s.Remaining-cost, 0),
		"used": min(s.Used+cost, s.Limit), "resetAt": ts(s.Reset), "nodeCount": 1})
}

// canResolve reports whether the token may resolve p's threads: write access, or being its
// author, as on GitHub.
func (c *reqCtx) canResolve(r *repo, p *pull) bool {
	return c.tok != nil && (c.h.perm(c.tok, r) == PermWrite || strings.EqualFold(c.tok.Login, p.user))
}

// resolveThreadMutation runs resolveReviewThread and unresolveReviewThread.
func (h *Hub) resolveThreadMutation(c *reqCtx, f graphql.Field) (obj, *graphql.Error) {
	fields := mutationInput(f)
	id, _ := fields["threadId"].(string)
	r, p, root, ok := h.threadByNodeID(c, id)
	if !ok {
		return nil, notResolvable(id)
	}
	if !c.canResolve(r, p) {
		return nil, graphql.Refusal(graphql.Forbidden, c.tok.Login+" does not have the correct permissions to execute `"+strings.ToUpper(f.Name[:1])+f.Name[1:]+"`")
	}
	typename := strings.ToUpper(f.Name[:1]) + f.Name[1:] + "Payload"
	payload := func() obj {
		return obj{"__typename": typename, "clientMutationId": fields["clientMutationId"], "thread": c.threadNode(r, p, root)}
	}
	if _, serr := f.Select(payload()); serr != nil {
		return nil, serr
	}
	if p.rv.resolvedBy == nil {
		p.rv.resolvedBy = map[int64]string{}
	}
	if f.Name == "resolveReviewThread" {
		if _, done := p.rv.resolvedBy[root.id]; !done {
			p.rv.resolvedBy[root.id] = c.tok.Login
		}
	} else {
		delete(p.rv.resolvedBy, root.id)
	}
	return f.Select(payload())
}

// replyMutation runs addPullRequestReviewThreadReply: published at once in a review of its
// own, or added to the viewer's pending review when pullRequestReviewId names it.
func (h *Hub) replyMutation(c *reqCtx, f graphql.Field) (obj, *graphql.Error) {
	fields := mutationInput(f)
	id, _ := fields["pullRequestReviewThreadId"].(string)
	body, _ := fields["body"].(string)
	r, p, root, ok := h.threadByNodeID(c, id)
	if !ok {
		return nil, notResolvable(id)
	}
	var pending *review
	if rid, _ := fields["pullRequestReviewId"].(string); rid != "" {
		rr, rp, dbID, ok := h.scopedByNodeID(reviewIDPrefix, rid)
		if ok && rr == r && rp == p {
			pending = p.reviewByID(dbID)
		}
		if pending == nil || !c.visible(pending) {
			return nil, notResolvable(rid)
		}
		if pending.state != reviewPending || !strings.EqualFold(pending.user, c.tok.Login) {
			return nil, graphql.Refusal(graphql.Unprocessable, "The pull request review is not pending")
		}
	}
	if strings.TrimSpace(body) == "" {
		return nil, graphql.Refusal(graphql.Unprocessable, "Body can't be blank")
	}
	probe := obj{"__typename": "AddPullRequestReviewThreadReplyPayload", "clientMutationId": fields["clientMutationId"], "comment": c.commentNode(r, p, root)}
	if _, serr := f.Select(probe); serr != nil {
		return nil, serr
	}
	t := h.stamp()
	if pending == nil {
		h.nextID++
		pending = &review{id: h.nextID, user: c.tok.Login, state: reviewCommented, sha: root.sha, submitted: t}
		p.rv.reviews = append(p.rv.reviews, pending)
	}
	h.nextID++
	cm := &reviewComment{id: h.nextID, reviewID: pending.id, inReplyTo: root.id, user: c.tok.Login, body: body,
		path: root.path, side: root.side, line: root.line, sha: root.sha, created: t, updated: t}
	p.rv.comments = append(p.rv.comments, cm)
	return f.Select(obj{"__typename": "AddPullRequestReviewThreadReplyPayload", "clientMutationId": fields["clientMutationId"], "comment": c.commentNode(r, p, cm)})
}
