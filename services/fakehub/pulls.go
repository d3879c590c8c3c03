package fakehub

import (
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// registerPulls adds the pull request routes.
func (h *Hub) registerPulls(add addFunc) {
	add("GET", "/repos/{owner}/{repo}/pulls", h.withRepo(PermRead, h.listPulls))
	add("POST", "/repos/{owner}/{repo}/pulls", h.withRepo(PermWrite, h.createPull))
	// A full pull request computes its mergeability lazily; it reads shared only once that is
	// settled for its current SHAs.
	add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}", h.withRepo(PermRead, h.getPull), h.pullSettled)
	add("PATCH", "/repos/{owner}/{repo}/pulls/{pull_number}", h.withRepo(PermWrite, h.updatePull))
	add("PUT", "/repos/{owner}/{repo}/pulls/{pull_number}/merge", h.withRepo(PermWrite, h.mergePullHandler))
	add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/merge", h.withRepo(PermRead, h.checkMerged))
}

func (h *Hub) listPulls(c *reqCtx, r *repo) *reply {
	q := c.r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	if state != "open" && state != "closed" && state != "all" {
		return validation(invalid("PullRequest", "state", "invalid", ""))
	}
	head := q.Get("head")
	var prs []*pull
	for i := len(r.pulls) - 1; i >= 0; i-- {
		p := r.pulls[i]
		if state != "all" && p.state != state {
			continue
		}
		if b := q.Get("base"); b != "" && p.base != b {
			continue
		}
		if head != "" {
			owner, branch, ok := strings.Cut(head, ":")
			if !ok {
				owner, branch = r.opts.Owner, head
			}
			if !strings.EqualFold(owner, r.opts.Owner) || branch != p.head {
				continue
			}
		}
		prs = append(prs, p)
	}
	if q.Get("direction") == "asc" {
		for i, j := 0, len(prs)-1; i < j; i, j = i+1, j-1 {
			prs[i], prs[j] = prs[j], prs[i]
		}
	}
	return pageReply(c, prs, func(p *pull) obj { return c.pullObj(r, p, false) })
}

func (h *Hub) createPull(c *reqCtx, r *repo) *reply {
	var in struct {
		Title string `json:"title"`
		Head  string `json:"head"`
		Base  string `json:"base"`
		Body  string `json:"body"`
		Draft bool   `json:"draft"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	p, verr := h.openPullLocked(r, in.Head, in.Base, in.Title, in.Body, in.Draft, c.tok.Login)
	if verr != nil {
		return validation(verr)
	}
	rep := okReply(201, c.pullObj(r, p, true))
	// The creation answer shows mergeable null; the first read after it is still null, as on GitHub.
	p.seenPair = [2]string{}
	rep.setHeader("Location", c.repoURL(r)+"/pulls/"+strconv.Itoa(p.number))
	return rep
}

func (c *reqCtx) pullNumber(r *repo) *pull {
	n, err := strconv.Atoi(c.p["pull_number"])
	if err != nil {
		return nil
	}
	return r.pullByNumber(n)
}

// pullSettled reports whether GET pulls/{pull_number} can be answered without writing, that is
// without computing mergeability; it runs under the shared lock.
func (h *Hub) pullSettled(c *reqCtx) bool {
	r, ok := h.repos[repoKey(c.p["owner"]+"/"+c.p["repo"])]
	if !ok {
		return true
	}
	p := c.pullNumber(r)
	return p == nil || r.mergeabilitySettled(p)
}

func (h *Hub) getPull(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	return okReply(200, c.pullObj(r, p, true))
}

func (h *Hub) updatePull(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	var in struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
		State *string `json:"state"`
		Base  *string `json:"base"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if in.Title != nil {
		p.title = *in.Title
	}
	if in.Body != nil {
		p.body = *in.Body
	}
	if in.Base != nil && *in.Base != p.base {
		if _, err := r.git.Ref("refs/heads/" + *in.Base); err != nil {
			return validation(invalid("PullRequest", "base", "invalid", ""))
		}
		p.base = *in.Base
	}
	if in.State != nil {
		switch *in.State {
		case "closed":
			if p.state == "open" {
				p.headSHA, p.baseSHA = r.pullSHAs(p)
				p.state, p.closedAt = "closed", h.stamp()
			}
		case "open":
			if p.state == "closed" && !p.merged {
				p.state, p.closedAt, p.headSHA, p.baseSHA = "open", timeZero, "", ""
			}
		default:
			return validation(invalid("PullRequest", "state", "invalid", ""))
		}
	}
	p.updated = h.stamp()
	return okReply(200, c.pullObj(r, p, true))
}

func (h *Hub) mergePullHandler(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil {
		return notFound()
	}
	var in struct {
		CommitTitle   string `json:"commit_title"`
		CommitMessage string `json:"commit_message"`
		SHA           string `json:"sha"`
		MergeMethod   string `json:"merge_method"`
	}
	if c.r.ContentLength != 0 {
		if bad := decode(c, &in); bad != nil {
			return bad
		}
	}
	if m := in.MergeMethod; m != "" && m != "merge" && m != "squash" && m != "rebase" {
		return validation(invalid("PullRequest", "merge_method", "invalid", ""))
	}
	out := h.mergePull(r, p, in.MergeMethod, in.SHA, in.CommitTitle, in.CommitMessage)
	if out.status != 200 {
		if out.status == 422 {
			return validation(invalid("PullRequest", "merge_method", "invalid", out.message))
		}
		return errReply(out.status, out.message, docRest)
	}
	return okReply(200, obj{"sha": out.sha, "merged": true, "message": out.message})
}

func (h *Hub) checkMerged(c *reqCtx, r *repo) *reply {
	p := c.pullNumber(r)
	if p == nil || !p.merged {
		return &reply{status: 404}
	}
	return &reply{status: 204}
}

// diffStats reports additions, deletions, changed files and commits of head over its merge base.
func (r *repo) diffStats(head, base string) (adds, dels, files, commits int) {
	hh, bh := plumbing.NewHash(head), plumbing.NewHash(base)
	mb := r.git.MergeBase(hh, bh)
	anc := r.git.Ancestors(mb)
	for x := range r.git.Ancestors(hh) {
		if !anc[x] {
			commits++
		}
	}
	var mbTree plumbing.Hash
	if !mb.IsZero() {
		mbTree, _ = r.git.CommitTree(mb)
	}
	ht, _ := r.git.CommitTree(hh)
	a, _ := r.git.Flatten(mbTree)
	b, _ := r.git.Flatten(ht)
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

func lineCount(r *repo, h plumbing.Hash) int {
	data, err := r.git.Blob(h)
	if err != nil {
		return 0
	}
	return strings.Count(string(data), "\n")
}
