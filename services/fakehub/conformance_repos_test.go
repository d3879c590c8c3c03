package fakehub_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
)

// The demo's releases: v0.1.0 and v0.2.0 on octo-org/hello-world, with ids of their own sequence.
const (
	demoRelease1 = "4100001"
	demoRelease2 = "4100002"
)

// releaseCases are the release and tag routes' cases; they run after the merge of pull request 1,
// which the generated notes name.
func (f *conformanceFixture) releaseCases() []conformanceCase {
	w, ro := "token "+writer, "token "+readOnly
	const hw = "repos/octo-org/hello-world/"
	return []conformanceCase{
		{name: "releases", op: "GET /repos/{owner}/{repo}/releases", path: hw + "releases", token: w, status: 200, then: wantLen(2)},
		{name: "releases of a missing repository", op: "GET /repos/{owner}/{repo}/releases", path: "repos/octo-org/nope/releases", token: w, status: 404},
		{name: "latest release", op: "GET /repos/{owner}/{repo}/releases/latest", path: hw + "releases/latest", token: w, status: 200,
			then: wantFields(map[string]any{"tag_name": "v0.2.0"})},
		{name: "latest release of a repository without releases", op: "GET /repos/{owner}/{repo}/releases/latest", path: "repos/octo-org/empty/releases/latest", token: w, status: 404},
		{name: "release by tag", op: "GET /repos/{owner}/{repo}/releases/tags/{tag}", path: hw + "releases/tags/v0.1.0", token: w, status: 200,
			then: wantFields(map[string]any{"name": "v0.1.0", "draft": false})},
		{name: "release of a missing tag", op: "GET /repos/{owner}/{repo}/releases/tags/{tag}", path: hw + "releases/tags/v9", token: w, status: 404},
		{name: "release by id", op: "GET /repos/{owner}/{repo}/releases/{release_id}", path: hw + "releases/" + demoRelease2, token: w, status: 200,
			then: wantFields(map[string]any{"tag_name": "v0.2.0"})},
		{name: "release of a missing id", op: "GET /repos/{owner}/{repo}/releases/{release_id}", path: hw + "releases/1", token: w, status: 404,
			undocumented: "GitHub answers 404 for a release that does not exist"},
		{name: "create release with generated notes", op: "POST /repos/{owner}/{repo}/releases", path: hw + "releases", token: w, status: 201,
			body: `{"tag_name":"v0.3.0","target_commitish":"main","generate_release_notes":true}`, then: func(t *testing.T, _ *http.Response, body []byte) {
				var rel struct{ Name, Body string }
				if err := json.Unmarshal(body, &rel); err != nil {
					t.Fatal(err)
				}
				if rel.Name != "v0.3.0" || !strings.Contains(rel.Body, "* Document the greet package by @octocat in ") ||
					!strings.HasSuffix(rel.Body, "/octo-org/hello-world/compare/v0.2.0...v0.3.0") {
					t.Errorf("generated release: name %q, body %q", rel.Name, rel.Body)
				}
			}},
		{name: "create draft release", op: "POST /repos/{owner}/{repo}/releases", path: hw + "releases", token: w, status: 201,
			body: `{"tag_name":"v0.4.0","draft":true,"name":"Next","body":"Soon."}`, then: wantFields(map[string]any{"draft": true, "published_at": nil})},
		{name: "create release, tag taken", op: "POST /repos/{owner}/{repo}/releases", path: hw + "releases", token: w, status: 422,
			body: `{"tag_name":"v0.1.0"}`, then: wantErrorCode("already_exists")},
		{name: "create release without a tag", op: "POST /repos/{owner}/{repo}/releases", path: hw + "releases", token: w, status: 422,
			body: `{"name":"x"}`, then: wantErrorCode("missing_field")},
		{name: "create release at a missing target", op: "POST /repos/{owner}/{repo}/releases", path: hw + "releases", token: w, status: 422,
			body: `{"tag_name":"v9","target_commitish":"no-such-branch"}`},
		{name: "create release without write access", op: "POST /repos/{owner}/{repo}/releases", path: hw + "releases", token: ro, status: 403,
			body: `{"tag_name":"v9"}`, undocumented: "GitHub answers 403 to a token without push access"},
		{name: "publish draft release", op: "PATCH /repos/{owner}/{repo}/releases/{release_id}", path: hw + "releases/4100004", token: w, status: 200,
			body: `{"draft":false,"body":"Now."}`, then: wantFields(map[string]any{"draft": false, "body": "Now.", "tag_name": "v0.4.0"})},
		{name: "update release to a taken tag", op: "PATCH /repos/{owner}/{repo}/releases/{release_id}", path: hw + "releases/" + demoRelease2, token: w, status: 422,
			body: `{"tag_name":"v0.1.0"}`, undocumented: "GitHub refuses a tag another release has with 422 Validation Failed"},
		{name: "update missing release", op: "PATCH /repos/{owner}/{repo}/releases/{release_id}", path: hw + "releases/1", token: w, status: 404, body: `{}`},
		{name: "tags", op: "GET /repos/{owner}/{repo}/tags", path: hw + "tags", token: w, status: 200, then: func(t *testing.T, _ *http.Response, body []byte) {
			var tags []struct{ Name string }
			if err := json.Unmarshal(body, &tags); err != nil {
				t.Fatal(err)
			}
			if len(tags) != 4 || tags[0].Name != "v0.4.0" || tags[3].Name != "v0.1.0" {
				t.Errorf("tags %+v, want v0.4.0 ... v0.1.0", tags)
			}
		}},
		{name: "tags of a missing repository", op: "GET /repos/{owner}/{repo}/tags", path: "repos/octo-org/nope/tags", token: w, status: 404,
			undocumented: "GitHub answers 404 for a repository the token cannot see"},
	}
}

// repoCases are the account-level repository routes' cases.
func (f *conformanceFixture) repoCases() []conformanceCase {
	w, ro, inst, demo := "token "+writer, "token "+readOnly, "token "+f.instTok, "token ghops-demo-token"
	return []conformanceCase{
		{name: "my repositories", op: "GET /user/repos", path: "user/repos?sort=created", token: w, status: 200},
		{name: "my repositories without a token", op: "GET /user/repos", path: "user/repos", status: 401},
		{name: "my repositories with an installation token", op: "GET /user/repos", path: "user/repos", token: inst, status: 403},
		{name: "my repositories, bad sort", op: "GET /user/repos", path: "user/repos?sort=stars", token: w, status: 422},
		{name: "a user's repositories", op: "GET /users/{username}/repos", path: "users/octo-org/repos", token: ro, status: 200,
			then: func(t *testing.T, _ *http.Response, body []byte) {
				var list []struct {
					FullName string `json:"full_name"`
				}
				if err := json.Unmarshal(body, &list); err != nil {
					t.Fatal(err)
				}
				for _, r := range list {
					if r.FullName == "octo-org/secret" {
						t.Errorf("a private repository is listed: %+v", list)
					}
				}
			}},
		{name: "an unknown user's repositories", op: "GET /users/{username}/repos", path: "users/nobody-here/repos", token: w, status: 404,
			undocumented: "GitHub answers 404 for an account that does not exist"},
		{name: "an organization's repositories", op: "GET /orgs/{org}/repos", path: "orgs/octo-org/repos?type=sources", token: w, status: 200},
		{name: "a user is no organization", op: "GET /orgs/{org}/repos", path: "orgs/writer/repos", token: w, status: 404,
			undocumented: "GitHub answers 404 for an organization that does not exist"},
		{name: "installation repositories", op: "GET /installation/repositories", path: "installation/repositories", token: inst, status: 200},
		{name: "installation repositories with a user token", op: "GET /installation/repositories", path: "installation/repositories", token: w, status: 403},
		{name: "create my repository", op: "POST /user/repos", path: "user/repos", token: demo, status: 201,
			body: `{"name":"notes","private":true,"auto_init":true}`, then: wantFields(map[string]any{"full_name": "octocat/notes", "private": true})},
		{name: "create my repository, name taken", op: "POST /user/repos", path: "user/repos", token: demo, status: 422,
			body: `{"name":"notes"}`},
		{name: "create my repository without a token", op: "POST /user/repos", path: "user/repos", status: 401, body: `{"name":"x"}`},
		{name: "create an organization repository", op: "POST /orgs/{org}/repos", path: "orgs/octo-org/repos", token: demo, status: 201,
			body: `{"name":"agent-work","description":"made by an agent"}`, then: wantFields(map[string]any{"full_name": "octo-org/agent-work", "private": false})},
		{name: "create an organization repository without a name", op: "POST /orgs/{org}/repos", path: "orgs/octo-org/repos", token: demo, status: 422, body: `{}`},
		{name: "create a repository in an organization one is no member of", op: "POST /orgs/{org}/repos", path: "orgs/octo-org/repos", token: ro, status: 403,
			body: `{"name":"x"}`},
		{name: "fork", op: "POST /repos/{owner}/{repo}/forks", path: "repos/octo-org/hello-world/forks", token: demo, status: 202,
			body: `{}`, then: wantFields(map[string]any{"full_name": "octocat/hello-world", "fork": true})},
		{name: "fork into an organization under a new name", op: "POST /repos/{owner}/{repo}/forks", path: "repos/octo-org/hello-world/forks", token: w, status: 202,
			body: `{"organization":"octo-org","name":"hello-fork"}`, then: wantFields(map[string]any{"full_name": "octo-org/hello-fork", "fork": true})},
		{name: "fork onto itself", op: "POST /repos/{owner}/{repo}/forks", path: "repos/octo-org/hello-world/forks", token: w, status: 422,
			body: `{"organization":"octo-org"}`},
		{name: "fork into an organization one is no member of", op: "POST /repos/{owner}/{repo}/forks", path: "repos/octo-org/hello-world/forks", token: ro, status: 403,
			body: `{"organization":"octo-org","name":"x"}`},
		{name: "fork a missing repository", op: "POST /repos/{owner}/{repo}/forks", path: "repos/octo-org/nope/forks", token: w, status: 404, body: `{}`},
	}
}

// wantLen checks a list answer's length.
func wantLen(n int) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, _ *http.Response, body []byte) {
		t.Helper()
		var list []json.RawMessage
		if err := json.Unmarshal(body, &list); err != nil || len(list) != n {
			t.Errorf("want a list of %d: %s", n, body)
		}
	}
}

// wantErrorCode checks a 422's first errors[].code.
func wantErrorCode(code string) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, _ *http.Response, body []byte) {
		t.Helper()
		var e struct{ Errors []struct{ Code string } }
		if err := json.Unmarshal(body, &e); err != nil || len(e.Errors) == 0 || e.Errors[0].Code != code {
			t.Errorf("want errors[0].code %q: %s", code, body)
		}
	}
}

// TestOAuthScopesHeader checks that answers to a classic token (one with a scope list) carry its
// scopes in X-OAuth-Scopes, and answers to other tokens none.
func TestOAuthScopesHeader(t *testing.T) {
	s := startHub(t, fakehub.Config{Tokens: []fakehub.Token{{Value: "ghp_classic", Login: "classic", Scopes: []string{"repo", "read:org"}}}})
	for _, tc := range []struct {
		name, token, want string
		present           bool
	}{
		{name: "classic token", token: "ghp_classic", want: "repo, read:org", present: true},
		{name: "token without scopes", token: writer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest("GET", s.URL+"user", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "token "+tc.token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			v, ok := resp.Header["X-Oauth-Scopes"]
			if ok != tc.present || ok && v[0] != tc.want {
				t.Errorf("X-OAuth-Scopes %q (present %v), want %q (present %v)", v, ok, tc.want, tc.present)
			}
		})
	}
}
