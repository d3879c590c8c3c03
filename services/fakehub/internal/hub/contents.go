package hub

import (
	"encoding/base64"
	"path"
	"sort"
	"strings"

	"ghops.dev/services/fakehub/internal/gitstore"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// maxContentSize is the largest file whose content the contents API returns inline.
const maxContentSize = 1 << 20

// FilesAt resolves the request's `ref` query (default branch when absent)
// and flattens that commit's tree, answering as the contents API does for
// an empty repository or an unknown ref.
func (c *ReqCtx) FilesAt(r *Repo) (sha plumbing.Hash, ref string, files map[string]gitstore.Entry, fail *Reply) {
	if r.Empty() {
		return sha, "", nil, ErrReply(404, "This repository is empty.", DocRest)
	}
	ref = c.Req.URL.Query().Get("ref")
	sha, ok := r.Resolve(ref)
	if !ok {
		return sha, ref, nil, ErrReply(404, "No commit found for the ref "+ref, DocRest)
	}
	tree, _ := r.Git.CommitTree(sha)
	files, err := r.Git.Flatten(tree)
	if err != nil {
		return sha, ref, nil, ErrReply(500, "Server Error", "")
	}
	return sha, ref, files, nil
}

// FileReply is the contents API's answer for one file: base64 content up
// to maxContentSize, encoding "none" and no content above it.
func (c *ReqCtx) FileReply(r *Repo, sha plumbing.Hash, ref, p string, e gitstore.Entry) *Reply {
	data, err := r.Git.Blob(e.Hash)
	if err != nil {
		return NotFound()
	}
	o := c.ContentEntry(r, sha.String(), ref, p, e, int64(len(data)))
	if len(data) <= maxContentSize {
		o["content"], o["encoding"] = Wrap64(data), "base64"
	} else {
		o["content"], o["encoding"] = "", "none"
	}
	return OkReply(200, o)
}

// DirListing is the directory p's direct children in name order, none when p is no directory.
func (c *ReqCtx) DirListing(r *Repo, sha plumbing.Hash, ref, p string, files map[string]gitstore.Entry) []Obj {
	// Directory: its direct children.
	prefix := ""
	if p != "" {
		prefix = p + "/"
	}
	seen := map[string]bool{}
	var list []Obj
	var names []string
	children := map[string]Obj{}
	for fp, e := range files {
		if !strings.HasPrefix(fp, prefix) {
			continue
		}
		rest := fp[len(prefix):]
		name, _, isDir := strings.Cut(rest, "/")
		if seen[name] {
			continue
		}
		seen[name] = true
		names = append(names, name)
		if isDir {
			children[name] = c.DirEntry(r, sha, ref, prefix+name)
			continue
		}
		size, _ := r.Git.BlobSize(e.Hash)
		children[name] = c.ContentEntry(r, sha.String(), ref, fp, e, size)
	}
	sort.Strings(names)
	for _, n := range names {
		list = append(list, children[n])
	}
	return list
}

// Wrap64 is data in base64, wrapped at 60 characters a line as GitHub sends file contents.
func Wrap64(data []byte) string {
	s := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60])
		b.WriteString("\n")
		s = s[60:]
	}
	b.WriteString(s)
	b.WriteString("\n")
	return b.String()
}

// ContentEntry is a file or symlink as the contents API renders it.
func (c *ReqCtx) ContentEntry(r *Repo, commit, ref, p string, e gitstore.Entry, size int64) Obj {
	typ := "file"
	if e.Mode == filemode.Symlink {
		typ = "symlink"
	}
	self := c.RepoURL(r) + "/contents/" + p
	if ref != "" {
		self += "?ref=" + ref
	}
	git := c.RepoURL(r) + "/git/blobs/" + e.Hash.String()
	html := c.Web + "/" + r.FullName() + "/blob/" + firstNonEmpty(ref, r.Opts.DefaultBranch) + "/" + p
	return Obj{
		"type": typ, "size": size, "name": path.Base(p), "path": p, "sha": e.Hash.String(), "url": self,
		"git_url": git, "html_url": html, "download_url": c.api + "/raw/" + r.FullName() + "/" + commit + "/" + p,
		"_links": Obj{"self": self, "git": git, "html": html},
	}
}

// DirEntry is a directory as the contents API renders it.
func (c *ReqCtx) DirEntry(r *Repo, commit plumbing.Hash, ref, p string) Obj {
	self := c.RepoURL(r) + "/contents/" + p
	if ref != "" {
		self += "?ref=" + ref
	}
	html := c.Web + "/" + r.FullName() + "/tree/" + firstNonEmpty(ref, r.Opts.DefaultBranch) + "/" + p
	var git any
	if tree, err := r.Git.CommitTree(commit); err == nil {
		if t, err := r.Git.Tree(tree); err == nil {
			if e, err := t.FindEntry(p); err == nil {
				git = c.RepoURL(r) + "/git/trees/" + e.Hash.String()
				return Obj{"type": "dir", "size": 0, "name": path.Base(p), "path": p, "sha": e.Hash.String(), "url": self,
					"git_url": git, "html_url": html, "download_url": nil, "_links": Obj{"self": self, "git": git, "html": html}}
			}
		}
	}
	return Obj{"type": "dir", "size": 0, "name": path.Base(p), "path": p, "sha": "", "url": self,
		"git_url": git, "html_url": html, "download_url": nil, "_links": Obj{"self": self, "git": git, "html": html}}
}

// RootDirEntry describes the repository's root directory, for the object media type.
func (c *ReqCtx) RootDirEntry(r *Repo, commit plumbing.Hash, ref string) Obj {
	self := c.RepoURL(r) + "/contents/"
	if ref != "" {
		self += "?ref=" + ref
	}
	tree, _ := r.Git.CommitTree(commit)
	git := c.RepoURL(r) + "/git/trees/" + tree.String()
	html := c.Web + "/" + r.FullName() + "/tree/" + firstNonEmpty(ref, r.Opts.DefaultBranch)
	return Obj{"type": "dir", "size": 0, "name": "", "path": "", "sha": tree.String(), "url": self,
		"git_url": git, "html_url": html, "download_url": nil, "_links": Obj{"self": self, "git": git, "html": html}}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
