package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"ghops.dev/gateway/gatewaytest"
)

const (
	keyOrgAgent = "ghk_orgagent_0123456789abcdef01234"
	keyNarrow   = "ghk_narrow_0123456789abcdef0123456"
)

// ownerPolicy has a principal that may create in octo-org (octo-org/*) and one limited to a
// single repository.
var ownerPolicy = `principals:
  - name: org-agent
    key_sha256: ` + sha256hex(keyOrgAgent) + `
    repos: ["octo-org/*"]
  - name: narrow
    key_sha256: ` + sha256hex(keyNarrow) + `
    repos: ["octo-org/hello-world"]
`

// TestRepositoryOwnerPolicy: create_repository and fork_repository need the target owner covered
// by an owner/* repos glob (a missing owner, the service's own account, by */*); a refusal is
// -32001 rule repos and reaches no GitHub endpoint; list_repositories is confined like any list.
func TestRepositoryOwnerPolicy(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: ownerPolicy})
	refused := []struct{ name, key, tool, args string }{
		{"create under another owner", keyOrgAgent, "create_repository", `{"owner":"evil-org","name":"x","private":false}`},
		{"create without an owner", keyOrgAgent, "create_repository", `{"name":"x","private":true}`},
		{"fork to the service's own account", keyOrgAgent, "fork_repository", `{"repo":"octo-org/hello-world"}`},
		{"fork to another owner", keyOrgAgent, "fork_repository", `{"repo":"octo-org/hello-world","owner":"octocat"}`},
		{"one repository is not its owner", keyNarrow, "create_repository", `{"owner":"octo-org","name":"x","private":false}`},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			before := githubCalls(st)
			_, out := rpcCall(t, st.URL, tc.tool, tc.args, "Authorization", "Bearer "+tc.key)
			if code, data := errOf(t, out); code != -32001 || !strings.Contains(string(data["policy"]), `"rule":"repos"`) {
				t.Fatalf("code %d %s", code, out["error"])
			}
			if githubCalls(st) != before {
				t.Error("a refused call reached GitHub")
			}
		})
	}
	t.Run("create in a covered organization", func(t *testing.T) {
		_, out := rpcCall(t, st.URL, "create_repository", `{"owner":"octo-org","name":"agent-made","private":false}`, "Authorization", "Bearer "+keyOrgAgent)
		if !strings.Contains(string(out["result"]), `"full_name":"octo-org/agent-made"`) {
			t.Fatalf("%s", out["error"])
		}
	})
	t.Run("fork into a covered organization", func(t *testing.T) {
		_, out := rpcCall(t, st.URL, "fork_repository", `{"repo":"octo-org/hello-world","owner":"octo-org","name":"hello-agent"}`, "Authorization", "Bearer "+keyOrgAgent)
		if !strings.Contains(string(out["result"]), `"full_name":"octo-org/hello-agent"`) {
			t.Fatalf("%s", out["error"])
		}
	})
	t.Run("list_repositories is confined", func(t *testing.T) {
		_, out := rpcCall(t, st.URL, "list_repositories", `{"owner":"octo-org"}`, "Authorization", "Bearer "+keyNarrow)
		var r struct {
			Repositories []struct {
				FullName string `json:"full_name"`
			} `json:"repositories"`
		}
		if err := json.Unmarshal(out["result"], &r); err != nil {
			t.Fatalf("%s (%v)", out["error"], err)
		}
		if len(r.Repositories) != 1 || r.Repositories[0].FullName != "octo-org/hello-world" {
			t.Errorf("got %+v, want only octo-org/hello-world", r.Repositories)
		}
	})
}
