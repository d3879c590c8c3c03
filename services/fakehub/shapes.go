package fakehub

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
)

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return ts(t)
}

func nodeID(kind string, id int64) string {
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

func (c *reqCtx) user(login string) obj {
	u := c.api + "/users/" + login
	id := c.h.userID(login)
	return obj{
		"login": login, "id": id, "node_id": nodeID("User", id), "avatar_url": c.web + "/avatars/" + login,
		"gravatar_id": "", "url": u, "html_url": c.web + "/" + login, "followers_url": u + "/followers",
		"following_url": u + "/following{/other_user}", "gists_url": u + "/gists{/gist_id}",
		"starred_url": u + "/starred{/owner}{/repo}", "subscriptions_url": u + "/subscriptions",
		"organizations_url": u + "/orgs", "repos_url": u + "/repos", "events_url": u + "/events{/privacy}",
		"received_events_url": u + "/received_events", "type": c.h.userType(login), "site_admin": false,
	}
}

func (c *reqCtx) repoURL(r *repo) string { return c.api + "/repos/" + r.fullName() }

// minimalRepo is GitHub's "minimal-repository" shape, the one search and statuses embed.
func (c *reqCtx) minimalRepo(r *repo) obj {
	u := c.repoURL(r)
	o := obj{
		"id": r.id, "node_id": nodeID("Repository", r.id), "name": r.opts.Name, "full_name": r.fullName(),
		"owner": c.user(r.opts.Owner), "private": r.opts.Private, "html_url": c.web + "/" + r.fullName(),
		"description": nullStr(r.opts.Description), "fork": false, "url": u,
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

// fullRepo is GitHub's "full-repository" shape (a superset of "repository").
func (c *reqCtx) fullRepo(r *repo) obj {
	o := c.minimalRepo(r)
	open := 0
	for _, p := range r.pulls {
		if p.state == "open" {
			open++
		}
	}
	topics := r.opts.Topics
	if topics == nil {
		topics = []string{}
	}
	vis := "public"
	if r.opts.Private {
		vis = "private"
	}
	extra := obj{
		"clone_url": c.web + "/" + r.fullName() + ".git", "git_url": "git://" + c.r.Host + "/" + r.fullName() + ".git",
		"ssh_url": "git@" + c.r.Host + ":" + r.fullName() + ".git", "svn_url": c.web + "/" + r.fullName(),
		"mirror_url": nil, "homepage": nil, "language": nullStr(r.opts.Language), "default_branch": r.opts.DefaultBranch,
		"forks": 0, "forks_count": 0, "stargazers_count": 0, "watchers": 0, "watchers_count": 0, "size": 1,
		"open_issues": open, "open_issues_count": open, "is_template": false, "topics": topics,
		"has_issues": true, "has_projects": true, "has_wiki": true, "has_pages": false, "has_downloads": true,
		"has_discussions": false, "archived": false, "disabled": false, "visibility": vis,
		"pushed_at": ts(r.pushed), "created_at": ts(r.created), "updated_at": ts(r.pushed),
		"license": nil, "network_count": 0, "subscribers_count": 0,
		"allow_rebase_merge": true, "allow_squash_merge": true, "allow_merge_commit": true,
		"permissions": c.permissionsObj(r),
	}
	for k, v := range extra {
		o[k] = v
	}
	return o
}

func (c *reqCtx) permissionsObj(r *repo) obj {
	p := c.h.perm(c.tok, r)
	w := p == PermWrite
	return obj{"admin": false, "maintain": w, "push": w, "triage": w, "pull": p != PermNone}
}

func (c *reqCtx) commitURL(r *repo, sha string) string { return c.repoURL(r) + "/commits/" + sha }

func sig(s object.Signature) obj {
	return obj{"name": s.Name, "email": s.Email, "date": ts(s.When)}
}

func verification() obj {
	return obj{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil, "verified_at": nil}
}

// gitCommit is the git data API's commit shape.
func (c *reqCtx) gitCommit(r *repo, cm *object.Commit) obj {
	sha := cm.Hash.String()
	parents := []obj{}
	for _, p := range cm.ParentHashes {
		parents = append(parents, obj{"sha": p.String(), "url": c.repoURL(r) + "/git/commits/" + p.String(), "html_url": c.web + "/" + r.fullName() + "/commit/" + p.String()})
	}
	return obj{
		"sha": sha, "node_id": nodeID("Commit", int64(cm.Hash[0])<<8|int64(cm.Hash[1])), "url": c.repoURL(r) + "/git/commits/" + sha,
		"html_url": c.web + "/" + r.fullName() + "/commit/" + sha, "author": sig(cm.Author), "committer": sig(cm.Committer),
		"tree":    obj{"sha": cm.TreeHash.String(), "url": c.repoURL(r) + "/git/trees/" + cm.TreeHash.String()},
		"message": strings.TrimSuffix(cm.Message, "\n"), "parents": parents, "verification": verification(),
	}
}

// commit is the REST "commit" shape (commits list, branch).
func (c *reqCtx) commit(r *repo, cm *object.Commit) obj {
	sha := cm.Hash.String()
	parents := []obj{}
	for _, p := range cm.ParentHashes {
		parents = append(parents, obj{"sha": p.String(), "url": c.commitURL(r, p.String()), "html_url": c.web + "/" + r.fullName() + "/commit/" + p.String()})
	}
	return obj{
		"sha": sha, "node_id": nodeID("Commit", int64(cm.Hash[0])<<8|int64(cm.Hash[1])), "url": c.commitURL(r, sha),
		"html_url": c.web + "/" + r.fullName() + "/commit/" + sha, "comments_url": c.commitURL(r, sha) + "/comments",
		"commit": obj{
			"author": sig(cm.Author), "committer": sig(cm.Committer), "message": strings.TrimSuffix(cm.Message, "\n"),
			"tree": obj{"sha": cm.TreeHash.String(), "url": c.repoURL(r) + "/git/trees/" + cm.TreeHash.String()},
			"url":  c.repoURL(r) + "/git/commits/" + sha, "comment_count": 0, "verification": verification(),
		},
		"author": nil, "committer": nil, "parents": parents,
	}
}

func (c *reqCtx) pullObj(r *repo, p *pull, full bool) obj {
	u := c.repoURL(r) + "/pulls/" + strconv.Itoa(p.number)
	issue := c.repoURL(r) + "/issues/" + strconv.Itoa(p.number)
	html := c.web + "/" + r.fullName() + "/pull/" + strconv.Itoa(p.number)
	headSHA, baseSHA := r.pullSHAs(p)
	side := func(branch, sha string) obj {
		return obj{"label": r.opts.Owner + ":" + branch, "ref": branch, "sha": sha, "user": c.user(r.opts.Owner), "repo": c.fullRepo(r)}
	}
	// Labels, assignees, milestone and conversation comments live on the pull request's issue
	// side (issues.go), as on GitHub.
	issueSide := r.issueSideOrZero(p)
	assignee, assignees := c.assigneeObjs(issueSide.assignees)
	var mergeCommit any
	switch {
	case p.mergeCommitSHA != "":
		mergeCommit = p.mergeCommitSHA
	case !p.merged && p.state == "open" && p.mergeable && p.testMergeSHA != "" && p.donePair == [2]string{headSHA, baseSHA}:
		// While GitHub knows the pull request is mergeable, merge_commit_sha is its test merge.
		mergeCommit = p.testMergeSHA
	}
	reviewers, teams := c.requestedObjs(r, p)
	o := obj{
		"url": u, "id": p.id, "node_id": pullNodeID(r, p.number), "html_url": html, "diff_url": html + ".diff",
		"patch_url": html + ".patch", "issue_url": issue, "commits_url": u + "/commits",
		"review_comments_url": u + "/comments", "review_comment_url": c.repoURL(r) + "/pulls/comments{/number}",
		"comments_url": issue + "/comments", "statuses_url": c.repoURL(r) + "/statuses/" + headSHA,
		"number": p.number, "state": p.state, "locked": false, "title": p.title, "user": c.user(p.user),
		"body": nullStr(p.body), "labels": c.labelObjs(r, issueSide.labels), "milestone": c.milestoneOrNil(r, issueSide.milestone), "active_lock_reason": nil,
		"created_at": ts(p.created), "updated_at": ts(p.updated), "closed_at": nullTime(p.closedAt),
		"merged_at": nullTime(p.mergedAt), "merge_commit_sha": mergeCommit, "assignee": assignee, "assignees": assignees,
		"requested_reviewers": reviewers, "requested_teams": teams, "head": side(p.head, headSHA), "base": side(p.base, baseSHA),
		"_links": obj{
			"self": obj{"href": u}, "html": obj{"href": html}, "issue": obj{"href": issue}, "comments": obj{"href": issue + "/comments"},
			"review_comments": obj{"href": u + "/comments"}, "review_comment": obj{"href": c.repoURL(r) + "/pulls/comments{/number}"},
			"commits": obj{"href": u + "/commits"}, "statuses": obj{"href": c.repoURL(r) + "/statuses/" + headSHA},
		},
		"author_association": c.association(r, p.user), "auto_merge": nil, "draft": p.draft,
	}
	if full {
		m, state := r.mergeability(p, false)
		var mergeable any
		if m != nil {
			mergeable = *m
		}
		o["mergeable"], o["mergeable_state"], o["rebaseable"] = mergeable, state, mergeable
		o["merged"], o["merged_by"] = p.merged, nil
		if p.merged {
			o["merged_by"] = c.user(r.opts.Owner)
		}
		o["comments"], o["review_comments"], o["maintainer_can_modify"] = len(issueSide.comments), c.reviewCommentCount(p), false
		adds, dels, files, commits := r.diffStats(headSHA, baseSHA)
		o["commits"], o["additions"], o["deletions"], o["changed_files"] = commits, adds, dels, files
	}
	return o
}

// linkHeader builds GitHub's link header with absolute URLs for the current request.
func (c *reqCtx) linkHeader(page, perPage, total int) string {
	last := (total + perPage - 1) / perPage
	if last < 1 {
		last = 1
	}
	mk := func(n int, rel string) string {
		q := c.r.URL.Query()
		q.Set("page", strconv.Itoa(n))
		q.Set("per_page", strconv.Itoa(perPage))
		u := url.URL{Scheme: "http", Host: c.r.Host, Path: c.r.URL.Path, RawQuery: q.Encode()}
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
func (c *reqCtx) privateUser(login string) obj {
	u := c.user(login)
	profile := obj{
		"name": login, "company": nil, "blog": "", "location": nil, "email": nil, "hireable": nil, "bio": nil,
		"public_repos": 0, "public_gists": 0, "followers": 0, "following": 0,
		"created_at": ts(seedEpoch), "updated_at": ts(seedEpoch),
		"private_gists": 0, "total_private_repos": 0, "owned_private_repos": 0, "disk_usage": 0, "collaborators": 0,
		"two_factor_authentication": true,
	}
	for k, v := range profile {
		u[k] = v
	}
	return u
}
