package fakehub

import (
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"ghops.dev/services/fakehub/internal/gitstore"
)

// readmeDirs are the directories GitHub looks for a README in, in its order of preference.
var readmeDirs = []string{".github", "", "docs"}

// getReadme answers GET /repos/{owner}/{repo}/readme: the preferred README at ref (default branch
// when absent) in the shape of a contents file, or 404 when there is none.
func (h *Hub) getReadme(c *reqCtx, r *repo) *reply {
	if r.empty() {
		return errReply(404, "This repository is empty.", docRest)
	}
	ref := c.r.URL.Query().Get("ref")
	sha, ok := r.resolve(ref)
	if !ok {
		return errReply(404, "No commit found for the ref "+ref, docRest)
	}
	tree, _ := r.git.CommitTree(sha)
	files, err := r.git.Flatten(tree)
	if err != nil {
		return errReply(500, "Server Error", "")
	}
	p := pickReadme(files)
	if p == "" {
		return notFound()
	}
	e := files[p]
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

// pickReadme chooses among the files of a tree: the first of readmeDirs holding a file named
// README (any case, any extension); within one directory README.md wins, then the smallest name.
func pickReadme(files map[string]gitstore.Entry) string {
	for _, dir := range readmeDirs {
		var names []string
		for p, e := range files {
			if e.Mode != filemode.Regular && e.Mode != filemode.Executable {
				continue
			}
			d, name := path.Split(p)
			if strings.TrimSuffix(d, "/") != dir {
				continue
			}
			lower := strings.ToLower(name)
			if lower == "readme" || strings.HasPrefix(lower, "readme.") {
				names = append(names, p)
			}
		}
		if len(names) == 0 {
			continue
		}
		sort.Strings(names)
		for _, n := range names {
			if strings.EqualFold(path.Base(n), "README.md") {
				return n
			}
		}
		return names[0]
	}
	return ""
}
