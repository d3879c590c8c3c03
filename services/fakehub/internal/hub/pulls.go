package hub

import (
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// PullNumber is the pull request {pull_number} names, nil when there is none.
func (c *ReqCtx) PullNumber(r *Repo) *Pull {
	n, err := strconv.Atoi(c.Params["pull_number"])
	if err != nil {
		return nil
	}
	return r.PullByNumber(n)
}

// diffStats reports additions, deletions, changed files and commits of head over its merge base.
func (r *Repo) diffStats(head, base string) (adds, dels, files, commits int) {
	hh, bh := plumbing.NewHash(head), plumbing.NewHash(base)
	mb := r.Git.MergeBase(hh, bh)
	anc := r.Git.Ancestors(mb)
	for x := range r.Git.Ancestors(hh) {
		if !anc[x] {
			commits++
		}
	}
	var mbTree plumbing.Hash
	if !mb.IsZero() {
		mbTree, _ = r.Git.CommitTree(mb)
	}
	ht, _ := r.Git.CommitTree(hh)
	a, _ := r.Git.Flatten(mbTree)
	b, _ := r.Git.Flatten(ht)
	for p, e := range b {
		if old, ok := a[p]; !ok || old != e {
			files++
			adds += lineCount(r, e.Hash)
			if ok {
				dels += lineCount(r, old.Hash)
			}
		}
	}
	for p, e := range a {
		if _, ok := b[p]; !ok {
			files++
			dels += lineCount(r, e.Hash)
		}
	}
	return adds, dels, files, commits
}

func lineCount(r *Repo, h plumbing.Hash) int {
	data, err := r.Git.Blob(h)
	if err != nil {
		return 0
	}
	return strings.Count(string(data), "\n")
}
