package hub

import (
	"encoding/json"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// GitHub's limits of one tree listing (docs.github.com, "Get a tree"): past either, the listing
// stops and says truncated.
const (
	maxTreeEntries = 100000
	maxTreeBytes   = 7 << 20 // the size of the tree array as JSON
)

// TreeEntries lists a tree, recursively if asked, in git's order.
func (c *ReqCtx) TreeEntries(r *Repo, h plumbing.Hash, recursive bool) ([]Obj, bool, error) {
	var out []Obj
	size := 0
	var walk func(h plumbing.Hash, prefix string) error
	walk = func(h plumbing.Hash, prefix string) error {
		t, err := r.Git.Tree(h)
		if err != nil {
			return err
		}
		for _, e := range t.Entries {
			if len(out) >= maxTreeEntries {
				return errTruncated
			}
			o := Obj{"path": prefix + e.Name, "mode": mode(e.Mode), "sha": e.Hash.String()}
			switch e.Mode {
			case filemode.Dir:
				o["type"], o["url"] = "tree", c.RepoURL(r)+"/git/trees/"+e.Hash.String()
			case filemode.Submodule:
				o["type"] = "commit"
			default:
				size, _ := r.Git.BlobSize(e.Hash)
				o["type"], o["size"], o["url"] = "blob", size, c.RepoURL(r)+"/git/blobs/"+e.Hash.String()
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
		out = []Obj{}
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

// SafeTreePath is GitHub's rule for a tree entry's path: no leading or
// trailing "/", no empty, ".", ".." or ".git" segment, no control
// character.
func SafeTreePath(p string) bool {
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
