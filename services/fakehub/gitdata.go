package fakehub

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"ghops.dev/services/fakehub/internal/gitstore"
)

// GitHub's limits of one tree listing (docs.github.com, "Get a tree"): past either, the listing
// stops and says truncated.
const (
	maxTreeEntries = 100000
	maxTreeBytes   = 7 << 20 // the size of the tree array as JSON
)

// registerGitData adds the git data, contents, commit, branch and compare routes, and the raw download.
func (h *Hub) registerGitData(add addFunc) {
	add("GET", "/repos/{owner}/{repo}/contents/{path}", h.withRepo(PermRead, h.getContents))
	add("GET", "/repos/{owner}/{repo}/git/trees/{tree_sha}", h.withRepo(PermRead, h.getTree))
	add("POST", "/repos/{owner}/{repo}/git/trees", h.withRepo(PermWrite, h.createTree))
	add("GET", "/repos/{owner}/{repo}/git/blobs/{file_sha}", h.withRepo(PermRead, h.getBlob))
	add("POST", "/repos/{owner}/{repo}/git/blobs", h.withRepo(PermWrite, h.createBlob))
	add("GET", "/repos/{owner}/{repo}/git/commits/{commit_sha}", h.withRepo(PermRead, h.getGitCommit))
	add("POST", "/repos/{owner}/{repo}/git/commits", h.withRepo(PermWrite, h.createGitCommit))
	add("GET", "/repos/{owner}/{repo}/git/ref/{ref}", h.withRepo(PermRead, h.getRef))
	add("POST", "/repos/{owner}/{repo}/git/refs", h.withRepo(PermWrite, h.createRef))
	add("PATCH", "/repos/{owner}/{repo}/git/refs/{ref}", h.withRepo(PermWrite, h.updateRef))
	add("DELETE", "/repos/{owner}/{repo}/git/refs/{ref}", h.withRepo(PermWrite, h.deleteRef))
	add("GET", "/repos/{owner}/{repo}/readme", h.withRepo(PermRead, h.getReadme))
	add("GET", "/repos/{owner}/{repo}/commits", h.withRepo(PermRead, h.listCommits))
	add("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs", h.withRepo(PermRead, h.listCheckRuns))
	add("GET", "/repos/{owner}/{repo}/commits/{ref}/status", h.withRepo(PermRead, h.combinedStatus))
	add("GET", "/repos/{owner}/{repo}/commits/{ref}", h.withRepo(PermRead, h.getCommit))
	add("GET", "/repos/{owner}/{repo}/branches", h.withRepo(PermRead, h.listBranches))
	add("GET", "/repos/{owner}/{repo}/branches/{branch}", h.withRepo(PermRead, h.getBranch))
	add("GET", "/raw/{owner}/{repo}/{sha}/{path}", h.withRepo(PermRead, h.raw))
	add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/files", h.withRepo(PermRead, h.listPullFiles))
	add("GET", "/repos/{owner}/{repo}/compare/{basehead}", h.withRepo(PermRead, h.compare))
}

// treeEntries lists a tree, recursively if asked, in git's order.
func (c *reqCtx) treeEntries(r *repo, h plumbing.Hash, recursive bool) ([]obj, bool, error) {
	var out []obj
	size := 0
	var walk func(h plumbing.Hash, prefix string) error
	walk = func(h plumbing.Hash, prefix string) error {
		t, err := r.git.Tree(h)
		if err != nil {
			return err
		}
		for _, e := range t.Entries {
			if len(out) >= maxTreeEntries {
				return errTruncated
			}
			o := obj{"path": prefix + e.Name, "mode": mode(e.Mode), "sha": e.Hash.String()}
			switch e.Mode {
			case filemode.Dir:
				o["type"], o["url"] = "tree", c.repoURL(r)+"/git/trees/"+e.Hash.String()
			case filemode.Submodule:
				o["type"] = "commit"
			default:
				size, _ := r.git.BlobSize(e.Hash)
				o["type"], o["size"], o["url"] = "blob", size, c.repoURL(r)+"/git/blobs/"+e.Hash.String()
			}
			b, err := json.Marshal(o)
			if err != nil {
				return err
			}
			if size += len(b) + 1; size > maxTreeBytes {
				return errTruncated
			}
			out = append(out, o)
			if recursive && e.Mode == filemode.Dir {
				if err := walk(e.Hash, prefix+e.Name+"/"); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err := walk(h, "")
	if err == errTruncated {
		return out, true, nil
	}
	if out == nil {
		out = []obj{}
	}
	return out, false, err
}

type truncatedError struct{}

func (truncatedError) Error() string { return "truncated" }

var errTruncated error = truncatedError{}

func mode(m filemode.FileMode) string {
	s := m.String()
	if len(s) == 7 && s[0] == '0' && m != filemode.Dir {
		s = s[1:]
	}
	if m == filemode.Dir {
		return "040000"
	}
	return s
}

func (h *Hub) getTree(c *reqCtx, r *repo) *reply {
	if r.empty() {
		return emptyRepo()
	}
	ref := c.p["tree_sha"]
	var tree plumbing.Hash
	if hexSHA.MatchString(ref) {
		if typ, err := r.git.ObjectType(plumbing.NewHash(ref)); err == nil && typ == plumbing.TreeObject {
			tree = plumbing.NewHash(ref)
		}
	}
	if tree.IsZero() {
		sha, ok := r.resolve(ref)
		if !ok {
			return notFound()
		}
		tree, _ = r.git.CommitTree(sha)
	}
	rec := c.r.URL.Query().Get("recursive")
	entries, truncated, err := c.treeEntries(r, tree, rec != "")
	if err != nil {
		return notFound()
	}
	return okReply(200, obj{"sha": tree.String(), "url": c.repoURL(r) + "/git/trees/" + tree.String(), "tree": entries, "truncated": truncated})
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

func (h *Hub) createTree(c *reqCtx, r *repo) *reply {
	if r.empty() {
		return emptyRepo()
	}
	var in struct {
		BaseTree string            `json:"base_tree"`
		Tree     []json.RawMessage `json:"tree"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if in.Tree == nil {
		return validation(invalid("Tree", "tree", "missing_field", ""))
	}
	files := map[string]gitstore.Entry{}
	if in.BaseTree != "" {
		base := plumbing.NewHash(in.BaseTree)
		if !hexSHA.MatchString(in.BaseTree) {
			return validation(invalid("Tree", "base_tree", "invalid", ""))
		}
		f, err := r.git.Flatten(base)
		if err != nil {
			return validation(invalid("Tree", "base_tree", "invalid", "base_tree is not a valid tree oid"))
		}
		files = f
	}
	for _, raw := range in.Tree {
		if bad := applyTreeEntry(r, files, raw); bad != nil {
			return bad
		}
	}
	tree, err := r.git.WriteTree(files)
	if err != nil {
		return validation(invalid("Tree", "path", "invalid", err.Error()))
	}
	entries, truncated, err := c.treeEntries(r, tree, false)
	if err != nil {
		return errReply(500, "Server Error", "")
	}
	return created(obj{"sha": tree.String(), "url": c.repoURL(r) + "/git/trees/" + tree.String(), "tree": entries, "truncated": truncated})
}

// applyTreeEntry applies one entry of a create-tree request to files: a deletion (sha: null), a
// blob by content or sha, or a whole tree by sha. It answers the refusal, or nil.
func applyTreeEntry(r *repo, files map[string]gitstore.Entry, raw json.RawMessage) *reply {
	var e treeEntryIn
	if err := json.Unmarshal(raw, &e); err != nil {
		return errReply(400, "Problems parsing JSON", docRest)
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(raw, &keys)
	_, e.hasSHA = keys["sha"]
	if e.Path == "" {
		return validation(invalid("Tree", "path", "missing_field", ""))
	}
	p := e.Path
	if !safeTreePath(p) {
		// GitHub refuses a path that would make an unusable tree.
		return validation(invalid("Tree", "path", "invalid", "tree.path contains a malformed path component"))
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
		return validation(invalid("Tree", "mode", "invalid", ""))
	}
	switch {
	case e.Content != nil:
		h, err := r.git.WriteBlob([]byte(*e.Content))
		if err != nil {
			return errReply(500, "Server Error", "")
		}
		files[p] = gitstore.Entry{Mode: fm, Hash: h}
	case e.SHA != nil:
		sha := plumbing.NewHash(*e.SHA)
		typ, err := r.git.ObjectType(sha)
		if err != nil || !hexSHA.MatchString(*e.SHA) {
			return validation(&validationError{Message: "Validation Failed", Errors: []fieldError{{Resource: "Tree", Field: "sha", Code: "invalid", Message: "tree.sha " + *e.SHA + " is not a valid blob"}}})
		}
		if typ == plumbing.TreeObject {
			sub, _ := r.git.Flatten(sha)
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
		return validation(invalid("Tree", "sha", "missing_field", "Must supply either tree.sha or tree.content"))
	}
	return nil
}

func (h *Hub) getBlob(c *reqCtx, r *repo) *reply {
	sha := c.p["file_sha"]
	if !hexSHA.MatchString(sha) {
		return notFound()
	}
	data, err := r.git.Blob(plumbing.NewHash(sha))
	if err != nil {
		return notFound()
	}
	if mediaParam(c.r.Header.Get("Accept")) == mediaRaw {
		return rawReply(data)
	}
	return okReply(200, obj{"sha": sha, "node_id": nodeID("Blob", int64(len(data))), "size": len(data),
		"url": c.repoURL(r) + "/git/blobs/" + sha, "content": wrap64(data), "encoding": "base64"})
}

func (h *Hub) createBlob(c *reqCtx, r *repo) *reply {
	if r.empty() {
		return emptyRepo()
	}
	var in struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if in.Content == nil {
		return validation(invalid("Blob", "content", "missing_field", ""))
	}
	data := []byte(*in.Content)
	switch strings.ToLower(in.Encoding) {
	case "", "utf-8", "utf8":
	case "base64":
		d, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(*in.Content, "\n", ""))
		if err != nil {
			return validation(invalid("Blob", "content", "invalid", "content is not valid Base64"))
		}
		data = d
	default:
		return validation(invalid("Blob", "encoding", "invalid", "encoding must be utf-8 or base64"))
	}
	sha, err := r.git.WriteBlob(data)
	if err != nil {
		return errReply(500, "Server Error", "")
	}
	return created(obj{"sha": sha.String(), "url": c.repoURL(r) + "/git/blobs/" + sha.String()})
}

func (h *Hub) getGitCommit(c *reqCtx, r *repo) *reply {
	if r.empty() {
		return emptyRepo()
	}
	sha := c.p["commit_sha"]
	if !hexSHA.MatchString(sha) {
		return notFound()
	}
	cm, err := r.git.Commit(plumbing.NewHash(sha))
	if err != nil {
		return notFound()
	}
	return okReply(200, c.gitCommit(r, cm))
}

type sigIn struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

func (h *Hub) createGitCommit(c *reqCtx, r *repo) *reply {
	var in struct {
		Message   *string  `json:"message"`
		Tree      string   `json:"tree"`
		Parents   []string `json:"parents"`
		Author    *sigIn   `json:"author"`
		Committer *sigIn   `json:"committer"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if in.Message == nil {
		return validation(invalid("Commit", "message", "missing_field", ""))
	}
	if typ, err := r.git.ObjectType(plumbing.NewHash(in.Tree)); !hexSHA.MatchString(in.Tree) || err != nil || typ != plumbing.TreeObject {
		return validation(invalid("Commit", "tree", "invalid", "Tree SHA does not exist"))
	}
	var parents []plumbing.Hash
	for _, p := range in.Parents {
		if _, err := r.git.Commit(plumbing.NewHash(p)); !hexSHA.MatchString(p) || err != nil {
			return validation(invalid("Commit", "parents", "invalid", "Parent SHA does not exist or is not a commit object"))
		}
		parents = append(parents, plumbing.NewHash(p))
	}
	now := h.stamp()
	login := "fakehub"
	if c.tok != nil {
		login = c.tok.Login
	}
	toSig := func(s *sigIn, def gitstore.Signature) (gitstore.Signature, bool) {
		if s == nil {
			return def, true
		}
		out := gitstore.Signature{Name: s.Name, Email: s.Email, When: now}
		if s.Date != "" {
			t, err := parseTime(s.Date)
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
		return validation(invalid("Commit", "author.date", "invalid", ""))
	}
	committer, ok := toSig(in.Committer, author)
	if !ok {
		return validation(invalid("Commit", "committer.date", "invalid", ""))
	}
	msg := *in.Message
	sha, err := r.git.WriteCommit(plumbing.NewHash(in.Tree), parents, msg, author, committer)
	if err != nil {
		return errReply(500, "Server Error", "")
	}
	cm, _ := r.git.Commit(sha)
	return created(c.gitCommit(r, cm))
}

// safeTreePath is GitHub's rule for a tree entry's path: no leading or
// trailing "/", no empty, ".", ".." or ".git" segment, no control
// character.
func safeTreePath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return false
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "", ".", "..", ".git":
			return false
		}
	}
	return true
}
