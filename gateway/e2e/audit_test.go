package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"ghops.dev/gateway/gatewaytest"
)

// TestAuditNamesTheResource runs writes through the whole stack (gateway,
// service, fakehub on 127.0.0.1) and reads their audit records: each names
// what it changed, from the contract's markings: the issue a comment went
// to and the comment's id, the issue an update changed, the branch a
// create_branch made.
func TestAuditNamesTheResource(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{})
	const repo = "octo-org/hello-world"
	_, out := rpcCall(t, st.URL, "add_issue_comment", `{"repo":"`+repo+`","issueNumber":4,"body":"Confirmed."}`, "X-Request-Id", "audit-comment")
	var comment struct {
		ID json.Number `json:"id"`
	}
	if err := json.Unmarshal(out["result"], &comment); err != nil || comment.ID == "" {
		t.Fatalf("add_issue_comment: %s %s", out["result"], out["error"])
	}
	if _, out := rpcCall(t, st.URL, "update_issue", `{"repo":"`+repo+`","issueNumber":4,"title":"Empty names greet nobody"}`, "X-Request-Id", "audit-update"); out["result"] == nil {
		t.Fatalf("update_issue: %s", out["error"])
	}
	if _, out := rpcCall(t, st.URL, "create_branch", `{"repo":"`+repo+`","branch":"audit/new"}`, "X-Request-Id", "audit-branch"); out["result"] == nil {
		t.Fatalf("create_branch: %s", out["error"])
	}
	want := map[string]map[string]string{
		"audit-comment": {"repository": repo, "issue": "4", "comment": comment.ID.String()},
		"audit-update":  {"repository": repo, "issue": "4"},
		"audit-branch":  {"repository": repo, "ref": "audit/new"},
	}
	got := map[string]map[string]string{}
	for _, line := range strings.Split(st.Gateway.Logs(), "\n") {
		var r struct {
			Msg       string         `json:"msg"`
			RequestID string         `json:"request_id"`
			Resource  map[string]any `json:"resource"`
		}
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber() // ids as written, not as floats
		if d.Decode(&r) != nil || r.Msg != "audit" {
			continue
		}
		m := map[string]string{}
		for k, v := range r.Resource {
			m[k] = fmt.Sprint(v)
		}
		got[r.RequestID] = m
	}
	for id, w := range want {
		g := got[id]
		if len(g) != len(w) {
			t.Errorf("%s: resource %v, want %v", id, g, w)
			continue
		}
		for k, v := range w {
			if g[k] != v {
				t.Errorf("%s: resource.%s = %q, want %q (%v)", id, k, g[k], v, g)
			}
		}
	}
}
