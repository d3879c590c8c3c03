package graphqlapi

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"

	"ghops.dev/services/fakehub/internal/graphql"
	"ghops.dev/services/fakehub/internal/hub"
)

// Review threads through GraphQL, as GitHub serves them: a thread is a root line comment and
// its replies (REST has no thread object); repository.pullRequest.reviewThreads pages them,
// node(id:) finds a thread, review or comment by its global id, and the mutations
// addPullRequestReviewThreadReply, resolveReviewThread and unresolveReviewThread act on one.
// A thread of a pending review is seen only by its author, as the review is.

// gqlQueries are the query fields fakehub serves, by name.
var gqlQueries = map[string]func(h *api, c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error){
	"repository": (*api).repositoryQuery,
	"node":       (*api).nodeQuery,
	"rateLimit":  (*api).rateLimitQuery,
}

// maxConnectionPage is GitHub's largest first or last.
const maxConnectionPage = 100

func notResolvable(id string) *graphql.Error {
	return graphql.Refusal(graphql.NotFound, "Could not resolve to a node with the global id of '"+id+"'.")
}

// repositoryQuery answers repository(owner:, name:) for a repository the token can see.
func (h *api) repositoryQuery(c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error) {
	owner, _ := f.Args["owner"].(string)
	name, _ := f.Args["name"].(string)
	r, ok := h.Repos[hub.RepoKey(owner+"/"+name)]
	if !ok || h.Perm(c.Tok, r) == hub.PermNone {
		return nil, graphql.Refusal(graphql.NotFound, "Could not resolve to a Repository with the name '"+owner+"/"+name+"'.")
	}
	return f.Select(h.repoNode(c, r))
}

func (h *api) repoNode(c *hub.ReqCtx, r *hub.Repo) hub.Obj {
	return hub.Obj{
		"__typename": "Repository", "id": hub.NodeID("Repository", r.ID()), "databaseId": r.ID(), "name": r.Opts.Name,
		"nameWithOwner": r.FullName(), "url": c.Web + "/" + r.FullName(), "isPrivate": r.Opts.Private,
		"pullRequest": graphql.Lazy(func(args map[string]any) (any, *graphql.Error) {
			n, _ := intArg(args["number"])
			p := r.PullByNumber(int(n))
			if p == nil {
				return nil, graphql.Refusal(graphql.NotFound, "Could not resolve to a PullRequest with the number of "+strconv.FormatInt(n, 10)+".")
			}
			return h.reviewedPullNode(c, r, p), nil
		}),
		// issue(number:) answers an issue's identity and state (what clients read to add it to a
		// project, or to close it).
		"issue": graphql.Lazy(func(args map[string]any) (any, *graphql.Error) {
			n, _ := intArg(args["number"])
			_, ref, ok := r.IssueNumbered(int(n))
			if !ok || ref.P != nil {
				return nil, graphql.Refusal(graphql.NotFound, "Could not resolve to an Issue with the number of "+strconv.FormatInt(n, 10)+".")
			}
			return h.issueNode(c, r, ref.Is), nil
		}),
		// label(name:) is null when the repository has no such label, as on GitHub.
		"label": graphql.Lazy(func(args map[string]any) (any, *graphql.Error) {
			name, _ := args["name"].(string)
			if l := r.LabelNamed(name); l != nil {
				return labelNode(c, r, l), nil
			}
			return nil, nil
		}),
	}
}

// reviewedPullNode is pullNode with the pull request's repository, heads and review threads.
func (h *api) reviewedPullNode(c *hub.ReqCtx, r *hub.Repo, p *hub.Pull) hub.Obj {
	o := c.PullNode(r, p)
	head, _ := r.PullSHAs(p)
	o["headRefOid"], o["headRefName"], o["baseRefName"] = head, p.Head, p.Base
	o["repository"] = graphql.Lazy(func(map[string]any) (any, *graphql.Error) { return h.repoNode(c, r), nil })
	o["reviews"] = h.reviewsConnection(c, r, p)
	o["reviewThreads"] = graphql.Lazy(func(args map[string]any) (any, *graphql.Error) {
		var threads []any
		for _, cm := range p.Reviews.Comments {
			if cm.InReplyTo == 0 && c.VisibleComment(p, cm) {
				threads = append(threads, h.threadNode(c, r, p, cm))
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
		edges[i] = hub.Obj{"__typename": strings.TrimSuffix(typ, "Connection") + "Edge", "cursor": cursor(lo + i), "node": item}
	}
	info := hub.Obj{"__typename": "PageInfo", "hasNextPage": hi < len(items), "hasPreviousPage": lo > 0, "startCursor": nil, "endCursor": nil}
	if len(page) > 0 {
		info["startCursor"], info["endCursor"] = cursor(lo), cursor(hi-1)
	}
	if page == nil {
		page = []any{}
	}
	return hub.Obj{"__typename": typ, "totalCount": len(items), "nodes": page, "edges": edges, "pageInfo": info}, nil
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
func (h *api) threadNode(c *hub.ReqCtx, r *hub.Repo, p *hub.Pull, root *hub.ReviewComment) hub.Obj {
	at := r.AnchorOf(p, root)
	resolver, resolved := p.Reviews.ResolvedBy[root.ID]
	canResolve := h.canResolve(c, r, p)
	o := hub.Obj{
		"__typename": "PullRequestReviewThread", "id": hub.ReviewThreadNodeID(r, p.Number, root.ID), "path": root.Path,
		"diffSide": root.Side, "startDiffSide": nil, "isResolved": resolved, "isOutdated": at.Outdated, "isCollapsed": resolved,
		"line": nil, "startLine": nil, "originalLine": root.Line, "originalStartLine": nil, "resolvedBy": nil,
		"subjectType": "LINE", "viewerCanReply": c.Tok != nil, "viewerCanResolve": canResolve && !resolved,
		"viewerCanUnresolve": canResolve && resolved,
		"pullRequest":        graphql.Lazy(func(map[string]any) (any, *graphql.Error) { return h.reviewedPullNode(c, r, p), nil }),
		"repository":         graphql.Lazy(func(map[string]any) (any, *graphql.Error) { return h.repoNode(c, r), nil }),
	}
	if !at.Outdated {
		o["line"] = at.Line
		if at.StartLine != 0 {
			o["startLine"] = at.StartLine
		}
	}
	if root.StartLine != 0 {
		o["originalStartLine"], o["startDiffSide"] = root.StartLine, root.StartSide
	}
	if resolved {
		o["resolvedBy"] = h.userNode(c, resolver)
	}
	o["comments"] = graphql.Lazy(func(args map[string]any) (any, *graphql.Error) {
		var list []any
		for _, cm := range p.Reviews.Comments {
			if (cm == root || cm.InReplyTo == root.ID) && c.VisibleComment(p, cm) {
				list = append(list, h.commentNode(c, r, p, cm))
			}
		}
		return connection("comments", "PullRequestReviewCommentConnection", list, args)
	})
	return o
}

func (h *api) userNode(c *hub.ReqCtx, login string) hub.Obj {
	id := c.UserID(login)
	return hub.Obj{"__typename": "User", "login": login, "id": hub.NodeID("User", id), "databaseId": id,
		"url": c.Web + "/" + login, "avatarUrl": c.Web + "/avatars/" + login}
}

// commentNode is the PullRequestReviewComment cm.
func (h *api) commentNode(c *hub.ReqCtx, r *hub.Repo, p *hub.Pull, cm *hub.ReviewComment) hub.Obj {
	rest := c.ReviewCommentObj(r, p, cm)
	state := "SUBMITTED"
	rv := p.ReviewByID(cm.ReviewID)
	if rv != nil && rv.State == hub.ReviewPending {
		state = "PENDING"
	}
	o := hub.Obj{
		"__typename": "PullRequestReviewComment", "id": hub.ReviewCommentNodeID(r, p.Number, cm.ID), "databaseId": cm.ID,
		"fullDatabaseId": strconv.FormatInt(cm.ID, 10), "author": h.userNode(c, cm.User), "authorAssociation": c.Association(r, cm.User),
		"body": cm.Body, "bodyText": cm.Body, "createdAt": hub.Ts(cm.Created), "updatedAt": hub.Ts(cm.Updated), "lastEditedAt": nil,
		"publishedAt": nil, "diffHunk": rest["diff_hunk"], "path": rest["path"], "line": rest["line"], "originalLine": rest["original_line"],
		"startLine": rest["start_line"], "originalStartLine": rest["original_start_line"], "outdated": rest["line"] == nil,
		"state": state, "subjectType": "LINE", "url": rest["html_url"], "viewerDidAuthor": c.Viewer() != "" && strings.EqualFold(c.Viewer(), cm.User),
		"isMinimized": false, "minimizedReason": nil, "replyTo": nil,
		"pullRequest":       graphql.Lazy(func(map[string]any) (any, *graphql.Error) { return h.reviewedPullNode(c, r, p), nil }),
		"repository":        graphql.Lazy(func(map[string]any) (any, *graphql.Error) { return h.repoNode(c, r), nil }),
		"pullRequestReview": nil,
	}
	if state == "SUBMITTED" {
		o["publishedAt"] = hub.Ts(cm.Created)
	}
	if cm.InReplyTo != 0 {
		if root := p.CommentByID(cm.InReplyTo); root != nil {
			o["replyTo"] = hub.Obj{"__typename": "PullRequestReviewComment", "id": hub.ReviewCommentNodeID(r, p.Number, root.ID), "databaseId": root.ID}
		}
	}
	if rv != nil {
		o["pullRequestReview"] = h.reviewNode(c, r, p, rv)
	}
	return o
}

// reviewNode is the PullRequestReview rv.
func (h *api) reviewNode(c *hub.ReqCtx, r *hub.Repo, p *hub.Pull, rv *hub.Review) hub.Obj {
	o := hub.Obj{
		"__typename": "PullRequestReview", "id": hub.ReviewNodeID(r, p.Number, rv.ID), "databaseId": rv.ID,
		"fullDatabaseId": strconv.FormatInt(rv.ID, 10), "author": h.userNode(c, rv.User), "authorAssociation": c.Association(r, rv.User),
		"body": rv.Body, "bodyText": rv.Body, "state": rv.State, "submittedAt": nil, "publishedAt": nil, "createdAt": hub.Ts(rv.Created),
		"url":         c.Web + "/" + r.FullName() + "/pull/" + strconv.Itoa(p.Number) + "#pullrequestreview-" + strconv.FormatInt(rv.ID, 10),
		"pullRequest": graphql.Lazy(func(map[string]any) (any, *graphql.Error) { return h.reviewedPullNode(c, r, p), nil }),
		"repository":  graphql.Lazy(func(map[string]any) (any, *graphql.Error) { return h.repoNode(c, r), nil }),
	}
	if !rv.Submitted.IsZero() {
		o["submittedAt"], o["publishedAt"] = hub.Ts(rv.Submitted), hub.Ts(rv.Submitted)
	}
	return o
}

// nodeQuery answers node(id:) for a pull request, review, review comment or review thread the
// token can see; any other id does not resolve.
func (h *api) nodeQuery(c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error) {
	id, _ := f.Args["id"].(string)
	if r, p, ok := h.pullByNodeID(id); ok && h.Perm(c.Tok, r) != hub.PermNone {
		return f.Select(h.reviewedPullNode(c, r, p))
	}
	if r, p, root, ok := h.threadByNodeID(c, id); ok {
		return f.Select(h.threadNode(c, r, p, root))
	}
	if r, p, dbID, ok := h.ScopedByNodeID(hub.ReviewIDPrefix, id); ok && h.Perm(c.Tok, r) != hub.PermNone {
		if rv := p.ReviewByID(dbID); rv != nil && c.Visible(rv) {
			return f.Select(h.reviewNode(c, r, p, rv))
		}
	}
	if r, p, dbID, ok := h.ScopedByNodeID(hub.ReviewCommentIDPrefix, id); ok && h.Perm(c.Tok, r) != hub.PermNone {
		if cm := p.CommentByID(dbID); cm != nil && c.VisibleComment(p, cm) {
			return f.Select(h.commentNode(c, r, p, cm))
		}
	}
	return nil, notResolvable(id)
}

// threadByNodeID resolves a thread id to a thread the token sees.
func (h *api) threadByNodeID(c *hub.ReqCtx, id string) (*hub.Repo, *hub.Pull, *hub.ReviewComment, bool) {
	r, p, rootID, ok := h.ScopedByNodeID(hub.ReviewThreadIDPrefix, id)
	if !ok || h.Perm(c.Tok, r) == hub.PermNone {
		return nil, nil, nil, false
	}
	root := p.CommentByID(rootID)
	if root == nil || root.InReplyTo != 0 || !c.VisibleComment(p, root) {
		return nil, nil, nil, false
	}
	return r, p, root, true
}

// rateLimitQuery reports the token's GraphQL bucket as it stands once this request is paid
// for, as GitHub does: each request costs one point here (the serving layer spends it after
// the handler, so it is taken off here).
func (h *api) rateLimitQuery(c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error) {
	const cost = 1
	limit, remaining, used, reset := h.GraphQLRateLimit(c)
	return f.Select(hub.Obj{"__typename": "RateLimit", "cost": cost, "limit": limit, "remaining": max(remaining-cost, 0),
		"used": min(used+cost, limit), "resetAt": hub.Ts(reset), "nodeCount": 1})
}

// canResolve reports whether the token may resolve p's threads: write access, or being its
// author, as on GitHub.
func (h *api) canResolve(c *hub.ReqCtx, r *hub.Repo, p *hub.Pull) bool {
	return c.Tok != nil && (h.Perm(c.Tok, r) == hub.PermWrite || strings.EqualFold(c.Tok.Login, p.Author()))
}

// resolveThreadMutation runs resolveReviewThread and unresolveReviewThread.
func (h *api) resolveThreadMutation(c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error) {
	fields := mutationInput(f)
	id, _ := fields["threadId"].(string)
	r, p, root, ok := h.threadByNodeID(c, id)
	if !ok {
		return nil, notResolvable(id)
	}
	if !h.canResolve(c, r, p) {
		return nil, graphql.Refusal(graphql.Forbidden, c.Tok.Login+" does not have the correct permissions to execute `"+strings.ToUpper(f.Name[:1])+f.Name[1:]+"`")
	}
	typename := strings.ToUpper(f.Name[:1]) + f.Name[1:] + "Payload"
	payload := func() hub.Obj {
		return hub.Obj{"__typename": typename, "clientMutationId": fields["clientMutationId"], "thread": h.threadNode(c, r, p, root)}
	}
	if _, serr := f.Select(payload()); serr != nil {
		return nil, serr
	}
	if p.Reviews.ResolvedBy == nil {
		p.Reviews.ResolvedBy = map[int64]string{}
	}
	if f.Name == "resolveReviewThread" {
		if _, done := p.Reviews.ResolvedBy[root.ID]; !done {
			p.Reviews.ResolvedBy[root.ID] = c.Tok.Login
		}
	} else {
		delete(p.Reviews.ResolvedBy, root.ID)
	}
	return f.Select(payload())
}

// replyMutation runs addPullRequestReviewThreadReply: published at once in a review of its
// own, or added to the viewer's pending review when pullRequestReviewId names it.
func (h *api) replyMutation(c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error) {
	fields := mutationInput(f)
	id, _ := fields["pullRequestReviewThreadId"].(string)
	body, _ := fields["body"].(string)
	r, p, root, ok := h.threadByNodeID(c, id)
	if !ok {
		return nil, notResolvable(id)
	}
	var pending *hub.Review
	if rid, _ := fields["pullRequestReviewId"].(string); rid != "" {
		rr, rp, dbID, ok := h.ScopedByNodeID(hub.ReviewIDPrefix, rid)
		if ok && rr == r && rp == p {
			pending = p.ReviewByID(dbID)
		}
		if pending == nil || !c.Visible(pending) {
			return nil, notResolvable(rid)
		}
		if pending.State != hub.ReviewPending || !strings.EqualFold(pending.User, c.Tok.Login) {
			return nil, graphql.Refusal(graphql.Unprocessable, "The pull request review is not pending")
		}
	}
	if strings.TrimSpace(body) == "" {
		return nil, graphql.Refusal(graphql.Unprocessable, "Body can't be blank")
	}
	probe := hub.Obj{"__typename": "AddPullRequestReviewThreadReplyPayload", "clientMutationId": fields["clientMutationId"], "comment": h.commentNode(c, r, p, root)}
	if _, serr := f.Select(probe); serr != nil {
		return nil, serr
	}
	t := h.Stamp()
	if pending == nil {
		h.NextID++
		pending = &hub.Review{ID: h.NextID, User: c.Tok.Login, State: hub.ReviewCommented, SHA: root.SHA, Submitted: t, Created: t}
		p.Reviews.Reviews = append(p.Reviews.Reviews, pending)
	}
	h.NextID++
	cm := &hub.ReviewComment{ID: h.NextID, ReviewID: pending.ID, InReplyTo: root.ID, User: c.Tok.Login, Body: body,
		Path: root.Path, Side: root.Side, Line: root.Line, SHA: root.SHA, Created: t, Updated: t}
	p.Reviews.Comments = append(p.Reviews.Comments, cm)
	return f.Select(hub.Obj{"__typename": "AddPullRequestReviewThreadReplyPayload", "clientMutationId": fields["clientMutationId"], "comment": h.commentNode(c, r, p, cm)})
}
