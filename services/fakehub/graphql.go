package fakehub

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"ghops.dev/services/fakehub/graphqlschema"
	"ghops.dev/services/fakehub/internal/graphql"
)

const docGraphQLAuth = "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql"

// unsupportedGraphQL is the message for every operation beyond the mutations fakehub serves.
const unsupportedGraphQL = "fakehub implements only the queries repository, node, rateLimit and viewer and the mutations convertPullRequestToDraft, markPullRequestReadyForReview, createCommitOnBranch, addPullRequestReview, addPullRequestReviewThread, submitPullRequestReview, deletePullRequestReview, addPullRequestReviewThreadReply, resolveReviewThread and unresolveReviewThread"

// gqlMutations are the mutations fakehub serves, by field name: the two that change a pull
// request's draft state (GitHub's REST API cannot) and createCommitOnBranch (a commit of any
// number of files in one request).
var gqlMutations = map[string]func(h *Hub, c *reqCtx, f graphql.Field) (obj, *graphql.Error){
	"convertPullRequestToDraft":     (*Hub).draftMutation,
	"markPullRequestReadyForReview": (*Hub).draftMutation,
	"createCommitOnBranch":          (*Hub).commitOnBranch,
	// Review threads (reviewthreads.go).
	"addPullRequestReviewThreadReply": (*Hub).replyMutation,
	"resolveReviewThread":             (*Hub).resolveThreadMutation,
	"unresolveReviewThread":           (*Hub).resolveThreadMutation,
}

// pullNodeID is a pull request's GraphQL global id: stable for the repository and number, and
// decodable without a lookup table.
func pullNodeID(r *repo, number int) string {
	return "PR_kw" + base64.RawURLEncoding.EncodeToString([]byte(r.fullName()+":"+strconv.Itoa(number)))
}

// pullByNodeID resolves a pull request's global id; it reports false for anything else.
func (h *Hub) pullByNodeID(id string) (*repo, *pull, bool) {
	raw, ok := strings.CutPrefix(id, "PR_kw")
	if !ok {
		return nil, nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return nil, nil, false
	}
	name, num, ok := strings.Cut(string(b), ":")
	if !ok {
		return nil, nil, false
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return nil, nil, false
	}
	r, ok := h.repos[repoKey(name)]
	if !ok {
		return nil, nil, false
	}
	p := r.pullByNumber(n)
	return r, p, p != nil
}

// graphqlHandler serves POST /graphql (and /api/graphql, the Enterprise layout): the document
// is validated against GitHub's schema, then the mutations of gqlMutations run. The body may be
// as large as a REST one (decode's 64 MB): a createCommitOnBranch carries whole files in base64.
func (h *Hub) graphqlHandler(c *reqCtx) *reply {
	if c.tok == nil {
		return errReply(401, "This endpoint requires you to be authenticated.", docGraphQLAuth)
	}
	data, err := io.ReadAll(io.LimitReader(c.r.Body, 64<<20))
	if err != nil {
		return errReply(400, "Problems parsing JSON", docRest)
	}
	var in struct {
		Query         string         `json:"query"`
		OperationName string         `json:"operationName"`
		Variables     map[string]any `json:"variables"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return errReply(400, "Problems parsing JSON", docRest)
	}
	schema, err := graphqlschema.Schema()
	if err != nil {
		return errReply(500, "the GraphQL schema cannot be loaded", docRest)
	}
	engine := graphql.Engine{Schema: schema, Unsupported: unsupportedGraphQL, Mutations: map[string]graphql.Resolver{}, Queries: map[string]graphql.Resolver{}}
	for name, run := range gqlMutations {
		engine.Mutations[name] = func(f graphql.Field) (obj, *graphql.Error) { return run(h, c, f) }
	}
	for name, run := range gqlQueries {
		engine.Queries[name] = func(f graphql.Field) (obj, *graphql.Error) { return run(h, c, f) }
	}
	return okReply(200, engine.Execute(in.Query, in.OperationName, in.Variables))
}

// mutationInput is a mutation field's only argument, input, as an input object (the schema's
// validation has made sure it is one).
func mutationInput(f graphql.Field) map[string]any {
	fields, _ := f.Args["input"].(map[string]any)
	return fields
}

// draftMutation runs convertPullRequestToDraft or markPullRequestReadyForReview for one field.
func (h *Hub) draftMutation(c *reqCtx, f graphql.Field) (obj, *graphql.Error) {
	fields := mutationInput(f)
	id, _ := fields["pullRequestId"].(string)
	r, p, found := h.pullByNodeID(id)
	if !found || h.perm(c.tok, r) == PermNone {
		return nil, graphql.Refusal(graphql.NotFound, "Could not resolve to a node with the global id of '"+id+"'.")
	}
	if h.perm(c.tok, r) != PermWrite {
		return nil, graphql.Refusal(graphql.Forbidden, "Resource not accessible by personal access token")
	}
	draft := f.Name == "convertPullRequestToDraft"
	if p.state != "open" {
		return nil, graphql.Refusal(graphql.Unprocessable, "Pull request is closed; its draft state cannot change")
	}
	payload := obj{"__typename": strings.ToUpper(f.Name[:1]) + f.Name[1:] + "Payload", "clientMutationId": fields["clientMutationId"], "pullRequest": c.pullNode(r, p)}
	if _, serr := f.Select(payload); serr != nil {
		return nil, serr
	}
	if p.draft != draft {
		p.draft = draft
		p.updated = h.stamp()
		payload["pullRequest"] = c.pullNode(r, p)
	}
	return f.Select(payload)
}

// pullNode is the part of GraphQL's PullRequest type fakehub answers.
func (c *reqCtx) pullNode(r *repo, p *pull) obj {
	state := strings.ToUpper(p.state)
	if p.merged {
		state = "MERGED"
	}
	return obj{
		"__typename": "PullRequest", "id": pullNodeID(r, p.number), "number": p.number, "isDraft": p.draft,
		"state": state, "title": p.title, "url": c.web + "/" + r.fullName() + "/pull/" + strconv.Itoa(p.number),
		"closed": p.state == "closed", "merged": p.merged,
	}
}
