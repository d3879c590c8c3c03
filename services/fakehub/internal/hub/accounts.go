package hub

import (
	"maps"
	"time"
)

// IsUser reports whether login is a user (a token's login) rather than an organization: fakehub
// knows users only by their tokens, and every other owner is an organization.
func (h *Hub) IsUser(login string) bool { return h.userType(login) == "User" }

// UserObj is GitHub's simple-user shape of login.
func (c *ReqCtx) UserObj(login string) Obj { return c.user(login) }

// Installation reports whether the request carries a GitHub App installation token.
func (c *ReqCtx) Installation() bool { return c.Tok != nil && c.Tok.installation }

// Created is when r was created.
func (r *Repo) Created() time.Time { return r.created }

// GrantLocked gives the request's token write access to repository full (its creator's, as
// GitHub makes the creator of a repository its admin); the caller holds Mu exclusively. The
// token's map is copied first, so that a map the configuration shares is never written.
func (c *ReqCtx) GrantLocked(full string) {
	if c.Tok == nil {
		return
	}
	m := maps.Clone(c.Tok.Repos)
	if m == nil {
		m = map[string]Permission{}
	}
	m[full] = PermWrite
	c.Tok.Repos = m
}

// ForkLocked creates owner/name as a fork of src: a repository with every commit and ref of
// src, marked as its fork. The caller holds Mu exclusively.
func (h *Hub) ForkLocked(src *Repo, owner, name string) (*Repo, error) {
	o := src.Opts
	o.Owner, o.Name, o.Empty, o.ForkOf = owner, name, true, src.FullName()
	r, err := h.CreateRepoLocked(o)
	if err != nil {
		return nil, err
	}
	g, err := src.Git.Clone()
	if err != nil {
		return nil, err
	}
	r.Git = g
	return r, nil
}
