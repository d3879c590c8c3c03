package fakehub

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Pull request reviews and review comments, as GitHub's REST API serves them: a review is
// PENDING (seen only by its author) until it is submitted as APPROVED, CHANGES_REQUESTED or
// COMMENTED; its line comments are anchored to the diff of the commit it reviewed; a comment
// and its replies form a thread, which GraphQL resolves and unresolves (reviewthreads.go).

// Review states, as GitHub's REST API spells them.
const (
	reviewPending          = "PENDING"
	reviewApproved         = "APPROVED"
	reviewChangesRequested = "CHANGES_REQUESTED"
	reviewCommented        = "COMMENTED"
	reviewDismissed        = "DISMISSED"
)

// docReviews is the documentation_url GitHub sends with the reviews API's errors.
const docReviews = "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"

// reviewData is everything review-related a pull request holds; guarded by Hub.mu.
type reviewData struct {
	reviews  []*review
	comments []*reviewComment
	// resolvedBy names who resolved a thread, by its root comment's id.
	resolvedBy map[int64]string
	// requested are the users and team slugs asked for a review and not yet reviewing.
	requested, requestedTeams []string
}

type review struct {
	id                     int64
	user, body, state, sha string
	submitted              time.Time // zero while pending
}

// reviewComment is a line comment of a review, or a reply in a thread (inReplyTo its root).
type reviewComment struct {
	id, reviewID, inReplyTo int64
	user, body              string
	path, side, startSide   string
	// line and startLine (0: single line) are on the commit the comment was made on, sha.
	line, startLine  int
	sha              string
	position         int // GitHub's diff position on sha
	diffHunk         string
	created, updated time.Time
}

// anchor is where a comment sits on the pull request's current head: its lines there, or
// outdated when the head moved past them.
type anchor struct {
	line, startLine int
	outdated        bool
}

// anchorOf carries c's lines from the commit it was made on to the head.
func (r *repo) anchorOf(p *pull, c *reviewComment) anchor {
	head, _ := r.pullSHAs(p)
	if c.side == "LEFT" || head == "" || head == c.sha {
		return anchor{line: c.line, startLine: c.startLine}
	}
	first := c.startLine
	if first == 0 {
		first = c.line
	}
	s, l, ok := r.carryLines(plumbing.NewHash(c.sha), plumbing.NewHash(head), c.path, first, c.line)
	if !ok {
		return anchor{outdated: true}
	}
	if c.startLine == 0 {
		s = 0
	}
	return anchor{line: l, startLine: s}
}

// reviewRoutes adds the reviews, review comments, requested reviewers, commits and update-branch
// operations of a pull request.
func (h *Hub) reviewRoutes(add func(m, t string, fn handlerFunc)) {
	const pr = "/repos/{owner}/{repo}/pulls/{pull_number}"
	add("GET", pr+"/reviews", h.withRepo(PermRead, h.listReviews))
	add("POST", pr+"/reviews", h.withRepo(PermRead, h.createReview))
	add("GET", pr+"/reviews/{review_id}", h.withRepo(PermRead, h.getReview))
	add("PUT", pr+"/reviews/{review_id}", h.withRepo(PermRead, h.updateReview))
	add("DELETE", pr+"/reviews/{review_id}", h.withRepo(PermRead, h.deletePendingReview))
	add("POST", pr+"/reviews/{review_id}/events", h.withRepo(PermRead, h.submitReview))
	add("GET", pr+"/reviews/{review_id}/comments", h.withRepo(PermRead, h.listReviewComments))
	add("GET", pr+"/comments", h.withRepo(PermRead, h.listPullComments))
	add("POST", pr+"/comments", h.withRepo(PermRead, h.createPullComment))
	add("GET", pr+"/requested_reviewers", h.withRepo(PermRead, h.listRequestedReviewers))
	add("POST", pr+"/requested_reviewers", h.withRepo(PermWrite, h.requestReviewers))
	add("DELETE", pr+"/requested_reviewers", h.withRepo(PermWrite, h.removeRequestedReviewers))
	add("GET", pr+"/commits", h.withRepo(PermRead, h.listPullCommits))
	add("PUT", pr+"/update-branch", h.withRepo(PermWrite, h.updatePullBranch))
}

// viewer is the token's login, "" without a token.
func (c *reqCtx) viewer() string {
	if c.tok == nil {
		return ""
	}
	return c.tok.Login
}

// visible reports whether the viewer sees rv: a pending review only its author does.
func (c *reqCtx) visible(rv *review) bool {
	return rv.state != reviewPending || c.tok != nil && strings.EqualFold(rv.user, c.tok.Login)
}

func (p *pull) reviewByID(id int64) *review {
	for _, rv := range p.rv.reviews {
		if rv.id == id {
			return rv
		}
	}
	return nil
}

func (p *pull) commentByID(id int64) *reviewComment {
	for _, cm := range p.rv.comments {
		if cm.id == id {
			return cm
		}
	}
	return nil
}

// visibleComment reports whether the viewer sees cm: comments of a pending review only its
// author does.
func (c *reqCtx) visibleComment(p *pull, cm *reviewComment) bool {
	rv := p.reviewByID(cm.reviewID)
	return rv == nil || c.visible(rv)
}

// reviewNumber reads {review_id} as a review of p the viewer sees.
func (c *reqCtx) reviewNumber(p *pull) *review {
	id, err := strconv.ParseInt(c.p["review_id"], 10, 64)
	if err != nil {
		return nil
	}
	rv := p.reviewByID(id)
	if rv == nil || !c.visible(rv) {
		return nil
	}
	return rv
}

// unprocessable is the 422 the reviews API answers with its reasons as plain strings
// (GitHub's validation-error-simple), not the field objects of "Validation Failed".
func unprocessable(reasons ...string) *reply {
	return &reply{status: 422, body: obj{"message": "Unprocessable Entity", "errors": reasons, "documentation_url": docReviews, "status": "422"}}
}

func (c *reqCtx) reviewObj(r *repo, p *pull, rv *review) obj {
	pu := c.repoURL(r) + "/pulls/" + strconv.Itoa(p.number)
	html := c.web + "/" + r.fullName() + "/pull/" + strconv.Itoa(p.number) + "#pullrequestreview-" + strconv.FormatInt(rv.id, 10)
	o := obj{
		"id": rv.id, "node_id": reviewNodeID(r, p.number, rv.id), "user": c.user(rv.user), "body": rv.body, "state": rv.state,
		"html_url": html, "pull_request_url": pu, "commit_id": rv.sha,
		"_links":             obj{"html": obj{"href": html}, "pull_request": obj{"href": pu}},
		"author_association": c.association(r, rv.user),
	}
	if !rv.submitted.IsZero() {
		o["submitted_at"] = ts(rv.submitted)
	}
	return o
}

func (h *Hub) listReviews(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	var out []*review
	for _, rv := range p.rv.reviews {
		if c.visible(rv) {
			out = append(out, rv)
		}
	}
	return pageReply(c, out, func(rv *review) obj { return c.reviewObj(r, p, rv) })
}

// draftComment is one entry of a review's comments.
type draftComment struct {
	Path      string `json:"path"`
	Position  *int   `json:"position"`
	Body      string `json:"body"`
	Line      *int   `json:"line"`
	Side      string `json:"side"`
	StartLine *int   `json:"start_line"`
	StartSide string `json:"start_side"`
}

// placeComment anchors a draft comment on the diff of head (GitHub's reasons when it cannot).
func (r *repo) placeComment(head, base plumbing.Hash, d draftComment) (*reviewComment, string) {
	if d.Path == "" {
		return nil, "Path can't be blank"
	}
	if strings.TrimSpace(d.Body) == "" {
		return nil, "Body can't be blank"
	}
	fp, ok := r.pullFilePatch(head, base, d.Path)
	if !ok {
		return nil, "Path could not be resolved"
	}
	side := d.Side
	if side == "" {
		side = "RIGHT"
	}
	if side != "LEFT" && side != "RIGHT" {
		return nil, "Side is not included in the list"
	}
	pos := -1
	switch {
	case d.Line != nil:
		pos = fp.find(side, *d.Line)
	case d.Position != nil && *d.Position > 0 && *d.Position < len(fp.lines):
		// The legacy position counts lines below the first hunk header.
		if pl := fp.lines[*d.Position]; pl.kind != '@' {
			pos = *d.Position
			side = "RIGHT"
			if pl.kind == '-' {
				side = "LEFT"
			}
		}
	}
	if pos < 0 {
		return nil, "Line could not be resolved"
	}
	pl := fp.lines[pos]
	line := pl.new
	if side == "LEFT" {
		line = pl.old
	}
	cm := &reviewComment{path: d.Path, side: side, line: line, sha: head.String(), position: pos, body: d.Body, diffHunk: fp.hunkText(pos)}
	if d.StartLine != nil {
		startSide := d.StartSide
		if startSide == "" {
			startSide = side
		}
		if *d.StartLine >= line {
			return nil, "Pull request review thread start line must precede the end line."
		}
		sp := fp.find(startSide, *d.StartLine)
		if sp < 0 || fp.lines[sp].hunk != pl.hunk {
			return nil, "Pull request review thread start line must be part of the same hunk as the line."
		}
		cm.startLine, cm.startSide = *d.StartLine, startSide
	}
	return cm, ""
}

// reviewEvents maps a submission's event to the state it gives a review.
var reviewEvents = map[string]string{"APPROVE": reviewApproved, "REQUEST_CHANGES": reviewChangesRequested, "COMMENT": reviewCommented}

// eventRefusal is GitHub's reason for refusing event on p by login with body and n comments,
// or "".
func eventRefusal(p *pull, login, event, body string, n int) string {
	switch {
	case event == "APPROVE" && strings.EqualFold(p.user, login):
		return "Review Can not approve your own pull request"
	case event == "REQUEST_CHANGES" && strings.EqualFold(p.user, login):
		return "Review Can not request changes on your own pull request"
	case event == "REQUEST_CHANGES" && strings.TrimSpace(body) == "":
		return "Review Body is required when requesting changes"
	case event == "COMMENT" && strings.TrimSpace(body) == "" && n == 0:
		return "Review Body is required when commenting"
	}
	return ""
}

func (h *Hub) createReview(c *reqCtx, r *repo) *reply {
	if c.tok == nil {
		return errReply(401, "Requires authentication", docRest)
	}
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	var in struct {
		CommitID *string        `json:"commit_id"`
		Body     string         `json:"body"`
		Event    string         `json:"event"`
		Comments []draftComment `json:"comments"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if p.state != "open" && in.Event != "" {
		return unprocessable("Pull request is closed")
	}
	state := reviewPending
	if in.Event != "" {
		s, ok := reviewEvents[in.Event]
		if !ok {
			return unprocessable("Event is not included in the list")
		}
		state = s
	}
	if why := eventRefusal(p, c.tok.Login, in.Event, in.Body, len(in.Comments)); why != "" {
		return unprocessable(why)
	}
	if state == reviewPending {
		for _, rv := range p.rv.reviews {
			if rv.state == reviewPending && strings.EqualFold(rv.user, c.tok.Login) {
				return unprocessable("User can only have one pending review per pull request")
			}
		}
	}
	headStr, baseStr := r.pullSHAs(p)
	head, base := plumbing.NewHash(headStr), plumbing.NewHash(baseStr)
	if in.CommitID != nil && *in.CommitID != headStr {
		sha, ok := r.resolve(*in.CommitID)
		if !ok || !hexSHA.MatchString(*in.CommitID) || !r.git.IsAncestor(sha, head) || r.git.IsAncestor(sha, base) {
			return unprocessable("Commit could not be resolved")
		}
		head = sha
	}
	// One request makes the review and all its comments, or nothing.
	placed := make([]*reviewComment, 0, len(in.Comments))
	for _, d := range in.Comments {
		cm, why := r.placeComment(head, base, d)
		if why != "" {
			return unprocessable(why)
		}
		placed = append(placed, cm)
	}
	h.nextID++
	t := h.stamp()
	rv := &review{id: h.nextID, user: c.tok.Login, body: in.Body, state: state, sha: head.String()}
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
	return okReply(200, c.reviewObj(r, p, rv))
}

func (h *Hub) getReview(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	rv := c.reviewNumber(p)
	if rv == nil {
		return notFound()
	}
	return okReply(200, c.reviewObj(r, p, rv))
}

// ownReview resolves {pull_number} and {review_id} to a review the token wrote; another's is 404
// when pending (unseen) and 403 otherwise, as GitHub refuses to edit another's review.
func (c *reqCtx) ownReview(r *repo) (*pull, *review, *reply) {
	if c.tok == nil {
		return nil, nil, errReply(401, "Requires authentication", docRest)
	}
	p := c.pullNumber(r)
	if p == nil {
		return nil, nil, notFound()
	}
	rv := c.reviewNumber(p)
	if rv == nil {
		return nil, nil, notFound()
	}
	if !strings.EqualFold(rv.user, c.tok.Login) {
		return nil, nil, errReply(403, "Resource not accessible by personal access token", docRest)
	}
	return p, rv, nil
}

func (h *Hub) updateReview(c *reqCtx, r *repo) *reply {
	p, rv, bad := c.ownReview(r)
	if bad != nil {
		return bad
	}
	var in struct {
		Body *string `json:"body"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if in.Body == nil {
		return unprocessable("Body can't be blank")
	}
	if strings.TrimSpace(*in.Body) == "" && (rv.state == reviewChangesRequested || rv.state == reviewCommented) {
		return unprocessable("Body can't be blank")
	}
	rv.body = *in.Body
	return okReply(200, c.reviewObj(r, p, rv))
}

func (h *Hub) deletePendingReview(c *reqCtx, r *repo) *reply {
	p, rv, bad := c.ownReview(r)
	if bad != nil {
		return bad
	}
	if rv.state != reviewPending {
		return unprocessable("Can not delete a non-pending pull request review")
	}
	out := c.reviewObj(r, p, rv)
	p.rv.reviews = slices.DeleteFunc(p.rv.reviews, func(x *review) bool { return x == rv })
	p.rv.comments = slices.DeleteFunc(p.rv.comments, func(x *reviewComment) bool { return x.reviewID == rv.id })
	return okReply(200, out)
}

func (h *Hub) submitReview(c *reqCtx, r *repo) *reply {
	p, rv, bad := c.ownReview(r)
	if bad != nil {
		return bad
	}
	var in struct {
		Body  *string `json:"body"`
		Event string  `json:"event"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if in.Event == "" {
		return unprocessable("Event can't be blank")
	}
	state, ok := reviewEvents[in.Event]
	if !ok {
		return unprocessable("Event is not included in the list")
	}
	if rv.state != reviewPending {
		return unprocessable("Can not submit a non-pending pull request review")
	}
	body := rv.body
	if in.Body != nil {
		body = *in.Body
	}
	n := 0
	for _, cm := range p.rv.comments {
		if cm.reviewID == rv.id {
			n++
		}
	}
	if why := eventRefusal(p, c.tok.Login, in.Event, body, n); why != "" {
		return unprocessable(why)
	}
	t := h.stamp()
	rv.body, rv.state, rv.submitted = body, state, t
	p.rv.requested = removeFold(p.rv.requested, c.tok.Login)
	return okReply(200, c.reviewObj(r, p, rv))
}

func (h *Hub) listReviewComments(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	rv := c.reviewNumber(p)
	if rv == nil {
		return notFound()
	}
	var out []*reviewComment
	for _, cm := range p.rv.comments {
		if cm.reviewID == rv.id {
			out = append(out, cm)
		}
	}
	return pageReply(c, out, func(cm *reviewComment) obj {
		o := c.reviewCommentObj(r, p, cm)
		// This listing has the legacy shape: position is always present, null once outdated.
		if _, ok := o["position"]; !ok {
			o["position"] = nil
		}
		return o
	})
}

// reviewCommentCount is a pull request's review_comments: the comments of submitted reviews.
func (c *reqCtx) reviewCommentCount(p *pull) int {
	n := 0
	for _, cm := range p.rv.comments {
		if rv := p.reviewByID(cm.reviewID); rv == nil || rv.state != reviewPending {
			n++
		}
	}
	return n
}
