package hub

import "strings"

// ReviewEvents maps a review's event (REST's event, GraphQL's PullRequestReviewEvent) to the
// state it gives the review; both APIs submit through it.
var ReviewEvents = map[string]string{"APPROVE": ReviewApproved, "REQUEST_CHANGES": ReviewChangesRequested, "COMMENT": ReviewCommented}

// EventRefusal is GitHub's reason for refusing event on p by login with body and n comments,
// or "": the same in REST and GraphQL.
func EventRefusal(p *Pull, login, event, body string, n int) string {
	switch {
	case event == "APPROVE" && strings.EqualFold(p.Author(), login):
		return "Review Can not approve your own pull request"
	case event == "REQUEST_CHANGES" && strings.EqualFold(p.Author(), login):
		return "Review Can not request changes on your own pull request"
	case event == "REQUEST_CHANGES" && strings.TrimSpace(body) == "":
		return "Review Body is required when requesting changes"
	case event == "COMMENT" && strings.TrimSpace(body) == "" && n == 0:
		return "Review Body is required when commenting"
	}
	return ""
}
