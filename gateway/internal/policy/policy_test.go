package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var tools = []string{"search", "read_file", "get_branches", "commit_files", "merge_pull_request"}

func keyHash(k string) string {
	s := sha256.Sum256([]byte(k))
	return hex.EncodeToString(s[:])
}

// TestParseRefuses: every mistake in a policy file is an error naming it.
func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"empty", ``, "not a valid policy document"},
		{"nobody", `principals: []`, "would refuse everyone"},
		{"unknown field", "principals:\n  - name: a\n    readonly: true\n", "field readonly not found"},
		{"bad name", "principals:\n  - name: \"a b\"\n", "must be 1-100"},
		{"duplicate name", "principals:\n  - name: a\n  - name: a\n", "named twice"},
		{"short hash", "principals:\n  - name: a\n    key_sha256: abc\n", "64 lowercase hex"},
		{"uppercase hash", "principals:\n  - name: a\n    key_sha256: " + strings.ToUpper(keyHash("k")) + "\n", "64 lowercase hex"},
		{"same key twice", "principals:\n  - name: a\n    key_sha256: " + keyHash("k") + "\n  - name: b\n    key_sha256: " + keyHash("k") + "\n", "same key"},
		{"tool glob matches nothing", "principals:\n  - name: a\n    tools: [reed_file]\n", `"reed_file" matches no tool`},
		{"bad glob", "principals:\n  - name: a\n    tools: [\"[\"]\n", "tools glob"},
		{"repo not owner/name", "principals:\n  - name: a\n    repos: [octo-org]\n", "owner/name"},
		{"negative rate", "principals:\n  - name: a\n    rate_per_minute: -1\n", "must not be negative"},
		{"bad default", "default:\n  tools: [nope]\n", "default: tools entry"},
		{"github principal with a key", "principals:\n  - name: github:octocat\n    key_sha256: " + keyHash("k") + "\n", "has no API key"},
		{"oidc principal with a key", "principals:\n  - name: oidc:auth0|1\n    key_sha256: " + keyHash("k") + "\n", "has no API key"},
		{"bad github login", "principals:\n  - name: github:octo_cat\n", "github:<login>"},
		{"oidc claim with a space", "principals:\n  - name: \"oidc:a b\"\n", "oidc:<claim value>"},
		{"unknown kind", "principals:\n  - name: gitlab:octocat\n", "must be 1-100"},
		{"unknown toolset", "principals:\n  - name: a\n    toolsets: [repos, issue]\n", `principal "a": toolsets: unknown toolset "issue" (toolsets: repos, pulls, issues, actions, search, meta, projects)`},
		{"toolsets not a list", "principals:\n  - name: a\n    toolsets: repos\n", "not a valid policy document"},
		{"unknown toolset in the default", "default:\n  toolsets: [all]\n", `default: toolsets: unknown toolset "all"`},
		{"same login in two cases", "principals:\n  - name: github:octocat\n  - name: github:OctoCat\n", "named twice"},
		{"unknown content trust", "principals:\n  - name: a\n    content_trust: none\n", `principal "a": content_trust: "none" must be "all" or "collaborators"`},
		{"content trust in capitals", "principals:\n  - name: a\n    content_trust: ALL\n", `principal "a": content_trust: "ALL" must be "all" or "collaborators"`},
		{"unknown content trust in the default", "default:\n  content_trust: trusted\n", `default: content_trust: "trusted" must be`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc), tools)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestRules checks each rule and the order they apply in.
func TestRules(t *testing.T) {
	doc := `principals:
  - name: ci-bot
    key_sha256: ` + keyHash("secret-key-1") + `
    read_only: true
    repos: ["octo-org/*"]
  - name: writer
    tools: ["commit_files", "read_*"]
    repos: ["octo-org/hello-world"]
default:
  read_only: true
`
	p, err := Parse([]byte(doc), tools)
	if err != nil {
		t.Fatal(err)
	}
	if pr := p.ByKey("secret-key-1"); pr == nil || pr.Name != "ci-bot" {
		t.Fatalf("ByKey: %+v", pr)
	}
	if p.ByKey("secret-key-2") != nil || p.ByKey("") != nil {
		t.Fatal("an unknown key matched")
	}
	if pr := p.ForIdentity(KindGitHub, "someone"); pr == nil || pr.Name != "github:someone" || !pr.ReadOnly {
		t.Fatalf("default: %+v", pr)
	}
	read := Tool{Name: "read_file", ReadOnly: true}
	write := Tool{Name: "commit_files"}
	merge := Tool{Name: "merge_pull_request"}
	tests := []struct {
		name     string
		pr       *Principal
		tool     Tool
		repo     string
		readOnly bool
		want     string // rule, "" for allowed
	}{
		{"read in its repos", p.ByKey("secret-key-1"), read, "octo-org/x", false, ""},
		{"read outside its repos", p.ByKey("secret-key-1"), read, "other/x", false, "repos"},
		{"write when read-only", p.ByKey("secret-key-1"), write, "octo-org/x", false, "read_only"},
		{"tool outside its tools", p.ForIdentity(KindGitHub, "writer"), merge, "octo-org/hello-world", false, "tools"},
		{"allowed write", p.ForIdentity(KindGitHub, "writer"), write, "octo-org/hello-world", false, ""},
		{"glob tool", p.ForIdentity(KindGitHub, "writer"), read, "octo-org/hello-world", false, ""},
		{"gateway read-only beats everything", p.ForIdentity(KindGitHub, "writer"), write, "octo-org/hello-world", true, "read_only"},
		{"no principal, no policy", nil, write, "any/repo", false, ""},
		{"no principal, read-only gateway", nil, write, "any/repo", true, "read_only"},
		{"repo rule skips tools without a repo", p.ByKey("secret-key-1"), Tool{Name: "search", ReadOnly: true}, "", false, ""},
		{"repo in another case is the same repo", p.ForIdentity(KindGitHub, "writer"), write, "Octo-Org/Hello-World", false, ""},
		{"repo in another case outside the globs", p.ByKey("secret-key-1"), read, "OTHER/x", false, "repos"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var repos []string
			if tc.repo != "" {
				repos = []string{tc.repo}
			}
			d := Check(tc.pr, tc.tool, repos, tc.readOnly)
			got := ""
			if d != nil {
				got = d.Rule
			}
			if got != tc.want {
				t.Fatalf("rule %q, want %q (%+v)", got, tc.want, d)
			}
		})
	}
	all := []Tool{{Name: "search", ReadOnly: true}, read, {Name: "get_branches", ReadOnly: true}, write, merge}
	if got := Allowed(p.ForIdentity(KindGitHub, "writer"), all, false); !slices.Equal(got, []string{"read_file", "commit_files"}) {
		t.Errorf("writer sees %v", got)
	}
	if got := Allowed(p.ByKey("secret-key-1"), all, false); !slices.Equal(got, []string{"search", "read_file", "get_branches"}) {
		t.Errorf("ci-bot sees %v", got)
	}
	if got := Allowed(nil, all, true); !slices.Equal(got, []string{"search", "read_file", "get_branches"}) {
		t.Errorf("read-only gateway lists %v", got)
	}
}

// TestNoDefaultRefusesStrangers: without a default, an identity with no
// entry maps to no principal.
func TestNoDefaultRefusesStrangers(t *testing.T) {
	p, err := Parse([]byte("principals:\n  - name: alice\n"), tools)
	if err != nil {
		t.Fatal(err)
	}
	if p.ForIdentity(KindGitHub, "mallory") != nil || p.ForIdentity(KindGitHub, "alice") == nil {
		t.Fatal("identity mapping")
	}
	if p.HasKeys() {
		t.Error("no keys configured, HasKeys true")
	}
}

// TestREADMEExample: the policy file README.md shows is one this package
// accepts, with the principals it describes.
func TestREADMEExample(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "# policy.yaml")
	if start < 0 {
		t.Fatal("README.md has no policy example")
	}
	end := strings.Index(doc[start:], "```")
	p, err := Parse([]byte(doc[start:start+end]), []string{"search", "fetch", "read_file", "get_tree", "get_branches", "create_pull_request", "commit_files"})
	if err != nil {
		t.Fatal(err)
	}
	if p.ByKey("foo") == nil || p.ByKey("foo").Name != "ci-bot" || p.ByKey("bar") == nil || !p.ByKey("foo").ReadOnly {
		t.Fatal("the README's principals are not what it says")
	}
	if tr := p.ByKey("baz"); tr == nil || tr.Name != "triager" || !slices.Equal(tr.Toolsets, []string{"issues", "search"}) {
		t.Fatalf("the README's triager is not what it says: %+v", tr)
	}
}

// TestIdentityKinds: principals are keyed by kind. A GitHub login or an
// OIDC subject equal to an API-key principal's name never gets that
// principal's rules or its quota name; the explicit github:/oidc: entries
// and keyless bare names (the earlier format) still map.
func TestIdentityKinds(t *testing.T) {
	doc := `principals:
  - name: ci-bot
    key_sha256: ` + keyHash("bot-key") + `
    tools: ["commit_files"]
  - name: github:OctoCat
    repos: ["octo-org/*"]
  - name: oidc:auth0|42
    read_only: true
  - name: alice
    tools: ["read_file"]
default:
  read_only: true
  repos: ["public/*"]
`
	p, err := Parse([]byte(doc), tools)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		kind     Kind
		identity string
		want     string // principal name; "" for refused
		wantRule string // a distinguishing rule: its tools[0] or repos[0]
	}{
		{"github login named like an API-key principal", KindGitHub, "ci-bot", "github:ci-bot", "public/*"},
		{"oidc subject named like an API-key principal", KindOIDC, "ci-bot", "oidc:ci-bot", "public/*"},
		{"explicit github entry, any case", KindGitHub, "octocat", "github:OctoCat", "octo-org/*"},
		{"explicit oidc entry", KindOIDC, "auth0|42", "oidc:auth0|42", ""},
		{"oidc entry is not a github login", KindGitHub, "auth0|42", "github:auth0|42", "public/*"},
		{"github entry is not an oidc subject", KindOIDC, "octocat", "oidc:octocat", "public/*"},
		{"keyless bare name maps for github", KindGitHub, "alice", "alice", "read_file"},
		{"keyless bare name maps for oidc", KindOIDC, "alice", "alice", "read_file"},
		{"local user keeps its bare name", KindLocal, "ci-bot", "ci-bot", "commit_files"},
		{"stranger gets the default under a qualified name", KindGitHub, "mallory", "github:mallory", "public/*"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pr := p.ForIdentity(tc.kind, tc.identity)
			if pr == nil || pr.Name != tc.want {
				t.Fatalf("principal %+v, want %q", pr, tc.want)
			}
			rule := ""
			switch {
			case len(pr.Tools) > 0:
				rule = pr.Tools[0]
			case len(pr.Repos) > 0:
				rule = pr.Repos[0]
			}
			if rule != tc.wantRule {
				t.Fatalf("rules %+v, want %q", pr.Rules, tc.wantRule)
			}
			if bot := p.ByKey("bot-key"); tc.kind != KindLocal && pr == bot {
				t.Fatal("an identity took the API-key principal")
			}
		})
	}
}

// TestToolsets: a principal's toolsets narrow what it may call and see to
// the tools of those groups; with tools globs as well, both rules apply.
func TestToolsets(t *testing.T) {
	doc := `principals:
  - name: triager
    toolsets: [issues, search]
  - name: narrow
    toolsets: [issues]
    tools: ["add_issue_comment", "read_file"]
  - name: reader
    toolsets: [issues]
    read_only: true
default:
  toolsets: [repos]
`
	p, err := Parse([]byte(doc), []string{"read_file", "commit_files", "search_issues", "list_issues", "add_issue_comment", "update_issue"})
	if err != nil {
		t.Fatal(err)
	}
	readFile := Tool{Name: "read_file", ReadOnly: true, Toolset: "repos"}
	commit := Tool{Name: "commit_files", Toolset: "repos"}
	searchIssues := Tool{Name: "search_issues", ReadOnly: true, Toolset: "search"}
	listIssues := Tool{Name: "list_issues", ReadOnly: true, Toolset: "issues"}
	comment := Tool{Name: "add_issue_comment", Toolset: "issues"}
	update := Tool{Name: "update_issue", Toolset: "issues"}
	tests := []struct {
		name       string
		pr         *Principal
		tool       Tool
		readOnly   bool
		want       string // rule, "" for allowed
		wantDetail string
	}{
		{"in its toolsets", p.ForIdentity(KindLocal, "triager"), searchIssues, false, "", ""},
		{"write in its toolsets", p.ForIdentity(KindLocal, "triager"), update, false, "", ""},
		{"outside its toolsets", p.ForIdentity(KindLocal, "triager"), readFile, false, "toolsets", "allowed toolsets: issues, search"},
		{"tools glob outside its toolsets", p.ForIdentity(KindLocal, "narrow"), readFile, false, "toolsets", "allowed toolsets: issues"},
		{"toolset but not its tools", p.ForIdentity(KindLocal, "narrow"), update, false, "tools", "allowed tools: add_issue_comment, read_file"},
		{"both allow", p.ForIdentity(KindLocal, "narrow"), comment, false, "", ""},
		{"read-only principal in its toolset", p.ForIdentity(KindLocal, "reader"), comment, false, "read_only", "principal reader is read-only: add_issue_comment writes"},
		{"gateway read-only removes writes of its toolsets", p.ForIdentity(KindLocal, "triager"), comment, true, "read_only", "the gateway is read-only: add_issue_comment writes"},
		{"default toolsets", p.ForIdentity(KindGitHub, "stranger"), commit, false, "", ""},
		{"default outside its toolsets", p.ForIdentity(KindGitHub, "stranger"), listIssues, false, "toolsets", "allowed toolsets: repos"},
		{"no principal: every toolset", nil, listIssues, false, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Check(tc.pr, tc.tool, nil, tc.readOnly)
			got, detail := "", ""
			if d != nil {
				got, detail = d.Rule, d.Detail
			}
			if got != tc.want || detail != tc.wantDetail {
				t.Fatalf("denial %q %q, want %q %q", got, detail, tc.want, tc.wantDetail)
			}
		})
	}
	all := []Tool{readFile, commit, searchIssues, listIssues, comment, update}
	lists := []struct {
		name     string
		pr       *Principal
		readOnly bool
		want     []string
	}{
		{"triager", p.ForIdentity(KindLocal, "triager"), false, []string{"search_issues", "list_issues", "add_issue_comment", "update_issue"}},
		{"triager on a read-only gateway", p.ForIdentity(KindLocal, "triager"), true, []string{"search_issues", "list_issues"}},
		{"narrow", p.ForIdentity(KindLocal, "narrow"), false, []string{"add_issue_comment"}},
		{"reader", p.ForIdentity(KindLocal, "reader"), false, []string{"list_issues"}},
		{"default", p.ForIdentity(KindGitHub, "stranger"), false, []string{"read_file", "commit_files"}},
	}
	for _, tc := range lists {
		t.Run("list/"+tc.name, func(t *testing.T) {
			if got := Allowed(tc.pr, all, tc.readOnly); !slices.Equal(got, tc.want) {
				t.Fatalf("Allowed = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestContentTrust checks that a principal's content_trust overrides the
// gateway's and that its absence keeps the gateway's, for every kind of
// identity and for the default rules.
func TestContentTrust(t *testing.T) {
	doc := `principals:
  - name: careful
    content_trust: collaborators
  - name: open
    content_trust: all
  - name: plain
default:
  content_trust: collaborators
`
	p, err := Parse([]byte(doc), tools)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		pr      *Principal
		gateway string
		want    string
	}{
		{"principal narrows an open gateway", p.ForIdentity(KindLocal, "careful"), "all", "collaborators"},
		{"principal widens a narrow gateway", p.ForIdentity(KindLocal, "open"), "collaborators", "all"},
		{"principal without it takes the gateway's all", p.ForIdentity(KindLocal, "plain"), "all", "all"},
		{"principal without it takes the gateway's collaborators", p.ForIdentity(KindLocal, "plain"), "collaborators", "collaborators"},
		{"default rules", p.ForIdentity(KindGitHub, "stranger"), "all", "collaborators"},
		{"no principal", nil, "collaborators", "collaborators"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := EffectiveContentTrust(tc.pr, tc.gateway); got != tc.want {
				t.Fatalf("content trust %q, want %q", got, tc.want)
			}
		})
	}
}
