package httpcache

import (
	"net/url"
	"strings"
)

// IsSHA tells whether s is a full 40-hex-digit object id.
func IsSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// repoPath splits a REST path into the API root (ending in "/"), owner,
// repository and the segments after them; ok is false for paths outside
// /repos/{owner}/{repo}.
func repoPath(u *url.URL) (root, owner, name string, rest []string, ok bool) {
	p := u.EscapedPath()
	i := strings.Index(p, "/repos/")
	if i < 0 {
		return "", "", "", nil, false
	}
	segs := strings.Split(p[i+len("/repos/"):], "/")
	if len(segs) < 3 || segs[0] == "" || segs[1] == "" {
		return "", "", "", nil, false
	}
	root, _ = url.PathUnescape(p[:i+1])
	return root, segs[0], segs[1], segs[2:], true
}

// Immutable tells whether a GET of u reads content that can never change:
// it is addressed by a full SHA. Covered: contents and readme at ?ref=SHA,
// git trees, blobs and commits by SHA, a commit by SHA and the commit list
// from ?sha=SHA. A commit's check runs and statuses are addressed by SHA
// too but change, so they are not.
func Immutable(u *url.URL) bool { return classify(u).immutable }

// kind is what the cache needs to know of a read's URL, worked out once per
// request (parsing the path and query again for each question was a
// visible share of the service's CPU per call).
type kind struct {
	// immutable: see Immutable.
	immutable bool
	// branchParam names the query parameter holding the branch of a read
	// at a branch (or the default branch) that a SHA read can stand for:
	// contents at ?ref= and the commit list from ?sha= (but not a
	// one-commit list: that is how a head is resolved). "" otherwise.
	branchParam string
	// root, owner and name locate the repository of a branch read.
	root, owner, name string
	// query is the parsed query of a branch read.
	query url.Values
}

func classify(u *url.URL) kind {
	root, owner, name, rest, ok := repoPath(u)
	if !ok {
		return kind{}
	}
	// The query is parsed only for the paths that have one to read: most
	// reads (lists of pull requests, branches) are neither.
	var k kind
	switch {
	case rest[0] == "contents" || (rest[0] == "readme" && len(rest) == 1):
		q := u.Query()
		k.immutable = IsSHA(q.Get("ref"))
		if rest[0] == "contents" && !k.immutable {
			k.branchParam, k.query = "ref", q
		}
	case len(rest) == 3 && rest[0] == "git" && (rest[1] == "trees" || rest[1] == "blobs" || rest[1] == "commits"):
		k.immutable = IsSHA(rest[2])
	case len(rest) == 1 && rest[0] == "commits":
		q := u.Query()
		k.immutable = IsSHA(q.Get("sha"))
		if !k.immutable && q.Get("per_page") != "1" {
			k.branchParam, k.query = "sha", q
		}
	case len(rest) == 2 && rest[0] == "commits":
		k.immutable = IsSHA(rest[1])
	}
	if k.branchParam != "" {
		k.root, k.owner, k.name = root, owner, name
	}
	return k
}
