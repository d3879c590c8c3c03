package fakehub

import (
	"encoding/base64"
	"mime"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"ghops.dev/services/fakehub/internal/gitstore"
)

// maxContentSize is the largest file whose content the contents API returns inline.
const maxContentSize = 1 << 20

// filesAt resolves the request's `ref` query (default branch when absent)
// and flattens that commit's tree, answering as the contents API does for
// an empty repository or an unknown ref.
func (c *reqCtx) filesAt(r *repo) (sha plumbing.Hash, ref string, files map[string]gitstore.Entry, fail *reply) {
	if r.empty() {
		return sha, "", nil, errReply(404, "This repository is empty.", docRest)
	}
	ref = c.r.URL.Query().Get("ref")
	sha, ok := r.resolve(ref)
	if !ok {
		return sha, ref, nil, errReply(404, "No commit found for the ref "+ref, docRest)
	}
	tree, _ := r.git.CommitTree(sha)
	files, err := r.git.Flatten(tree)
	if err != nil {
		return sha, ref, nil, errReply(500, "Server Error", "")
	}
	return sha, ref, files, nil
}

// fileReply is the contents API's answer for one file: base64 content up
// to maxContentSize, encoding "none" and no content above it.
func (c *reqCtx) fileReply(r *repo, sha plumbing.Hash, ref, p string, e gitstore.Entry) *reply {
	data, err := r.git.Blob(e.Hash)
	if err != nil {
		return notFound()
	}
	o := c.contentEntry(r, sha.String(), ref, p, e, int64(len(data)))
	if len(data) <= maxContentSize {
		o["content"], o["encoding"] = wrap64(data), "base64"
	} else {
		o["content"], o["encoding"] = "", "none"
	}
	return okReply(200, o)
}

func (h *Hub) getContents(c *reqCtx, r *repo) *reply {
	sha, ref, files, fail := c.filesAt(r)
	if fail != nil {
		return fail
	}
	p := strings.Trim(c.p["path"], "/")
	media := mediaParam(c.r.Header.Get("Accept"))
	if e, ok := files[p]; ok && p != "" {
		if e.Mode == filemode.Symlink {
			// GitHub answers a symlink to a file in the repository with that file's content, and
			// any other symlink with an object describing the link (its target included).
			text, err := r.git.Blob(e.Hash)
			if err != nil {
				return notFound()
			}
			if tp, ok := symlinkTarget(p, string(text)); ok {
				if te, ok := files[tp]; ok && te.Mode != filemode.Symlink && te.Mode != filemode.Submodule {
					p, e = tp, te
				}
			}
			if e.Mode == filemode.Symlink {
				o := c.contentEntry(r, sha.String(), ref, p, e, int64(len(text)))
				o["target"] = string(text)
				return okReply(200, o)
			}
		}
		if media == mediaRaw {
			data, err := r.git.Blob(e.Hash)
			if err != nil {
				return notFound()
			}
			return rawReply(data)
		}
		return c.fileReply(r, sha, ref, p, e)
	}
	list := c.dirListing(r, sha, ref, p, files)
	if len(list) == 0 {
		return notFound()
	}
	if len(list) > 1000 {
		list = list[:1000]
	}
	if media == mediaObject {
		// The object media type answers a directory as one object with its listing in entries.
		o := c.dirEntry(r, sha, ref, p)
		if p == "" {
			o = c.rootDirEntry(r, sha, ref)
		}
		o["entries"] = list
		return okReply(200, o)
	}
	return okReply(200, list)
}

// dirListing is the directory p's direct children in name order, none when p is no directory.
func (c *reqCtx) dirListing(r *repo, sha plumbing.Hash, ref, p string, files map[string]gitstore.Entry) []obj {
	// Directory: its direct children.
	prefix := ""
	if p != "" {
		prefix = p + "/"
	}
	seen := map[string]bool{}
	var list []obj
	var names []string
	children := map[string]obj{}
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
			children[name] = c.dirEntry(r, sha, ref, prefix+name)
			continue
		}
		size, _ := r.git.BlobSize(e.Hash)
		children[name] = c.contentEntry(r, sha.String(), ref, fp, e, size)
	}
	sort.Strings(names)
	for _, n := range names {
		list = append(list, children[n])
	}
	return list
}

func wrap64(data []byte) string {
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

func (c *reqCtx) contentEntry(r *repo, commit, ref, p string, e gitstore.Entry, size int64) obj {
	typ := "file"
	if e.Mode == filemode.Symlink {
		typ = "symlink"
	}
	self := c.repoURL(r) + "/contents/" + p
	if ref != "" {
		self += "?ref=" + ref
	}
	git := c.repoURL(r) + "/git/blobs/" + e.Hash.String()
	html := c.web + "/" + r.fullName() + "/blob/" + firstNonEmpty(ref, r.opts.DefaultBranch) + "/" + p
	return obj{
		"type": typ, "size": size, "name": path.Base(p), "path": p, "sha": e.Hash.String(), "url": self,
		"git_url": git, "html_url": html, "download_url": c.api + "/raw/" + r.fullName() + "/" + commit + "/" + p,
		"_links": obj{"self": self, "git": git, "html": html},
	}
}

func (c *reqCtx) dirEntry(r *repo, commit plumbing.Hash, ref, p string) obj {
	self := c.repoURL(r) + "/contents/" + p
	if ref != "" {
		self += "?ref=" + ref
	}
	html := c.web + "/" + r.fullName() + "/tree/" + firstNonEmpty(ref, r.opts.DefaultBranch) + "/" + p
	var git any
	if tree, err := r.git.CommitTree(commit); err == nil {
		if t, err := r.git.Tree(tree); err == nil {
			if e, err := t.FindEntry(p); err == nil {
				git = c.repoURL(r) + "/git/trees/" + e.Hash.String()
				return obj{"type": "dir", "size": 0, "name": path.Base(p), "path": p, "sha": e.Hash.String(), "url": self,
					"git_url": git, "html_url": html, "download_url": nil, "_links": obj{"self": self, "git": git, "html": html}}
			}
		}
	}
	return obj{"type": "dir", "size": 0, "name": path.Base(p), "path": p, "sha": "", "url": self,
		"git_url": git, "html_url": html, "download_url": nil, "_links": obj{"self": self, "git": git, "html": html}}
}

// rootDirEntry describes the repository's root directory, for the object media type.
func (c *reqCtx) rootDirEntry(r *repo, commit plumbing.Hash, ref string) obj {
	self := c.repoURL(r) + "/contents/"
	if ref != "" {
		self += "?ref=" + ref
	}
	tree, _ := r.git.CommitTree(commit)
	git := c.repoURL(r) + "/git/trees/" + tree.String()
	html := c.web + "/" + r.fullName() + "/tree/" + firstNonEmpty(ref, r.opts.DefaultBranch)
	return obj{"type": "dir", "size": 0, "name": "", "path": "", "sha": tree.String(), "url": self,
		"git_url": git, "html_url": html, "download_url": nil, "_links": obj{"self": self, "git": git, "html": html}}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (h *Hub) raw(c *reqCtx, r *repo) *reply {
	sha, ok := r.resolve(c.p["sha"])
	if !ok {
		return notFound()
	}
	tree, _ := r.git.CommitTree(sha)
	files, err := r.git.Flatten(tree)
	if err != nil {
		return notFound()
	}
	e, ok := files[c.p["path"]]
	if !ok {
		return notFound()
	}
	data, err := r.git.Blob(e.Hash)
	if err != nil {
		return notFound()
	}
	ct := mime.TypeByExtension(path.Ext(c.p["path"]))
	if ct == "" || !strings.HasPrefix(ct, "text/") {
		ct = "text/plain; charset=utf-8"
	}
	return &reply{status: 200, raw: data, ctype: ct}
}
