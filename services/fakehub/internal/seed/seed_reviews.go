package seed

import (
	"errors"

	"github.com/go-git/go-git/v5/plumbing"

	"ghops.dev/services/fakehub/internal/hub"
)

// demoReviewer is hub.DemoReviewerToken's login.
const demoReviewer = "monalisa"

// seedReviews gives the demo's "Test the greeting" pull request a review that requests
// changes with two line comments: one thread still open, one answered by the author and
// resolved. It runs last, so that no id or time the rest of the dataset had moves.
func (h *api) seedReviews(r *hub.Repo) error {
	h.AddTokenLocked(hub.Token{Value: hub.DemoReviewerToken, Login: demoReviewer, Repos: map[string]hub.Permission{r.FullName(): hub.PermWrite}})
	var p *hub.Pull
	for _, x := range r.Pulls {
		if x.Head == "feature/greet-test" {
			p = x
		}
	}
	if p == nil {
		return errors.New("fakehub: the demo has no pull request from feature/greet-test")
	}
	headStr, baseStr := r.PullSHAs(p)
	head, base := plumbing.NewHash(headStr), plumbing.NewHash(baseStr)
	line := func(n int) *int { return &n }
	drafts := []hub.DraftComment{
		{Path: "internal/greet/greet_test.go", Line: line(7), Body: "main greets with \"Good day, world.\" now; this expectation fails on the merge."},
		{Path: "internal/greet/greet_test.go", Line: line(8), Body: "Should an empty name really give \"Hello, !\"? The open issue about empty names says no."},
	}
	h.NextID++
	t := h.Stamp()
	rv := &hub.Review{ID: h.NextID, User: demoReviewer, State: hub.ReviewChangesRequested, SHA: headStr, Submitted: t, Created: t,
		Body: "The test pins the old greeting; please follow main and cover the empty name."}
	p.Reviews.Reviews = append(p.Reviews.Reviews, rv)
	var roots []*hub.ReviewComment
	for _, d := range drafts {
		cm, why := r.PlaceComment(head, base, d)
		if why != "" {
			return errors.New("fakehub: demo review comment: " + why)
		}
		h.NextID++
		cm.ID, cm.ReviewID, cm.User, cm.Created, cm.Updated = h.NextID, rv.ID, demoReviewer, t, t
		p.Reviews.Comments = append(p.Reviews.Comments, cm)
		roots = append(roots, cm)
	}
	// octocat answers the second thread in a review of their own and resolves it.
	h.NextID++
	t = h.Stamp()
	answer := &hub.Review{ID: h.NextID, User: p.Author(), State: hub.ReviewCommented, SHA: headStr, Submitted: t, Created: t}
	p.Reviews.Reviews = append(p.Reviews.Reviews, answer)
	second := roots[1]
	h.NextID++
	p.Reviews.Comments = append(p.Reviews.Comments, &hub.ReviewComment{ID: h.NextID, ReviewID: answer.ID, InReplyTo: second.ID, User: p.Author(),
		Body: "Right: the greeter fix will say \"Good day, stranger.\" and this case will follow it.", Path: second.Path,
		Side: second.Side, Line: second.Line, SHA: second.SHA, Created: t, Updated: t})
	p.Reviews.ResolvedBy = map[int64]string{second.ID: p.Author()}
	return nil
}
