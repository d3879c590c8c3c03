package hub

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// Ts is t as GitHub renders timestamps (RFC 3339, UTC).
func Ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// NullTime is t rendered as Ts, or JSON null for the zero time.
func NullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return Ts(t)
}

// NodeID is a GraphQL global id for an object of kind with a database id.
func NodeID(kind string, id int64) string {
	return base64.RawStdEncoding.EncodeToString([]byte(fmt.Sprintf("%s:%d", kind, id)))
}

// userID derives a stable id for a login so that shapes are reproducible.
func (h *Hub) userID(login string) int64 {
	for _, t := range h.tokens {
		if strings.EqualFold(t.Login, login) {
			return t.id
		}
	}
	var n int64 = 7
	for _, r := range strings.ToLower(login) {
		n = (n*31 + int64(r)) % 1000000
	}
	return 100000 + n
}

func (h *Hub) userType(login string) string {
	for _, t := range h.tokens {
		if strings.EqualFold(t.Login, login) {
			return "User"
		}
	}
	return "Organization"
}

func (c *ReqCtx) user(login string) Obj {
	u := c.api + "/users/" + login
	id := c.h.userID(login)
	return Obj{
		"login": login, "id": id, "node_id": NodeID("User", id), "avatar_url": c.Web + "/avatars/" + login,
		"gravatar_id": "", "url": u, "html_url": c.Web + "/" + login, "followers_url": u + "/followers",
		"following_url": u + "/following{/other_user}", "gists_url": u + "/gists{/gist_id}",
		"starred_url": u + "/starred{/owner}{/repo}", "subscriptions_url": u + "/subscriptions",
		"organizations_url": u + "/orgs", "repos_url": u + "/repos", "events_url": u + "/events{/privacy}",
		"received_events_url": u + "/received_events", "type": c.h.userType(login), "site_admin": false,
	}
}

// RepoURL is the REST URL of r.
func (c *ReqCtx) RepoURL(r *Repo) string { return c.api + "/repos/" + r.FullName() }

// MinimalRepo is GitHub's "minimal-repository" shape, the one search and statuses embed.
func (c *ReqCtx) MinimalRepo(r *Repo) Obj {
	u := c.RepoURL(r)
	o := Obj{
		"id": r.id, "node_id": NodeID("Repository", r.id), "name": r.Opts.Name, "full_name": r.FullName(),
		"owner": c.user(r.Opts.Owner), "private": r.Opts.Private, "html_url": c.Web + "/" + r.FullName(),
		"description": nullStr(r.Opts.Description), "fork": r.Opts.ForkOf != "", "url": u,
		"archive_url": u + "/{archive_format}{/ref}", "assignees_url": u + "/assignees{/user}",
		"blobs_url": u + "/git/blobs{/sha}", "branches_url": u + "/branches{/branch}",
		"collaborators_url": u + "/collaborators{/collaborator}", "comments_url": u + "/comments{/number}",
		"commits_url": u + "/commits{/sha}", "compare_url": u + "/compare/{base}...{head}",
		"contents_url": u + "/contents/{+path}", "contributors_url": u + "/contributors",
		"deployments_url": u + "/deployments", "downloads_url": u + "/downloads", "events_url": u + "/events",
		"forks_url": u + "/forks", "git_commits_url": u + "/git/commits{/sha}", "git_refs_url": u + "/git/refs{/sha}",
		"git_tags_url": u + "/git/tags{/sha}", "hooks_url": u + "/hooks",
		"issue_comment_url": u + "/issues/comments{/number}", "issue_events_url": u + "/issues/events{/number}",
		"issues_url": u + "/issues{/number}", "keys_url": u + "/keys{/key_id}", "labels_url": u + "/labels{/name}",
		"languages_url": u + "/languages", "merges_url": u + "/merges", "milestones_url": u + "/milestones{/number}",
		"notifications_url": u + "/notifications{?since,all,participating}", "pulls_url": u + "/pulls{/number}",
		"releases_url": u + "/releases{/id}", "stargazers_url": u + "/stargazers",
		"statuses_url": u + "/statuses/{sha}", "subscribers_url": u + "/subscribers",
		"subscription_url": u + "/subscription", "tags_url": u + "/tags", "teams_url": u + "/teams",
		"trees_url": u + "/git/trees{/sha}",
	}
	return o
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// FullRepo is GitHub's "full-repository" shape (a superset of "repository").
func (c *ReqCtx) FullRepo(r *Repo) Obj {
	o := c.MinimalRepo(r)
	open := 0
	for _, p := range r.Pulls {
		if p.State == "open" {
			open++
		}
	}
	topics := r.Opts.Topics
	if topics == nil {
		topics = []string{}
	}
	vis := "public"
	if r.Opts.Private {
		vis = "private"
	}
	extra := Obj{
		"clone_url": c.Web + "/" + r.FullName() + ".git", "git_url": "git://" + c.Req.Host + "/" + r.FullName() + ".git",
		"ssh_url": "git@" + c.Req.Host + ":" + r.FullName() + ".git", "svn_url": c.Web + "/" + r.FullName(),
		"mirror_url": nil, "homepage": nil, "language": nullStr(r.Opts.Language), "default_branch": r.Opts.DefaultBranch,
		"forks": 0, "forks_count": 0, "stargazers_count": 0, "watchers": 0, "watchers_count": 0, "size": 1,
		"open_issues": open, "open_issues_count": open, "is_template": false, "topics": topics,
		"has_issues": true, "has_projects": true, "has_wiki": true, "has_pages": false, "has_downloads": true,
		"has_discussions": false, "archived": false, "disabled": false, "visibility": vis,
		"pushed_at": Ts(r.Pushed), "created_at": Ts(r.created), "updated_at": Ts(r.Pushed),
		"license": nil, "network_count": 0, "subscribers_count": 0,
		"allow_rebase_merge": true, "allow_squash_merge": true, "allow_merge_commit": true,
		"permissions": c.permissionsObj(r),
	}
	for k, v := range extra {
		o[k] = v
	}
	return o
}

func (c *ReqCtx) permissionsObj(r *Repo) Obj {
	p := c.h.Perm(c.Tok, r)
	w := p == PermWrite
	return Obj{"admin": false, "maintain": w, "push": w, "triage": w, "pull": p != PermNone}
}

// CommitURL is the REST URL of a commit of r.
func (c *ReqCtx) CommitURL(r *Repo, sha string) string { return c.RepoURL(r) + "/commits/" + sha }

func sig(s object.Signature) Obj {
	return Obj{"name": s.Name, "email": s.Email, "date": Ts(s.When)}
}

func verification() Obj {
	return Obj{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil, "verified_at": nil}
}

// GitCommit is the git data API's commit shape.
func (c *ReqCtx) GitCommit(r *Repo, cm *object.Commit) Obj {
	sha := cm.Hash.String()
	parents := []Obj{}
	for _, p := range cm.ParentHashes {
		parents = append(parents, Obj{"sha": p.String(), "url": c.RepoURL(r) + "/git/commits/" + p.String(), "html_url": c.Web + "/" + r.FullName() + "/commit/" + p.String()})
	}
	return Obj{
		"sha": sha, "node_id": NodeID("Commit", int64(cm.Hash[0])<<8|int64(cm.Hash[1])), "url": c.RepoURL(r) + "/git/commits/" + sha,
		"html_url": c.Web + "/" + r.FullName() + "/commit/" + sha, "author": sig(cm.Author), "committer": sig(cm.Committer),
		"tree":    Obj{"sha": cm.TreeHash.String(), "url": c.RepoURL(r) + "/git/trees/" + cm.TreeHash.String()},
		"message": strings.TrimSuffix(cm.Message, "\n"), "parents": parents, "verification": verification(),
	}
}

// Commit is the REST "commit" shape (commits list, branch).
func (c *ReqCtx) Commit(r *Repo, cm *object.Commit) Obj {
	sha := cm.Hash.String()
	parents := []Obj{}
	for _, p := range cm.ParentHashes {
		parents = append(parents, Obj{"sha": p.String(), "url": c.CommitURL(r, p.String()), "html_url": c.Web + "/" + r.FullName() + "/commit/" + p.String()})
	}
	return Obj{
		"sha": sha, "node_id": NodeID("Commit", int64(cm.Hash[0])<<8|int64(cm.Hash[1])), "url": c.CommitURL(r, sha),
		"html_url": c.Web + "/" + r.FullName() + "/commit/" + sha, "comments_url": c.CommitURL(r, sha) + "/comments",
		"commit": Obj{
			"author": sig(cm.Author), "committer": sig(cm.Committer), "message": strings.TrimSuffix(cm.Message, "\n"),
			"tree": Obj{"sha": cm.TreeHash.String(), "url": c.RepoURL(r) + "/git/trees/" + cm.TreeHash.String()},
			"url":  c.RepoURL(r) + "/git/commits/" + sha, "comment_count": 0, "verification": verification(),
		},
		"author": nil, "committer": nil, "parents": parents,
	}
}

// PullObj is a pull request as the REST API renders it; full adds the fields only GET of one pull
// request has.
func (c *ReqCtx) PullObj(r *Repo, p *Pull, full bool) Obj {
	u := c.RepoURL(r) + "/pulls/" + strconv.Itoa(p.Number)
	issue := c.RepoURL(r) + "/issues/" + strconv.Itoa(p.Number)
	html := c.Web + "/" + r.FullName() + "/pull/" + strconv.Itoa(p.Number)
	headSHA, baseSHA := r.PullSHAs(p)
	side := func(branch, sha string) Obj {
		return Obj{"label": r.Opts.Owner + ":" + branch, "ref": branch, "sha": sha, "user": c.user(r.Opts.Owner), "repo": c.FullRepo(r)}
	}
	// Labels, assignees, milestone and conversation comments live on the pull request's issue
	// side (issues.go), as on GitHub.
	issueSide := r.issueSideOrZero(p)
	assignee, assignees := c.assigneeObjs(issueSide.Assignees)
	var mergeCommit any
	switch {
	case p.mergeCommitSHA != "":
		mergeCommit = p.mergeCommitSHA
	case !p.Merged && p.State == "open" && p.mergeable && p.testMergeSHA != "" && p.donePair == [2]string{headSHA, baseSHA}:
		// While GitHub knows the pull request is mergeable, merge_commit_sha is its test merge.
		mergeCommit = p.testMergeSHA
	}
	reviewers, teams := c.RequestedObjs(r, p)
	o := Obj{
		"url": u, "id": p.id, "node_id": pullNodeID(r, p.Number), "html_url": html, "diff_url": html + ".diff",
		"patch_url": html + ".patch", "issue_url": issue, "commits_url": u + "/commits",
		"review_comments_url": u + "/comments", "review_comment_url": c.RepoURL(r) + "/pulls/comments{/number}",
		"comments_url": issue + "/comments", "statuses_url": c.RepoURL(r) + "/statuses/" + headSHA,
		"number": p.Number, "state": p.State, "locked": false, "title": p.Title, "user": c.user(p.user),
		"body": nullStr(p.Body), "labels": c.labelObjs(r, issueSide.Labels), "milestone": c.milestoneOrNil(r, issueSide.Milestone), "active_lock_reason": nil,
		"created_at": Ts(p.created), "updated_at": Ts(p.Updated), "closed_at": NullTime(p.ClosedAt),
		"merged_at": NullTime(p.mergedAt), "merge_commit_sha": mergeCommit, "assignee": assignee, "assignees": assignees,
		"requested_reviewers": reviewers, "requested_teams": teams, "head": side(p.Head, headSHA), "base": side(p.Base, baseSHA),
		"_links": Obj{
			"self": Obj{"href": u}, "html": Obj{"href": html}, "issue": Obj{"href": issue}, "comments": Obj{"href": issue + "/comments"},
			"review_comments": Obj{"href": u + "/comments"}, "review_comment": Obj{"href": c.RepoURL(r) + "/pulls/comments{/number}"},
			"commits": Obj{"href": u + "/commits"}, "statuses": Obj{"href": c.RepoURL(r) + "/statuses/" + headSHA},
		},
		"author_association": c.association(r, p.user), "auto_merge": nil, "draft": p.Draft,
	}
	if full {
		m, state := r.Mergeability(p, false)
		var mergeable any
		if m != nil {
			mergeable = *m
		}
		o["mergeable"], o["mergeable_state"], o["rebaseable"] = mergeable, state, mergeable
		o["merged"], o["merged_by"] = p.Merged, nil
		if p.Merged {
			o["merged_by"] = c.user(r.Opts.Owner)
		}
		o["comments"], o["review_comments"], o["maintainer_can_modify"] = len(issueSide.Comments), p.ReviewCommentCount(), false
		adds, dels, files, commits := r.diffStats(headSHA, baseSHA)
		o["commits"], o["additions"], o["deletions"], o["changed_files"] = commits, adds, dels, files
	}
	return o
}

// linkHeader builds GitHub's link header with absolute URLs for the current request.
func (c *ReqCtx) linkHeader(page, perPage, total int) string {
	last := (total + perPage - 1) / perPage
	if last < 1 {
		last = 1
	}
	mk := func(n int, rel string) string {
		q := c.Req.URL.Query()
		q.Set("page", strconv.Itoa(n))
		q.Set("per_page", strconv.Itoa(perPage))
		u := url.URL{Scheme: "http", Host: c.Req.Host, Path: c.Req.URL.Path, RawQuery: q.Encode()}
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var parts []string
	if page < last {
		parts = append(parts, mk(page+1, "next"), mk(last, "last"))
	}
	if page > 1 {
		parts = append(parts, mk(1, "first"), mk(page-1, "prev"))
	}
	return strings.Join(parts, ", ")
}

// privateUser is GET /user's answer: the user object with the profile and plan counters GitHub's
// private-user schema requires. fakehub keeps no profiles, so they are empty or zero.
func (c *ReqCtx) privateUser(login string) Obj {
	u := c.user(login)
	profile := Obj{
		"name": login, "company": nil, "blog": "", "location": nil, "email": nil, "hireable": nil, "bio": nil,
		"public_repos": 0, "public_gists": 0, "followers": 0, "following": 0,
		"created_at": Ts(SeedEpoch), "updated_at": Ts(SeedEpoch),
		"private_gists": 0, "total_private_repos": 0, "owned_private_repos": 0, "disk_usage": 0, "collaborators": 0,
		"two_factor_authentication": true,
	}
	for k, v := range profile {
		u[k] = v
	}
	return u
}

// RefObj is a git reference as the REST API renders it.
func (c *ReqCtx) RefObj(r *Repo, name string, sha plumbing.Hash) Obj {
	return Obj{"ref": name, "node_id": NodeID("Ref", int64(len(name))), "url": c.RepoURL(r) + "/git/" + name,
		"object": Obj{"type": "commit", "sha": sha.String(), "url": c.RepoURL(r) + "/git/commits/" + sha.String()}}
}

// pullNodeID is a pull request's GraphQL global id: stable for the repository and number, and
// decodable without a lookup table.
func pullNodeID(r *Repo, number int) string {
	return "PR_kw" + base64.RawURLEncoding.EncodeToString([]byte(r.FullName()+":"+strconv.Itoa(number)))
}

// PullNode is the part of GraphQL's PullRequest type fakehub answers.
func (c *ReqCtx) PullNode(r *Repo, p *Pull) Obj {
	state := strings.ToUpper(p.State)
	if p.Merged {
		state = "MERGED"
	}
	return Obj{
		"__typename": "PullRequest", "id": pullNodeID(r, p.Number), "number": p.Number, "isDraft": p.Draft,
		"state": state, "title": p.Title, "url": c.Web + "/" + r.FullName() + "/pull/" + strconv.Itoa(p.Number),
		"closed": p.State == "closed", "merged": p.Merged,
	}
}

// APIRoot is the absolute REST root the request came in on (keeping /api/v3 when used), for
// areas outside this package that build REST addresses.
func (c *ReqCtx) APIRoot() string { return c.api }
