package graphqlapi

import (
	"encoding/base64"
	"strings"
	"time"

	"ghops.dev/services/fakehub/internal/gitstore"
	"ghops.dev/services/fakehub/internal/graphql"
	"ghops.dev/services/fakehub/internal/hub"
	"github.com/go-git/go-git/v5/plumbing"
)

// gqlStaleData is the type GitHub gives createCommitOnBranch's refusal when the branch no longer
// points to expectedHeadOid.
const gqlStaleData = "STALE_DATA"

// commitOnBranch runs the createCommitOnBranch mutation for one field as GitHub documents it
// (GraphQL reference, "createCommitOnBranch"): the branch named by repositoryNameWithOwner and
// branchName must point to expectedHeadOid, and fileChanges (additions with base64 contents,
// deletions) become one commit whose only parent is that head, authored by the token's user
// and committed by GitHub, as web commits are. Everything is checked before anything is
// written, so a refused mutation changes nothing.
func (h *api) commitOnBranch(c *hub.ReqCtx, f graphql.Field) (hub.Obj, *graphql.Error) {
	fields := mutationInput(f)
	in, gerr := parseCommitRequest(fields)
	if gerr != nil {
		return nil, gerr
	}
	repoName, branchName, expected, headline, body := in.repoName, in.branchName, in.expected, in.headline, in.body
	additions, deletions := in.additions, in.deletions
	unprocessable := func(msg string) (hub.Obj, *graphql.Error) {
		return nil, graphql.Refusal(graphql.Unprocessable, msg)
	}

	r, found := h.Repos[hub.RepoKey(repoName)]
	if !found || h.Perm(c.Tok, r) == hub.PermNone {
		return nil, graphql.Refusal(graphql.NotFound, "Could not resolve to a Repository with the name '"+repoName+"'.")
	}
	if h.Perm(c.Tok, r) != hub.PermWrite {
		return nil, graphql.Refusal(graphql.Forbidden, "Resource not accessible by personal access token")
	}
	ref := "refs/heads/" + strings.TrimPrefix(branchName, "refs/heads/")
	head, err := r.Git.Ref(ref)
	if err != nil {
		return nil, graphql.Refusal(graphql.NotFound, "Could not resolve to a Ref named '"+ref+"'.")
	}
	if head.String() != expected {
		return nil, graphql.Refusal(gqlStaleData, `Expected branch to point to "`+expected+`" but it did not. Pull and try again.`)
	}
	files, gerr := r.ChangedFiles(head, expected, additions, deletions)
	if gerr != nil {
		return nil, gerr
	}
	text := headline
	if body != "" {
		text += "\n\n" + body
	}
	payload := func(sha, tree plumbing.Hash, now time.Time) hub.Obj {
		return hub.Obj{
			"__typename": "CreateCommitOnBranchPayload", "clientMutationId": fields["clientMutationId"],
			"commit": hub.Obj{
				"__typename": "Commit", "oid": sha.String(), "abbreviatedOid": sha.String()[:7],
				"url":     c.Web + "/" + r.FullName() + "/commit/" + sha.String(),
				"message": text, "messageHeadline": headline, "messageBody": body, "committedDate": hub.Ts(now),
				"tree": hub.Obj{"__typename": "Tree", "oid": tree.String()},
			},
			"ref": hub.Obj{
				"__typename": "Ref", "name": strings.TrimPrefix(ref, "refs/heads/"), "prefix": "refs/heads/",
				"target": hub.Obj{"__typename": "Commit", "oid": sha.String(), "abbreviatedOid": sha.String()[:7]},
			},
		}
	}
	// GitHub validates the whole document before it runs: a selection fakehub cannot answer
	// is refused before anything is written.
	if _, serr := f.Select(payload(plumbing.ZeroHash, plumbing.ZeroHash, time.Time{})); serr != nil {
		return nil, serr
	}
	tree, err := r.Git.WriteTree(files)
	if err != nil {
		// A file where a directory is needed, or the reverse.
		return unprocessable("The file changes cannot be applied: " + err.Error())
	}
	now := h.Stamp()
	login := c.Tok.Login
	author := gitstore.Signature{Name: login, Email: login + "@users.noreply.github.com", When: now}
	sha, err := r.Git.WriteCommit(tree, []plumbing.Hash{head}, text, author, hub.SystemSig(now))
	if err != nil {
		return unprocessable("the commit cannot be written")
	}
	if err := r.Git.SetRef(ref, sha); err != nil {
		return unprocessable("the branch cannot be updated")
	}
	r.Pushed = now
	return f.Select(payload(sha, tree, now))
}

// commitRequest is a createCommitOnBranch input, checked.
type commitRequest struct {
	repoName, branchName, expected, headline, body string
	additions                                      []hub.FileAddition
	deletions                                      []string
}

// parseCommitRequest checks a CreateCommitOnBranchInput as GitHub does before it looks at the
// repository.
func parseCommitRequest(fields map[string]any) (*commitRequest, *graphql.Error) {
	unprocessable := func(msg string) (*commitRequest, *graphql.Error) {
		return nil, graphql.Refusal(graphql.Unprocessable, msg)
	}
	for k := range fields {
		switch k {
		case "branch", "expectedHeadOid", "message", "fileChanges", "clientMutationId":
		default:
			return unprocessable("InputObject 'CreateCommitOnBranchInput' doesn't accept argument '" + k + "'")
		}
	}
	branch, _ := fields["branch"].(map[string]any)
	repoName, _ := branch["repositoryNameWithOwner"].(string)
	branchName, _ := branch["branchName"].(string)
	if _, byID := branch["id"]; byID {
		// A branch's global node id is the other documented way to name it; fakehub gives refs
		// no resolvable node ids, so only the name form is served.
		return nil, graphql.Refusal(graphql.Unsupported, unsupportedGraphQL+" (CommittableBranch.id)")
	}
	if repoName == "" || branchName == "" {
		return unprocessable("Argument 'branch' on InputObject 'CreateCommitOnBranchInput' needs repositoryNameWithOwner and branchName")
	}
	expected, _ := fields["expectedHeadOid"].(string)
	if !hub.HexSHA.MatchString(expected) {
		return unprocessable("Argument 'expectedHeadOid' on InputObject 'CreateCommitOnBranchInput' has an invalid value; expected type 'GitObjectID!'")
	}
	message, _ := fields["message"].(map[string]any)
	headline, _ := message["headline"].(string)
	body, _ := message["body"].(string)
	if strings.TrimSpace(headline) == "" {
		return unprocessable("Argument 'message' on InputObject 'CreateCommitOnBranchInput' needs a headline")
	}
	if strings.ContainsAny(headline, "\r\n") {
		return unprocessable("The commit message headline cannot contain a line break")
	}
	additions, deletions, gerr := fileChanges(fields["fileChanges"])
	if gerr != nil {
		return nil, gerr
	}
	return &commitRequest{repoName: repoName, branchName: branchName, expected: expected, headline: headline, body: body,
		additions: additions, deletions: deletions}, nil
}

// fileChanges reads a FileChanges input object: additions of {path, contents} with base64
// contents, deletions of {path}. A path given twice, or both added and deleted, is refused.
func fileChanges(v any) ([]hub.FileAddition, []string, *graphql.Error) {
	bad := func(msg string) ([]hub.FileAddition, []string, *graphql.Error) {
		return nil, nil, graphql.Refusal(graphql.Unprocessable, msg)
	}
	if v == nil {
		return nil, nil, nil
	}
	changes, ok := v.(map[string]any)
	if !ok {
		return bad("Argument 'fileChanges' on InputObject 'CreateCommitOnBranchInput' must be an input object")
	}
	seen := map[string]bool{}
	path := func(item any) (string, map[string]any, bool) {
		m, ok := item.(map[string]any)
		if !ok {
			return "", nil, false
		}
		p, _ := m["path"].(string)
		if p == "" || !hub.SafeTreePath(p) || seen[p] {
			return "", nil, false
		}
		seen[p] = true
		return p, m, true
	}
	var adds []hub.FileAddition
	var dels []string
	for k, list := range changes {
		items, ok := list.([]any)
		if !ok && list != nil {
			return bad("Argument '" + k + "' on InputObject 'FileChanges' must be a list")
		}
		switch k {
		case "additions":
			for _, item := range items {
				p, m, ok := path(item)
				if !ok {
					return bad("Each file addition needs a valid path, given once")
				}
				enc, _ := m["contents"].(string)
				data, err := base64.StdEncoding.DecodeString(enc)
				if _, has := m["contents"]; !has || err != nil {
					return bad("The contents of " + p + " are not valid Base64String")
				}
				adds = append(adds, hub.FileAddition{Path: p, Data: data})
			}
		case "deletions":
			for _, item := range items {
				p, _, ok := path(item)
				if !ok {
					return bad("Each file deletion needs a valid path, given once")
				}
				dels = append(dels, p)
			}
		default:
			return bad("InputObject 'FileChanges' doesn't accept argument '" + k + "'")
		}
	}
	return adds, dels, nil
}
