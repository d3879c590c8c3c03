package hub

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Pull request reviews and review comments, the state internal/pulls (REST) and
// internal/graphqlapi (review threads) share: a review is PENDING (seen only by its author)
// until it is submitted as APPROVED, CHANGES_REQUESTED or COMMENTED; its line comments are
// anchored to the diff of the commit it reviewed; a comment and its replies form a thread.

// DemoReviewerToken is the demo dataset's second user, monalisa, who reviews octocat's pull
// requests on octo-org/hello-world (write access, so that approvals count).
const DemoReviewerToken = "ghops-demo-reviewer-token"

// Review states, as GitHub's REST API spells them.
const (
	ReviewPending          = "PENDING"
	ReviewApproved         = "APPROVED"
	ReviewChangesRequested = "CHANGES_REQUESTED"
	ReviewCommented        = "COMMENTED"
	ReviewDismissed        = "DISMISSED"
)

// ReviewData is everything review-related a pull request holds; guarded by Hub.mu.
type ReviewData struct {
	Reviews  []*Review
	Comments []*ReviewComment
	// ResolvedBy names who resolved a thread, by its root comment's id.
	ResolvedBy map[int64]string
	// Requested and RequestedTeams are the users and team slugs asked for a review and not
	// yet reviewing.
	Requested, RequestedTeams []string
}

// Review is one review of a pull request.
type Review struct {
	ID                     int64
	User, Body, State, SHA string
	Created                time.Time
	Submitted              time.Time // zero while pending
}

// ReviewComment is a line comment of a review, or a reply in a thread (InReplyTo its root).
type ReviewComment struct {
	ID, ReviewID, InReplyTo int64
	User, Body              string
	Path, Side, StartSide   string
	// Line and StartLine (0: single line) are on the commit the comment was made on, SHA.
	Line, StartLine  int
	SHA              string
	Position         int // GitHub's diff position on SHA
	DiffHunk         string
	Created, Updated time.Time
}

// Anchor is where a comment sits on the pull request's current head: its lines there, or
// Outdated when the head moved past them.
type Anchor struct {
	Line, StartLine int
	Outdated        bool
}

// Author is the login that opened the pull request.
func (p *Pull) Author() string { return p.user }

// AnchorOf carries c's lines from the commit it was made on to the head.
func (r *Repo) AnchorOf(p *Pull, c *ReviewComment) Anchor {
	head, _ := r.PullSHAs(p)
	if c.Side == "LEFT" || head == "" || head == c.SHA {
		return Anchor{Line: c.Line, StartLine: c.StartLine}
	}
	first := c.StartLine
	if first == 0 {
		first = c.Line
	}
	s, l, ok := r.carryLines(plumbing.NewHash(c.SHA), plumbing.NewHash(head), c.Path, first, c.Line)
	if !ok {
		return Anchor{Outdated: true}
	}
	if c.StartLine == 0 {
		s = 0
	}
	return Anchor{Line: l, StartLine: s}
}

// Viewer is the token's login, "" without a token.
func (c *ReqCtx) Viewer() string {
	if c.Tok == nil {
		return ""
	}
	return c.Tok.Login
}

// Visible reports whether the viewer sees rv: a pending review only its author does.
func (c *ReqCtx) Visible(rv *Review) bool {
	return rv.State != ReviewPending || c.Tok != nil && strings.EqualFold(rv.User, c.Tok.Login)
}

// ReviewByID is p's review id, nil when there is none.
func (p *Pull) ReviewByID(id int64) *Review {
	for _, rv := range p.Reviews.Reviews {
		if rv.ID == id {
			return rv
		}
	}
	return nil
}

// CommentByID is p's review comment id, nil when there is none.
func (p *Pull) CommentByID(id int64) *ReviewComment {
	for _, cm := range p.Reviews.Comments {
		if cm.ID == id {
			return cm
		}
	}
	return nil
}

// Published reports whether cm belongs to a submitted review.
func (p *Pull) Published(cm *ReviewComment) bool {
	rv := p.ReviewByID(cm.ReviewID)
	return rv == nil || rv.State != ReviewPending
}

// VisibleComment reports whether the viewer sees cm: comments of a pending review only its
// author does.
func (c *ReqCtx) VisibleComment(p *Pull, cm *ReviewComment) bool {
	rv := p.ReviewByID(cm.ReviewID)
	return rv == nil || c.Visible(rv)
}

// ReviewCommentCount is a pull request's review_comments: the comments of submitted reviews.
func (p *Pull) ReviewCommentCount() int {
	n := 0
	for _, cm := range p.Reviews.Comments {
		if p.Published(cm) {
			n++
		}
	}
	return n
}

// GraphQL global ids of reviews, review comments and review threads: like pull requests',
// each names its repository, pull request and database id, so that it decodes without a
// lookup table and an id of another pull request is recognised as such.
const (
	ReviewIDPrefix        = "PRR_kw"
	ReviewCommentIDPrefix = "PRRC_kw"
	ReviewThreadIDPrefix  = "PRRT_kw"
)

func scopedNodeID(prefix string, r *Repo, number int, id int64) string {
	return prefix + base64.RawURLEncoding.EncodeToString([]byte(r.FullName()+":"+strconv.Itoa(number)+":"+strconv.FormatInt(id, 10)))
}

// ReviewNodeID is a review's global id.
func ReviewNodeID(r *Repo, number int, id int64) string {
	return scopedNodeID(ReviewIDPrefix, r, number, id)
}

// ReviewCommentNodeID is a review comment's global id.
func ReviewCommentNodeID(r *Repo, number int, id int64) string {
	return scopedNodeID(ReviewCommentIDPrefix, r, number, id)
}

// ReviewThreadNodeID names a thread by its root comment.
func ReviewThreadNodeID(r *Repo, number int, rootID int64) string {
	return scopedNodeID(ReviewThreadIDPrefix, r, number, rootID)
}

// ScopedByNodeID resolves an id with prefix to its repository, pull request and database id;
// false for anything else.
func (h *Hub) ScopedByNodeID(prefix, id string) (*Repo, *Pull, int64, bool) {
	raw, ok := strings.CutPrefix(id, prefix)
	if !ok {
		return nil, nil, 0, false
	}
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return nil, nil, 0, false
	}
	parts := strings.Split(string(b), ":")
	if len(parts) != 3 {
		return nil, nil, 0, false
	}
	n, err1 := strconv.Atoi(parts[1])
	dbID, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil {
		return nil, nil, 0, false
	}
	r, ok := h.Repos[RepoKey(parts[0])]
	if !ok {
		return nil, nil, 0, false
	}
	p := r.PullByNumber(n)
	return r, p, dbID, p != nil
}

// ReviewObj is GitHub's pull-request-review shape.
func (c *ReqCtx) ReviewObj(r *Repo, p *Pull, rv *Review) Obj {
	pu := c.RepoURL(r) + "/pulls/" + strconv.Itoa(p.Number)
	html := c.Web + "/" + r.FullName() + "/pull/" + strconv.Itoa(p.Number) + "#pullrequestreview-" + strconv.FormatInt(rv.ID, 10)
	o := Obj{
		"id": rv.ID, "node_id": ReviewNodeID(r, p.Number, rv.ID), "user": c.user(rv.User), "body": rv.Body, "state": rv.State,
		"html_url": html, "pull_request_url": pu, "commit_id": rv.SHA,
		"_links":             Obj{"html": Obj{"href": html}, "pull_request": Obj{"href": pu}},
		"author_association": c.association(r, rv.User),
	}
	if !rv.Submitted.IsZero() {
		o["submitted_at"] = Ts(rv.Submitted)
	}
	return o
}

// ReviewCommentObj is GitHub's pull-request-review-comment shape. An outdated comment keeps its
// original lines; its current line and position are null, as on GitHub.
func (c *ReqCtx) ReviewCommentObj(r *Repo, p *Pull, cm *ReviewComment) Obj {
	pu := c.RepoURL(r) + "/pulls/" + strconv.Itoa(p.Number)
	u := c.RepoURL(r) + "/pulls/comments/" + strconv.FormatInt(cm.ID, 10)
	html := c.Web + "/" + r.FullName() + "/pull/" + strconv.Itoa(p.Number) + "#discussion_r" + strconv.FormatInt(cm.ID, 10)
	root := cm
	if cm.InReplyTo != 0 {
		if x := p.CommentByID(cm.InReplyTo); x != nil {
			root = x
		}
	}
	at := r.AnchorOf(p, root)
	head, _ := r.PullSHAs(p)
	o := Obj{
		"url": u, "pull_request_review_id": cm.ReviewID, "id": cm.ID, "node_id": ReviewCommentNodeID(r, p.Number, cm.ID),
		"diff_hunk": root.DiffHunk, "path": root.Path, "commit_id": head, "original_commit_id": root.SHA,
		"user": c.user(cm.User), "body": cm.Body, "created_at": Ts(cm.Created), "updated_at": Ts(cm.Updated),
		"html_url": html, "pull_request_url": pu, "author_association": c.association(r, cm.User),
		"_links":            Obj{"self": Obj{"href": u}, "html": Obj{"href": html}, "pull_request": Obj{"href": pu}},
		"original_position": root.Position, "original_line": root.Line, "side": root.Side, "subject_type": "line",
		"start_line": nil, "original_start_line": nil, "start_side": nil,
		"reactions": Obj{"url": u + "/reactions", "total_count": 0, "+1": 0, "-1": 0, "laugh": 0, "confused": 0, "heart": 0, "hooray": 0, "eyes": 0, "rocket": 0},
	}
	if cm.InReplyTo != 0 {
		o["in_reply_to_id"] = cm.InReplyTo
	}
	if root.StartLine != 0 {
		o["original_start_line"], o["start_side"] = root.StartLine, root.StartSide
	}
	if at.Outdated {
		o["line"], o["position"], o["commit_id"] = nil, nil, root.SHA
	} else {
		o["line"], o["position"] = at.Line, r.currentPosition(p, root, at)
		if at.StartLine != 0 {
			o["start_line"] = at.StartLine
		}
	}
	return o
}

// currentPosition is the diff position of a comment that followed its line to the pull
// request's head: where that line sits in the head's diff now, null when it left the diff.
func (r *Repo) currentPosition(p *Pull, root *ReviewComment, at Anchor) any {
	head, base := r.PullSHAs(p)
	if head == root.SHA || root.Side == "LEFT" {
		return root.Position
	}
	fp, ok := r.PullFilePatch(plumbing.NewHash(head), plumbing.NewHash(base), root.Path)
	if !ok {
		return nil
	}
	if pos := fp.find(root.Side, at.Line); pos >= 0 {
		return pos
	}
	return nil
}

func (c *ReqCtx) teamObj(r *Repo, slug string) Obj {
	u := c.api + "/orgs/" + r.Opts.Owner + "/teams/" + slug
	id := c.h.userID("team:" + r.Opts.Owner + "/" + slug)
	return Obj{
		"id": id, "node_id": NodeID("Team", id), "url": u, "members_url": u + "/members{/member}", "name": slug,
		"slug": slug, "description": nil, "permission": "pull", "privacy": "closed", "notification_setting": "notifications_enabled",
		"html_url": c.Web + "/orgs/" + r.Opts.Owner + "/teams/" + slug, "repositories_url": u + "/repos", "parent": nil, "type": "organization",
	}
}

// RequestedObjs are the users and teams asked for a review of p.
func (c *ReqCtx) RequestedObjs(r *Repo, p *Pull) ([]Obj, []Obj) {
	users, teams := []Obj{}, []Obj{}
	for _, l := range p.Reviews.Requested {
		users = append(users, c.user(l))
	}
	for _, s := range p.Reviews.RequestedTeams {
		teams = append(teams, c.teamObj(r, s))
	}
	return users, teams
}

// Collaborator reports whether login can be asked for a review: a user with access to r
// through a token, as fakehub models collaborators.
func (h *Hub) Collaborator(r *Repo, login string) bool {
	for _, t := range h.tokens {
		if strings.EqualFold(t.Login, login) && !t.installation {
			_, one := t.Repos[r.FullName()]
			_, all := t.Repos["*"]
			if one || all {
				return true
			}
		}
	}
	return strings.EqualFold(login, r.Opts.Owner)
}

// AddTokenLocked adds a token after New (the demo's second user); a value already known is
// left as it is. The caller holds h.mu.
func (h *Hub) AddTokenLocked(t Token) {
	if _, taken := h.tokens[t.Value]; !taken {
		h.tokens[t.Value] = &tokenInfo{id: int64(len(h.tokens) + 1), Token: t}
	}
}

// GraphQLRateLimit is the token's GraphQL bucket as it stands before this request is paid for.
func (h *Hub) GraphQLRateLimit(c *ReqCtx) (limit, remaining, used int, reset time.Time) {
	id, lim, window := h.bucketFor(c, "graphql")
	s := h.limiter.Peek(id, "graphql", lim, window)
	return s.Limit, s.Remaining, s.Used, s.Reset
}

// MergeBaseIntoHead merges p's base into its head branch with a merge commit, as GitHub's
// "Update branch" does; it answers the new head, or GitHub's reason for refusing.
func (h *Hub) MergeBaseIntoHead(r *Repo, p *Pull) (string, string) {
	headStr, baseStr := r.PullSHAs(p)
	head, base := plumbing.NewHash(headStr), plumbing.NewHash(baseStr)
	if r.Git.IsAncestor(base, head) {
		return "", "There are no new commits on the base branch."
	}
	tree, conflicts, err := r.testMerge(head, base)
	if err != nil || len(conflicts) > 0 {
		return "", "merge conflict between base and head"
	}
	t := h.Stamp()
	msg := "Merge branch '" + p.Base + "' into " + p.Head + "\n"
	sha, err := r.Git.WriteCommit(tree, []plumbing.Hash{head, base}, msg, SystemSig(t), SystemSig(t))
	if err != nil {
		return "", "Server Error"
	}
	if err := r.Git.SetRef("refs/heads/"+p.Head, sha); err != nil {
		return "", "Server Error"
	}
	r.Pushed, p.Updated = t, t
	return sha.String(), ""
}

// RemoveFold drops login from xs, ignoring case, without touching xs.
func RemoveFold(xs []string, login string) []string {
	return slices.DeleteFunc(slices.Clone(xs), func(x string) bool { return strings.EqualFold(x, login) })
}

// ID is the repository's database id.
func (r *Repo) ID() int64 { return r.id }

// UserID is login's stable database id.
func (c *ReqCtx) UserID(login string) int64 { return c.h.userID(login) }

// Association is login's author_association on r.
func (c *ReqCtx) Association(r *Repo, login string) string { return c.association(r, login) }
