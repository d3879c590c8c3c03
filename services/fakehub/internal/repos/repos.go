// Package repos serves fakehub's account-level repository routes: the repositories a token can
// reach (/user/repos, /installation/repositories), a user's or an organization's, creating one
// for the user or an organization, and forking.
//
// fakehub knows users by their tokens and takes every other owner for an organization. A token
// may create repositories in an organization, and fork into it, when it may write to one of that
// organization's repositories (or to every repository, "*"): a member with push access.
package repos

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"ghops.dev/services/fakehub/internal/hub"
)

type api struct{ *hub.Hub }

// Register adds this area's routes to h through add (see hub.New).
func Register(h *hub.Hub, add hub.AddFunc) {
	a := &api{h}
	add("GET", "/user/repos", a.listMine)
	add("POST", "/user/repos", a.createMine)
	add("GET", "/users/{username}/repos", a.listUser)
	add("GET", "/orgs/{org}/repos", a.listOrg)
	add("POST", "/orgs/{org}/repos", a.createOrg)
	add("GET", "/installation/repositories", a.listInstallation)
	add("POST", "/repos/{owner}/{repo}/forks", h.WithRepo(hub.PermRead, a.fork))
}

// docRepos is the documentation_url of the repository routes' errors.
const docRepos = "https://docs.github.com/rest/repos/repos"

// visible lists the repositories keep selects among those the token can see, in creation order.
func (a *api) visible(c *hub.ReqCtx, keep func(*hub.Repo, hub.Permission) bool) []*hub.Repo {
	var out []*hub.Repo
	for _, r := range a.SortedRepos() {
		if p := a.Perm(c.Tok, r); p != hub.PermNone && keep(r, p) {
			out = append(out, r)
		}
	}
	return out
}

// ofType keeps r for the type filter t ("" = all), as GitHub's list routes read it.
func ofType(t, login string, r *hub.Repo, p hub.Permission) bool {
	switch t {
	case "", "all":
		return true
	case "owner":
		return strings.EqualFold(r.Opts.Owner, login)
	case "member":
		return !strings.EqualFold(r.Opts.Owner, login) && p == hub.PermWrite
	case "public":
		return !r.Opts.Private
	case "private":
		return r.Opts.Private
	case "forks":
		return r.Opts.ForkOf != ""
	case "sources":
		return r.Opts.ForkOf == ""
	}
	return false
}

// sorted orders list by the sort and direction parameters: full_name ascending by default,
// created, updated and pushed newest first (GitHub's defaults); 422 for an unknown value.
func sorted(c *hub.ReqCtx, list []*hub.Repo) ([]*hub.Repo, *hub.Reply) {
	q := c.Req.URL.Query()
	less := func(i, j int) bool { return strings.ToLower(list[i].FullName()) < strings.ToLower(list[j].FullName()) }
	desc := false
	switch q.Get("sort") {
	case "", "full_name":
	case "created":
		less, desc = func(i, j int) bool { return list[i].Created().Before(list[j].Created()) }, true
	case "updated", "pushed":
		less, desc = func(i, j int) bool { return list[i].Pushed.Before(list[j].Pushed) }, true
	default:
		return nil, hub.Validation(hub.Invalid("Repository", "sort", "invalid", ""))
	}
	switch q.Get("direction") {
	case "":
	case "asc":
		desc = false
	case "desc":
		desc = true
	default:
		return nil, hub.Validation(hub.Invalid("Repository", "direction", "invalid", ""))
	}
	sort.SliceStable(list, less)
	if desc {
		slices.Reverse(list)
	}
	return list, nil
}

// page answers one page of list.
func page(c *hub.ReqCtx, list []*hub.Repo) *hub.Reply {
	list, bad := sorted(c, list)
	if bad != nil {
		return bad
	}
	return hub.PageReply(c, list, c.FullRepo)
}

// listMine answers GET /user/repos: every repository the user can reach; 401 without a token,
// 403 for an App installation (which acts as no user).
func (a *api) listMine(c *hub.ReqCtx) *hub.Reply {
	if bad := a.userOnly(c); bad != nil {
		return bad
	}
	t := c.Req.URL.Query().Get("type")
	switch t {
	case "", "all", "owner", "member", "public", "private":
	default:
		return hub.Validation(hub.Invalid("Repository", "type", "invalid", ""))
	}
	login := c.Tok.Login
	return page(c, a.visible(c, func(r *hub.Repo, p hub.Permission) bool {
		// Reachable: owned, or granted; public repositories of others are not the user's.
		mine := strings.EqualFold(r.Opts.Owner, login) || p == hub.PermWrite || r.Opts.Private
		return mine && ofType(t, login, r, p)
	}))
}

// userOnly refuses a request that must come from a user: 401 without a token, 403 with an App
// installation's.
func (a *api) userOnly(c *hub.ReqCtx) *hub.Reply {
	if c.Tok == nil {
		return hub.ErrReply(401, "Requires authentication", docRepos)
	}
	if c.Installation() {
		return hub.ErrReply(403, "Resource not accessible by integration", docRepos)
	}
	return nil
}

// ownerKnown reports whether login owns a repository or holds a token.
func (a *api) ownerKnown(login string) bool {
	if a.IsUser(login) {
		return true
	}
	for _, r := range a.SortedRepos() {
		if strings.EqualFold(r.Opts.Owner, login) {
			return true
		}
	}
	return false
}

// listUser answers GET /users/{username}/repos: the owner's public repositories (GitHub serves
// organizations here too); 404 for an unknown account.
func (a *api) listUser(c *hub.ReqCtx) *hub.Reply {
	u := c.Params["username"]
	if !a.ownerKnown(u) {
		return hub.NotFound()
	}
	t := c.Req.URL.Query().Get("type")
	return page(c, a.visible(c, func(r *hub.Repo, p hub.Permission) bool {
		return strings.EqualFold(r.Opts.Owner, u) && !r.Opts.Private && (t == "member" || ofType(t, u, r, p))
	}))
}

// listOrg answers GET /orgs/{org}/repos: the organization's repositories the token can see; 404
// when org is a user or unknown.
func (a *api) listOrg(c *hub.ReqCtx) *hub.Reply {
	org := c.Params["org"]
	if a.IsUser(org) || !a.ownerKnown(org) {
		return hub.NotFound()
	}
	t := c.Req.URL.Query().Get("type")
	switch t {
	case "", "all", "public", "private", "forks", "sources", "member":
	default:
		return hub.Validation(hub.Invalid("Repository", "type", "invalid", ""))
	}
	return page(c, a.visible(c, func(r *hub.Repo, p hub.Permission) bool {
		return strings.EqualFold(r.Opts.Owner, org) && (t == "member" && p == hub.PermWrite || t != "member" && ofType(t, org, r, p))
	}))
}

// listInstallation answers GET /installation/repositories: the repositories an App installation
// token was granted; 403 for any other token, 401 without one.
func (a *api) listInstallation(c *hub.ReqCtx) *hub.Reply {
	if c.Tok == nil {
		return hub.ErrReply(401, "Requires authentication", docRepos)
	}
	if !c.Installation() {
		return hub.ErrReply(403, "You must authenticate with an installation access token in order to list repositories for an installation.", "https://docs.github.com/rest/apps/installations#list-repositories-accessible-to-the-app-installation")
	}
	list := a.visible(c, func(r *hub.Repo, _ hub.Permission) bool {
		_, own := c.Tok.Repos[r.FullName()]
		_, low := c.Tok.Repos[hub.RepoKey(r.FullName())]
		_, all := c.Tok.Repos["*"]
		return own || low || all
	})
	lo, hi, rep := c.PageOf(len(list))
	items := make([]hub.Obj, 0, hi-lo)
	for _, r := range list[lo:hi] {
		items = append(items, c.FullRepo(r))
	}
	rep.Body = hub.Obj{"total_count": len(list), "repository_selection": "selected", "repositories": items}
	return rep
}

// createInput is the body of POST /user/repos and /orgs/{org}/repos.
type createInput struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
	Private     *bool   `json:"private"`
	Visibility  *string `json:"visibility"`
	AutoInit    *bool   `json:"auto_init"`
}

// repoName is the characters GitHub keeps in a repository name.
var repoName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)

// createMine answers POST /user/repos: a repository of the token's user.
func (a *api) createMine(c *hub.ReqCtx) *hub.Reply {
	if bad := a.userOnly(c); bad != nil {
		return bad
	}
	return a.create(c, c.Tok.Login)
}

// createOrg answers POST /orgs/{org}/repos: 404 for an unknown organization or a user, 403
// unless the token may write to one of its repositories.
func (a *api) createOrg(c *hub.ReqCtx) *hub.Reply {
	if c.Tok == nil {
		return hub.ErrReply(401, "Requires authentication", docRepos)
	}
	org := c.Params["org"]
	if a.IsUser(org) || !a.ownerKnown(org) {
		return hub.NotFound()
	}
	if !a.member(c, org) {
		return hub.ErrReply(403, "You need admin access to the organization before adding a repository to it.", docRepos)
	}
	return a.create(c, org)
}

// member reports whether the token may write to a repository of org, or to all.
func (a *api) member(c *hub.ReqCtx, org string) bool {
	if p, ok := c.Tok.Repos["*"]; ok && p == hub.PermWrite {
		return true
	}
	for full, p := range c.Tok.Repos {
		if owner, _, _ := strings.Cut(full, "/"); p == hub.PermWrite && strings.EqualFold(owner, org) {
			return true
		}
	}
	return false
}

// create makes owner/name from the body: 422 for a missing or bad name (missing_field, custom)
// or a name the owner already has; the creator may write to it.
func (a *api) create(c *hub.ReqCtx, owner string) *hub.Reply {
	var in createInput
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if in.Name == nil || *in.Name == "" {
		return hub.Validation(hub.Invalid("Repository", "name", "missing_field", ""))
	}
	if !repoName.MatchString(*in.Name) || *in.Name == "." || *in.Name == ".." {
		return hub.Validation(hub.Invalid("Repository", "name", "custom", "name is invalid"))
	}
	o := hub.RepoOptions{Owner: owner, Name: *in.Name, Empty: in.AutoInit == nil || !*in.AutoInit}
	if in.Description != nil {
		o.Description = *in.Description
	}
	if in.Private != nil {
		o.Private = *in.Private
	}
	if in.Visibility != nil {
		switch *in.Visibility {
		case "public":
			o.Private = false
		case "private", "internal":
			o.Private = true
		default:
			return hub.Validation(hub.Invalid("Repository", "visibility", "invalid", ""))
		}
	}
	r, err := a.CreateRepoLocked(o)
	if err == hub.ErrRepoExists {
		return hub.Validation(hub.Invalid("Repository", "name", "custom", "name already exists on this account"))
	}
	if err != nil {
		return hub.ErrReply(500, "Server Error", "")
	}
	c.GrantLocked(r.FullName())
	rep := hub.OkReply(201, c.FullRepo(r))
	rep.SetHeader("Location", c.RepoURL(r))
	return rep
}

// forkInput is the body of POST /repos/{owner}/{repo}/forks.
type forkInput struct {
	Organization *string `json:"organization"`
	Name         *string `json:"name"`
}

// fork answers POST /repos/{owner}/{repo}/forks with 202 and the fork: an existing fork of the
// same repository under that name is answered again, another repository of that name is 422;
// forking into an organization needs membership (403), into an unknown one 404.
func (a *api) fork(c *hub.ReqCtx, src *hub.Repo) *hub.Reply {
	if c.Tok == nil {
		return hub.ErrReply(401, "Requires authentication", docRepos)
	}
	var in forkInput
	if c.Req.ContentLength != 0 {
		if bad := hub.Decode(c, &in); bad != nil {
			return bad
		}
	}
	owner := c.Tok.Login
	if in.Organization != nil && *in.Organization != "" {
		owner = *in.Organization
		if a.IsUser(owner) || !a.ownerKnown(owner) {
			return hub.NotFound()
		}
		if !a.member(c, owner) {
			return hub.ErrReply(403, "Resource not accessible by personal access token", docRepos)
		}
	} else if c.Installation() {
		return hub.ErrReply(403, "Resource not accessible by integration", docRepos)
	}
	name := src.Opts.Name
	if in.Name != nil && *in.Name != "" {
		name = *in.Name
		if !repoName.MatchString(name) {
			return hub.Validation(hub.Invalid("Repository", "name", "custom", "name is invalid"))
		}
	}
	full := owner + "/" + name
	if hub.RepoKey(full) == hub.RepoKey(src.FullName()) {
		return hub.Validation(hub.Invalid("Repository", "name", "custom", "cannot fork a repository to itself"))
	}
	if r, ok := a.Repos[hub.RepoKey(full)]; ok {
		if r.Opts.ForkOf == src.FullName() {
			return hub.OkReply(202, c.FullRepo(r))
		}
		return hub.Validation(hub.Invalid("Repository", "name", "custom", "name already exists on this account"))
	}
	r, err := a.ForkLocked(src, owner, name)
	if err != nil {
		return hub.ErrReply(500, "Server Error", "")
	}
	c.GrantLocked(r.FullName())
	return hub.OkReply(202, c.FullRepo(r))
}
