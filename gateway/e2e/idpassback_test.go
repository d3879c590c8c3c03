package e2e

import (
	"bytes"
	"encoding/json"
	"testing"

	"ghops.dev/gateway/gatewaytest"
)

// reviewIDs is the part of list_pull_request_reviews' answer the agent
// passes back: each review's id exactly as the answer wrote it.
type reviewIDs struct {
	Reviews []struct {
		ID    json.RawMessage `json:"id"`
		State string          `json:"state"`
	} `json:"reviews"`
}

// TestAnswerIDsPassBackAsGiven: an id an answer gives is passed back to the
// tool that takes it byte for byte, through the MCP SDK, the gateway, the
// service and fakehub: list_pull_request_reviews' id into submit_review's
// and delete_pending_review's review_id (get_ci_failures' job_id into
// get_job_log is the same in TestTaskFixFailingPullRequest). The ids are JSON numbers; as
// protojson's strings, the input validation refused them (-32602).
func TestAnswerIDsPassBackAsGiven(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{})
	a := newAgent(t, st.URL+"/mcp")
	const branch = "feature/ids"
	a.call("create_branch", map[string]any{"repo": repo, "branch": branch}, nil)
	var commit struct {
		CommitSHA string `json:"commit_sha"`
	}
	a.call("commit_files", map[string]any{"repo": repo, "branch": branch, "message": "Add ids", "files": []any{
		map[string]any{"path": "ids.txt", "content": "ids\n"},
	}}, &commit)
	var pr struct {
		PullRequest struct {
			Number int `json:"number"`
		} `json:"pull_request"`
	}
	a.call("create_pull_request", map[string]any{"repo": repo, "title": "Ids", "head": branch, "base": "main"}, &pr)
	n := pr.PullRequest.Number

	// pending reads the one pending review's id from the list, as given.
	pending := func() json.RawMessage {
		t.Helper()
		var rs reviewIDs
		a.call("list_pull_request_reviews", map[string]any{"repo": repo, "prNumber": n}, &rs)
		var id json.RawMessage
		for _, r := range rs.Reviews {
			if r.State == "pending" {
				id = r.ID
			}
		}
		if id == nil {
			t.Fatalf("no pending review in %+v", rs)
		}
		if bytes.HasPrefix(id, []byte(`"`)) {
			t.Fatalf("review id %s is a string, want a JSON number", id)
		}
		return id
	}

	// A pending review, deleted by the id the list gave.
	a.call("create_review", map[string]any{"repo": repo, "prNumber": n, "commit_sha": commit.CommitSHA, "body": "first"}, nil)
	a.call("delete_pending_review", map[string]any{"repo": repo, "prNumber": n, "review_id": pending()}, nil)

	// Another, submitted by the id the list gave.
	a.call("create_review", map[string]any{"repo": repo, "prNumber": n, "commit_sha": commit.CommitSHA, "body": "second"}, nil)
	id := pending()
	var submitted struct {
		ID    json.RawMessage `json:"id"`
		State string          `json:"state"`
	}
	a.call("submit_review", map[string]any{"repo": repo, "prNumber": n, "review_id": id, "event": "comment"}, &submitted)
	if !bytes.Equal(submitted.ID, id) || submitted.State != "commented" {
		t.Fatalf("submit_review answered %s %q, want id %s commented", submitted.ID, submitted.State, id)
	}
}
