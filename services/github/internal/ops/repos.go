package ops

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"

	"ghops.dev/services/github/internal/ghpath"
	"ghops.dev/services/github/internal/ghstatus"
)

// Page sizes of the repository lists.
const (
	releasesPage = 30
	tagsPage     = 100
	reposPage    = 30
)

// forkNote is fork_repository's word on GitHub's asynchronous forks.
const forkNote = "GitHub creates forks in the background: the fork's contents may take a moment to appear."

// toRelease is the answer's release; withBody false leaves the notes out
// (lists, where they would be most of the bytes).
func toRelease(r *github.RepositoryRelease, withBody bool) *ghopsv1.Release {
	out := &ghopsv1.Release{Id: r.GetID(), Tag: r.GetTagName(), Name: r.GetName(), Draft: r.GetDraft(), Prerelease: r.GetPrerelease(),
		Target: r.GetTargetCommitish(), Author: r.GetAuthor().GetLogin(), CreatedAt: ts(r.CreatedAt), PublishedAt: ts(r.PublishedAt), Url: r.GetHTMLURL()}
	if withBody {
		out.Body = r.GetBody()
	}
	return out
}

// toRepository is the answer's repository.
func toRepository(r *github.Repository) *ghopsv1.RepositorySummary {
	return &ghopsv1.RepositorySummary{
		FullName: r.GetFullName(), Description: r.GetDescription(), Language: r.GetLanguage(),
		Stars: int32(r.GetStargazersCount()), Forks: int32(r.GetForksCount()), Visibility: visibilityOf(r.GetVisibility(), r.GetPrivate()),
		DefaultBranch: r.GetDefaultBranch(), Archived: r.GetArchived(), Fork: r.GetFork(), Topics: slices.Clone(r.Topics),
		UpdatedAt: ts(r.UpdatedAt),
	}
}

// releaseContext is the error context of a call about one release of repo,
// named by id ("repo#id") or tag ("repo@tag", "repo@latest").
func releaseContext(tool, repo, id string) ghstatus.Context {
	return ghstatus.Context{Tool: tool, Repo: repo, Resource: &ghopsv1.Resource{Type: "release", Id: repo + id}}
}

// ownerContext is the error context of a call about an account.
func ownerContext(tool, owner string) ghstatus.Context {
	return ghstatus.Context{Tool: tool, Resource: &ghopsv1.Resource{Type: "owner", Id: owner}}
}

// ListReleases implements the list_releases tool: one GET, newest first,
// the notes left out.
func (s *Service) ListReleases(ctx context.Context, req *ghopsv1.ListReleasesRequest) (*ghopsv1.ListReleasesResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolListReleases, Repo: req.GetRepo()}
	p := max(int(req.GetPage()), 1)
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("releases"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	list, resp, err := get[[]*github.RepositoryRelease](ctx, s, s.client(ctx), u, listQuery(p, releasesPage))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.ListReleasesResponse{Releases: []*ghopsv1.Release{}, Page: pageInfo(p, releasesPage, resp)}
	for _, r := range list {
		out.Releases = append(out.Releases, toRelease(r, false))
	}
	return out, nil
}

// GetRelease implements the get_release tool: one GET, by tag or of the
// latest release.
func (s *Service) GetRelease(ctx context.Context, req *ghopsv1.GetReleaseRequest) (*ghopsv1.GetReleaseResponse, error) {
	last := ghpath.Lit("latest")
	c := releaseContext(ghopsv1.ToolGetRelease, req.GetRepo(), "@latest")
	if req.Tag != nil {
		last = ghpath.One("tag", req.GetTag())
		c = releaseContext(ghopsv1.ToolGetRelease, req.GetRepo(), "@"+req.GetTag())
	}
	parts := []ghpath.Part{ghpath.Lit("releases"), last}
	if req.Tag != nil {
		parts = []ghpath.Part{ghpath.Lit("releases"), ghpath.Lit("tags"), last}
	}
	u, err := ghpath.Repo("repo", req.GetRepo(), parts...)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	r, _, err := get[*github.RepositoryRelease](ctx, s, s.client(ctx), u, nil)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.GetReleaseResponse{Release: toRelease(r, true)}, nil
}

// CreateRelease implements the create_release tool: one POST; GitHub
// creates the tag at target when it is new and, with generate_notes, writes
// the notes (after body) and, without name, the title.
func (s *Service) CreateRelease(ctx context.Context, req *ghopsv1.CreateReleaseRequest) (*ghopsv1.CreateReleaseResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolCreateRelease, Repo: req.GetRepo()}
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("releases"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	body := &github.RepositoryRelease{TagName: github.String(req.GetTag()), TargetCommitish: req.Target, Name: req.Name, Body: req.Body,
		Draft: req.Draft, Prerelease: req.Prerelease, GenerateReleaseNotes: req.GenerateNotes}
	r, err := send[github.RepositoryRelease](ctx, s.client(ctx), http.MethodPost, u, body)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.CreateReleaseResponse{Release: toRelease(r, true)}, nil
}

// UpdateRelease implements the update_release tool: one PATCH; only the
// given fields change.
func (s *Service) UpdateRelease(ctx context.Context, req *ghopsv1.UpdateReleaseRequest) (*ghopsv1.UpdateReleaseResponse, error) {
	id := strconv.FormatInt(req.GetReleaseId(), 10)
	c := releaseContext(ghopsv1.ToolUpdateRelease, req.GetRepo(), "#"+id)
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("releases"), ghpath.Lit(id))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	body := &github.RepositoryRelease{TagName: req.Tag, Name: req.Name, Body: req.Body, Draft: req.Draft, Prerelease: req.Prerelease}
	r, err := send[github.RepositoryRelease](ctx, s.client(ctx), http.MethodPatch, u, body)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.UpdateReleaseResponse{Release: toRelease(r, true)}, nil
}

// ListTags implements the list_tags tool: one GET of 100 tags.
func (s *Service) ListTags(ctx context.Context, req *ghopsv1.ListTagsRequest) (*ghopsv1.ListTagsResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolListTags, Repo: req.GetRepo()}
	p := max(int(req.GetPage()), 1)
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("tags"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	list, resp, err := get[[]*github.RepositoryTag](ctx, s, s.client(ctx), u, listQuery(p, tagsPage))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.ListTagsResponse{Tags: []*ghopsv1.Tag{}, Page: pageInfo(p, tagsPage, resp)}
	for _, t := range list {
		out.Tags = append(out.Tags, &ghopsv1.Tag{Name: t.GetName(), Sha: t.GetCommit().GetSHA()})
	}
	return out, nil
}

// ListRepositories implements the list_repositories tool. With an owner:
// the organization's repositories (GET orgs/{owner}/repos), or, when
// GitHub knows no such organization, the user's (GET users/{owner}/repos:
// a user's public ones, one more request). Without: those the identity
// reaches, GET user/repos, or for a GitHub App installation, which is no
// user, GET installation/repositories (type and sort do not apply there).
func (s *Service) ListRepositories(ctx context.Context, req *ghopsv1.ListRepositoriesRequest) (*ghopsv1.ListRepositoriesResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolListRepositories}
	p := max(int(req.GetPage()), 1)
	var kv []string
	if req.Type != nil {
		kv = append(kv, "type", req.GetType())
	}
	if req.Sort != nil {
		kv = append(kv, "sort", req.GetSort())
	}
	q := listQuery(p, reposPage, kv...)
	gh := s.client(ctx)
	var (
		list []*github.Repository
		resp *github.Response
		err  error
	)
	switch {
	case req.Owner != nil:
		c = ownerContext(ghopsv1.ToolListRepositories, req.GetOwner())
		var u string
		if u, err = ghpath.Join(ghpath.Lit("orgs"), ghpath.One("owner", req.GetOwner()), ghpath.Lit("repos")); err != nil {
			return nil, s.fail(ctx, err, c)
		}
		list, resp, err = get[[]*github.Repository](ctx, s, gh, u, q)
		if ghstatus.HTTPStatus(err) == http.StatusNotFound {
			u, _ = ghpath.Join(ghpath.Lit("users"), ghpath.One("owner", req.GetOwner()), ghpath.Lit("repos"))
			list, resp, err = get[[]*github.Repository](ctx, s, gh, u, q)
		}
	case s.installation(ctx):
		var res *github.ListRepositories
		res, resp, err = get[*github.ListRepositories](ctx, s, gh, "installation/repositories", listQuery(p, reposPage))
		if res != nil {
			list = res.Repositories
		}
	default:
		list, resp, err = get[[]*github.Repository](ctx, s, gh, "user/repos", q)
	}
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.ListRepositoriesResponse{Repositories: []*ghopsv1.RepositorySummary{}, Page: pageInfo(p, reposPage, resp)}
	for _, r := range list {
		out.Repositories = append(out.Repositories, toRepository(r))
	}
	return out, nil
}

// installation reports whether the call's credential is a GitHub App
// installation's, which acts as no user (no user/repos, no /user).
func (s *Service) installation(ctx context.Context) bool {
	return s.env.Credential != nil && strings.HasPrefix(s.env.Credential(ctx), "GitHub App installation")
}

// CreateRepository implements the create_repository tool: one POST, to
// orgs/{owner}/repos or, without owner, user/repos. An owner that is the
// identity's own login (GitHub knows no such organization) is created
// under user/repos after one GET /user.
func (s *Service) CreateRepository(ctx context.Context, req *ghopsv1.CreateRepositoryRequest) (*ghopsv1.CreateRepositoryResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolCreateRepository}
	body := &github.Repository{Name: github.String(req.GetName()), Private: github.Bool(req.GetPrivate()), Description: req.Description, AutoInit: req.AutoInit}
	u := "user/repos"
	if req.Owner != nil {
		c = ownerContext(ghopsv1.ToolCreateRepository, req.GetOwner())
		var err error
		if u, err = ghpath.Join(ghpath.Lit("orgs"), ghpath.One("owner", req.GetOwner()), ghpath.Lit("repos")); err != nil {
			return nil, s.fail(ctx, err, c)
		}
	}
	r, err := s.sendRepo(ctx, u, body)
	if req.Owner != nil && ghstatus.HTTPStatus(err) == http.StatusNotFound && !s.installation(ctx) {
		if me, _, uerr := get[*github.User](ctx, s, s.client(ctx), "user", nil); uerr == nil && strings.EqualFold(me.GetLogin(), req.GetOwner()) {
			r, err = s.sendRepo(ctx, "user/repos", body)
		}
	}
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.CreateRepositoryResponse{Repository: toRepository(r)}, nil
}

// ForkRepository implements the fork_repository tool: one POST, which
// GitHub answers 202 before the fork is complete.
func (s *Service) ForkRepository(ctx context.Context, req *ghopsv1.ForkRepositoryRequest) (*ghopsv1.ForkRepositoryResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolForkRepository, Repo: req.GetRepo()}
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("forks"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	body := &github.RepositoryCreateForkOptions{Organization: req.GetOwner(), Name: req.GetName()}
	r, err := s.sendRepo(ctx, u, body)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.ForkRepositoryResponse{FullName: r.GetFullName(), Note: forkNote}, nil
}

// sendRepo POSTs body to u and decodes the repository GitHub answers (201,
// or 202 for a fork).
func (s *Service) sendRepo(ctx context.Context, u string, body any) (*github.Repository, error) {
	gh := s.client(ctx)
	hreq, err := gh.NewRequest(http.MethodPost, u, body)
	if err != nil {
		return nil, err
	}
	r := new(github.Repository)
	if _, err := gh.Do(ctx, hreq, r); err != nil {
		var accepted *github.AcceptedError
		if !errors.As(err, &accepted) {
			return nil, err
		}
		if uerr := json.Unmarshal(accepted.Raw, r); uerr != nil {
			return nil, uerr
		}
	}
	return r, nil
}
