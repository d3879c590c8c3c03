// Package actions serves fakehub's GitHub Actions routes: workflows and their dispatch, workflow
// runs (listed, read, cancelled, re-run), jobs, rerunning failed jobs and job logs (with the
// download route that stands for GitHub's signed log storage URL).
package actions

import (
	"strconv"
	"strings"

	"ghops.dev/services/fakehub/internal/hub"
)

// registerActions adds the Actions endpoints of the CI tools and the log download route, which stands for GitHub's signed log storage URL.
func (h *api) registerActions(add hub.AddFunc) {
	add("GET", "/repos/{owner}/{repo}/actions/workflows", h.WithRepo(hub.PermRead, h.listWorkflows))
	add("GET", "/repos/{owner}/{repo}/actions/workflows/{workflow_id}", h.WithRepo(hub.PermRead, h.getWorkflow))
	add("GET", "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs", h.WithRepo(hub.PermRead, h.listWorkflowRuns))
	add("POST", "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", h.WithRepo(hub.PermWrite, h.dispatch))
	add("GET", "/repos/{owner}/{repo}/actions/runs", h.WithRepo(hub.PermRead, h.listRuns))
	add("GET", "/repos/{owner}/{repo}/actions/runs/{run_id}", h.WithRepo(hub.PermRead, h.getRun))
	add("GET", "/repos/{owner}/{repo}/actions/runs/{run_id}/jobs", h.WithRepo(hub.PermRead, h.listRunJobs))
	add("POST", "/repos/{owner}/{repo}/actions/runs/{run_id}/cancel", h.WithRepo(hub.PermWrite, h.cancelRun))
	add("POST", "/repos/{owner}/{repo}/actions/runs/{run_id}/rerun", h.WithRepo(hub.PermWrite, h.rerunRun))
	add("POST", "/repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs", h.WithRepo(hub.PermWrite, h.rerunFailedJobs))
	add("GET", "/repos/{owner}/{repo}/actions/jobs/{job_id}", h.WithRepo(hub.PermRead, h.getJob))
	add("GET", "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs", h.WithRepo(hub.PermRead, h.jobLogs))
	add("GET", "/_logs/{owner}/{repo}/jobs/{job_id}", h.downloadLog)
}

func (h *api) getRun(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	run := r.RunByID(c.Params["run_id"])
	if run == nil {
		return hub.NotFound()
	}
	return hub.OkReply(200, c.RunObj(r, run))
}

func (h *api) getJob(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	j := r.JobByID(c.Params["job_id"])
	if j == nil {
		return hub.NotFound()
	}
	return hub.OkReply(200, c.JobObj(r, j, r.RunByID(strconv.FormatInt(j.RunID, 10))))
}

// jobLogs answers as GitHub does: 302 to a short-lived download URL that
// needs no token (fakehub's /_logs route, its "signature" in the query).
func (h *api) jobLogs(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	j := r.JobByID(c.Params["job_id"])
	if j == nil {
		return hub.NotFound()
	}
	rep := &hub.Reply{Status: 302}
	rep.SetHeader("Location", c.Web+"/_logs/"+r.FullName()+"/jobs/"+strconv.FormatInt(j.ID, 10)+"?sig="+j.LogKey)
	return rep
}

// downloadLog serves a job log at its signed URL, without a token.
func (h *api) downloadLog(c *hub.ReqCtx) *hub.Reply {
	r, ok := h.Repos[hub.RepoKey(c.Params["owner"]+"/"+c.Params["repo"])]
	if !ok {
		return hub.NotFound()
	}
	j := r.JobByID(c.Params["job_id"])
	if j == nil || c.Req.URL.Query().Get("sig") != j.LogKey {
		return &hub.Reply{Status: 403, Raw: []byte("AuthenticationFailed"), Ctype: "text/plain; charset=utf-8"}
	}
	return &hub.Reply{Status: 200, Raw: []byte(j.Log), Ctype: "text/plain; charset=utf-8"}
}

// rerunFailedJobs starts a new attempt of a finished run that re-runs its
// failed jobs (queued, with new ids and check runs); GitHub refuses a run
// that is not finished or has nothing failed with 403.
func (h *api) rerunFailedJobs(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	run := r.RunByID(c.Params["run_id"])
	if run == nil {
		return hub.NotFound()
	}
	if !h.RerunLocked(r, run, true) {
		return hub.ErrReply(403, "This workflow run is not rerunnable", "")
	}
	return hub.OkReply(201, hub.Obj{})
}

// rerunRun starts a new attempt of a finished run with all its jobs; GitHub
// refuses a run still queued or running with 403.
func (h *api) rerunRun(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	run := r.RunByID(c.Params["run_id"])
	if run == nil {
		return hub.NotFound()
	}
	if !h.RerunLocked(r, run, false) {
		return hub.ErrReply(403, "This workflow is already running", "")
	}
	return hub.OkReply(201, hub.Obj{})
}

// cancelRun cancels a queued or running run (202); a completed one is
// GitHub's 409.
func (h *api) cancelRun(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	run := r.RunByID(c.Params["run_id"])
	if run == nil {
		return hub.NotFound()
	}
	if !h.CancelLocked(r, run) {
		return hub.ErrReply(409, "Cannot cancel a workflow run that is completed.", "")
	}
	return hub.OkReply(202, hub.Obj{})
}

func (h *api) listWorkflows(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	all := r.ActionsState().Workflows
	lo, hi, rep := c.PageOf(len(all))
	items := make([]hub.Obj, 0, hi-lo)
	for _, w := range all[lo:hi] {
		items = append(items, c.WorkflowObj(r, w))
	}
	rep.Body = hub.Obj{"total_count": len(all), "workflows": items}
	return rep
}

func (h *api) getWorkflow(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	w := r.WorkflowByID(c.Params["workflow_id"])
	if w == nil {
		return hub.NotFound()
	}
	return hub.OkReply(200, c.WorkflowObj(r, w))
}

// listRuns answers GET .../actions/runs: the repository's runs, newest
// first, filtered by branch, event and status (a status or a conclusion).
func (h *api) listRuns(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	return h.runsPage(c, r, 0)
}

// listWorkflowRuns is listRuns for one workflow (its id or file name).
func (h *api) listWorkflowRuns(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	w := r.WorkflowByID(c.Params["workflow_id"])
	if w == nil {
		return hub.NotFound()
	}
	return h.runsPage(c, r, w.ID)
}

func (h *api) runsPage(c *hub.ReqCtx, r *hub.Repo, workflowID int64) *hub.Reply {
	q := c.Req.URL.Query()
	branch, event, status := q.Get("branch"), q.Get("event"), q.Get("status")
	all := r.Runs(func(run *hub.WorkflowRun) bool { return hub.RunFilter(run, workflowID, branch, event, status) })
	lo, hi, rep := c.PageOf(len(all))
	items := make([]hub.Obj, 0, hi-lo)
	for _, run := range all[lo:hi] {
		items = append(items, c.RunObj(r, run))
	}
	rep.Body = hub.Obj{"total_count": len(all), "workflow_runs": items}
	return rep
}

// listRunJobs answers the jobs of a run: of its latest attempt, or of
// every attempt with filter=all.
func (h *api) listRunJobs(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	run := r.RunByID(c.Params["run_id"])
	if run == nil {
		return hub.NotFound()
	}
	filter := c.Req.URL.Query().Get("filter")
	if filter != "" && filter != "latest" && filter != "all" {
		return hub.Validation(&hub.ValidationError{Message: "Invalid filter: must be one of latest, all"})
	}
	all := r.RunJobs(run, filter == "all")
	lo, hi, rep := c.PageOf(len(all))
	items := make([]hub.Obj, 0, hi-lo)
	for _, j := range all[lo:hi] {
		items = append(items, c.JobObj(r, j, run))
	}
	rep.Body = hub.Obj{"total_count": len(all), "jobs": items}
	return rep
}

// dispatchInput is the body of a workflow dispatch.
type dispatchInput struct {
	Ref              *string        `json:"ref"`
	Inputs           map[string]any `json:"inputs"`
	ReturnRunDetails bool           `json:"return_run_details"`
}

// dispatch runs a workflow by hand: a queued run of the ref's head, event
// workflow_dispatch (finished at once with the workflow's DispatchJobs
// when a test set them, Hub.SetDispatchJobs). As GitHub: 422 for a workflow without the
// workflow_dispatch trigger, a ref that does not resolve or more than 25
// inputs; 204, or 200 with the run's id and URLs when return_run_details
// is set.
func (h *api) dispatch(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	w := r.WorkflowByID(c.Params["workflow_id"])
	if w == nil {
		return hub.NotFound()
	}
	var in dispatchInput
	if rep := hub.Decode(c, &in); rep != nil {
		return rep
	}
	if in.Ref == nil || *in.Ref == "" {
		return hub.Validation(&hub.ValidationError{Message: "Invalid request.\n\n\"ref\" wasn't supplied."})
	}
	if len(in.Inputs) > 25 {
		return hub.Validation(&hub.ValidationError{Message: "you may only define up to 25 `inputs` for a `workflow_dispatch` event"})
	}
	if !w.Dispatch {
		return hub.Validation(&hub.ValidationError{Message: "Workflow does not have 'workflow_dispatch' trigger"})
	}
	branch := strings.TrimPrefix(*in.Ref, "refs/heads/")
	sha, ok := r.Resolve(*in.Ref)
	if !ok {
		return hub.Validation(&hub.ValidationError{Message: "No ref found for: " + *in.Ref})
	}
	spec, jobs := hub.RunSpec{Branch: branch, SHA: sha.String(), Event: "workflow_dispatch", Status: "queued"},
		[]hub.JobSpec{{Name: "build", Steps: []string{"Set up job", "Run " + w.Name, "Complete job"}}}
	if len(w.DispatchJobs) > 0 {
		spec.Status, jobs = "completed", w.DispatchJobs
	}
	run := h.AddRunOfLocked(r, w, spec, jobs)
	if !in.ReturnRunDetails {
		return &hub.Reply{Status: 204}
	}
	obj := c.RunObj(r, run)
	return hub.OkReply(200, hub.Obj{"workflow_run_id": run.ID, "run_url": obj["url"], "html_url": obj["html_url"]})
}

// api serves this area's routes over the shared hub; its methods are the area's handlers.
type api struct{ *hub.Hub }

// Register adds this area's routes to h through add (see hub.New).
func Register(h *hub.Hub, add hub.AddFunc) { (&api{h}).registerActions(add) }
