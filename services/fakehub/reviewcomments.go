package fakehub

// Review comments: the REST shape of a line comment and the pull request's comment list and
// single-comment creation (a line comment or a reply in a thread).

import (
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

func (c *reqCtx) reviewCommentObj(r *repo, p *pull, cm *reviewComment) obj {
	pu := c.repoURL(r) + "/pulls/" + strconv.Itoa(p.number)
	u := c.repoURL(r) + "/pulls/comments/" + strconv.FormatInt(cm.id, 10)
	html := c.web + "/" + r.fullName() + "/pull/" + strconv.Itoa(p.number) + "#discussion_r" + strconv.FormatInt(cm.id, 10)
	root := cm
	if cm.inReplyTo != 0 {
		if x := p.commentByID(cm.inReplyTo); x != nil {
			root = x
		}
	}
	at := r.anchorOf(p, root)
	head, _ := r.pullSHAs(p)
	o := obj{
		"url": u, "pull_request_review_id": cm.reviewID, "id": cm.id, "node_id": reviewCommentNodeID(r, p.number, cm.id),
		"diff_hunk": root.diffHunk, "path": root.path, "commit_id": head, "original_commit_id": root.sha,
		"user": c.user(cm.user), "body": cm.body, "created_at": ts(cm.created), "updated_at": ts(cm.updated),
		"html_url": html, "pull_request_url": pu, "author_association": c.association(r, cm.user),
		"_links":            obj{"self": obj{"href": u}, "html": obj{"href": html}, "pull_request": obj{"href": pu}},
		"original_position": root.position, "original_line": root.line, "side": root.side, "subject_type": "line",
		"start_line": nil, "original_start_line": nil, "start_side": nil,
		"reactions": reactionsObj(u),
	}
	if cm.inReplyTo != 0 {
		o["in_reply_to_id"] = cm.inReplyTo
	}
	if root.startLine != 0 {
		o["original_start_line"], o["start_side"] = root.startLine, root.startSide
	}
	// An outdated comment keeps its original lines; its current line and position are null,
	// as on GitHub.
	if at.outdated {
		o["line"], o["position"], o["commit_id"] = nil, nil, root.sha
	} else {
		o["line"], o["position"] = at.line, r.currentPosition(p, root, at)
		if at.startLine != 0 {
			o["start_line"] = at.startLine
		}
	}
	return o
}

func reactionsObj(u string) obj {
	return obj{"url": u + "/reactions", "total_count": 0, "+1": 0, "-1": 0, "laugh": 0, "confused": 0, "heart": 0, "hooray": 0, "eyes": 0, "rocket": 0}
}

func (h *Hub) listPullComments(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	var out []*reviewComment
	for _, cm := range p.rv.comments {
		if c.visibleComment(p, cm) {
			out = append(out, cm)
		}
	}
	if c.r.URL.Query().Get("direction") == "desc" {
		slices.Reverse(out)
	}
	return pageReply(c, out, func(cm *reviewComment) obj { return c.reviewCommentObj(r, p, cm) })
}

// commentInvalid is the "Validation Failed" answer of the single-comment endpoint, naming the
// review thread's field as GitHub does.
func commentInvalid(field, msg string) *reply {
	return validation(&validationError{Message: "Validation Failed", Errors: []fieldError{{Resource: "PullRequestReviewComment", Field: field, Code: "custom", Message: msg}}})
}

// createPullComment answers POST pulls/{n}/comments: a line comment (in a review of its own,
// COMMENTED at once, as on GitHub) or, with in_reply_to, a reply in that comment's thread.
func (h *Hub) createPullComment(c *reqCtx, r *repo) *reply {
	if c.tok == nil {
		return errReply(401, "Requires authentication", docRest)
	}
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	var in struct {
		draftComment
		CommitID    string `json:"commit_id"`
		InReplyTo   *int64 `json:"in_reply_to"`
		SubjectType string `json:"subject_type"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if strings.TrimSpace(in.Body) == "" {
		return validation(invalid("PullRequestReviewComment", "body", "missing_field", ""))
	}
	var cm *reviewComment
	if in.InReplyTo != nil {
		root := p.commentByID(*in.InReplyTo)
		if root == nil || !c.visibleComment(p, root) {
			return notFound()
		}
		if root.inReplyTo != 0 {
			root = p.commentByID(root.inReplyTo)
		}
		cm = &reviewComment{inReplyTo: root.id, body: in.Body, path: root.path, side: root.side, line: root.line, sha: root.sha}
	} else {
		if in.CommitID == "" {
			return validation(invalid("PullRequestReviewComment", "commit_id", "missing_field", ""))
		}
		if in.SubjectType == "file" {
			return commentInvalid("subject_type", "fakehub does not model file-level review comments")
		}
		headStr, baseStr := r.pullSHAs(p)
		head := plumbing.NewHash(headStr)
		if in.CommitID != headStr {
			sha, ok := r.resolve(in.CommitID)
			if !ok || !r.git.IsAncestor(sha, head) {
				return commentInvalid("commit_id", "commit_id is not part of the pull request")
			}
			head = sha
		}
		if in.Line == nil && in.Position == nil {
			return validation(invalid("PullRequestReviewComment", "line", "missing_field", ""))
		}
		var why string
		cm, why = r.placeComment(head, plumbing.NewHash(baseStr), in.draftComment)
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
	h.nextID++
	t := h.stamp()
	rv := &review{id: h.nextID, user: c.tok.Login, state: reviewCommented, sha: cm.sha, submitted: t}
	p.rv.reviews = append(p.rv.reviews, rv)
	h.nextID++
	cm.id, cm.reviewID, cm.user, cm.created, cm.updated = h.nextID, rv.id, c.tok.Login, t, t
	p.rv.comments = append(p.rv.comments, cm)
	rep := okReply(201, c.reviewCommentObj(r, p, cm))
	rep.setHeader("Location", c.repoURL(r)+"/pulls/comments/"+strconv.FormatInt(cm.id, 10))
	return rep
}

// currentPosition is the diff position of a comment that followed its line to the pull
// request's head: where that line sits in the head's diff now, null when it left the diff.
func (r *repo) currentPosition(p *pull, root *reviewComment, at anchor) any {
	head, base := r.pullSHAs(p)
	if head == root.sha || root.side == "LEFT" {
		return root.position
	}
	fp, ok := r.pullFilePatch(plumbing.NewHash(head), plumbing.NewHash(base), root.path)
	if !ok {
		return nil
	}
	if pos := fp.find(root.side, at.line); pos >= 0 {
		return pos
	}
	return nil
}
