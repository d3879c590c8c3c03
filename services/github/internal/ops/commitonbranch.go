package ops

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/google/go-github/v66/github"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/github/internal/ghstatus"
	"ghops.dev/services/github/internal/reposcope"
)

// maxCommitOnBranchBase64 caps the base64 contents one createCommitOnBranch
// may carry (40 MB). GitHub documents no size limit for the mutation, only
// that large requests may be refused or time out (GraphQL "Rate limits and
// query limits"); a commit_files call within the gateway's default 1 MB
// body cap is far below it. A larger call, possible when the body cap is
// raised, commits through the git data API instead, which sends the same
// bytes over several requests.
const maxCommitOnBranchBase64 = 40 << 20

// commitOnBranchMutation asks for the new commit's id only: commit_files
// answers commit_sha and parent_sha, and the parent is the expectedHeadOid
// the service sent.
const commitOnBranchMutation = `mutation($input: CreateCommitOnBranchInput!) { createCommitOnBranch(input: $input) { commit { oid } } }`

// commitAddition is one FileAddition of createCommitOnBranch.
type commitAddition struct {
	Path     string `json:"path"`
	Contents string `json:"contents"`
}

// commitOnBranchPlan is a commit_files call as createCommitOnBranch
// variables, or nil when the mutation cannot express it (then the git data
// API writes it).
type commitOnBranchPlan struct {
	headline, body string
	additions      []commitAddition
}

// planCommitOnBranch decides whether createCommitOnBranch can write req,
// and prepares its file additions. The mutation writes only regular files
// (mode 100644, what commit_files writes; no executable bit, no symlink),
// takes a message as a one-line headline plus a body that GitHub joins with
// one blank line, and carries every file in one request. So it is refused
// (nil), and the git data API writes the commit as it always did, for a
// message the mutation would not reproduce byte for byte (a blank first
// line, which GitHub refuses; a carriage return; a second line that is not
// blank; a body that starts or ends with a line break, or a message that
// ends with one), for base64 contents Go cannot decode, and for contents
// over maxCommitOnBranchBase64.
func planCommitOnBranch(req *ghopsv1.CommitFilesRequest) *commitOnBranchPlan {
	headline, body, multi := strings.Cut(req.GetMessage(), "\n")
	if strings.TrimSpace(headline) == "" || strings.ContainsRune(req.GetMessage(), '\r') {
		return nil
	}
	if multi {
		rest, ok := strings.CutPrefix(body, "\n")
		if !ok || rest == "" || strings.HasPrefix(rest, "\n") || strings.HasSuffix(rest, "\n") {
			return nil
		}
		body = rest
	}
	plan := &commitOnBranchPlan{headline: headline, body: body}
	total := 0
	for _, f := range req.GetFiles() {
		contents := f.GetContent()
		if f.GetEncoding() == "base64" {
			// Normalised to padded standard base64 (GraphQL's
			// Base64String); the protovalidate pattern lets unpadded
			// input through.
			data, err := base64.StdEncoding.DecodeString(contents)
			if err != nil {
				if data, err = base64.RawStdEncoding.DecodeString(contents); err != nil {
					return nil
				}
			}
			contents = base64.StdEncoding.EncodeToString(data)
		} else {
			contents = base64.StdEncoding.EncodeToString([]byte(contents))
		}
		total += len(contents)
		if total > maxCommitOnBranchBase64 {
			return nil
		}
		plan.additions = append(plan.additions, commitAddition{Path: f.GetPath(), Contents: contents})
	}
	return plan
}

// commitOnBranch writes plan as one commit on branch of repo through
// GraphQL's createCommitOnBranch, expecting the branch at parent, and
// returns the new commit's id. GitHub checks expectedHeadOid and moves the
// branch in the same step, so there is no separate ref update to lose: a
// moved head is its STALE_DATA refusal, and nothing was written.
//
// The mutation names its repository in the body, which the outbound guard
// (reposcope.Transport) does not read: POST /graphql is an allowed
// endpoint. So the repository is checked here against the call's scope
// before anything is sent; the service builds the body from the validated
// request only.
func commitOnBranch(ctx context.Context, gh *github.Client, repo, branch, parent string, plan *commitOnBranchPlan) (string, error) {
	endpoint := GraphQLURL(gh.BaseURL)
	if err := reposcope.CheckNamed(ctx, endpoint.EscapedPath(), repo); err != nil {
		return "", err
	}
	changes := map[string]any{"additions": plan.additions}
	message := map[string]any{"headline": plan.headline}
	if plan.body != "" {
		message["body"] = plan.body
	}
	body := map[string]any{
		"query": commitOnBranchMutation,
		"variables": map[string]any{"input": map[string]any{
			"branch":          map[string]any{"repositoryNameWithOwner": repo, "branchName": branch},
			"expectedHeadOid": parent,
			"message":         message,
			"fileChanges":     changes,
		}},
	}
	req, err := gh.NewRequest(http.MethodPost, endpoint.String(), body)
	if err != nil {
		return "", err
	}
	var out struct {
		Data struct {
			CreateCommitOnBranch *struct {
				Commit *struct {
					Oid string `json:"oid"`
				} `json:"commit"`
			} `json:"createCommitOnBranch"`
		} `json:"data"`
		Errors []ghstatus.GraphQLError `json:"errors"`
	}
	// A POST passes the retry and cache transports untouched: a commit is
	// never replayed.
	if _, err := gh.Do(ctx, req, &out); err != nil {
		return "", err
	}
	if len(out.Errors) > 0 {
		return "", &ghstatus.GraphQLErrors{Errors: out.Errors}
	}
	payload := out.Data.CreateCommitOnBranch
	if payload == nil || payload.Commit == nil || payload.Commit.Oid == "" {
		return "", errors.New("graphql answer without the commit")
	}
	return payload.Commit.Oid, nil
}

// commitFilesGraphQL is commit_files through createCommitOnBranch, with the
// error mapping of the git data path: a moved head is -32006 BRANCH_MOVED
// (issue 19: every lost race is), and so is a branch that went away after
// it was read (NOT_FOUND while the re-read finds it gone or moved); every
// other failure goes through the one translator (ghstatus).
func (s *Service) commitFilesGraphQL(ctx context.Context, gh *github.Client, c ghstatus.Context, req *ghopsv1.CommitFilesRequest, parent string, plan *commitOnBranchPlan) (string, error) {
	sha, err := commitOnBranch(ctx, gh, req.GetRepo(), req.GetBranch(), parent, plan)
	if err == nil {
		return sha, nil
	}
	typ := ghstatus.GraphQLType(err)
	if typ == ghstatus.GraphQLStaleData || typ == "NOT_FOUND" {
		owner, name := splitRepo(req.GetRepo())
		now, rerr := branchRef(ctx, gh, owner, name, req.GetBranch())
		moved := rerr == nil && now.GetObject().GetSHA() != parent
		gone := ghstatus.HTTPStatus(rerr) == http.StatusNotFound
		if moved {
			c.ActualSHA = now.GetObject().GetSHA()
		}
		// STALE_DATA with the head unchanged on re-read is a winner not
		// yet visible there: a lost race too.
		if typ == ghstatus.GraphQLStaleData || moved || gone {
			return "", ghstatus.BranchMoved(c, &ghopsv1.GitHubError{Status: http.StatusOK})
		}
	}
	return "", s.fail(ctx, err, c)
}
