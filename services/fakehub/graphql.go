package fakehub

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"ghops.dev/services/fakehub/internal/graphql"
)

// GitHub's GraphQL API answers failures with HTTP 200 and an errors list whose entries carry a type.
const (
	gqlNotFound      = "NOT_FOUND"
	gqlForbidden     = "FORBIDDEN"
	gqlUnprocessable = "UNPROCESSABLE"
	// gqlUnsupported marks everything fakehub does not implement.
	gqlUnsupported = "UNSUPPORTED"
)

const docGraphQLAuth = "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql"

// unsupportedGraphQL is the message for every operation beyond the mutations fakehub serves.
const unsupportedGraphQL = "fakehub implements only the mutations convertPullRequestToDraft, markPullRequestReadyForReview and createCommitOnBranch"

// gqlMutations are the mutations fakehub serves, by field name: the two that change a pull
// request's draft state (GitHub's REST API cannot) and createCommitOnBranch (a commit of any
// number of files in one request).
var gqlMutations = map[string]func(h *Hub, c *reqCtx, doc *graphql.Document, f *graphql.Field, vars map[string]any) (obj, *gqlError){
	"convertPullRequestToDraft":     (*Hub).draftMutation,
	"markPullRequestReadyForReview": (*Hub).draftMutation,
	"createCommitOnBranch":          (*Hub).commitOnBranch,
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

type gqlError struct {
	typ, message string
	path         []any
	line, col    int
}

func (e gqlError) obj() obj {
	o := obj{"type": e.typ, "message": e.message}
	if e.path != nil {
		o["path"] = e.path
	}
	if e.line > 0 {
		o["locations"] = []obj{{"line": e.line, "column": e.col}}
	}
	return o
}

func gqlReply(data obj, errs ...gqlError) *reply {
	body := obj{}
	if data != nil {
		body["data"] = data
	}
	if len(errs) > 0 {
		list := make([]obj, len(errs))
		for i, e := range errs {
			list[i] = e.obj()
		}
		body["errors"] = list
	}
	return okReply(200, body)
}

func gqlUnsupportedReply(detail string) *reply {
	msg := unsupportedGraphQL
	if detail != "" {
		msg += " (" + detail + ")"
	}
	return gqlReply(nil, gqlError{typ: gqlUnsupported, message: msg})
}

// graphqlHandler serves POST /graphql (and /api/graphql, the Enterprise layout) for the
// mutations of gqlMutations. The body may be as large as a REST one (decode's 64 MB): a
// createCommitOnBranch carries whole files in base64.
func (h *Hub) graphqlHandler(c *reqCtx) *reply {
	if c.tok == nil {
		return errReply(401, "This endpoint requires you to be authenticated.", docGraphQLAuth)
	}
	data, err := io.ReadAll(io.LimitReader(c.r.Body, 64<<20))
	if err != nil {
		return errReply(400, "Problems parsing JSON", docRest)
	}
	var in struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return errReply(400, "Problems parsing JSON", docRest)
	}
	doc, perr := graphql.Parse(in.Query)
	if perr != nil {
		return gqlUnsupportedReply(perr.Error())
	}
	if doc.Operation != "mutation" {
		return gqlUnsupportedReply(doc.Operation + " operations")
	}
	for _, f := range doc.Fields {
		if gqlMutations[f.Name] == nil {
			return gqlUnsupportedReply("field " + f.Name)
		}
	}
	out := obj{}
	var errs []gqlError
	for _, f := range doc.Fields {
		v, gerr := gqlMutations[f.Name](h, c, doc, f, in.Variables)
		if gerr != nil {
			gerr.path = []any{f.Key()}
			if gerr.line == 0 {
				gerr.line, gerr.col = f.Line, f.Column
			}
			errs = append(errs, *gerr)
			out[f.Key()] = nil
			continue
		}
		out[f.Key()] = v
	}
	return gqlReply(out, errs...)
}

// mutationInput resolves a mutation field's only argument, input, to its input object.
func mutationInput(doc *graphql.Document, f *graphql.Field, vars map[string]any) (map[string]any, *gqlError) {
	for name := range f.Args {
		if name != "input" {
			return nil, &gqlError{typ: gqlUnprocessable, message: "Field '" + f.Name + "' doesn't accept argument '" + name + "'"}
		}
	}
	input, err := doc.Resolve(f.Args["input"], vars)
	if err != nil {
		return nil, &gqlError{typ: gqlUnprocessable, message: err.Error()}
	}
	fields, ok := input.(map[string]any)
	if !ok {
		return nil, &gqlError{typ: gqlUnprocessable, message: "Argument 'input' on Field '" + f.Name + "' must be an input object"}
	}
	return fields, nil
}

// draftMutation runs convertPullRequestToDraft or markPullRequestReadyForReview for one field.
func (h *Hub) draftMutation(c *reqCtx, doc *graphql.Document, f *graphql.Field, vars map[string]any) (obj, *gqlError) {
	fields, gerr := mutationInput(doc, f, vars)
	if gerr != nil {
		return nil, gerr
	}
	id, ok := fields["pullRequestId"].(string)
	if !ok {
		return nil, &gqlError{typ: gqlUnprocessable, message: "Argument 'pullRequestId' on InputObject '" + strings.ToUpper(f.Name[:1]) + f.Name[1:] + "Input' must be an ID"}
	}
	for k := range fields {
		if k != "pullRequestId" && k != "clientMutationId" {
			return nil, &gqlError{typ: gqlUnprocessable, message: "InputObject doesn't accept argument '" + k + "'"}
		}
	}
	r, p, found := h.pullByNodeID(id)
	if !found || h.perm(c.tok, r) == PermNone {
		return nil, &gqlError{typ: gqlNotFound, message: "Could not resolve to a node with the global id of '" + id + "'."}
	}
	if h.perm(c.tok, r) != PermWrite {
		return nil, &gqlError{typ: gqlForbidden, message: "Resource not accessible by personal access token"}
	}
	draft := f.Name == "convertPullRequestToDraft"
	if p.state != "open" {
		return nil, &gqlError{typ: gqlUnprocessable, message: "Pull request is closed; its draft state cannot change"}
	}
	if p.draft != draft {
		p.draft = draft
		p.updated = h.stamp()
	}
	payload := obj{"__typename": strings.ToUpper(f.Name[:1]) + f.Name[1:] + "Payload", "clientMutationId": fields["clientMutationId"], "pullRequest": c.pullNode(r, p)}
	res, serr := gqlSelect(payload, f.Fields, payload["__typename"].(string))
	if serr != nil {
		return nil, serr
	}
	return res, nil
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

// gqlSelect answers a selection set from a resolved object: objects need a selection, scalars
// must have none, and a field fakehub does not model is reported as unsupported.
func gqlSelect(o obj, sel []*graphql.Field, typ string) (obj, *gqlError) {
	if sel == nil {
		return nil, &gqlError{typ: gqlUnprocessable, message: "Field of type '" + typ + "' must have a selection of subfields"}
	}
	out := obj{}
	for _, f := range sel {
		v, ok := o[f.Name]
		if !ok {
			return nil, &gqlError{typ: gqlUnsupported, message: unsupportedGraphQL + " (field '" + f.Name + "' on type '" + typ + "' is not implemented)", line: f.Line, col: f.Column}
		}
		if len(f.Args) > 0 {
			return nil, &gqlError{typ: gqlUnprocessable, message: "Field '" + f.Name + "' doesn't accept arguments", line: f.Line, col: f.Column}
		}
		if sub, isObj := v.(obj); isObj {
			res, err := gqlSelect(sub, f.Fields, sub["__typename"].(string))
			if err != nil {
				return nil, err
			}
			out[f.Key()] = res
			continue
		}
		if f.Fields != nil {
			return nil, &gqlError{typ: gqlUnprocessable, message: "Selections can't be made on scalars (field '" + f.Name + "')", line: f.Line, col: f.Column}
		}
		out[f.Key()] = v
	}
	return out, nil
}
