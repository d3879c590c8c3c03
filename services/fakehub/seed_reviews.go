package fakehub

import (
	"errors"

	"github.com/go-git/go-git/v5/plumbing"
)

// DemoReviewerToken is the demo dataset's second user, monalisa, who reviews octocat's pull
// requests on octo-org/hello-world (write access, so that approvals count).
const DemoReviewerToken = "ghops-demo-reviewer-token"

// demoReviewer is DemoReviewerToken's login.
const demoReviewer = "monalisa"

// seedReviews gives the demo's "Test the greeting" pull request a review that requests
// changes with two line comments: one thread still open, one answered by the author and
// resolved. It runs last, so that no id or time the rest of the dataset had moves.
func (h *Hub) seedReviews(r *repo) error {
	if _, taken := h.tokens[DemoReviewerToken]; !taken {
		h.tokens[DemoReviewerToken] = &tokenInfo{id: int64(len(h.tokens) + 1), Token: Token{Value: DemoReviewerToken, Login: demoReviewer,
			Repos: map[string]Permission{r.fullName(): PermWrite}}}
	}
	var p *pull
	for _, x := range r.pulls {
		if x.head == "feature/greet-test" {
			p = x
		}
	}
	if p == nil {
		return errors.New("fakehub: the demo has no pull request from feature/greet-test")
	}
	headStr, baseStr := r.pullSHAs(p)
	head, base := plumbing.NewHash(headStr), plumbing.NewHash(baseStr)
	line := func(n int) *int { return &n }
	drafts := []draftComment{
		{Path: "internal/greet/greet_test.go", Line: line(7), Body: "main greets with \"Good day, world.\" now; this expectation fails on the merge."},
		{Path: "internal/greet/greet_test.go", Line: line(8), Body: "Should an empty name really give \"Hello, !\"? The open issue about empty names says no."},
	}
	h.nextID++
	t := h.stamp()
	rv := &review{id: h.nextID, user: demoReviewer, state: reviewChangesRequested, sha: headStr, submitted: t,
		body: "The test pins the old greeting; please follow main and cover the empty name."}
	p.rv.reviews = append(p.rv.reviews, rv)
	var roots []*reviewComment
	for _, d := range drafts {
		cm, why := r.placeComment(head, base, d)
		if why != "" {
			return errors.New("fakehub: demo review comment: " + why)
		}
		h.nextID++
		cm.id, cm.reviewID, cm.user, cm.created, cm.updated = h.nextID, rv.id, demoReviewer, t, t
		p.rv.comments = append(p.rv.comments, cm)
		roots = append(roots, cm)
	}
	// octocat answers the second thread in a review of their own and resolves it.
	h.nextID++
	t = h.stamp()
	answer := &review{id: h.nextID, user: p.user, state: reviewCommented, sha: headStr, submitted: t}
	p.rv.reviews = append(p.rv.reviews, answer)
	second := roots[1]
	h.nextID++
	p.rv.comments = append(p.rv.comments, &reviewComment{id: h.nextID, reviewID: answer.id, inReplyTo: second.id, user: p.user,
		body: "Right: the greeter fix will say \"Good day, stranger.\" and this case will follow it.", path: second.path,
		side: second.side, line: second.line, sha: second.sha, created: t, updated: t})
	p.rv.resolvedBy = map[int64]string{second.id: p.user}
	return nil
}
