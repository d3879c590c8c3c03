package pulls

import (
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"ghops.dev/services/fakehub/internal/hub"
)

// reviewRoutes adds the reviews, review comments, requested reviewers, commits and update-branch
// operations of a pull request.
func (h *api) registerReviews(add hub.AddFunc) {
	const pr = "/repos/{owner}/{repo}/pulls/{pull_number}"
	add("GET", pr+"/reviews", h.WithRepo(hub.PermRead, h.listReviews))
	add("POST", pr+"/reviews", h.WithRepo(hub.PermRead, h.createReview))
	add("GET", pr+"/reviews/{review_id}", h.WithRepo(hub.PermRead, h.getReview))
	add("PUT", pr+"/reviews/{review_id}", h.WithRepo(hub.PermRead, h.updateReview))
	add("DELETE", pr+"/reviews/{review_id}", h.WithRepo(hub.PermRead, h.deletePendingReview))
	add("POST", pr+"/reviews/{review_id}/events", h.WithRepo(hub.PermRead, h.submitReview))
	add("PUT", pr+"/reviews/{review_id}/dismissals", h.WithRepo(hub.PermWrite, h.dismissReview))
	add("GET", pr+"/reviews/{review_id}/comments", h.WithRepo(hub.PermRead, h.listReviewComments))
	add("GET", pr+"/comments", h.WithRepo(hub.PermRead, h.listPullComments))
	add("POST", pr+"/comments", h.WithRepo(hub.PermRead, h.createPullComment))
	add("GET", pr+"/requested_reviewers", h.WithRepo(hub.PermRead, h.listRequestedReviewers))
	add("POST", pr+"/requested_reviewers", h.WithRepo(hub.PermWrite, h.requestReviewers))
	add("DELETE", pr+"/requested_reviewers", h.WithRepo(hub.PermWrite, h.removeRequestedReviewers))
	add("GET", pr+"/commits", h.WithRepo(hub.PermRead, h.listPullCommits))
	add("PUT", pr+"/update-branch", h.WithRepo(hub.PermWrite, h.updatePullBranch))
}

// docReviews is the documentation_url GitHub sends with the reviews API's errors.
const docReviews = "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"

// reviewNumber reads {review_id} as a review of p the viewer sees.
func reviewNumber(c *hub.ReqCtx, p *hub.Pull) *hub.Review {
	id, err := strconv.ParseInt(c.Params["review_id"], 10, 64)
	if err != nil {
		return nil
	}
	rv := p.ReviewByID(id)
	if rv == nil || !c.Visible(rv) {
		return nil
	}
	return rv
}

// unprocessable is the 422 the reviews API answers with its reasons as plain strings
// (GitHub's validation-error-simple), not the field objects of "Validation Failed".
func unprocessable(reasons ...string) *hub.Reply {
	return &hub.Reply{Status: 422, Body: hub.Obj{"message": "Unprocessable Entity", "errors": reasons, "documentation_url": docReviews, "status": "422"}}
}

func (h *api) listReviews(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p := c.PullNumber(r)
	if p == nil {
		return hub.NotFound()
	}
	var out []*hub.Review
	for _, rv := range p.Reviews.Reviews {
		if c.Visible(rv) {
			out = append(out, rv)
		}
	}
	return hub.PageReply(c, out, func(rv *hub.Review) hub.Obj { return c.ReviewObj(r, p, rv) })
}

func (h *api) createReview(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	if c.Tok == nil {
		return hub.ErrReply(401, "Requires authentication", hub.DocRest)
	}
	p := c.PullNumber(r)
	if p == nil {
		return hub.NotFound()
	}
	var in struct {
		CommitID *string            `json:"commit_id"`
		Body     string             `json:"body"`
		Event    string             `json:"event"`
		Comments []hub.DraftComment `json:"comments"`
	}
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if p.State != "open" && in.Event != "" {
		return unprocessable("Pull request is closed")
	}
	state := hub.ReviewPending
	if in.Event != "" {
		s, ok := hub.ReviewEvents[in.Event]
		if !ok {
			return unprocessable("Event is not included in the list")
		}
		state = s
	}
	if why := hub.EventRefusal(p, c.Tok.Login, in.Event, in.Body, len(in.Comments)); why != "" {
		return unprocessable(why)
	}
	if state == hub.ReviewPending {
		for _, rv := range p.Reviews.Reviews {
			if rv.State == hub.ReviewPending && strings.EqualFold(rv.User, c.Tok.Login) {
				return unprocessable("User can only have one pending review per pull request")
			}
		}
	}
	headStr, baseStr := r.PullSHAs(p)
	head, base := plumbing.NewHash(headStr), plumbing.NewHash(baseStr)
	if in.CommitID != nil && *in.CommitID != headStr {
		sha, ok := r.Resolve(*in.CommitID)
		if !ok || !hub.HexSHA.MatchString(*in.CommitID) || !r.Git.IsAncestor(sha, head) || r.Git.IsAncestor(sha, base) {
			return unprocessable("Commit could not be resolved")
		}
		head = sha
	}
	// One request makes the review and all its comments, or nothing.
	placed := make([]*hub.ReviewComment, 0, len(in.Comments))
	for _, d := range in.Comments {
		cm, why := r.PlaceComment(head, base, d)
		if why != "" {
			return unprocessable(why)
		}
		placed = append(placed, cm)
	}
	h.NextID++
	t := h.Stamp()
	rv := &hub.Review{ID: h.NextID, User: c.Tok.Login, Body: in.Body, State: state, SHA: head.String(), Created: t}
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
	return hub.OkReply(200, c.ReviewObj(r, p, rv))
}

func (h *api) getReview(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p := c.PullNumber(r)
	if p == nil {
		return hub.NotFound()
	}
	rv := reviewNumber(c, p)
	if rv == nil {
		return hub.NotFound()
	}
	return hub.OkReply(200, c.ReviewObj(r, p, rv))
}

// ownReview resolves {pull_number} and {review_id} to a review the token wrote; another's is 404
// when pending (unseen) and 403 otherwise, as GitHub refuses to edit another's review.
func ownReview(c *hub.ReqCtx, r *hub.Repo) (*hub.Pull, *hub.Review, *hub.Reply) {
	if c.Tok == nil {
		return nil, nil, hub.ErrReply(401, "Requires authentication", hub.DocRest)
	}
	p := c.PullNumber(r)
	if p == nil {
		return nil, nil, hub.NotFound()
	}
	rv := reviewNumber(c, p)
	if rv == nil {
		return nil, nil, hub.NotFound()
	}
	if !strings.EqualFold(rv.User, c.Tok.Login) {
		return nil, nil, hub.ErrReply(403, "Resource not accessible by personal access token", hub.DocRest)
	}
	return p, rv, nil
}

func (h *api) updateReview(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p, rv, bad := ownReview(c, r)
	if bad != nil {
		return bad
	}
	var in struct {
		Body *string `json:"body"`
	}
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if in.Body == nil {
		return unprocessable("Body can't be blank")
	}
	if strings.TrimSpace(*in.Body) == "" && (rv.State == hub.ReviewChangesRequested || rv.State == hub.ReviewCommented) {
		return unprocessable("Body can't be blank")
	}
	rv.Body = *in.Body
	return hub.OkReply(200, c.ReviewObj(r, p, rv))
}

func (h *api) deletePendingReview(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p, rv, bad := ownReview(c, r)
	if bad != nil {
		return bad
	}
	if rv.State != hub.ReviewPending {
		return unprocessable("Can not delete a non-pending pull request review")
	}
	out := c.ReviewObj(r, p, rv)
	p.Reviews.Reviews = slices.DeleteFunc(p.Reviews.Reviews, func(x *hub.Review) bool { return x == rv })
	p.Reviews.Comments = slices.DeleteFunc(p.Reviews.Comments, func(x *hub.ReviewComment) bool { return x.ReviewID == rv.ID })
	return hub.OkReply(200, out)
}

func (h *api) submitReview(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p, rv, bad := ownReview(c, r)
	if bad != nil {
		return bad
	}
	var in struct {
		Body  *string `json:"body"`
		Event string  `json:"event"`
	}
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if in.Event == "" {
		return unprocessable("Event can't be blank")
	}
	state, ok := hub.ReviewEvents[in.Event]
	if !ok {
		return unprocessable("Event is not included in the list")
	}
	if rv.State != hub.ReviewPending {
		return unprocessable("Can not submit a non-pending pull request review")
	}
	body := rv.Body
	if in.Body != nil {
		body = *in.Body
	}
	n := 0
	for _, cm := range p.Reviews.Comments {
		if cm.ReviewID == rv.ID {
			n++
		}
	}
	if why := hub.EventRefusal(p, c.Tok.Login, in.Event, body, n); why != "" {
		return unprocessable(why)
	}
	t := h.Stamp()
	rv.Body, rv.State, rv.Submitted = body, state, t
	p.Reviews.Requested = hub.RemoveFold(p.Reviews.Requested, c.Tok.Login)
	return hub.OkReply(200, c.ReviewObj(r, p, rv))
}

func (h *api) listReviewComments(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p := c.PullNumber(r)
	if p == nil {
		return hub.NotFound()
	}
	rv := reviewNumber(c, p)
	if rv == nil {
		return hub.NotFound()
	}
	var out []*hub.ReviewComment
	for _, cm := range p.Reviews.Comments {
		if cm.ReviewID == rv.ID {
			out = append(out, cm)
		}
	}
	return hub.PageReply(c, out, func(cm *hub.ReviewComment) hub.Obj {
		o := c.ReviewCommentObj(r, p, cm)
		// This listing has the legacy shape: position is always present, null once outdated.
		if _, ok := o["position"]; !ok {
			o["position"] = nil
		}
		return o
	})
}

// dismissReview answers PUT reviews/{id}/dismissals: a submitted approval or request for
// changes becomes DISMISSED (write access needed, as on GitHub); anything else is refused.
func (h *api) dismissReview(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p := c.PullNumber(r)
	if p == nil {
		return hub.NotFound()
	}
	rv := reviewNumber(c, p)
	if rv == nil {
		return hub.NotFound()
	}
	var in struct {
		Message *string `json:"message"`
		Event   string  `json:"event"`
	}
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if in.Message == nil || strings.TrimSpace(*in.Message) == "" {
		return hub.Validation(hub.Invalid("PullRequestReview", "message", "missing_field", ""))
	}
	if in.Event != "" && in.Event != "DISMISS" {
		return hub.Validation(hub.Invalid("PullRequestReview", "event", "invalid", ""))
	}
	if rv.State != hub.ReviewApproved && rv.State != hub.ReviewChangesRequested {
		return hub.Validation(&hub.ValidationError{Message: "Can not dismiss a " + strings.ToLower(strings.ReplaceAll(rv.State, "_", " ")) + " pull request review"})
	}
	rv.State = hub.ReviewDismissed
	return hub.OkReply(200, c.ReviewObj(r, p, rv))
}
