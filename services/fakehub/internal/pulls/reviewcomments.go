package pulls

// Review comments: the REST shape of a line comment and the pull request's comment list and
// single-comment creation (a line comment or a reply in a thread).

import (
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"ghops.dev/services/fakehub/internal/hub"
)

func (h *api) listPullComments(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	p := c.PullNumber(r)
	if p == nil {
		return hub.NotFound()
	}
	// Only published comments: a pending review's drafts are listed by its own comments
	// endpoint (to its author), not here, as on GitHub.
	var out []*hub.ReviewComment
	for _, cm := range p.Reviews.Comments {
		if rv := p.ReviewByID(cm.ReviewID); rv == nil || rv.State != hub.ReviewPending {
			out = append(out, cm)
		}
	}
	if c.Req.URL.Query().Get("direction") == "desc" {
		slices.Reverse(out)
	}
	return hub.PageReply(c, out, func(cm *hub.ReviewComment) hub.Obj { return c.ReviewCommentObj(r, p, cm) })
}

// commentInvalid is the "Validation Failed" answer of the single-comment endpoint, naming the
// review thread's field as GitHub does.
func commentInvalid(field, msg string) *hub.Reply {
	return hub.Validation(&hub.ValidationError{Message: "Validation Failed", Errors: []hub.FieldError{{Resource: "PullRequestReviewComment", Field: field, Code: "custom", Message: msg}}})
}

// createPullComment answers POST pulls/{n}/comments: a line comment (in a review of its own,
// COMMENTED at once, as on GitHub) or, with in_reply_to, a reply in that comment's thread.
func (h *api) createPullComment(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	if c.Tok == nil {
		return hub.ErrReply(401, "Requires authentication", hub.DocRest)
	}
	p := c.PullNumber(r)
	if p == nil {
		return hub.NotFound()
	}
	var in struct {
		hub.DraftComment
		CommitID    string `json:"commit_id"`
		InReplyTo   *int64 `json:"in_reply_to"`
		SubjectType string `json:"subject_type"`
	}
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if strings.TrimSpace(in.Body) == "" {
		return hub.Validation(hub.Invalid("PullRequestReviewComment", "body", "missing_field", ""))
	}
	var cm *hub.ReviewComment
	if in.InReplyTo != nil {
		root := p.CommentByID(*in.InReplyTo)
		if root == nil || !c.VisibleComment(p, root) {
			return hub.NotFound()
		}
		if root.InReplyTo != 0 {
			root = p.CommentByID(root.InReplyTo)
		}
		cm = &hub.ReviewComment{InReplyTo: root.ID, Body: in.Body, Path: root.Path, Side: root.Side, Line: root.Line, SHA: root.SHA}
	} else {
		if in.CommitID == "" {
			return hub.Validation(hub.Invalid("PullRequestReviewComment", "commit_id", "missing_field", ""))
		}
		if in.SubjectType == "file" {
			return commentInvalid("subject_type", "fakehub does not model file-level review comments")
		}
		headStr, baseStr := r.PullSHAs(p)
		head := plumbing.NewHash(headStr)
		if in.CommitID != headStr {
			sha, ok := r.Resolve(in.CommitID)
			if !ok || !r.Git.IsAncestor(sha, head) {
				return commentInvalid("commit_id", "commit_id is not part of the pull request")
			}
			head = sha
		}
		if in.Line == nil && in.Position == nil {
			return hub.Validation(hub.Invalid("PullRequestReviewComment", "line", "missing_field", ""))
		}
		var why string
		cm, why = r.PlaceComment(head, plumbing.NewHash(baseStr), in.DraftComment)
		switch why {
		case "":
		case "Path could not be resolved":
			return commentInvalid("pull_request_review_thread.path", "pull_request_review_thread.path must be part of the diff")
		case "Line could not be resolved":
			return commentInvalid("pull_request_review_thread.line", "pull_request_review_thread.line must be part of the diff")
		default:
			return commentInvalid("pull_request_review_thread.start_line", why)
		}
	}
	h.NextID++
	t := h.Stamp()
	rv := &hub.Review{ID: h.NextID, User: c.Tok.Login, State: hub.ReviewCommented, SHA: cm.SHA, Submitted: t, Created: t}
	p.Reviews.Reviews = append(p.Reviews.Reviews, rv)
	h.NextID++
	cm.ID, cm.ReviewID, cm.User, cm.Created, cm.Updated = h.NextID, rv.ID, c.Tok.Login, t, t
	p.Reviews.Comments = append(p.Reviews.Comments, cm)
	rep := hub.OkReply(201, c.ReviewCommentObj(r, p, cm))
	rep.SetHeader("Location", c.RepoURL(r)+"/pulls/comments/"+strconv.FormatInt(cm.ID, 10))
	return rep
}
