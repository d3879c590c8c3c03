package fakehub_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
)

// The GraphQL documents github-mcp-server sends to close an issue as a duplicate and to rename
// a label, and the reopen mutation.
const (
	issueIDsDoc  = `query($owner: String!, $repo: String!, $n: Int!, $d: Int!) { repository(owner: $owner, name: $repo) { issue(number: $n) { id } duplicateIssue: issue(number: $d) { id } } }`
	closeDoc     = `mutation($input: CloseIssueInput!) { closeIssue(input: $input) { issue { id number url state stateReason } } }`
	reopenDoc    = `mutation($id: ID!) { reopenIssue(input: {issueId: $id, clientMutationId: "x"}) { clientMutationId issue { number state stateReason } } }`
	labelIDDoc   = `query($owner: String!, $repo: String!, $name: String!) { repository(owner: $owner, name: $repo) { label(name: $name) { id name color description } } }`
	updateLblDoc = `mutation($input: UpdateLabelInput!) { updateLabel(input: $input) { label { name id color } } }`
)

// TestIssueMutations: closeIssue (as a duplicate, and a refused duplicate), reopenIssue and
// updateLabel change what the REST API reads back, and refuse what GitHub refuses without
// changing anything.
func TestIssueMutations(t *testing.T) {
	s := startHub(t, fakehub.Config{})
	odd := demoIssueNumber(t, s, "Odd greeting for an empty name")
	orig := demoIssueNumber(t, s, "Greeting ignores empty names")
	vars := map[string]any{"owner": "octo-org", "repo": "hello-world", "n": odd, "d": orig}
	a := gqlMutate(t, s.URL, fakehub.DemoToken, issueIDsDoc, vars)
	var ids struct {
		Issue, DuplicateIssue struct{ ID string }
	}
	if len(a.Errors) != 0 || json.Unmarshal(a.Data["repository"], &ids) != nil || ids.Issue.ID == "" || ids.DuplicateIssue.ID == "" {
		t.Fatalf("issue ids: %+v %s", a.Errors, a.Data["repository"])
	}
	rest := func(n int) map[string]any {
		var is map[string]any
		getJSON(t, s.URL+"repos/octo-org/hello-world/issues/"+strconv.Itoa(n), writer, &is)
		return is
	}
	for _, tc := range []struct {
		name, token, doc string
		vars             map[string]any
		errType          string
		want             string // in the payload
		state, reason    string // of the issue afterwards, over REST
	}{
		{"a reader cannot close", readOnly, closeDoc, map[string]any{"input": map[string]any{"issueId": ids.Issue.ID}}, "FORBIDDEN", "", "open", ""},
		{"an unknown id", fakehub.DemoToken, closeDoc, map[string]any{"input": map[string]any{"issueId": "I_nope"}}, "NOT_FOUND", "", "open", ""},
		{"a duplicate of itself", fakehub.DemoToken, closeDoc, map[string]any{"input": map[string]any{"issueId": ids.Issue.ID, "stateReason": "DUPLICATE", "duplicateIssueId": ids.Issue.ID}}, "NOT_FOUND", "", "open", ""},
		{"a duplicate without the reason", fakehub.DemoToken, closeDoc, map[string]any{"input": map[string]any{"issueId": ids.Issue.ID, "duplicateIssueId": ids.DuplicateIssue.ID}}, "UNPROCESSABLE", "", "open", ""},
		{"closed as a duplicate", fakehub.DemoToken, closeDoc, map[string]any{"input": map[string]any{"issueId": ids.Issue.ID, "stateReason": "DUPLICATE", "duplicateIssueId": ids.DuplicateIssue.ID}}, "", `"state":"CLOSED","stateReason":"DUPLICATE"`, "closed", "duplicate"},
		{"reopened", fakehub.DemoToken, reopenDoc, map[string]any{"id": ids.Issue.ID}, "", `"state":"OPEN","stateReason":"REOPENED"`, "open", "reopened"},
		{"closed as not planned", fakehub.DemoToken, closeDoc, map[string]any{"input": map[string]any{"issueId": ids.Issue.ID, "stateReason": "NOT_PLANNED"}}, "", `"stateReason":"NOT_PLANNED"`, "closed", "not_planned"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := gqlMutate(t, s.URL, tc.token, tc.doc, tc.vars)
			switch {
			case tc.errType != "" && (len(a.Errors) != 1 || a.Errors[0].Type != tc.errType):
				t.Errorf("errors %+v, want one %s", a.Errors, tc.errType)
			case tc.errType == "" && len(a.Errors) != 0:
				t.Errorf("errors %+v", a.Errors)
			}
			for _, d := range a.Data {
				if tc.want != "" && !strings.Contains(string(d), tc.want) {
					t.Errorf("payload %s, want %s", d, tc.want)
				}
			}
			is := rest(odd)
			if is["state"] != tc.state || (tc.reason != "" && is["state_reason"] != tc.reason) {
				t.Errorf("over REST the issue is %v (%v), want %s (%s)", is["state"], is["state_reason"], tc.state, tc.reason)
			}
		})
	}

	t.Run("labels", func(t *testing.T) {
		a := gqlMutate(t, s.URL, fakehub.DemoToken, labelIDDoc, map[string]any{"owner": "octo-org", "repo": "hello-world", "name": "Enhancement"})
		var got struct {
			Label *struct{ ID, Name, Color string }
		}
		if len(a.Errors) != 0 || json.Unmarshal(a.Data["repository"], &got) != nil || got.Label == nil || got.Label.Name != "enhancement" {
			t.Fatalf("label: %+v %s", a.Errors, a.Data["repository"])
		}
		a = gqlMutate(t, s.URL, fakehub.DemoToken, labelIDDoc, map[string]any{"owner": "octo-org", "repo": "hello-world", "name": "no such label"})
		if len(a.Errors) != 0 || !strings.Contains(string(a.Data["repository"]), `"label":null`) {
			t.Fatalf("a missing label: %+v %s", a.Errors, a.Data["repository"])
		}
		for _, bad := range []struct{ name, errType string }{{"bug", "UNPROCESSABLE"}, {" ", "UNPROCESSABLE"}} {
			a = gqlMutate(t, s.URL, fakehub.DemoToken, updateLblDoc, map[string]any{"input": map[string]any{"id": got.Label.ID, "name": bad.name}})
			if len(a.Errors) != 1 || a.Errors[0].Type != bad.errType {
				t.Errorf("renaming to %q: %+v, want %s", bad.name, a.Errors, bad.errType)
			}
		}
		a = gqlMutate(t, s.URL, readOnly, updateLblDoc, map[string]any{"input": map[string]any{"id": got.Label.ID, "name": "feature"}})
		if len(a.Errors) != 1 || a.Errors[0].Type != "FORBIDDEN" {
			t.Errorf("a reader renaming: %+v", a.Errors)
		}
		a = gqlMutate(t, s.URL, fakehub.DemoToken, updateLblDoc, map[string]any{"input": map[string]any{"id": got.Label.ID, "name": "feature", "color": "00FF00"}})
		var upd struct {
			Label struct{ ID, Name, Color string }
		}
		if len(a.Errors) != 0 || json.Unmarshal(a.Data["updateLabel"], &upd) != nil || upd.Label.Name != "feature" || upd.Label.ID != got.Label.ID || upd.Label.Color != "00ff00" {
			t.Fatalf("rename: %+v %s", a.Errors, a.Data["updateLabel"])
		}
		// The label keeps its issues and pull requests (demo pull request 2 has it).
		var pull struct{ Labels []struct{ Name string } }
		getJSON(t, s.URL+"repos/octo-org/hello-world/issues/2", writer, &pull)
		if len(pull.Labels) == 0 || pull.Labels[len(pull.Labels)-1].Name != "feature" {
			t.Errorf("pull request 2's labels after the rename: %+v", pull.Labels)
		}
	})
}
