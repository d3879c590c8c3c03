package hub

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"time"

	"ghops.dev/services/fakehub/internal/ratelimit"
)

// HasScope reports whether the token was granted one of scopes; a token without a scope list
// (the default) holds them all.
func (t *tokenInfo) HasScope(scopes ...string) bool {
	if t == nil {
		return false
	}
	if t.Scopes == nil {
		return true
	}
	return slices.ContainsFunc(scopes, func(s string) bool { return slices.Contains(t.Scopes, s) })
}

// GrantedScopes are the token's scopes as GitHub lists them in an INSUFFICIENT_SCOPES message.
func (t *tokenInfo) GrantedScopes() []string {
	if t == nil || t.Scopes == nil {
		return []string{}
	}
	return t.Scopes
}

// UserNodeID is the GraphQL global id of the user or organization login, as REST's node_id.
func (h *Hub) UserNodeID(login string) string { return NodeID("User", h.userID(login)) }

// NodeID is the repository's GraphQL global id, as REST's node_id.
func (r *Repo) NodeID() string { return NodeID("Repository", r.id) }

// RepoByNodeID resolves a repository's global id.
func (h *Hub) RepoByNodeID(id string) (*Repo, bool) {
	for _, r := range h.Repos {
		if r.NodeID() == id {
			return r, true
		}
	}
	return nil, false
}

// ContentByNodeID resolves the global id of an issue (as REST's node_id) or a pull request (as
// GraphQL's PullRequest.id) to its repository and number.
func (h *Hub) ContentByNodeID(id string) (*Repo, IssueRef, bool) {
	if raw, ok := strings.CutPrefix(id, "PR_kw"); ok {
		b, err := base64.RawURLEncoding.DecodeString(raw)
		if err != nil {
			return nil, IssueRef{}, false
		}
		name, num, _ := strings.Cut(string(b), ":")
		n, err := strconv.Atoi(num)
		r, found := h.Repos[RepoKey(name)]
		if err != nil || !found {
			return nil, IssueRef{}, false
		}
		return r.IssueNumbered(n)
	}
	for _, r := range h.Repos {
		for _, is := range r.Issues {
			if NodeID("Issue", is.ID) == id {
				return r, IssueRef{Is: is}, true
			}
		}
	}
	return nil, IssueRef{}, false
}

// IssueNumbered is the issue or pull request numbered n.
func (r *Repo) IssueNumbered(n int) (*Repo, IssueRef, bool) {
	for _, x := range r.AllIssues() {
		if x.Is.Number == n {
			return r, x, true
		}
	}
	return nil, IssueRef{}, false
}

// Now is fakehub's clock (Config.Now) as it stands, without Stamp's ticking: the day that
// decides which iteration of a project is the current one.
func (h *Hub) Now() time.Time { return h.now().UTC() }

// Bucket is the caller's rate-limit bucket for resource ("graphql") as it stands, before this
// request is paid for (the serving layer spends it after the handler).
func (h *Hub) Bucket(c *ReqCtx, resource string) ratelimit.Snapshot {
	id, limit, window := h.bucketFor(c, resource)
	return h.limiter.Peek(id, resource, limit, window)
}
