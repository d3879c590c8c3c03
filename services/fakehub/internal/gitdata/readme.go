package gitdata

import (
	"path"
	"sort"
	"strings"

	"ghops.dev/services/fakehub/internal/gitstore"
	"ghops.dev/services/fakehub/internal/hub"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// readmeDirs are the directories GitHub looks for a README in, in its order of preference.
var readmeDirs = []string{".github", "", "docs"}

// getReadme answers GET /repos/{owner}/{repo}/readme: the preferred README at ref (default branch
// when absent) in the shape of a contents file, or 404 when there is none.
func (h *api) getReadme(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	sha, ref, files, fail := c.FilesAt(r)
	if fail != nil {
		return fail
	}
	p := pickReadme(files)
	if p == "" {
		return hub.NotFound()
	}
	return c.FileReply(r, sha, ref, p, files[p])
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
