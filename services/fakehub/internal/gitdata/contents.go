package gitdata

import (
	"mime"
	"path"
	"strings"

	"ghops.dev/services/fakehub/internal/hub"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

func (h *api) getContents(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	sha, ref, files, fail := c.FilesAt(r)
	if fail != nil {
		return fail
	}
	p := strings.Trim(c.Params["path"], "/")
	media := hub.MediaParam(c.Req.Header.Get("Accept"))
	if e, ok := files[p]; ok && p != "" {
		if e.Mode == filemode.Symlink {
			// GitHub answers a symlink to a file in the repository with that file's content, and
			// any other symlink with an object describing the link (its target included).
			text, err := r.Git.Blob(e.Hash)
			if err != nil {
				return hub.NotFound()
			}
			if tp, ok := hub.SymlinkTarget(p, string(text)); ok {
				if te, ok := files[tp]; ok && te.Mode != filemode.Symlink && te.Mode != filemode.Submodule {
					p, e = tp, te
				}
			}
			if e.Mode == filemode.Symlink {
				o := c.ContentEntry(r, sha.String(), ref, p, e, int64(len(text)))
				o["target"] = string(text)
				return hub.OkReply(200, o)
			}
		}
		if media == mediaRaw {
			data, err := r.Git.Blob(e.Hash)
			if err != nil {
				return hub.NotFound()
			}
			return rawReply(data)
		}
		return c.FileReply(r, sha, ref, p, e)
	}
	list := c.DirListing(r, sha, ref, p, files)
	if len(list) == 0 {
		return hub.NotFound()
	}
	if len(list) > 1000 {
		list = list[:1000]
	}
	if media == mediaObject {
		// The object media type answers a directory as one object with its listing in entries.
		o := c.DirEntry(r, sha, ref, p)
		if p == "" {
			o = c.RootDirEntry(r, sha, ref)
		}
		o["entries"] = list
		return hub.OkReply(200, o)
	}
	return hub.OkReply(200, list)
}

func (h *api) raw(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	sha, ok := r.Resolve(c.Params["sha"])
	if !ok {
		return hub.NotFound()
	}
	tree, _ := r.Git.CommitTree(sha)
	files, err := r.Git.Flatten(tree)
	if err != nil {
		return hub.NotFound()
	}
	e, ok := files[c.Params["path"]]
	if !ok {
		return hub.NotFound()
	}
	data, err := r.Git.Blob(e.Hash)
	if err != nil {
		return hub.NotFound()
	}
	ct := mime.TypeByExtension(path.Ext(c.Params["path"]))
	if ct == "" || !strings.HasPrefix(ct, "text/") {
		ct = "text/plain; charset=utf-8"
	}
	return &hub.Reply{Status: 200, Raw: data, Ctype: ct}
}
