package server_test

import (
	"context"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"ghops.dev/services/github/servicetest"
)

// The demo's releases (fakehub's seed): v0.1.0, then v0.2.0 at main's tip.
const (
	demoRelease1 int64 = 4100001
	demoRelease2 int64 = 4100002
)

// TestRepoTools runs the release, tag and repository tools against the demo dataset in order
// (later steps see what earlier ones wrote), each with the GitHub requests it made.
func TestRepoTools(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	c := e.svc.Client
	tests := []callCase{
		{name: "list_releases without bodies", call: func(x context.Context) (proto.Message, error) {
			return c.ListReleases(x, &ghopsv1.ListReleasesRequest{Repo: repo})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/releases": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.ListReleasesResponse)
			if len(r.Releases) != 2 || r.Page.HasNext || r.Releases[0].Tag != "v0.2.0" || r.Releases[1].Id != demoRelease1 {
				t.Fatalf("want v0.2.0 then v0.1.0, got %v", r)
			}
			for _, rel := range r.Releases {
				if rel.Body != "" || rel.Author != "octocat" || rel.PublishedAt == nil || rel.Draft || rel.Url == "" {
					t.Errorf("got %v", rel)
				}
			}
		}},
		{name: "get_release by tag", call: func(x context.Context) (proto.Message, error) {
			return c.GetRelease(x, &ghopsv1.GetReleaseRequest{Repo: repo, Tag: ptr("v0.1.0")})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/releases/tags/{tag}": 1}, check: func(t *testing.T, m proto.Message) {
			rel := m.(*ghopsv1.GetReleaseResponse).Release
			if rel.Id != demoRelease1 || rel.Tag != "v0.1.0" || !strings.Contains(rel.Body, "First release") {
				t.Errorf("got %v", rel)
			}
		}},
		{name: "get_release latest", call: func(x context.Context) (proto.Message, error) {
			return c.GetRelease(x, &ghopsv1.GetReleaseRequest{Repo: repo, Latest: ptr(true)})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/releases/latest": 1}, check: func(t *testing.T, m proto.Message) {
			if rel := m.(*ghopsv1.GetReleaseResponse).Release; rel.Id != demoRelease2 || rel.Name != "v0.2.0 - formal greeting" {
				t.Errorf("got %v", rel)
			}
		}},
		{name: "list_tags", call: func(x context.Context) (proto.Message, error) {
			return c.ListTags(x, &ghopsv1.ListTagsRequest{Repo: repo})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/tags": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.ListTagsResponse)
			if len(r.Tags) != 2 || r.Tags[0].Name != "v0.2.0" || len(r.Tags[0].Sha) != 40 || r.Tags[1].Name != "v0.1.0" {
				t.Errorf("got %v", r)
			}
		}},
		{name: "create_release with generated notes", call: func(x context.Context) (proto.Message, error) {
			return c.CreateRelease(x, &ghopsv1.CreateReleaseRequest{Repo: repo, Tag: "v0.3.0", Body: ptr("Highlights first."), GenerateNotes: ptr(true)})
		}, calls: map[string]int{"POST /repos/{owner}/{repo}/releases": 1}, check: func(t *testing.T, m proto.Message) {
			rel := m.(*ghopsv1.CreateReleaseResponse).Release
			if rel.Tag != "v0.3.0" || rel.Name != "v0.3.0" || !strings.HasPrefix(rel.Body, "Highlights first.\n\n") ||
				!strings.Contains(rel.Body, "compare/v0.2.0...v0.3.0") || rel.Target != "main" {
				t.Errorf("got %v", rel)
			}
		}},
		{name: "create_release draft", call: func(x context.Context) (proto.Message, error) {
			return c.CreateRelease(x, &ghopsv1.CreateReleaseRequest{Repo: repo, Tag: "v1.0.0", Name: ptr("One"), Draft: ptr(true), Prerelease: ptr(true)})
		}, calls: map[string]int{"POST /repos/{owner}/{repo}/releases": 1}, check: func(t *testing.T, m proto.Message) {
			if rel := m.(*ghopsv1.CreateReleaseResponse).Release; !rel.Draft || !rel.Prerelease || rel.PublishedAt != nil || rel.Id <= demoRelease2 {
				t.Errorf("got %v", rel)
			}
		}},
		{name: "update_release publishes", call: func(x context.Context) (proto.Message, error) {
			return c.UpdateRelease(x, &ghopsv1.UpdateReleaseRequest{Repo: repo, ReleaseId: demoRelease2 + 2, Draft: ptr(false), Body: ptr("Ready.")})
		}, calls: map[string]int{"PATCH /repos/{owner}/{repo}/releases/{release_id}": 1}, check: func(t *testing.T, m proto.Message) {
			if rel := m.(*ghopsv1.UpdateReleaseResponse).Release; rel.Draft || rel.Body != "Ready." || rel.Name != "One" || rel.PublishedAt == nil {
				t.Errorf("got %v", rel)
			}
		}},
		{name: "list_repositories of the identity", call: func(x context.Context) (proto.Message, error) {
			return c.ListRepositories(x, &ghopsv1.ListRepositoriesRequest{})
		}, calls: map[string]int{"GET /user/repos": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.ListRepositoriesResponse)
			if len(r.Repositories) != 1 || r.Repositories[0].FullName != repo || r.Repositories[0].DefaultBranch != "main" {
				t.Errorf("got %v", r)
			}
		}},
		{name: "list_repositories of an organization", call: func(x context.Context) (proto.Message, error) {
			return c.ListRepositories(x, &ghopsv1.ListRepositoriesRequest{Owner: ptr("octo-org"), Sort: ptr("full_name")})
		}, calls: map[string]int{"GET /orgs/{org}/repos": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.ListRepositoriesResponse)
			var names []string
			for _, x := range r.Repositories {
				names = append(names, x.FullName)
			}
			if strings.Join(names, ",") != "octo-org/empty,octo-org/hello-world" {
				t.Errorf("got %v (the private octo-org/secret must not show)", names)
			}
		}},
		{name: "list_repositories of a user", call: func(x context.Context) (proto.Message, error) {
			return c.ListRepositories(x, &ghopsv1.ListRepositoriesRequest{Owner: ptr("octocat")})
		}, calls: map[string]int{"GET /orgs/{org}/repos": 1, "GET /users/{username}/repos": 1}, check: func(t *testing.T, m proto.Message) {
			if r := m.(*ghopsv1.ListRepositoriesResponse); len(r.Repositories) != 0 {
				t.Errorf("got %v", r)
			}
		}},
		{name: "create_repository for the identity", call: func(x context.Context) (proto.Message, error) {
			return c.CreateRepository(x, &ghopsv1.CreateRepositoryRequest{Name: "scratch", Private: true, Description: ptr("agent notes"), AutoInit: ptr(true)})
		}, calls: map[string]int{"POST /user/repos": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.CreateRepositoryResponse).Repository
			if r.FullName != "octocat/scratch" || r.Visibility != "private" || r.Description != "agent notes" {
				t.Errorf("got %v", r)
			}
		}},
		{name: "create_repository in an organization", call: func(x context.Context) (proto.Message, error) {
			return c.CreateRepository(x, &ghopsv1.CreateRepositoryRequest{Owner: ptr("octo-org"), Name: "agent-lab"})
		}, calls: map[string]int{"POST /orgs/{org}/repos": 1}, check: func(t *testing.T, m proto.Message) {
			if r := m.(*ghopsv1.CreateRepositoryResponse).Repository; r.FullName != "octo-org/agent-lab" || r.Visibility != "public" {
				t.Errorf("got %v", r)
			}
		}},
		{name: "create_repository naming the identity's own login", call: func(x context.Context) (proto.Message, error) {
			return c.CreateRepository(x, &ghopsv1.CreateRepositoryRequest{Owner: ptr("octocat"), Name: "mine"})
		}, calls: map[string]int{"POST /orgs/{org}/repos": 1, "GET /user": 1, "POST /user/repos": 1}, check: func(t *testing.T, m proto.Message) {
			if r := m.(*ghopsv1.CreateRepositoryResponse).Repository; r.FullName != "octocat/mine" {
				t.Errorf("got %v", r)
			}
		}},
		{name: "fork_repository", call: func(x context.Context) (proto.Message, error) {
			return c.ForkRepository(x, &ghopsv1.ForkRepositoryRequest{Repo: repo, Owner: ptr("octo-org"), Name: ptr("hello-fork")})
		}, calls: map[string]int{"POST /repos/{owner}/{repo}/forks": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.ForkRepositoryResponse)
			if r.FullName != "octo-org/hello-fork" || !strings.Contains(r.Note, "moment") {
				t.Errorf("got %v", r)
			}
		}},
		{name: "the fork has the repository's history", call: func(x context.Context) (proto.Message, error) {
			return c.ListTags(x, &ghopsv1.ListTagsRequest{Repo: "octo-org/hello-fork"})
		}, calls: map[string]int{"GET /repos/{owner}/{repo}/tags": 1}, check: func(t *testing.T, m proto.Message) {
			if r := m.(*ghopsv1.ListTagsResponse); len(r.Tags) != 4 {
				t.Errorf("got %v", r)
			}
		}},
		{name: "get_me", call: func(x context.Context) (proto.Message, error) {
			return c.GetMe(x, &ghopsv1.GetMeRequest{})
		}, calls: map[string]int{"GET /user": 1, "GET /rate_limit": 1}, check: func(t *testing.T, m proto.Message) {
			r := m.(*ghopsv1.GetMeResponse)
			if r.Login != "octocat" || r.Identity != "user" || r.TokenKind == "" || len(r.Scopes) != 0 || len(r.RateLimits) != 4 ||
				r.RateLimits[0].Resource != "core" || r.RateLimits[0].Limit != 5000 || r.RateLimits[0].ResetsAt == nil {
				t.Errorf("got %v", r)
			}
			if strings.Contains(r.String(), fakehub.DemoToken) {
				t.Errorf("the token is in the answer: %v", r)
			}
		}},
	}
	runCallCases(t, e, tests)
}

// TestRepoToolFailures: an unknown tag or release id is NOT_FOUND with data.resource type
// release, an unknown owner NOT_FOUND naming the owner, a taken tag or name GITHUB_VALIDATION,
// a refused write PERMISSION_DENIED; each changes nothing.
func TestRepoToolFailures(t *testing.T) {
	e := start(t, fakehub.Config{Tokens: []fakehub.Token{{Value: "reader-token", Login: "reader",
		Repos: map[string]fakehub.Permission{repo: fakehub.PermRead}}}}, servicetest.Options{})
	c := e.svc.Client
	notFound := []struct {
		name, typ, id string
		call          func(x context.Context) error
	}{
		{"get_release of an unknown tag", "release", repo + "@v9.9.9", func(x context.Context) error {
			_, err := c.GetRelease(x, &ghopsv1.GetReleaseRequest{Repo: repo, Tag: ptr("v9.9.9")})
			return err
		}},
		{"get_release latest of a repository without releases", "release", "octo-org/empty@latest", func(x context.Context) error {
			_, err := c.GetRelease(x, &ghopsv1.GetReleaseRequest{Repo: "octo-org/empty", Latest: ptr(true)})
			return err
		}},
		{"update_release of an unknown id", "release", repo + "#42", func(x context.Context) error {
			_, err := c.UpdateRelease(x, &ghopsv1.UpdateReleaseRequest{Repo: repo, ReleaseId: 42, Name: ptr("x")})
			return err
		}},
		{"list_repositories of an unknown owner", "owner", "nobody-here", func(x context.Context) error {
			_, err := c.ListRepositories(x, &ghopsv1.ListRepositoriesRequest{Owner: ptr("nobody-here")})
			return err
		}},
		{"create_repository in an unknown organization", "owner", "no-such-org", func(x context.Context) error {
			_, err := c.CreateRepository(x, &ghopsv1.CreateRepositoryRequest{Owner: ptr("no-such-org"), Name: "x"})
			return err
		}},
	}
	for _, tt := range notFound {
		t.Run(tt.name, func(t *testing.T) {
			d := wantStatus(t, tt.call(ctx(t)), codes.NotFound, ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND)
			if d.gh.GetResource().GetType() != tt.typ || d.gh.GetResource().GetId() != tt.id {
				t.Errorf("GitHubError %v, want resource %s %s", d.gh, tt.typ, tt.id)
			}
		})
	}
	validation := []struct {
		name string
		call func(x context.Context) error
	}{
		{"create_release of a taken tag", func(x context.Context) error {
			_, err := c.CreateRelease(x, &ghopsv1.CreateReleaseRequest{Repo: repo, Tag: "v0.1.0"})
			return err
		}},
		{"update_release to a taken tag", func(x context.Context) error {
			_, err := c.UpdateRelease(x, &ghopsv1.UpdateReleaseRequest{Repo: repo, ReleaseId: demoRelease2, Tag: ptr("v0.1.0")})
			return err
		}},
		{"create_repository of a taken name", func(x context.Context) error {
			_, err := c.CreateRepository(x, &ghopsv1.CreateRepositoryRequest{Owner: ptr("octo-org"), Name: "hello-world"})
			return err
		}},
	}
	for _, tt := range validation {
		t.Run(tt.name, func(t *testing.T) {
			wantStatus(t, tt.call(ctx(t)), codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION)
		})
	}
	t.Run("nothing changed", func(t *testing.T) {
		r, err := c.ListReleases(ctx(t), &ghopsv1.ListReleasesRequest{Repo: repo})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Releases) != 2 || r.Releases[0].Tag != "v0.2.0" {
			t.Errorf("got %v", r)
		}
	})
	t.Run("a reader creates no release", func(t *testing.T) {
		svc := servicetest.Start(t, servicetest.Options{GitHubURL: e.url, Token: "reader-token"})
		_, err := svc.Client.CreateRelease(ctx(t), &ghopsv1.CreateReleaseRequest{Repo: repo, Tag: "v5"})
		wantStatus(t, err, codes.PermissionDenied, ghopsv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED)
	})
}

// TestGetMeAndListAsAppInstallation: an App installation acts as no user, so get_me names it from
// the configuration without GET /user, and list_repositories lists the installation's
// repositories.
func TestGetMeAndListAsAppInstallation(t *testing.T) {
	keyFile, pub := appKey(t)
	hs := fakehubtest.Start(t, fakehub.Config{Seed: "demo", Apps: []fakehub.App{{ID: appID, PublicKey: pub,
		Installations: []fakehub.Installation{{ID: installationID, Repos: map[string]fakehub.Permission{"octo-org/secret": fakehub.PermRead}}}}}})
	svc := servicetest.Start(t, servicetest.Options{GitHubURL: hs.URL, GitHubAppID: appID, GitHubAppKeyFile: keyFile, GitHubAppInstallationID: installationID})
	me, err := svc.Client.GetMe(ctx(t), &ghopsv1.GetMeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if me.Login != "" || me.Identity != "app installation" || !strings.Contains(me.TokenKind, "GitHub App installation") || len(me.RateLimits) == 0 {
		t.Errorf("get_me = %v", me)
	}
	list, err := svc.Client.ListRepositories(ctx(t), &ghopsv1.ListRepositoriesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Repositories) != 1 || list.Repositories[0].FullName != "octo-org/secret" || list.Repositories[0].Visibility != "private" {
		t.Errorf("list_repositories = %v", list)
	}
	for _, r := range hs.Hub.Requests() {
		if r.Route == "/user" {
			t.Errorf("GET /user was sent for an installation")
		}
	}
}

// TestGetMeScopes: a classic token's scopes come from X-OAuth-Scopes.
func TestGetMeScopes(t *testing.T) {
	e := start(t, fakehub.Config{Tokens: []fakehub.Token{{Value: "ghp_classicscopes", Login: "classic", Scopes: []string{"repo", "read:org"},
		Repos: map[string]fakehub.Permission{"*": fakehub.PermRead}}}}, servicetest.Options{Token: "ghp_classicscopes"})
	me, err := e.svc.Client.GetMe(ctx(t), &ghopsv1.GetMeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if me.Login != "classic" || strings.Join(me.Scopes, ",") != "repo,read:org" || me.TokenKind != "classic personal access token" {
		t.Errorf("get_me = %v", me)
	}
	if strings.Contains(me.String(), "ghp_classicscopes") {
		t.Errorf("the token is in the answer")
	}
}
