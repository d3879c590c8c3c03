package fakehub

// agentLoopRoutes adds the endpoints of issue 22's branch, pull request and
// CI tools, kept apart from buildRoutes' list so that the two halves
// stay in their own files.
func (h *Hub) agentLoopRoutes(add func(m, t string, fn handlerFunc)) {
	add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/files", h.withRepo(PermRead, h.listPullFiles))
	add("GET", "/repos/{owner}/{repo}/compare/{basehead}", h.withRepo(PermRead, h.compare))
	h.actionsRoutes(add)
}

// actionsRoutes adds the Actions endpoints of the CI tools and the log
// download route, which stands for GitHub's signed log storage URL.
func (h *Hub) actionsRoutes(add func(m, t string, fn handlerFunc)) {
	add("GET", "/repos/{owner}/{repo}/actions/runs/{run_id}", h.withRepo(PermRead, h.getRun))
	add("POST", "/repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs", h.withRepo(PermWrite, h.rerunFailedJobs))
	add("GET", "/repos/{owner}/{repo}/actions/jobs/{job_id}", h.withRepo(PermRead, h.getJob))
	add("GET", "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs", h.withRepo(PermRead, h.jobLogs))
	add("GET", "/_logs/{owner}/{repo}/jobs/{job_id}", h.downloadLog)
}
