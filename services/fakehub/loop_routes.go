package fakehub

// agentLoopRoutes adds the endpoints of issue 22's branch, pull request and
// CI tools, kept apart from buildRoutes' list so that the two halves
// stay in their own files.
func (h *Hub) agentLoopRoutes(add func(m, t string, fn handlerFunc)) {
	add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/files", h.withRepo(PermRead, h.listPullFiles))
	add("GET", "/repos/{owner}/{repo}/compare/{basehead}", h.withRepo(PermRead, h.compare))
}
