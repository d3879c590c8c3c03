// Package graphqlapi serves fakehub's GraphQL endpoint (/graphql and GitHub Enterprise Server's
// /api/graphql): documents are checked by package graphql against GitHub's schema, then the
// mutations fakehub implements run (the pull request draft mutations and createCommitOnBranch).
package graphqlapi

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"ghops.dev/services/fakehub/graphqlschema"
	"ghops.dev/services/fakehub/internal/graphql"
	"ghops.dev/services/fakehub/internal/hub"
	"ghops.dev/services/fakehub/internal/projects"
)

const docGraphQLAuth = "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql"

// unsupportedGraphQL is the message for every operation beyond the mutations fakehub serves.
const unsupportedGraphQL = "fakehub implements only the queries repository, user, organization, repositoryOwner, node, rateLimit and viewer and the mutations convertPullRequestToDraft, markPullRequestReadyForReview, createCommitOnBranch, addPullRequestReview, addPullRequestReviewThread, submitPullRequestReview, deletePullRequestReview, addPullRequestReviewThreadReply, resolveReviewThread, unresolveReviewThread, closeIssue, reopenIssue, updateLabel and those of Projects (v2)"

// gqlMutations are the mutations fakehub serves, by field name: the two that change a pull
// request's draft state (GitHub's REST API cannot) and createCommitOnBranch (a commit of any
// number of files in one request).
var gqlMutations = map[string]func(h *api, c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error){
	"convertPullRequestToDraft":     (*api).draftMutation,
	"markPullRequestReadyForReview": (*api).draftMutation,
	"createCommitOnBranch":          (*api).commitOnBranch,
	// Review threads (reviewthreads.go).
	"addPullRequestReviewThreadReply": (*api).replyMutation,
	"resolveReviewThread":             (*api).resolveThreadMutation,
	"unresolveReviewThread":           (*api).resolveThreadMutation,
}

// registerGraphQL adds the GraphQL endpoint.
func (h *api) registerGraphQL(add hub.AddFunc) {
	add("POST", "/graphql", h.graphqlHandler)
	add("POST", "/api/graphql", h.graphqlHandler) // GitHub Enterprise Server's layout
}

// pullByNodeID resolves a pull request's global id; it reports false for anything else.
func (h *api) pullByNodeID(id string) (*hub.Repo, *hub.Pull, bool) {
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
	r, ok := h.Repos[hub.RepoKey(name)]
	if !ok {
		return nil, nil, false
	}
	p := r.PullByNumber(n)
	return r, p, p != nil
}

// graphqlHandler serves POST /graphql (and /api/graphql, the Enterprise layout): the document
// is validated against GitHub's schema, then the mutations of gqlMutations run. The body may be
// as large as a REST one (decode's 64 MB): a createCommitOnBranch carries whole files in base64.
func (h *api) graphqlHandler(c *hub.ReqCtx) *hub.Reply {
	if c.Tok == nil {
		return hub.ErrReply(401, "This endpoint requires you to be authenticated.", docGraphQLAuth)
	}
	data, err := io.ReadAll(io.LimitReader(c.Req.Body, 64<<20))
	if err != nil {
		return hub.ErrReply(400, "Problems parsing JSON", hub.DocRest)
	}
	var in struct {
		Query         string         `json:"query"`
		OperationName string         `json:"operationName"`
		Variables     map[string]any `json:"variables"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return hub.ErrReply(400, "Problems parsing JSON", hub.DocRest)
	}
	schema, err := graphqlschema.Schema()
	if err != nil {
		return hub.ErrReply(500, "the GraphQL schema cannot be loaded", hub.DocRest)
	}
	engine := graphql.Engine{Schema: schema, Unsupported: unsupportedGraphQL, Mutations: map[string]graphql.Resolver{}, Queries: map[string]graphql.Resolver{}}
	for name, run := range gqlMutations {
		engine.Mutations[name] = func(f graphql.Field) (hub.Obj, *graphql.Error) { return run(h, c, f) }
	}
	for name, run := range gqlQueries {
		engine.Queries[name] = func(f graphql.Field) (hub.Obj, *graphql.Error) { return run(h, c, f) }
	}
	projects.Install(h.Hub, c, &engine) // Projects (v2): package projects
	return hub.OkReply(200, engine.Execute(in.Query, in.OperationName, in.Variables))
}

// mutationInput is a mutation field's only argument, input, as an input object (the schema's
// validation has made sure it is one).
func mutationInput(f graphql.Field) map[string]any {
	fields, _ := f.Args["input"].(map[string]any)
	return fields
}

// draftMutation runs convertPullRequestToDraft or markPullRequestReadyForReview for one field.
func (h *api) draftMutation(c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error) {
	fields := mutationInput(f)
	id, _ := fields["pullRequestId"].(string)
	r, p, found := h.pullByNodeID(id)
	if !found || h.Perm(c.Tok, r) == hub.PermNone {
		return nil, graphql.Refusal(graphql.NotFound, "Could not resolve to a node with the global id of '"+id+"'.")
	}
	if h.Perm(c.Tok, r) != hub.PermWrite {
		return nil, graphql.Refusal(graphql.Forbidden, "Resource not accessible by personal access token")
	}
	draft := f.Name == "convertPullRequestToDraft"
	if p.State != "open" {
		return nil, graphql.Refusal(graphql.Unprocessable, "Pull request is closed; its draft state cannot change")
	}
	payload := hub.Obj{"__typename": strings.ToUpper(f.Name[:1]) + f.Name[1:] + "Payload", "clientMutationId": fields["clientMutationId"], "pullRequest": c.PullNode(r, p)}
	if _, serr := f.Select(payload); serr != nil {
		return nil, serr
	}
	if p.Draft != draft {
		p.Draft = draft
		p.Updated = h.Stamp()
		payload["pullRequest"] = c.PullNode(r, p)
	}
	return f.Select(payload)
}

// api serves this area's routes over the shared hub; its methods are the area's handlers.
type api struct{ *hub.Hub }

// Register adds this area's routes to h through add (see hub.New).
func Register(h *hub.Hub, add hub.AddFunc) { (&api{h}).registerGraphQL(add) }
