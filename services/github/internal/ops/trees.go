package ops

import (
	"context"
	"sort"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"ghops.dev/services/github/internal/cachestore"
	"ghops.dev/services/github/internal/ghstatus"
	"ghops.dev/services/github/internal/reposcope"
)

// get_tree answers the commit a ref points at (sha) and its recursive tree.
// REST has no one request for both: the recursive tree read by branch name
// (git/trees/{branch}?recursive=1) names only the tree. So a branch read
// (or a default-branch read) that no earlier call made goes through GraphQL:
// treeQuery reads the commit and its tree, treeDepth levels deep, in one
// request (docs/benchmarks.md, "Reads on a branch"). The answer is kept by
// commit (treeMemo), and the branch is noted, so that the next read of it
// takes the REST route: the head from the one-commit list, which the cache
// (package httpcache) makes conditional from then on (a 304 costs no rate
// limit), and the tree from treeMemo, or else from REST by the tree's SHA,
// which the cache keeps for good. A GraphQL answer is never re-read
// conditionally, so reading GraphQL again would spend a point each time.
//
// A tree deeper than treeDepth, with a directory of gqlDirectoryEntries
// entries, or whose REST answer GitHub might have cut (restTreeCut), is
// read from REST by the tree's SHA instead, so that the answer is the REST
// route's to the byte: entries in git order, size of blobs only, GitHub's
// truncation and the service's cap.

// treeQuery reads a revision's commit and its tree to treeDepth levels of
// directories. A whole constant, never assembled: TestGraphQLDocuments
// validates it against GitHub's schema. GitHub refuses documents nested
// deeper than 25 fields; each level costs two (entries, object), and the
// deepest level's fields sit at depth 23. Tree.entries is a list, not a
// connection, so the document costs one point however many entries.
const treeQuery = `query($owner: String!, $name: String!, $expression: String!) {
  repository(owner: $owner, name: $name) {
    isEmpty
    object(expression: $expression) {
      ... on Commit {
        oid
        tree {
          oid
          entries {
            name type size
            object { ... on Tree {
              entries {
                name type size
                object { ... on Tree {
                  entries {
                    name type size
                    object { ... on Tree {
                      entries {
                        name type size
                        object { ... on Tree {
                          entries {
                            name type size
                            object { ... on Tree {
                              entries {
                                name type size
                                object { ... on Tree {
                                  entries {
                                    name type size
                                    object { ... on Tree {
                                      entries {
                                        name type size
                                        object { ... on Tree {
                                          entries {
                                            name type size
                                            object { ... on Tree {
                                              entries {
                                                name type size
                                              }
                                            } }
                                          }
                                        } }
                                      }
                                    } }
                                  }
                                } }
                              }
                            } }
                          }
                        } }
                      }
                    } }
                  }
                } }
              }
            } }
          }
        }
      }
    }
  }
  rateLimit { cost }
}`

// treeDepth is the levels of entries treeQuery reaches (the root's
// entries are level 1).
const treeDepth = 10

// restTreeCut is below the 7 MB of JSON at which GitHub cuts a recursive
// REST tree; restEntryBytes bounds the JSON of one REST entry beside its
// path, base URL and repository (mode, type, sha, size, url). A GraphQL
// tree whose REST form could come near the cut is read from REST, which
// says where it was cut. restTreeEntries is GitHub's other cut.
const (
	restTreeCut     = 6_000_000
	restEntryBytes  = 200
	restTreeEntries = 100_000
)

// gqlDirectoryEntries is where GitHub cuts a directory's listing in the
// contents API and on the web, without saying so. Tree.entries documents no
// such cut, but a directory that reaches this many entries is read from
// REST by the tree's SHA all the same: a silent cut would lose paths.
const gqlDirectoryEntries = 1000

// treeMemo bounds: answers read through GraphQL, by repository and
// commit, and the branches read.
const (
	treeMemoEntries = 256
	treeMemoBytes   = 32 << 20
)

// gqlTree is a tree of treeQuery's answer.
type gqlTree struct {
	Oid     string         `json:"oid"`
	Entries []gqlTreeEntry `json:"entries"`
}

// gqlTreeEntry is one entry; Object is the directory's tree, empty for a
// file (a Blob, which the document selects nothing of), null for a
// submodule and absent at the deepest level.
type gqlTreeEntry struct {
	Name   string   `json:"name"`
	Type   string   `json:"type"`
	Size   int64    `json:"size"`
	Object *gqlTree `json:"object"`
}

// treeMemo keeps get_tree answers read through GraphQL, by repository
// and commit, and the branches get_tree has read. A kept answer is given
// only after the call's own token resolved the branch to that commit
// through REST (GitHub answered it the commit, so the token can read the
// repository at it): nothing crosses from a token to one that cannot read
// it. The branches noted only choose the route.
type treeMemo struct{ lru *cachestore.LRU }

func newTreeMemo() treeMemo {
	return treeMemo{lru: cachestore.NewLRU(treeMemoEntries, treeMemoBytes)}
}

func (m treeMemo) branchKey(repo, branch string) string { return "branch " + repo + " " + branch }
func (m treeMemo) treeKey(repo, sha string) string      { return "tree " + repo + " " + sha }

// read tells whether get_tree has read repo's branch ("" the default one).
func (m treeMemo) read(ctx context.Context, repo, branch string) bool {
	_, _, ok := m.lru.Get(ctx, m.branchKey(repo, branch))
	return ok
}

// noteRead records that get_tree has read repo's branch.
func (m treeMemo) noteRead(ctx context.Context, repo, branch string) {
	m.lru.Put(ctx, m.branchKey(repo, branch), &cachestore.Entry{})
}

// tree returns a new copy of the answer kept for repo at commit sha.
func (m treeMemo) tree(ctx context.Context, repo, sha string) *ghopsv1.GetTreeResponse {
	e, _, ok := m.lru.Get(ctx, m.treeKey(repo, sha))
	if !ok {
		return nil
	}
	out := new(ghopsv1.GetTreeResponse)
	if proto.Unmarshal(e.Body, out) != nil {
		return nil
	}
	return out
}

// keep records out, the answer for repo at its commit.
func (m treeMemo) keep(ctx context.Context, repo string, out *ghopsv1.GetTreeResponse) {
	if b, err := proto.Marshal(out); err == nil {
		m.lru.Put(ctx, m.treeKey(repo, out.GetSha()), &cachestore.Entry{Body: b})
	}
}

// GetTree implements the get_tree tool: a branch that no earlier call read
// through GraphQL in one request, anything else through REST.
func (s *Service) GetTree(ctx context.Context, req *ghopsv1.GetTreeRequest) (*ghopsv1.GetTreeResponse, error) {
	ref := refOf(req.Branch, req.Ref)
	c := ghstatus.Context{Tool: ghopsv1.ToolGetTree, Repo: req.GetRepo(), Resource: &ghopsv1.Resource{Type: refType(req.Branch), Id: resID(req.GetRepo(), "", ref)}}
	gh := s.client(ctx)
	if req.Ref != nil || s.trees.read(ctx, req.GetRepo(), ref) {
		return s.treeREST(ctx, gh, c, req.GetRepo(), ref)
	}
	return s.treeGraphQL(ctx, gh, c, req.GetRepo(), ref)
}

// treeREST reads the commit of ref from the commits list (one entry), then
// its tree from treeMemo or REST.
func (s *Service) treeREST(ctx context.Context, gh *github.Client, c ghstatus.Context, repo, ref string) (*ghopsv1.GetTreeResponse, error) {
	owner, name := splitRepo(repo)
	commits, _, err := gh.Repositories.ListCommits(ctx, owner, name, &github.CommitsListOptions{SHA: ref, ListOptions: github.ListOptions{PerPage: 1}})
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	if len(commits) == 0 {
		return nil, emptyRepository(c)
	}
	sha := commits[0].GetSHA()
	if out := s.trees.tree(ctx, repo, sha); out != nil {
		return out, nil
	}
	treeSHA := commits[0].GetCommit().GetTree().GetSHA()
	if treeSHA == "" {
		treeSHA = sha
	}
	return s.restTree(ctx, gh, c, repo, sha, treeSHA)
}

// restTree reads the recursive tree treeSHA of the commit sha from REST.
func (s *Service) restTree(ctx context.Context, gh *github.Client, c ghstatus.Context, repo, sha, treeSHA string) (*ghopsv1.GetTreeResponse, error) {
	owner, name := splitRepo(repo)
	tree, _, err := gh.Git.GetTree(ctx, owner, name, treeSHA, true)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.GetTreeResponse{Sha: sha, Truncated: tree.GetTruncated()}
	for _, e := range tree.Entries {
		if len(out.Entries) >= s.limits.MaxTreeEntries {
			out.Truncated = true
			break
		}
		out.Entries = append(out.Entries, &ghopsv1.TreeEntry{Path: e.GetPath(), Type: e.GetType(), Size: int32(e.GetSize())})
	}
	return out, nil
}

func emptyRepository(c ghstatus.Context) error {
	return ghstatus.New(codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_EMPTY_REPOSITORY, "the repository is empty", c, nil)
}

// treeGraphQL reads branch ("" the default branch) through treeQuery. A
// refusal about the repository or the caller (not found, no access, a rate
// limit: -32004 with resource graphql) is the answer; any other failure
// leaves the read to REST: GitHub giving up on a huge tree, or a 401, which
// GraphQL answers every request without a token while REST reads public
// repositories anonymously (a bad token gets REST's own 401).
func (s *Service) treeGraphQL(ctx context.Context, gh *github.Client, c ghstatus.Context, repo, branch string) (*ghopsv1.GetTreeResponse, error) {
	if err := reposcope.CheckNamed(ctx, GraphQLURL(gh.BaseURL).EscapedPath(), repo); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	owner, name := splitRepo(repo)
	expression := branch
	if expression == "" {
		expression = "HEAD" // the default branch, as rev-parse reads it in GitHub's repository
	}
	var data struct {
		Repository *struct {
			IsEmpty bool `json:"isEmpty"`
			Object  *struct {
				Oid  string   `json:"oid"`
				Tree *gqlTree `json:"tree"`
			} `json:"object"`
		} `json:"repository"`
	}
	if err := graphQL(ctx, gh, new(meter), treeQuery, map[string]any{"owner": owner, "name": name, "expression": expression}, &data); err != nil {
		switch statusCode(ghstatus.FromError(err, c)) {
		case codes.NotFound, codes.PermissionDenied, codes.ResourceExhausted:
			return nil, s.fail(ctx, err, c)
		}
		// REST from now on for this branch: GraphQL failed once, and an
		// anonymous service (GraphQL answers 401 without a token) would
		// otherwise ask it in vain on every read.
		s.trees.noteRead(ctx, repo, branch)
		return s.treeREST(ctx, gh, c, repo, branch)
	}
	switch r := data.Repository; {
	case r == nil:
		return nil, ghstatus.NotFound(c, "GitHub GraphQL answered no repository")
	case r.Object == nil && r.IsEmpty:
		return nil, emptyRepository(c)
	case r.Object == nil:
		return nil, ghstatus.NotFound(c, "GitHub GraphQL resolved no commit for the branch")
	case r.Object.Oid == "" || r.Object.Tree == nil:
		// Not a commit (an annotated tag of the name, say): as REST reads it.
		return s.treeREST(ctx, gh, c, repo, branch)
	}
	s.trees.noteRead(ctx, repo, branch)
	commit := data.Repository.Object
	w := treeWalk{out: &ghopsv1.GetTreeResponse{Sha: commit.Oid}, max: s.limits.MaxTreeEntries,
		entryBytes: restEntryBytes + len(gh.BaseURL.String()) + len(repo)}
	if !w.walk("", commit.Tree.Entries) {
		return s.restTree(ctx, gh, c, repo, commit.Oid, commit.Tree.Oid)
	}
	s.trees.keep(ctx, repo, w.out)
	return w.out, nil
}

// treeWalk lists a GraphQL tree as REST's recursive tree lists it: each
// directory's entries in git order, each directory followed by its own.
type treeWalk struct {
	out *ghopsv1.GetTreeResponse
	// max is the service's cap; past it the answer says truncated.
	max int
	// entryBytes bounds one REST entry's JSON beside its path; restBytes
	// adds up the entries listed.
	entryBytes, restBytes int
}

// walk lists entries under prefix; it reports false when the answer could
// differ from REST's: a directory beyond the document's depth or of
// gqlDirectoryEntries entries, or a tree GitHub's REST answer might have
// cut.
func (w *treeWalk) walk(prefix string, entries []gqlTreeEntry) bool {
	if len(entries) >= gqlDirectoryEntries {
		return false
	}
	gitOrder(entries)
	for _, e := range entries {
		if w.out.Truncated {
			return true
		}
		if len(w.out.Entries) >= w.max {
			w.out.Truncated = true
			return true
		}
		path := prefix + e.Name
		if w.restBytes += w.entryBytes + jsonStringBytes(path); w.restBytes > restTreeCut || len(w.out.Entries) >= restTreeEntries {
			return false
		}
		te := &ghopsv1.TreeEntry{Path: path, Type: e.Type}
		if e.Type == "blob" {
			te.Size = int32(e.Size)
		}
		w.out.Entries = append(w.out.Entries, te)
		if e.Type != "tree" {
			continue
		}
		if e.Object == nil || e.Object.Entries == nil || !w.walk(path+"/", e.Object.Entries) {
			return false
		}
	}
	return true
}

// gitOrder sorts one directory's entries as git stores them (and REST
// lists them): by name, a directory's name compared as if it ended in "/".
// GitHub's GraphQL order is not documented; sorting makes it not matter.
func gitOrder(entries []gqlTreeEntry) {
	key := func(e gqlTreeEntry) string {
		if e.Type == "tree" {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.SliceStable(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
}

// jsonStringBytes bounds the bytes of s as a JSON string's content.
func jsonStringBytes(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			n += 2
		case c < 0x20:
			n += 6
		default:
			n++
		}
	}
	return n
}
