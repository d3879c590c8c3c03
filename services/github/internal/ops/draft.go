package ops

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v66/github"

	"ghops.dev/services/github/internal/ghstatus"
)

// GraphQLURL derives GitHub's GraphQL endpoint from the REST API root:
// https://api.github.com/ -> https://api.github.com/graphql, an Enterprise
// Server root http(s)://host/api/v3/ -> http(s)://host/api/graphql, and any
// other root (fakehub's http://127.0.0.1:port/) -> that root + "graphql".
func GraphQLURL(base *url.URL) *url.URL {
	u := *base
	u.RawQuery, u.Fragment, u.RawPath = "", "", ""
	p := strings.TrimSuffix(u.Path, "/")
	switch {
	case strings.HasSuffix(p, "/api/v3"):
		u.Path = strings.TrimSuffix(p, "/v3") + "/graphql"
	default:
		u.Path = p + "/graphql"
	}
	return &u
}

// The only ways to change a pull request's draft state (GitHub's REST
// PATCH ignores draft): whole documents, never assembled, so that the test
// validating every document against GitHub's schema sees what is sent.
const (
	toDraftMutation = `mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) { pullRequest { isDraft } } }`
	toReadyMutation = `mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }`
)

// draftMutation is a draft state's document and the field its answer is
// under.
type draftMutation struct{ query, field string }

// draftMutations maps the wanted draft state to its mutation.
var draftMutations = map[bool]draftMutation{
	true:  {toDraftMutation, "convertPullRequestToDraft"},
	false: {toReadyMutation, "markPullRequestReadyForReview"},
}

// setDraft converts the pull request with GraphQL global id nodeID to a
// draft or marks it ready for review, and returns the draft state GitHub
// reports afterwards. It is sent once through gh's authenticated client: a
// POST passes the retry and cache transports untouched, so it is never
// replayed.
func setDraft(ctx context.Context, gh *github.Client, nodeID string, draft bool) (bool, error) {
	m := draftMutations[draft]
	body := map[string]any{
		"query":     m.query,
		"variables": map[string]any{"id": nodeID},
	}
	req, err := gh.NewRequest(http.MethodPost, GraphQLURL(gh.BaseURL).String(), body)
	if err != nil {
		return false, err
	}
	var out struct {
		Data map[string]*struct {
			PullRequest *struct {
				IsDraft bool `json:"isDraft"`
			} `json:"pullRequest"`
		} `json:"data"`
		Errors []ghstatus.GraphQLError `json:"errors"`
	}
	if _, err := gh.Do(ctx, req, &out); err != nil {
		return false, err
	}
	if len(out.Errors) > 0 {
		return false, &ghstatus.GraphQLErrors{Errors: out.Errors}
	}
	payload := out.Data[m.field]
	if payload == nil || payload.PullRequest == nil {
		return false, errors.New("graphql answer without the pull request")
	}
	return payload.PullRequest.IsDraft, nil
}
