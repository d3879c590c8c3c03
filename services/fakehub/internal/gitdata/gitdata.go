// Package gitdata serves fakehub's git data and contents routes: trees, blobs, git commits and refs,
// contents, the README, raw downloads, commits with their check runs and combined status, branches,
// a pull request's files and compare.
package gitdata

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"ghops.dev/services/fakehub/internal/gitstore"
	"ghops.dev/services/fakehub/internal/hub"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// registerGitData adds the git data, contents, commit, branch and compare routes, and the raw download.
func (h *api) registerGitData(add hub.AddFunc) {
	add("GET", "/repos/{owner}/{repo}/contents/{path}", h.WithRepo(hub.PermRead, h.getContents))
	add("GET", "/repos/{owner}/{repo}/git/trees/{tree_sha}", h.WithRepo(hub.PermRead, h.getTree))
	add("POST", "/repos/{owner}/{repo}/git/trees", h.WithRepo(hub.PermWrite, h.createTree))
	add("GET", "/repos/{owner}/{repo}/git/blobs/{file_sha}", h.WithRepo(hub.PermRead, h.getBlob))
	add("POST", "/repos/{owner}/{repo}/git/blobs", h.WithRepo(hub.PermWrite, h.createBlob))
	add("GET", "/repos/{owner}/{repo}/git/commits/{commit_sha}", h.WithRepo(hub.PermRead, h.getGitCommit))
	add("POST", "/repos/{owner}/{repo}/git/commits", h.WithRepo(hub.PermWrite, h.createGitCommit))
	add("GET", "/repos/{owner}/{repo}/git/ref/{ref}", h.WithRepo(hub.PermRead, h.getRef))
	add("POST", "/repos/{owner}/{repo}/git/refs", h.WithRepo(hub.PermWrite, h.createRef))
	add("PATCH", "/repos/{owner}/{repo}/git/refs/{ref}", h.WithRepo(hub.PermWrite, h.updateRef))
	add("DELETE", "/repos/{owner}/{repo}/git/refs/{ref}", h.WithRepo(hub.PermWrite, h.deleteRef))
	add("GET", "/repos/{owner}/{repo}/readme", h.WithRepo(hub.PermRead, h.getReadme))
	add("GET", "/repos/{owner}/{repo}/commits", h.WithRepo(hub.PermRead, h.listCommits))
	add("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs", h.WithRepo(hub.PermRead, h.listCheckRuns))
	add("GET", "/repos/{owner}/{repo}/commits/{ref}/status", h.WithRepo(hub.PermRead, h.combinedStatus))
	add("GET", "/repos/{owner}/{repo}/commits/{ref}", h.WithRepo(hub.PermRead, h.getCommit))
	add("GET", "/repos/{owner}/{repo}/branches", h.WithRepo(hub.PermRead, h.listBranches))
	add("GET", "/repos/{owner}/{repo}/branches/{branch}", h.WithRepo(hub.PermRead, h.getBranch))
	add("GET", "/raw/{owner}/{repo}/{sha}/{path}", h.WithRepo(hub.PermRead, h.raw))
	add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/files", h.WithRepo(hub.PermRead, h.listPullFiles))
	add("GET", "/repos/{owner}/{repo}/compare/{basehead}", h.WithRepo(hub.PermRead, h.compare))
}

func (h *api) getTree(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	if r.Empty() {
		return hub.EmptyRepo()
	}
	ref := c.Params["tree_sha"]
	var tree plumbing.Hash
	if hub.HexSHA.MatchString(ref) {
		if typ, err := r.Git.ObjectType(plumbing.NewHash(ref)); err == nil && typ == plumbing.TreeObject {
			tree = plumbing.NewHash(ref)
		}
	}
	if tree.IsZero() {
		sha, ok := r.Resolve(ref)
		if !ok {
			return hub.NotFound()
		}
		tree, _ = r.Git.CommitTree(sha)
	}
	rec := c.Req.URL.Query().Get("recursive")
	entries, truncated, err := c.TreeEntries(r, tree, rec != "")
	if err != nil {
		return hub.NotFound()
	}
	return hub.OkReply(200, hub.Obj{"sha": tree.String(), "url": c.RepoURL(r) + "/git/trees/" + tree.String(), "tree": entries, "truncated": truncated})
}

// treeModes are the modes GitHub accepts in a new tree: file, executable, directory, submodule
// and symlink (docs.github.com, "Create a tree").
var treeModes = map[string]bool{"100644": true, "100755": true, "040000": true, "160000": true, "120000": true}

type treeEntryIn struct {
	Path    string  `json:"path"`
	Mode    string  `json:"mode"`
	Type    string  `json:"type"`
	SHA     *string `json:"sha"`
	Content *string `json:"content"`
	hasSHA  bool
}

func (h *api) createTree(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	if r.Empty() {
		return hub.EmptyRepo()
	}
	var in struct {
		BaseTree string            `json:"base_tree"`
		Tree     []json.RawMessage `json:"tree"`
	}
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if in.Tree == nil {
		return hub.Validation(hub.Invalid("Tree", "tree", "missing_field", ""))
	}
	files := map[string]gitstore.Entry{}
	if in.BaseTree != "" {
		base := plumbing.NewHash(in.BaseTree)
		if !hub.HexSHA.MatchString(in.BaseTree) {
			return hub.Validation(hub.Invalid("Tree", "base_tree", "invalid", ""))
		}
		f, err := r.Git.Flatten(base)
		if err != nil {
			return hub.Validation(hub.Invalid("Tree", "base_tree", "invalid", "base_tree is not a valid tree oid"))
		}
		files = f
	}
	for _, raw := range in.Tree {
		if bad := applyTreeEntry(r, files, raw); bad != nil {
			return bad
		}
	}
	tree, err := r.Git.WriteTree(files)
	if err != nil {
		return hub.Validation(hub.Invalid("Tree", "path", "invalid", err.Error()))
	}
	entries, truncated, err := c.TreeEntries(r, tree, false)
	if err != nil {
		return hub.ErrReply(500, "Server Error", "")
	}
	return hub.Created(hub.Obj{"sha": tree.String(), "url": c.RepoURL(r) + "/git/trees/" + tree.String(), "tree": entries, "truncated": truncated})
}

// applyTreeEntry applies one entry of a create-tree request to files: a deletion (sha: null), a
// blob by content or sha, or a whole tree by sha. It answers the refusal, or nil.
func applyTreeEntry(r *hub.Repo, files map[string]gitstore.Entry, raw json.RawMessage) *hub.Reply {
	var e treeEntryIn
	if err := json.Unmarshal(raw, &e); err != nil {
		return hub.ErrReply(400, "Problems parsing JSON", hub.DocRest)
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(raw, &keys)
	_, e.hasSHA = keys["sha"]
	if e.Path == "" {
		return hub.Validation(hub.Invalid("Tree", "path", "missing_field", ""))
	}
	p := e.Path
	if !hub.SafeTreePath(p) {
		// GitHub refuses a path that would make an unusable tree.
		return hub.Validation(hub.Invalid("Tree", "path", "invalid", "tree.path contains a malformed path component"))
	}
	if e.hasSHA && e.SHA == nil {
		// sha: null deletes the path (a file or a whole directory).
		delete(files, p)
		for k := range files {
			if strings.HasPrefix(k, p+"/") {
				delete(files, k)
			}
		}
		return nil
	}
	fm, err := filemode.New(e.Mode)
	if err != nil || !treeModes[e.Mode] {
		return hub.Validation(hub.Invalid("Tree", "mode", "invalid", ""))
	}
	switch {
	case e.Content != nil:
		h, err := r.Git.WriteBlob([]byte(*e.Content))
		if err != nil {
			return hub.ErrReply(500, "Server Error", "")
		}
		files[p] = gitstore.Entry{Mode: fm, Hash: h}
	case e.SHA != nil:
		sha := plumbing.NewHash(*e.SHA)
		typ, err := r.Git.ObjectType(sha)
		if err != nil || !hub.HexSHA.MatchString(*e.SHA) {
			return hub.Validation(&hub.ValidationError{Message: "Validation Failed", Errors: []hub.FieldError{{Resource: "Tree", Field: "sha", Code: "invalid", Message: "tree.sha " + *e.SHA + " is not a valid blob"}}})
		}
		if typ == plumbing.TreeObject {
			sub, _ := r.Git.Flatten(sha)
			for k := range files {
				if strings.HasPrefix(k, p+"/") {
					delete(files, k)
				}
			}
			for k, v := range sub {
				files[p+"/"+k] = v
			}
			return nil
		}
		files[p] = gitstore.Entry{Mode: fm, Hash: sha}
	default:
		return hub.Validation(hub.Invalid("Tree", "sha", "missing_field", "Must supply either tree.sha or tree.content"))
	}
	return nil
}

func (h *api) getBlob(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	sha := c.Params["file_sha"]
	if !hub.HexSHA.MatchString(sha) {
		return hub.NotFound()
	}
	data, err := r.Git.Blob(plumbing.NewHash(sha))
	if err != nil {
		return hub.NotFound()
	}
	if hub.MediaParam(c.Req.Header.Get("Accept")) == mediaRaw {
		return rawReply(data)
	}
	return hub.OkReply(200, hub.Obj{"sha": sha, "node_id": hub.NodeID("Blob", int64(len(data))), "size": len(data),
		"url": c.RepoURL(r) + "/git/blobs/" + sha, "content": hub.Wrap64(data), "encoding": "base64"})
}

func (h *api) createBlob(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	if r.Empty() {
		return hub.EmptyRepo()
	}
	var in struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if in.Content == nil {
		return hub.Validation(hub.Invalid("Blob", "content", "missing_field", ""))
	}
	data := []byte(*in.Content)
	switch strings.ToLower(in.Encoding) {
	case "", "utf-8", "utf8":
	case "base64":
		d, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(*in.Content, "\n", ""))
		if err != nil {
			return hub.Validation(hub.Invalid("Blob", "content", "invalid", "content is not valid Base64"))
		}
		data = d
	default:
		return hub.Validation(hub.Invalid("Blob", "encoding", "invalid", "encoding must be utf-8 or base64"))
	}
	sha, err := r.Git.WriteBlob(data)
	if err != nil {
		return hub.ErrReply(500, "Server Error", "")
	}
	return hub.Created(hub.Obj{"sha": sha.String(), "url": c.RepoURL(r) + "/git/blobs/" + sha.String()})
}

func (h *api) getGitCommit(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	if r.Empty() {
		return hub.EmptyRepo()
	}
	sha := c.Params["commit_sha"]
	if !hub.HexSHA.MatchString(sha) {
		return hub.NotFound()
	}
	cm, err := r.Git.Commit(plumbing.NewHash(sha))
	if err != nil {
		return hub.NotFound()
	}
	return hub.OkReply(200, c.GitCommit(r, cm))
}

type sigIn struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

func (h *api) createGitCommit(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	var in struct {
		Message   *string  `json:"message"`
		Tree      string   `json:"tree"`
		Parents   []string `json:"parents"`
		Author    *sigIn   `json:"author"`
		Committer *sigIn   `json:"committer"`
	}
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if in.Message == nil {
		return hub.Validation(hub.Invalid("Commit", "message", "missing_field", ""))
	}
	if typ, err := r.Git.ObjectType(plumbing.NewHash(in.Tree)); !hub.HexSHA.MatchString(in.Tree) || err != nil || typ != plumbing.TreeObject {
		return hub.Validation(hub.Invalid("Commit", "tree", "invalid", "Tree SHA does not exist"))
	}
	var parents []plumbing.Hash
	for _, p := range in.Parents {
		if _, err := r.Git.Commit(plumbing.NewHash(p)); !hub.HexSHA.MatchString(p) || err != nil {
			return hub.Validation(hub.Invalid("Commit", "parents", "invalid", "Parent SHA does not exist or is not a commit object"))
		}
		parents = append(parents, plumbing.NewHash(p))
	}
	now := h.Stamp()
	login := "fakehub"
	if c.Tok != nil {
		login = c.Tok.Login
	}
	toSig := func(s *sigIn, def gitstore.Signature) (gitstore.Signature, bool) {
		if s == nil {
			return def, true
		}
		out := gitstore.Signature{Name: s.Name, Email: s.Email, When: now}
		if s.Date != "" {
			t, err := hub.ParseTime(s.Date)
			if err != nil {
				return out, false
			}
			out.When = t
		}
		return out, true
	}
	def := gitstore.Signature{Name: login, Email: login + "@users.noreply.github.com", When: now}
	author, ok := toSig(in.Author, def)
	if !ok {
		return hub.Validation(hub.Invalid("Commit", "author.date", "invalid", ""))
	}
	committer, ok := toSig(in.Committer, author)
	if !ok {
		return hub.Validation(hub.Invalid("Commit", "committer.date", "invalid", ""))
	}
	msg := *in.Message
	sha, err := r.Git.WriteCommit(plumbing.NewHash(in.Tree), parents, msg, author, committer)
	if err != nil {
		return hub.ErrReply(500, "Server Error", "")
	}
	cm, _ := r.Git.Commit(sha)
	return hub.Created(c.GitCommit(r, cm))
}

// api serves this area's routes over the shared hub; its methods are the area's handlers.
type api struct{ *hub.Hub }

// Register adds this area's routes to h through add (see hub.New).
func Register(h *hub.Hub, add hub.AddFunc) { (&api{h}).registerGitData(add) }
