package fakehub

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// GitHub Actions, as far as issue 22's CI tools use it: workflow runs and
// their jobs, each job also a check run of the github-actions app with the
// job's id (as on GitHub, where a job's check_run_url names the check run
// of the same id), job logs behind a redirect to a signed download URL, and
// re-running a run's failed jobs.

// workflowRun is one run of a workflow on a commit.
type workflowRun struct {
	id, workflowID               int64
	number, attempt              int
	name, path, event            string
	headBranch, headSHA          string
	status, conclusion           string
	created, updated, runStarted time.Time
}

// jobStep is one step of a job.
type jobStep struct {
	name, status, conclusion string
}

// actionsJob is one job of a run attempt; its log is plain text with
// GitHub's timestamp before each line.
type actionsJob struct {
	id, runID          int64
	attempt            int
	name               string
	status, conclusion string
	steps              []jobStep
	log                string
	logKey             string // the "signature" of its download URL
	started, completed time.Time
}

// actionsData is a repository's Actions state.
type actionsData struct {
	runs []*workflowRun
	jobs []*actionsJob
}

// registerActions adds the Actions endpoints of the CI tools and the log download route, which stands for GitHub's signed log storage URL.
func (h *Hub) registerActions(add addFunc) {
	add("GET", "/repos/{owner}/{repo}/actions/runs/{run_id}", h.withRepo(PermRead, h.getRun))
	add("POST", "/repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs", h.withRepo(PermWrite, h.rerunFailedJobs))
	add("GET", "/repos/{owner}/{repo}/actions/jobs/{job_id}", h.withRepo(PermRead, h.getJob))
	add("GET", "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs", h.withRepo(PermRead, h.jobLogs))
	add("GET", "/_logs/{owner}/{repo}/jobs/{job_id}", h.downloadLog)
}

func (r *repo) actionsState() *actionsData {
	if r.actions == nil {
		r.actions = &actionsData{}
	}
	return r.actions
}

func (r *repo) runByID(id string) *workflowRun {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return nil
	}
	for _, run := range r.actionsState().runs {
		if run.id == n {
			return run
		}
	}
	return nil
}

func (r *repo) jobByID(id string) *actionsJob {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return nil
	}
	for _, j := range r.actionsState().jobs {
		if j.id == n {
			return j
		}
	}
	return nil
}

func randomKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// JobSpec describes one job of a workflow run to record (AddWorkflowRun).
type JobSpec struct {
	// Name is the job's name, also its check run's.
	Name string
	// Conclusion is the finished job's: success, failure, cancelled...
	Conclusion string
	// Steps are the step names; FailedStep (1-based, 0 for none) is the
	// one that failed, the later ones are skipped.
	Steps      []string
	FailedStep int
	// Log is the job's log, one line per step output, without timestamps.
	Log string
}

// addRunLocked records a finished workflow run on sha with its jobs and their check runs.
func (h *Hub) addRunLocked(r *repo, branch, sha, workflow string, jobs []JobSpec) *workflowRun {
	a := r.actionsState()
	t := h.stamp()
	h.nextID++
	run := &workflowRun{id: h.nextID, workflowID: 161335, number: len(a.runs) + 1, attempt: 1, name: workflow,
		path: ".github/workflows/ci.yml", event: "pull_request", headBranch: branch, headSHA: sha,
		status: "completed", conclusion: "success", created: t, updated: t, runStarted: t}
	for _, js := range jobs {
		if js.Conclusion != "success" {
			run.conclusion = "failure"
		}
		h.addJobLocked(r, run, js.Name, "completed", js.Conclusion, js.Steps, js.FailedStep, js.Log)
	}
	a.runs = append(a.runs, run)
	return run
}

func (h *Hub) addJobLocked(r *repo, run *workflowRun, name, status, conclusion string, steps []string, failed int, log string) *actionsJob {
	t := h.stamp()
	h.nextID++
	j := &actionsJob{id: h.nextID, runID: run.id, attempt: run.attempt, name: name, status: status, conclusion: conclusion,
		log: stampLog(log, t), logKey: randomKey(), started: t}
	for i, s := range steps {
		st := jobStep{name: s, status: status}
		switch {
		case status != "completed":
			st.status = "queued"
		case failed == 0 || i+1 < failed:
			st.conclusion = "success"
		case i+1 == failed:
			st.conclusion = conclusion
		default:
			st.conclusion = "skipped"
		}
		j.steps = append(j.steps, st)
	}
	if status == "completed" {
		j.completed = t
	}
	r.actionsState().jobs = append(r.actionsState().jobs, j)
	r.checks[run.headSHA] = append(r.checks[run.headSHA], &checkRun{id: j.id, name: name, status: status, conclusion: conclusion,
		sha: run.headSHA, started: t, completed: j.completed, actionsRun: run.id})
	return j
}

// stampLog puts GitHub's timestamp before every line of a job log.
func stampLog(log string, t time.Time) string {
	if log == "" {
		return ""
	}
	out := make([]byte, 0, len(log)+len(log)/2)
	stamp := t.UTC().Format("2006-01-02T15:04:05.0000000Z") + " "
	start := true
	for i := 0; i < len(log); i++ {
		if start {
			out = append(out, stamp...)
			start = false
		}
		out = append(out, log[i])
		if log[i] == '\n' {
			start = true
		}
	}
	return string(out)
}

// AddWorkflowRun records a finished workflow run of workflow on the head of branch in repo, with
// its jobs (each also a check run of the github-actions app), and returns the run's id.
func (h *Hub) AddWorkflowRun(repoName, branch, workflow string, jobs []JobSpec) (int64, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.repoLocked(repoName)
	if err != nil {
		return 0, err
	}
	sha, ok := r.resolve(branch)
	if !ok {
		return 0, ErrRefNotFound
	}
	return h.addRunLocked(r, branch, sha.String(), workflow, jobs).id, nil
}

func (c *reqCtx) runObj(r *repo, run *workflowRun) obj {
	u := c.repoURL(r) + "/actions/runs/" + strconv.FormatInt(run.id, 10)
	web := c.web + "/" + r.fullName() + "/actions/runs/" + strconv.FormatInt(run.id, 10)
	var conclusion any
	if run.conclusion != "" {
		conclusion = run.conclusion
	}
	head := obj{"id": run.headSHA, "tree_id": run.headSHA, "message": "", "timestamp": ts(run.created),
		"author":    obj{"name": r.opts.Owner, "email": r.opts.Owner + "@users.noreply.github.com"},
		"committer": obj{"name": "GitHub", "email": "noreply@github.com"}}
	if cm, err := r.git.Commit(plumbing.NewHash(run.headSHA)); err == nil {
		head["tree_id"], head["message"] = cm.TreeHash.String(), cm.Message
		head["author"] = obj{"name": cm.Author.Name, "email": cm.Author.Email}
		head["committer"] = obj{"name": cm.Committer.Name, "email": cm.Committer.Email}
	}
	return obj{
		"id": run.id, "node_id": nodeID("WorkflowRun", run.id), "name": run.name, "display_title": run.name,
		"head_branch": run.headBranch, "head_sha": run.headSHA, "path": run.path, "run_number": run.number,
		"run_attempt": run.attempt, "event": run.event, "status": run.status, "conclusion": conclusion,
		"workflow_id": run.workflowID, "url": u, "html_url": web, "created_at": ts(run.created), "updated_at": ts(run.updated),
		"run_started_at": ts(run.runStarted), "jobs_url": u + "/jobs", "logs_url": u + "/logs",
		"check_suite_url": c.repoURL(r) + "/check-suites/" + strconv.FormatInt(run.id, 10), "cancel_url": u + "/cancel",
		"rerun_url": u + "/rerun", "artifacts_url": u + "/artifacts", "previous_attempt_url": nil,
		"workflow_url":  c.repoURL(r) + "/actions/workflows/" + strconv.FormatInt(run.workflowID, 10),
		"pull_requests": []any{}, "head_commit": head, "repository": c.minimalRepo(r), "head_repository": c.minimalRepo(r),
	}
}

func (c *reqCtx) jobObj(r *repo, j *actionsJob, run *workflowRun) obj {
	id := strconv.FormatInt(j.id, 10)
	var conclusion any
	if j.conclusion != "" {
		conclusion = j.conclusion
	}
	steps := []obj{}
	for i, s := range j.steps {
		var sc any
		if s.conclusion != "" {
			sc = s.conclusion
		}
		steps = append(steps, obj{"name": s.name, "status": s.status, "conclusion": sc, "number": i + 1,
			"started_at": nullTime(j.started), "completed_at": nullTime(j.completed)})
	}
	return obj{
		"id": j.id, "node_id": nodeID("CheckRun", j.id), "run_id": run.id, "run_attempt": j.attempt,
		"run_url": c.repoURL(r) + "/actions/runs/" + strconv.FormatInt(run.id, 10), "head_sha": run.headSHA,
		"workflow_name": run.name, "head_branch": run.headBranch, "name": j.name, "url": c.repoURL(r) + "/actions/jobs/" + id,
		"html_url": c.web + "/" + r.fullName() + "/actions/runs/" + strconv.FormatInt(run.id, 10) + "/job/" + id,
		"status":   j.status, "conclusion": conclusion, "created_at": ts(j.started), "started_at": ts(j.started),
		"completed_at": nullTime(j.completed), "check_run_url": c.repoURL(r) + "/check-runs/" + id, "steps": steps,
		"labels": []string{"ubuntu-latest"}, "runner_id": 1, "runner_name": "GitHub Actions 1", "runner_group_id": 2,
		"runner_group_name": "GitHub Actions",
	}
}

func (h *Hub) getRun(c *reqCtx, r *repo) *reply {
	run := r.runByID(c.p["run_id"])
	if run == nil {
		return notFound()
	}
	return okReply(200, c.runObj(r, run))
}

func (h *Hub) getJob(c *reqCtx, r *repo) *reply {
	j := r.jobByID(c.p["job_id"])
	if j == nil {
		return notFound()
	}
	return okReply(200, c.jobObj(r, j, r.runByID(strconv.FormatInt(j.runID, 10))))
}

// jobLogs answers as GitHub does: 302 to a short-lived download URL that
// needs no token (fakehub's /_logs route, its "signature" in the query).
func (h *Hub) jobLogs(c *reqCtx, r *repo) *reply {
	j := r.jobByID(c.p["job_id"])
	if j == nil {
		return notFound()
	}
	rep := &reply{status: 302}
	rep.setHeader("Location", c.web+"/_logs/"+r.fullName()+"/jobs/"+strconv.FormatInt(j.id, 10)+"?sig="+j.logKey)
	return rep
}

// downloadLog serves a job log at its signed URL, without a token.
func (h *Hub) downloadLog(c *reqCtx) *reply {
	r, ok := h.repos[repoKey(c.p["owner"]+"/"+c.p["repo"])]
	if !ok {
		return notFound()
	}
	j := r.jobByID(c.p["job_id"])
	if j == nil || c.r.URL.Query().Get("sig") != j.logKey {
		return &reply{status: 403, raw: []byte("AuthenticationFailed"), ctype: "text/plain; charset=utf-8"}
	}
	return &reply{status: 200, raw: []byte(j.log), ctype: "text/plain; charset=utf-8"}
}

// rerunFailedJobs starts a new attempt of a finished run that re-runs its
// failed jobs (queued, with new ids and check runs); GitHub refuses a run
// that is not finished or has nothing failed with 403.
func (h *Hub) rerunFailedJobs(c *reqCtx, r *repo) *reply {
	run := r.runByID(c.p["run_id"])
	if run == nil {
		return notFound()
	}
	var failed []*actionsJob
	for _, j := range r.actionsState().jobs {
		if j.runID == run.id && j.attempt == run.attempt && j.status == "completed" && j.conclusion != "success" && j.conclusion != "skipped" && j.conclusion != "neutral" {
			failed = append(failed, j)
		}
	}
	if run.status != "completed" || len(failed) == 0 {
		return errReply(403, "This workflow run is not rerunnable", "")
	}
	run.attempt++
	run.status, run.conclusion, run.updated = "queued", "", h.stamp()
	for _, j := range failed {
		names := make([]string, len(j.steps))
		for i, s := range j.steps {
			names[i] = s.name
		}
		h.addJobLocked(r, run, j.name, "queued", "", names, 0, "")
	}
	return okReply(201, obj{})
}

// checkApp is the app of a check run: github-actions for the check run of
// an Actions job, else fakehub's own CI app.
func (c *reqCtx) checkApp(r *repo, cr *checkRun) obj {
	if cr.actionsRun != 0 {
		return obj{"id": 15368, "slug": "github-actions", "node_id": nodeID("App", 15368), "owner": c.user("github"), "name": "GitHub Actions",
			"description": "Automate your workflow from idea to production", "external_url": "https://help.github.com/en/actions",
			"html_url": c.web + "/apps/github-actions", "created_at": ts(r.created), "updated_at": ts(r.created),
			"permissions": obj{"checks": "write", "actions": "write"}, "events": []string{}}
	}
	return obj{"id": 1, "slug": "fakehub-ci", "node_id": nodeID("App", 1), "owner": c.user(r.opts.Owner), "name": "fakehub CI",
		"description": nil, "external_url": c.web, "html_url": c.web + "/apps/fakehub-ci", "created_at": ts(r.created),
		"updated_at": ts(r.created), "permissions": obj{"checks": "write"}, "events": []string{}}
}

// checkDetailsURL is the job's page for an Actions check run, as GitHub
// sets it; other check runs of fakehub have none.
func (c *reqCtx) checkDetailsURL(r *repo, cr *checkRun) any {
	if cr.actionsRun == 0 {
		return nil
	}
	return c.web + "/" + r.fullName() + "/actions/runs/" + strconv.FormatInt(cr.actionsRun, 10) + "/job/" + strconv.FormatInt(cr.id, 10)
}
