// Package actions serves fakehub's GitHub Actions routes: workflow runs, jobs, rerunning failed jobs
// and job logs (with the download route that stands for GitHub's signed log storage URL).
package actions

import (
	"strconv"

	"ghops.dev/services/fakehub/internal/hub"
)

// registerActions adds the Actions endpoints of the CI tools and the log download route, which stands for GitHub's signed log storage URL.
func (h *api) registerActions(add hub.AddFunc) {
	add("GET", "/repos/{owner}/{repo}/actions/runs/{run_id}", h.WithRepo(hub.PermRead, h.getRun))
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
	var failed []*hub.ActionsJob
	for _, j := range r.ActionsState().Jobs {
		if j.RunID == run.ID && j.Attempt == run.Attempt && j.Status == "completed" && j.Conclusion != "success" && j.Conclusion != "skipped" && j.Conclusion != "neutral" {
			failed = append(failed, j)
		}
	}
	if run.Status != "completed" || len(failed) == 0 {
		return hub.ErrReply(403, "This workflow run is not rerunnable", "")
	}
	run.Attempt++
	run.Status, run.Conclusion, run.Updated = "queued", "", h.Stamp()
	for _, j := range failed {
		names := make([]string, len(j.Steps))
		for i, s := range j.Steps {
			names[i] = s.Name
		}
		h.AddJobLocked(r, run, j.Name, "queued", "", names, 0, "")
	}
	return hub.OkReply(201, hub.Obj{})
}

// api serves this area's routes over the shared hub; its methods are the area's handlers.
type api struct{ *hub.Hub }

// Register adds this area's routes to h through add (see hub.New).
func Register(h *hub.Hub, add hub.AddFunc) { (&api{h}).registerActions(add) }
