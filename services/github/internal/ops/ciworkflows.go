package ops

import (
	"context"
	"errors"
	"net/http"
	"path"
	"strconv"
	"strings"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"

	"ghops.dev/services/github/internal/ghpath"
	"ghops.dev/services/github/internal/ghstatus"
)

// The workflow tools: workflows and their runs, read, dispatched, cancelled
// and re-run. A workflow is named by its file name (ci.yml) or GitHub's id,
// as GitHub's workflow_id takes either; answers name it by file, so that
// what an answer gives is what a call takes.

// runsPage is list_workflows' and list_workflow_runs' page size.
const runsPage = 30

// maxRunJobs is the most jobs get_workflow_run lists: GitHub's largest
// page, so that the answer costs one request for the jobs.
const maxRunJobs = 100

// workflowRes is data.resource of a workflow (docs/errors.md).
func workflowRes(repo, workflow string) *ghopsv1.Resource {
	return &ghopsv1.Resource{Type: "workflow", Id: repo + "/actions/workflows/" + workflow}
}

// toWorkflowRun is the answer's run. GitHub's display_title is the run's
// title; name is the workflow's.
func toWorkflowRun(r *github.WorkflowRun) *ghopsv1.WorkflowRun {
	return &ghopsv1.WorkflowRun{
		Id: r.GetID(), Workflow: path.Base(r.GetPath()), Name: r.GetName(), Title: r.GetDisplayTitle(), Event: r.GetEvent(),
		Status: r.GetStatus(), Conclusion: r.GetConclusion(), Branch: r.GetHeadBranch(), HeadSha: r.GetHeadSHA(),
		Attempt: int32(r.GetRunAttempt()), CreatedAt: ts(r.CreatedAt), UpdatedAt: ts(r.UpdatedAt),
	}
}

// ListWorkflows implements the list_workflows tool: one GET.
func (s *Service) ListWorkflows(ctx context.Context, req *ghopsv1.ListWorkflowsRequest) (*ghopsv1.ListWorkflowsResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolListWorkflows, Repo: req.GetRepo()}
	p := max(int(req.GetPage()), 1)
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("actions/workflows"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	list, resp, err := get[*github.Workflows](ctx, s, s.client(ctx), u, listQuery(p, runsPage))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.ListWorkflowsResponse{Workflows: []*ghopsv1.Workflow{}, TotalCount: int32(list.GetTotalCount()), Page: pageInfo(p, runsPage, resp)}
	for _, w := range list.Workflows {
		out.Workflows = append(out.Workflows, &ghopsv1.Workflow{File: path.Base(w.GetPath()), Name: w.GetName(), State: w.GetState()})
	}
	return out, nil
}

// ListWorkflowRuns implements the list_workflow_runs tool: one GET, of the
// repository's runs or, with workflow, of that workflow's (GitHub's 404
// for a workflow it does not know is -32002 naming the workflow).
func (s *Service) ListWorkflowRuns(ctx context.Context, req *ghopsv1.ListWorkflowRunsRequest) (*ghopsv1.ListWorkflowRunsResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolListWorkflowRuns, Repo: req.GetRepo()}
	p := max(int(req.GetPage()), 1)
	parts := []ghpath.Part{ghpath.Lit("actions/runs")}
	if req.Workflow != nil {
		c.Resource = workflowRes(req.GetRepo(), req.GetWorkflow())
		parts = []ghpath.Part{ghpath.Lit("actions/workflows"), ghpath.One("workflow", req.GetWorkflow()), ghpath.Lit("runs")}
	}
	u, err := ghpath.Repo("repo", req.GetRepo(), parts...)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	var kv []string
	for _, f := range []struct {
		name string
		v    *string
	}{{"branch", req.Branch}, {"status", req.Status}, {"event", req.Event}} {
		if f.v != nil {
			kv = append(kv, f.name, *f.v)
		}
	}
	list, resp, err := get[*github.WorkflowRuns](ctx, s, s.client(ctx), u, listQuery(p, runsPage, kv...))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.ListWorkflowRunsResponse{Runs: []*ghopsv1.WorkflowRun{}, TotalCount: int32(list.GetTotalCount()), Page: pageInfo(p, runsPage, resp)}
	for _, r := range list.WorkflowRuns {
		out.Runs = append(out.Runs, toWorkflowRun(r))
	}
	return out, nil
}

// GetWorkflowRun implements the get_workflow_run tool: the run (ownRun:
// GitHub's answer must name the call's repository), then the jobs of its
// latest attempt, one page of up to maxRunJobs; two GETs.
func (s *Service) GetWorkflowRun(ctx context.Context, req *ghopsv1.GetWorkflowRunRequest) (*ghopsv1.GetWorkflowRunResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolGetWorkflowRun, Repo: req.GetRepo(), Resource: runRes(req.GetRepo(), req.GetRunId())}
	gh := s.client(ctx)
	run, err := s.ownRunRead(ctx, gh, req.GetRepo(), req.GetRunId())
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("actions/runs"), ghpath.One("runId", strconv.FormatInt(req.GetRunId(), 10)), ghpath.Lit("jobs"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	jobs, _, err := get[*github.Jobs](ctx, s, gh, u, listQuery(1, maxRunJobs, "filter", "latest"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.GetWorkflowRunResponse{Run: toWorkflowRun(run), Jobs: []*ghopsv1.RunJob{}, HtmlUrl: run.GetHTMLURL(),
		JobsTruncated: jobs.GetTotalCount() > len(jobs.Jobs)}
	for _, j := range jobs.Jobs {
		rj := &ghopsv1.RunJob{Id: j.GetID(), Name: j.GetName(), Status: j.GetStatus(), Conclusion: j.GetConclusion()}
		for _, st := range j.Steps {
			if runResult(st.GetStatus(), st.GetConclusion()) == "failure" {
				rj.FailedSteps = append(rj.FailedSteps, st.GetName())
			}
		}
		out.Jobs = append(out.Jobs, rj)
	}
	return out, nil
}

// ownRunRead reads run id of repo (through the memo) and checks that
// GitHub answered with that run of that repository (ownRun).
func (s *Service) ownRunRead(ctx context.Context, gh *github.Client, repo string, id int64) (*github.WorkflowRun, error) {
	u, err := ghpath.Repo("repo", repo, ghpath.Lit("actions/runs"), ghpath.One("runId", strconv.FormatInt(id, 10)))
	if err != nil {
		return nil, err
	}
	run, _, err := get[*github.WorkflowRun](ctx, s, gh, u, nil)
	if err != nil {
		return nil, err
	}
	if run == nil {
		run = new(github.WorkflowRun) // a JSON null: no run of this repository
	}
	return run, ownRun(run, repo, id)
}

// runWrite is the write of a run tool (rerun_failed_jobs,
// rerun_workflow_run, cancel_workflow_run): the run (ownRun, before the id
// is used for the write), the write (never retried), then the run again for
// its status after the write. The write is done once it is accepted: the
// read after it only refines the answer, and a failed one answers nil.
func (s *Service) runWrite(ctx context.Context, c ghstatus.Context, repo string, id int64,
	write func(gh *github.Client, owner, name string) error,
) (*github.WorkflowRun, error) {
	gh := s.client(ctx)
	if _, err := s.ownRunRead(ctx, gh, repo, id); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	owner, name := splitRepo(repo)
	if err := write(gh, owner, name); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	after, _, err := gh.Actions.GetWorkflowRunByID(ctx, owner, name, id)
	if err != nil {
		s.log.InfoContext(ctx, "run not read after its write", "tool", c.Tool, "repo", repo, "status", ghstatus.HTTPStatus(err))
		after = nil
	}
	return after, nil
}

// RerunWorkflowRun implements the rerun_workflow_run tool: every job of a
// finished run again, as a new attempt of the same run (runWrite).
func (s *Service) RerunWorkflowRun(ctx context.Context, req *ghopsv1.RerunWorkflowRunRequest) (*ghopsv1.RerunWorkflowRunResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolRerunWorkflowRun, Repo: req.GetRepo(), Resource: runRes(req.GetRepo(), req.GetRunId())}
	after, err := s.runWrite(ctx, c, req.GetRepo(), req.GetRunId(), func(gh *github.Client, owner, name string) error {
		_, err := gh.Actions.RerunWorkflowByID(ctx, owner, name, req.GetRunId())
		return err
	})
	if err != nil {
		return nil, err
	}
	out := &ghopsv1.RerunWorkflowRunResponse{RunId: req.GetRunId(), Status: "queued"}
	if after.GetStatus() != "" {
		out.Status = after.GetStatus()
	}
	return out, nil
}

// CancelWorkflowRun implements the cancel_workflow_run tool (runWrite).
// GitHub accepts a cancellation with 202 and cancels asynchronously, so
// the answer is the status read after it; a finished run is GitHub's 409,
// -32003 (docs/errors.md).
func (s *Service) CancelWorkflowRun(ctx context.Context, req *ghopsv1.CancelWorkflowRunRequest) (*ghopsv1.CancelWorkflowRunResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolCancelWorkflowRun, Repo: req.GetRepo(), Resource: runRes(req.GetRepo(), req.GetRunId())}
	after, err := s.runWrite(ctx, c, req.GetRepo(), req.GetRunId(), func(gh *github.Client, owner, name string) error {
		_, err := gh.Actions.CancelWorkflowRunByID(ctx, owner, name, req.GetRunId())
		var accepted *github.AcceptedError
		if errors.As(err, &accepted) {
			return nil // go-github reports GitHub's 202 as an error
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &ghopsv1.CancelWorkflowRunResponse{RunId: req.GetRunId(), Status: after.GetStatus(), Conclusion: after.GetConclusion()}, nil
}

// dispatchRequest is the body of a workflow dispatch; return_run_details
// asks GitHub to answer with the run it started (200 instead of 204).
type dispatchRequest struct {
	Ref              string            `json:"ref"`
	Inputs           map[string]string `json:"inputs,omitempty"`
	ReturnRunDetails bool              `json:"return_run_details"`
}

// dispatchAnswer is GitHub's 200 to a dispatch with return_run_details.
type dispatchAnswer struct {
	RunID   int64  `json:"workflow_run_id"`
	HTMLURL string `json:"html_url"`
}

// RunWorkflow implements the run_workflow tool: one POST of a
// workflow_dispatch event, asking GitHub for the run it starts
// (return_run_details). A GitHub that answers 204 without it leaves run_id
// 0. A ref GitHub cannot resolve ("No ref found for", a 422) is -32002
// naming the ref; a workflow without the workflow_dispatch trigger is
// GitHub's 422, -32003 naming the workflow.
func (s *Service) RunWorkflow(ctx context.Context, req *ghopsv1.RunWorkflowRequest) (*ghopsv1.RunWorkflowResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolRunWorkflow, Repo: req.GetRepo(), Resource: workflowRes(req.GetRepo(), req.GetWorkflow())}
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("actions/workflows"), ghpath.One("workflow", req.GetWorkflow()), ghpath.Lit("dispatches"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	gh := s.client(ctx)
	hreq, err := gh.NewRequest(http.MethodPost, u, &dispatchRequest{Ref: req.GetRef(), Inputs: req.GetInputs(), ReturnRunDetails: true})
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	var got dispatchAnswer
	if _, err := gh.Do(ctx, hreq, &got); err != nil {
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnprocessableEntity && strings.HasPrefix(er.Message, "No ref found for") {
			c.Resource = &ghopsv1.Resource{Type: "ref", Id: resID(req.GetRepo(), "", req.GetRef())}
			return nil, ghstatus.NotFound(c, "no ref "+req.GetRef())
		}
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.RunWorkflowResponse{RunId: got.RunID, HtmlUrl: got.HTMLURL}, nil
}
