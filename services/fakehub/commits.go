package fakehub

import (
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"ghops.dev/services/fakehub/internal/gitstore"
)

func (h *Hub) listCommits(c *reqCtx, r *repo) *reply {
	if r.empty() {
		return emptyRepo()
	}
	q := c.r.URL.Query()
	start, ok := r.resolve(q.Get("sha"))
	if !ok {
		return notFound()
	}
	log := r.git.Log(start)
	if p := strings.Trim(q.Get("path"), "/"); p != "" {
		var kept []*object.Commit
		for _, cm := range log {
			if touches(r, cm, p) {
				kept = append(kept, cm)
			}
		}
		log = kept
	}
	return pageReply(c, log, func(cm *object.Commit) obj { return c.commit(r, cm) })
}

// touches reports whether a commit changed anything at or below p relative to its first parent.
func touches(r *repo, cm *object.Commit, p string) bool {
	sub := func(tree plumbing.Hash) map[string]gitstore.Entry {
		files, _ := r.git.Flatten(tree)
		out := map[string]gitstore.Entry{}
		for k, v := range files {
			if k == p || strings.HasPrefix(k, p+"/") {
				out[k] = v
			}
		}
		return out
	}
	now := sub(cm.TreeHash)
	var before map[string]gitstore.Entry
	if len(cm.ParentHashes) > 0 {
		pt, _ := r.git.CommitTree(cm.ParentHashes[0])
		before = sub(pt)
	}
	if len(now) != len(before) {
		return true
	}
	for k, v := range now {
		if before[k] != v {
			return true
		}
	}
	return false
}

func (h *Hub) listCheckRuns(c *reqCtx, r *repo) *reply {
	sha, ok := r.resolve(c.p["ref"])
	if !ok {
		return validation(&validationError{Message: "No commit found for SHA: " + c.p["ref"]})
	}
	q := c.r.URL.Query()
	filter := q.Get("filter")
	if filter == "" {
		filter = "latest"
	}
	if filter != "latest" && filter != "all" {
		return validation(&validationError{Message: "Validation Failed", Errors: []fieldError{{Resource: "CheckRun", Field: "filter", Code: "invalid"}}})
	}
	all := r.checks[sha.String()]
	// latest (GitHub's default) keeps only the most recent run of each name, so a re-run
	// replaces the run it repeats; all keeps every run. Runs are recorded in order.
	latest := map[string]*checkRun{}
	for _, cr := range all {
		latest[cr.name] = cr
	}
	var runs []*checkRun
	for _, cr := range all {
		if filter == "latest" && latest[cr.name] != cr {
			continue
		}
		if n := q.Get("check_name"); n != "" && n != cr.name {
			continue
		}
		if s := q.Get("status"); s != "" && s != cr.status {
			continue
		}
		runs = append(runs, cr)
	}
	lo, hi, rep := c.pageOf(len(runs))
	items := []obj{}
	for _, cr := range runs[lo:hi] {
		u := c.repoURL(r) + "/check-runs/" + strconv.FormatInt(cr.id, 10)
		var conclusion any
		if cr.conclusion != "" {
			conclusion = cr.conclusion
		}
		items = append(items, obj{
			"id": cr.id, "node_id": nodeID("CheckRun", cr.id), "head_sha": cr.sha, "name": cr.name, "url": u,
			"html_url": c.web + "/" + r.fullName() + "/runs/" + strconv.FormatInt(cr.id, 10), "details_url": c.checkDetailsURL(r, cr),
			"status": cr.status, "conclusion": conclusion, "started_at": nullTime(cr.started), "completed_at": nullTime(cr.completed),
			"external_id": nil, "check_suite": obj{"id": cr.id}, "pull_requests": []any{},
			"output": obj{"title": nil, "summary": nil, "text": nil, "annotations_count": 0, "annotations_url": u + "/annotations"},
			"app":    c.checkApp(r, cr),
		})
	}
	rep.body = obj{"total_count": len(runs), "check_runs": items}
	return rep
}

func (h *Hub) combinedStatus(c *reqCtx, r *repo) *reply {
	sha, ok := r.resolve(c.p["ref"])
	if !ok {
		return notFound()
	}
	latest := map[string]*commitStatus{}
	var order []string
	for _, s := range r.statuses[sha.String()] {
		if _, ok := latest[s.context]; !ok {
			order = append(order, s.context)
		}
		latest[s.context] = s
	}
	sort.Strings(order)
	state := "success"
	if len(order) == 0 {
		state = "pending"
	}
	statuses := []obj{}
	for _, ctxName := range order {
		s := latest[ctxName]
		switch {
		case s.state == "failure" || s.state == "error":
			state = "failure"
		case s.state == "pending" && state != "failure":
			state = "pending"
		}
		statuses = append(statuses, obj{"id": s.id, "node_id": nodeID("StatusContext", s.id), "url": c.repoURL(r) + "/statuses/" + sha.String(),
			"avatar_url": nil, "state": s.state, "description": nil, "target_url": nil, "context": s.context,
			"created_at": ts(s.at), "updated_at": ts(s.at)})
	}
	return okReply(200, obj{"state": state, "sha": sha.String(), "total_count": len(statuses), "statuses": statuses,
		"repository": c.minimalRepo(r), "commit_url": c.commitURL(r, sha.String()), "url": c.commitURL(r, sha.String()) + "/status"})
}

func (h *Hub) listBranches(c *reqCtx, r *repo) *reply {
	refs, names := r.git.Refs("refs/heads/")
	if p := c.r.URL.Query().Get("protected"); p == "true" || p == "false" {
		var kept []string
		for _, n := range names {
			if _, ok := r.protected[strings.TrimPrefix(n, "refs/heads/")]; ok == (p == "true") {
				kept = append(kept, n)
			}
		}
		names = kept
	}
	lo, hi, rep := c.pageOf(len(names))
	items := []obj{}
	for _, n := range names[lo:hi] {
		b := strings.TrimPrefix(n, "refs/heads/")
		_, prot := r.protected[b]
		items = append(items, obj{"name": b, "commit": obj{"sha": refs[n].String(), "url": c.commitURL(r, refs[n].String())}, "protected": prot})
	}
	rep.body = items
	return rep
}

func (h *Hub) getBranch(c *reqCtx, r *repo) *reply {
	b := c.p["branch"]
	sha, err := r.git.Ref("refs/heads/" + b)
	if err != nil {
		return errReply(404, "Branch not found", docRest)
	}
	cm, err := r.git.Commit(sha)
	if err != nil {
		return notFound()
	}
	checks, prot := r.protected[b]
	u := c.repoURL(r) + "/branches/" + b
	protection := obj{"enabled": false, "required_status_checks": obj{"enforcement_level": "off", "contexts": []string{}, "checks": []any{}}}
	if prot {
		cs := []obj{}
		for _, x := range checks {
			cs = append(cs, obj{"context": x, "app_id": nil})
		}
		protection = obj{"enabled": true, "required_status_checks": obj{"enforcement_level": "everyone", "contexts": append([]string{}, checks...), "checks": cs, "strict": true}}
	}
	return okReply(200, obj{"name": b, "commit": c.commit(r, cm), "_links": obj{"self": u, "html": c.web + "/" + r.fullName() + "/tree/" + b},
		"protected": prot, "protection": protection, "protection_url": u + "/protection"})
}
