package hub

import (
	"crypto/rand"
	"encoding/hex"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// GitHub Actions, as far as issue 22's CI tools use it: workflow runs and
// their jobs, each job also a check run of the github-actions app with the
// job's id (as on GitHub, where a job's check_run_url names the check run
// of the same id), job logs behind a redirect to a signed download URL, and
// re-running a run's failed jobs.

// Workflow is a workflow file of the repository (.github/workflows/...).
type Workflow struct {
	ID         int64
	Name, Path string
	// Dispatch tells whether it has the workflow_dispatch trigger, so that
	// it can be run by hand (POST .../dispatches).
	Dispatch bool
	// DispatchJobs, when set, are the jobs a dispatched run finishes
	// with straight away, as if a runner had picked it up at once
	// (SetDispatchJobs); otherwise a dispatched run stays queued.
	DispatchJobs []JobSpec
	created      time.Time
}

// File is the workflow's file name, which GitHub accepts for its id.
func (w *Workflow) File() string { return path.Base(w.Path) }

// WorkflowRun is one run of a workflow on a commit.
type WorkflowRun struct {
	ID, workflowID               int64
	number, Attempt              int
	name, path, event            string
	headBranch, headSHA          string
	Status, Conclusion           string
	created, Updated, runStarted time.Time
}

// jobStep is one step of a job.
type jobStep struct {
	Name, status, conclusion string
}

// ActionsJob is one job of a run attempt; its log is plain text with
// GitHub's timestamp before each line.
type ActionsJob struct {
	ID, RunID          int64
	Attempt            int
	Name               string
	Status, Conclusion string
	Steps              []jobStep
	Log                string
	LogKey             string // the "signature" of its download URL
	started, completed time.Time
}

// actionsData is a repository's Actions state.
type actionsData struct {
	Workflows []*Workflow
	runs      []*WorkflowRun
	Jobs      []*ActionsJob
}

// ActionsState is the repository's workflow runs and jobs, created on first use.
func (r *Repo) ActionsState() *actionsData {
	if r.actions == nil {
		r.actions = &actionsData{}
	}
	return r.actions
}

// RunByID is the workflow run with the decimal id, nil when there is none.
func (r *Repo) RunByID(id string) *WorkflowRun {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return nil
	}
	for _, run := range r.ActionsState().runs {
		if run.ID == n {
			return run
		}
	}
	return nil
}

// JobByID is the job with the decimal id, nil when there is none.
func (r *Repo) JobByID(id string) *ActionsJob {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return nil
	}
	for _, j := range r.ActionsState().Jobs {
		if j.ID == n {
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

// AddRunLocked records a finished workflow run on sha with its jobs and their check runs.
func (h *Hub) AddRunLocked(r *Repo, branch, sha, workflow string, jobs []JobSpec) *WorkflowRun {
	return h.AddRunOfLocked(r, h.WorkflowLocked(r, workflow, true), RunSpec{Branch: branch, SHA: sha, Event: "pull_request", Status: "completed"}, jobs)
}

// RunSpec describes a workflow run to record (AddRunOfLocked).
type RunSpec struct {
	// Branch and SHA are the commit the run is of.
	Branch, SHA string
	// Event is what started it: push, pull_request, workflow_dispatch...
	Event string
	// Status is queued, in_progress or completed; a completed run's
	// conclusion follows from its jobs (Conclusion overrides it, e.g.
	// cancelled).
	Status, Conclusion string
}

// AddRunOfLocked records a run of w as spec says, with its jobs (each also a check run); jobs of
// a run that is not completed are queued, or in progress when the run is.
func (h *Hub) AddRunOfLocked(r *Repo, w *Workflow, spec RunSpec, jobs []JobSpec) *WorkflowRun {
	a := r.ActionsState()
	t := h.Stamp()
	h.NextID++
	n := 1
	for _, run := range a.runs {
		if run.workflowID == w.ID {
			n++
		}
	}
	run := &WorkflowRun{ID: h.NextID, workflowID: w.ID, number: n, Attempt: 1, name: w.Name,
		path: w.Path, event: spec.Event, headBranch: spec.Branch, headSHA: spec.SHA,
		Status: spec.Status, created: t, Updated: t, runStarted: t}
	if spec.Status == "completed" {
		run.Conclusion = "success"
	}
	for _, js := range jobs {
		status, conclusion := spec.Status, js.Conclusion
		if status != "completed" {
			conclusion = ""
		} else if conclusion != "success" && conclusion != "skipped" {
			run.Conclusion = "failure"
		}
		h.AddJobLocked(r, run, js.Name, status, conclusion, js.Steps, js.FailedStep, js.Log)
	}
	if spec.Conclusion != "" {
		run.Conclusion = spec.Conclusion
	}
	a.runs = append(a.runs, run)
	return run
}

// WorkflowLocked is the repository's workflow named name, added (at
// .github/workflows/<name in lower case>.yml) when create is set and there
// is none; nil otherwise.
func (h *Hub) WorkflowLocked(r *Repo, name string, create bool) *Workflow {
	a := r.ActionsState()
	for _, w := range a.Workflows {
		if w.Name == name {
			return w
		}
	}
	if !create {
		return nil
	}
	w := &Workflow{ID: 161335 + int64(len(a.Workflows)), Name: name, Dispatch: true, created: r.created,
		Path: ".github/workflows/" + strings.ToLower(strings.ReplaceAll(name, " ", "-")) + ".yml"}
	a.Workflows = append(a.Workflows, w)
	return w
}

// WorkflowByID is the workflow with the decimal id or the file name (as
// GitHub's workflow_id parameter takes either), nil when there is none.
func (r *Repo) WorkflowByID(id string) *Workflow {
	for _, w := range r.ActionsState().Workflows {
		if strconv.FormatInt(w.ID, 10) == id || w.File() == id {
			return w
		}
	}
	return nil
}

// Runs are the repository's workflow runs, newest first (GitHub's order),
// that keep says to.
func (r *Repo) Runs(keep func(run *WorkflowRun) bool) []*WorkflowRun {
	var out []*WorkflowRun
	for _, run := range slices.Backward(r.ActionsState().runs) {
		if keep(run) {
			out = append(out, run)
		}
	}
	return out
}

// RunFilter tells whether run matches GitHub's runs-list filters: branch,
// event, and status (a status or a conclusion); "" matches any.
func RunFilter(run *WorkflowRun, workflowID int64, branch, event, status string) bool {
	return (workflowID == 0 || run.workflowID == workflowID) && (branch == "" || run.headBranch == branch) &&
		(event == "" || run.event == event) && (status == "" || run.Status == status || run.Conclusion == status)
}

// RunJobs are the jobs of run: of its latest attempt, or of every attempt
// when all is set.
func (r *Repo) RunJobs(run *WorkflowRun, all bool) []*ActionsJob {
	var out []*ActionsJob
	for _, j := range r.ActionsState().Jobs {
		if j.RunID == run.ID && (all || j.Attempt == run.Attempt) {
			out = append(out, j)
		}
	}
	return out
}

// CancelLocked cancels run and its unfinished jobs; false when the run is
// already completed (GitHub's 409).
func (h *Hub) CancelLocked(r *Repo, run *WorkflowRun) bool {
	if run.Status == "completed" {
		return false
	}
	t := h.Stamp()
	run.Status, run.Conclusion, run.Updated = "completed", "cancelled", t
	for _, j := range r.RunJobs(run, false) {
		if j.Status != "completed" {
			j.Status, j.Conclusion, j.completed = "completed", "cancelled", t
			for i := range j.Steps {
				if j.Steps[i].status != "completed" {
					j.Steps[i].status, j.Steps[i].conclusion = "completed", "cancelled"
				}
			}
			for _, cr := range r.Checks[run.headSHA] {
				if cr.ID == j.ID {
					cr.Status, cr.Conclusion, cr.Completed = "completed", "cancelled", t
				}
			}
		}
	}
	return true
}

// RerunLocked starts a new attempt of the finished run: every job of the
// workflow again (with failedOnly: the last attempt's jobs that did not succeed),
// queued, with new ids and check runs; false when the run is not finished
// or (failedOnly) nothing failed.
func (h *Hub) RerunLocked(r *Repo, run *WorkflowRun, failedOnly bool) bool {
	if run.Status != "completed" {
		return false
	}
	var again []*ActionsJob
	if failedOnly {
		for _, j := range r.RunJobs(run, false) {
			if j.Status == "completed" && j.Conclusion != "success" && j.Conclusion != "skipped" && j.Conclusion != "neutral" {
				again = append(again, j)
			}
		}
	} else {
		// Every job of the workflow, as its latest attempt ran it: an
		// attempt that re-ran failed jobs holds only those.
		at := map[string]int{}
		for _, j := range r.RunJobs(run, true) {
			if i, ok := at[j.Name]; ok {
				again[i] = j
				continue
			}
			at[j.Name] = len(again)
			again = append(again, j)
		}
	}
	if len(again) == 0 {
		return false
	}
	run.Attempt++
	run.Status, run.Conclusion, run.Updated = "queued", "", h.Stamp()
	for _, j := range again {
		names := make([]string, len(j.Steps))
		for i, s := range j.Steps {
			names[i] = s.Name
		}
		h.AddJobLocked(r, run, j.Name, "queued", "", names, 0, "")
	}
	return true
}

// WorkflowObj is a workflow as the REST API renders it.
func (c *ReqCtx) WorkflowObj(r *Repo, w *Workflow) Obj {
	id := strconv.FormatInt(w.ID, 10)
	return Obj{"id": w.ID, "node_id": NodeID("Workflow", w.ID), "name": w.Name, "path": w.Path, "state": "active",
		"created_at": Ts(w.created), "updated_at": Ts(w.created), "url": c.RepoURL(r) + "/actions/workflows/" + id,
		"html_url":  c.Web + "/" + r.FullName() + "/blob/" + r.Opts.DefaultBranch + "/" + w.Path,
		"badge_url": c.Web + "/" + r.FullName() + "/workflows/" + w.Name + "/badge.svg"}
}

// AddJobLocked adds a job to run and returns it, its log stamped with the job's start; the caller
// holds Mu exclusively.
func (h *Hub) AddJobLocked(r *Repo, run *WorkflowRun, name, status, conclusion string, steps []string, failed int, log string) *ActionsJob {
	t := h.Stamp()
	h.NextID++
	j := &ActionsJob{ID: h.NextID, RunID: run.ID, Attempt: run.Attempt, Name: name, Status: status, Conclusion: conclusion,
		Log: stampLog(log, t), LogKey: randomKey(), started: t}
	for i, s := range steps {
		st := jobStep{Name: s, status: status}
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
		j.Steps = append(j.Steps, st)
	}
	if status == "completed" {
		j.completed = t
	}
	r.ActionsState().Jobs = append(r.ActionsState().Jobs, j)
	r.Checks[run.headSHA] = append(r.Checks[run.headSHA], &CheckRun{ID: j.ID, Name: name, Status: status, Conclusion: conclusion,
		SHA: run.headSHA, Started: t, Completed: j.completed, actionsRun: run.ID})
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
	h.Mu.Lock()
	defer h.Mu.Unlock()
	r, err := h.repoLocked(repoName)
	if err != nil {
		return 0, err
	}
	sha, ok := r.Resolve(branch)
	if !ok {
		return 0, ErrRefNotFound
	}
	return h.AddRunLocked(r, branch, sha.String(), workflow, jobs).ID, nil
}

// AddWorkflowRunOf records a run of workflow (its name; a new workflow of that name is added if
// there is none) in repoName in the state spec says, with its jobs, and returns the run's id. An
// empty spec.SHA is the head of spec.Branch; an empty spec.Event is push. Runs that are not
// completed have queued (or, in progress, running) jobs, for tasks that cancel them.
func (h *Hub) AddWorkflowRunOf(repoName, workflow string, spec RunSpec, jobs []JobSpec) (int64, error) {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	r, err := h.repoLocked(repoName)
	if err != nil {
		return 0, err
	}
	if spec.SHA == "" {
		sha, ok := r.Resolve(spec.Branch)
		if !ok {
			return 0, ErrRefNotFound
		}
		spec.SHA = sha.String()
	}
	if spec.Event == "" {
		spec.Event = "push"
	}
	return h.AddRunOfLocked(r, h.WorkflowLocked(r, workflow, true), spec, jobs).ID, nil
}

// SetDispatchJobs makes every later dispatch of workflow (its name, file name or id) in repoName
// record a run that has already finished with jobs, the way a test plays the runner for a run an
// agent starts; nil jobs restore the queued run of one build job.
func (h *Hub) SetDispatchJobs(repoName, workflow string, jobs []JobSpec) error {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	r, err := h.repoLocked(repoName)
	if err != nil {
		return err
	}
	w := h.WorkflowLocked(r, workflow, false)
	if w == nil {
		w = r.WorkflowByID(workflow)
	}
	if w == nil {
		return ErrWorkflowNotFound
	}
	w.DispatchJobs = slices.Clone(jobs)
	return nil
}

// RunObj is a workflow run as the REST API renders it.
func (c *ReqCtx) RunObj(r *Repo, run *WorkflowRun) Obj {
	u := c.RepoURL(r) + "/actions/runs/" + strconv.FormatInt(run.ID, 10)
	web := c.Web + "/" + r.FullName() + "/actions/runs/" + strconv.FormatInt(run.ID, 10)
	var conclusion any
	if run.Conclusion != "" {
		conclusion = run.Conclusion
	}
	head := Obj{"id": run.headSHA, "tree_id": run.headSHA, "message": "", "timestamp": Ts(run.created),
		"author":    Obj{"name": r.Opts.Owner, "email": r.Opts.Owner + "@users.noreply.github.com"},
		"committer": Obj{"name": "GitHub", "email": "noreply@github.com"}}
	if cm, err := r.Git.Commit(plumbing.NewHash(run.headSHA)); err == nil {
		head["tree_id"], head["message"] = cm.TreeHash.String(), cm.Message
		head["author"] = Obj{"name": cm.Author.Name, "email": cm.Author.Email}
		head["committer"] = Obj{"name": cm.Committer.Name, "email": cm.Committer.Email}
	}
	return Obj{
		"id": run.ID, "node_id": NodeID("WorkflowRun", run.ID), "name": run.name, "display_title": run.name,
		"head_branch": run.headBranch, "head_sha": run.headSHA, "path": run.path, "run_number": run.number,
		"run_attempt": run.Attempt, "event": run.event, "status": run.Status, "conclusion": conclusion,
		"workflow_id": run.workflowID, "url": u, "html_url": web, "created_at": Ts(run.created), "updated_at": Ts(run.Updated),
		"run_started_at": Ts(run.runStarted), "jobs_url": u + "/jobs", "logs_url": u + "/logs",
		"check_suite_url": c.RepoURL(r) + "/check-suites/" + strconv.FormatInt(run.ID, 10), "cancel_url": u + "/cancel",
		"rerun_url": u + "/rerun", "artifacts_url": u + "/artifacts", "previous_attempt_url": nil,
		"workflow_url":  c.RepoURL(r) + "/actions/workflows/" + strconv.FormatInt(run.workflowID, 10),
		"pull_requests": []any{}, "head_commit": head, "repository": c.MinimalRepo(r), "head_repository": c.MinimalRepo(r),
	}
}

// JobObj is a job of run as the REST API renders it.
func (c *ReqCtx) JobObj(r *Repo, j *ActionsJob, run *WorkflowRun) Obj {
	id := strconv.FormatInt(j.ID, 10)
	var conclusion any
	if j.Conclusion != "" {
		conclusion = j.Conclusion
	}
	steps := []Obj{}
	for i, s := range j.Steps {
		var sc any
		if s.conclusion != "" {
			sc = s.conclusion
		}
		steps = append(steps, Obj{"name": s.Name, "status": s.status, "conclusion": sc, "number": i + 1,
			"started_at": NullTime(j.started), "completed_at": NullTime(j.completed)})
	}
	return Obj{
		"id": j.ID, "node_id": NodeID("CheckRun", j.ID), "run_id": run.ID, "run_attempt": j.Attempt,
		"run_url": c.RepoURL(r) + "/actions/runs/" + strconv.FormatInt(run.ID, 10), "head_sha": run.headSHA,
		"workflow_name": run.name, "head_branch": run.headBranch, "name": j.Name, "url": c.RepoURL(r) + "/actions/jobs/" + id,
		"html_url": c.Web + "/" + r.FullName() + "/actions/runs/" + strconv.FormatInt(run.ID, 10) + "/job/" + id,
		"status":   j.Status, "conclusion": conclusion, "created_at": Ts(j.started), "started_at": Ts(j.started),
		"completed_at": NullTime(j.completed), "check_run_url": c.RepoURL(r) + "/check-runs/" + id, "steps": steps,
		"labels": []string{"ubuntu-latest"}, "runner_id": 1, "runner_name": "GitHub Actions 1", "runner_group_id": 2,
		"runner_group_name": "GitHub Actions",
	}
}

// CheckApp is the app of a check run: github-actions for the check run of
// an Actions job, else fakehub's own CI app.
func (c *ReqCtx) CheckApp(r *Repo, cr *CheckRun) Obj {
	if cr.actionsRun != 0 {
		return Obj{"id": 15368, "slug": "github-actions", "node_id": NodeID("App", 15368), "owner": c.user("github"), "name": "GitHub Actions",
			"description": "Automate your workflow from idea to production", "external_url": "https://help.github.com/en/actions",
			"html_url": c.Web + "/apps/github-actions", "created_at": Ts(r.created), "updated_at": Ts(r.created),
			"permissions": Obj{"checks": "write", "actions": "write"}, "events": []string{}}
	}
	return Obj{"id": 1, "slug": "fakehub-ci", "node_id": NodeID("App", 1), "owner": c.user(r.Opts.Owner), "name": "fakehub CI",
		"description": nil, "external_url": c.Web, "html_url": c.Web + "/apps/fakehub-ci", "created_at": Ts(r.created),
		"updated_at": Ts(r.created), "permissions": Obj{"checks": "write"}, "events": []string{}}
}

// CheckDetailsURL is the job's page for an Actions check run, as GitHub
// sets it; other check runs of fakehub have none.
func (c *ReqCtx) CheckDetailsURL(r *Repo, cr *CheckRun) any {
	if cr.actionsRun == 0 {
		return nil
	}
	return c.Web + "/" + r.FullName() + "/actions/runs/" + strconv.FormatInt(cr.actionsRun, 10) + "/job/" + strconv.FormatInt(cr.ID, 10)
}
