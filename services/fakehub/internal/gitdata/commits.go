package gitdata

import (
	"sort"
	"strconv"
	"strings"

	"ghops.dev/services/fakehub/internal/gitstore"
	"ghops.dev/services/fakehub/internal/hub"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func (h *api) listCommits(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	if r.Empty() {
		return hub.EmptyRepo()
	}
	q := c.Req.URL.Query()
	start, ok := r.Resolve(q.Get("sha"))
	if !ok {
		return hub.NotFound()
	}
	log := r.Git.Log(start)
	if p := strings.Trim(q.Get("path"), "/"); p != "" {
		var kept []*object.Commit
		for _, cm := range log {
			if touches(r, cm, p) {
				kept = append(kept, cm)
			}
		}
		log = kept
	}
	return hub.PageReply(c, log, func(cm *object.Commit) hub.Obj { return c.Commit(r, cm) })
}

// touches reports whether a commit changed anything at or below p relative to its first parent.
func touches(r *hub.Repo, cm *object.Commit, p string) bool {
	sub := func(tree plumbing.Hash) map[string]gitstore.Entry {
		files, _ := r.Git.Flatten(tree)
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
		pt, _ := r.Git.CommitTree(cm.ParentHashes[0])
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

func (h *api) listCheckRuns(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	sha, ok := r.Resolve(c.Params["ref"])
	if !ok {
		return hub.Validation(&hub.ValidationError{Message: "No commit found for SHA: " + c.Params["ref"]})
	}
	q := c.Req.URL.Query()
	filter := q.Get("filter")
	if filter == "" {
		filter = "latest"
	}
	if filter != "latest" && filter != "all" {
		return hub.Validation(&hub.ValidationError{Message: "Validation Failed", Errors: []hub.FieldError{{Resource: "CheckRun", Field: "filter", Code: "invalid"}}})
	}
	all := r.Checks[sha.String()]
	// latest (GitHub's default) keeps only the most recent run of each name, so a re-run
	// replaces the run it repeats; all keeps every run. Runs are recorded in order.
	latest := map[string]*hub.CheckRun{}
	for _, cr := range all {
		latest[cr.Name] = cr
	}
	var runs []*hub.CheckRun
	for _, cr := range all {
		if filter == "latest" && latest[cr.Name] != cr {
			continue
		}
		if n := q.Get("check_name"); n != "" && n != cr.Name {
			continue
		}
		if s := q.Get("status"); s != "" && s != cr.Status {
			continue
		}
		runs = append(runs, cr)
	}
	lo, hi, rep := c.PageOf(len(runs))
	items := []hub.Obj{}
	for _, cr := range runs[lo:hi] {
		u := c.RepoURL(r) + "/check-runs/" + strconv.FormatInt(cr.ID, 10)
		var conclusion any
		if cr.Conclusion != "" {
			conclusion = cr.Conclusion
		}
		items = append(items, hub.Obj{
			"id": cr.ID, "node_id": hub.NodeID("CheckRun", cr.ID), "head_sha": cr.SHA, "name": cr.Name, "url": u,
			"html_url": c.Web + "/" + r.FullName() + "/runs/" + strconv.FormatInt(cr.ID, 10), "details_url": c.CheckDetailsURL(r, cr),
			"status": cr.Status, "conclusion": conclusion, "started_at": hub.NullTime(cr.Started), "completed_at": hub.NullTime(cr.Completed),
			"external_id": nil, "check_suite": hub.Obj{"id": cr.ID}, "pull_requests": []any{},
			"output": hub.Obj{"title": nil, "summary": nil, "text": nil, "annotations_count": 0, "annotations_url": u + "/annotations"},
			"app":    c.CheckApp(r, cr),
		})
	}
	rep.Body = hub.Obj{"total_count": len(runs), "check_runs": items}
	return rep
}

func (h *api) combinedStatus(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	sha, ok := r.Resolve(c.Params["ref"])
	if !ok {
		return hub.NotFound()
	}
	latest := map[string]*hub.CommitStatus{}
	var order []string
	for _, s := range r.Statuses[sha.String()] {
		if _, ok := latest[s.Context]; !ok {
			order = append(order, s.Context)
		}
		latest[s.Context] = s
	}
	sort.Strings(order)
	state := "success"
	if len(order) == 0 {
		state = "pending"
	}
	statuses := []hub.Obj{}
	for _, ctxName := range order {
		s := latest[ctxName]
		switch {
		case s.State == "failure" || s.State == "error":
			state = "failure"
		case s.State == "pending" && state != "failure":
			state = "pending"
		}
		statuses = append(statuses, hub.Obj{"id": s.ID, "node_id": hub.NodeID("StatusContext", s.ID), "url": c.RepoURL(r) + "/statuses/" + sha.String(),
			"avatar_url": nil, "state": s.State, "description": nil, "target_url": nil, "context": s.Context,
			"created_at": hub.Ts(s.At), "updated_at": hub.Ts(s.At)})
	}
	return hub.OkReply(200, hub.Obj{"state": state, "sha": sha.String(), "total_count": len(statuses), "statuses": statuses,
		"repository": c.MinimalRepo(r), "commit_url": c.CommitURL(r, sha.String()), "url": c.CommitURL(r, sha.String()) + "/status"})
}

func (h *api) listBranches(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	refs, names := r.Git.Refs("refs/heads/")
	if p := c.Req.URL.Query().Get("protected"); p == "true" || p == "false" {
		var kept []string
		for _, n := range names {
			if _, ok := r.Protected[strings.TrimPrefix(n, "refs/heads/")]; ok == (p == "true") {
				kept = append(kept, n)
			}
		}
		names = kept
	}
	lo, hi, rep := c.PageOf(len(names))
	items := []hub.Obj{}
	for _, n := range names[lo:hi] {
		b := strings.TrimPrefix(n, "refs/heads/")
		_, prot := r.Protected[b]
		items = append(items, hub.Obj{"name": b, "commit": hub.Obj{"sha": refs[n].String(), "url": c.CommitURL(r, refs[n].String())}, "protected": prot})
	}
	rep.Body = items
	return rep
}

func (h *api) getBranch(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	b := c.Params["branch"]
	sha, err := r.Git.Ref("refs/heads/" + b)
	if err != nil {
		return hub.ErrReply(404, "Branch not found", hub.DocRest)
	}
	cm, err := r.Git.Commit(sha)
	if err != nil {
		return hub.NotFound()
	}
	checks, prot := r.Protected[b]
	u := c.RepoURL(r) + "/branches/" + b
	protection := hub.Obj{"enabled": false, "required_status_checks": hub.Obj{"enforcement_level": "off", "contexts": []string{}, "checks": []any{}}}
	if prot {
		cs := []hub.Obj{}
		for _, x := range checks {
			cs = append(cs, hub.Obj{"context": x, "app_id": nil})
		}
		protection = hub.Obj{"enabled": true, "required_status_checks": hub.Obj{"enforcement_level": "everyone", "contexts": append([]string{}, checks...), "checks": cs, "strict": true}}
	}
	return hub.OkReply(200, hub.Obj{"name": b, "commit": c.Commit(r, cm), "_links": hub.Obj{"self": u, "html": c.Web + "/" + r.FullName() + "/tree/" + b},
		"protected": prot, "protection": protection, "protection_url": u + "/protection"})
}
