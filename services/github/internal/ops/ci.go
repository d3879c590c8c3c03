package ops

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"
	"google.golang.org/grpc/codes"

	"ghops.dev/services/github/internal/contentclean"
	"ghops.dev/services/github/internal/ghpath"
	"ghops.dev/services/github/internal/ghstatus"
	"ghops.dev/services/github/internal/joblog"
)

// The caps of get_ci_failures, as documented on GetCiFailuresResponse.
const (
	// maxFailedChecks caps the failed checks listed.
	maxFailedChecks = 10
	// maxExcerpts caps the failed jobs whose log is read for an excerpt:
	// each costs two requests and a download.
	maxExcerpts = 3
	// logTimeout bounds one log download.
	logTimeout = 60 * time.Second
)

// actionsApp is the slug of the app whose check runs are Actions jobs; such
// a check run's id is its job's id.
const actionsApp = "github-actions"

func runRes(repo string, id int64) *ghopsv1.Resource {
	return &ghopsv1.Resource{Type: "run", Id: repo + "/actions/runs/" + strconv.FormatInt(id, 10)}
}

func jobRes(repo string, id int64) *ghopsv1.Resource {
	return &ghopsv1.Resource{Type: "job", Id: repo + "/actions/jobs/" + strconv.FormatInt(id, 10)}
}

// checkRunsOpts asks for the latest run of each check, as many as GitHub
// gives on one page.
func checkRunsOpts() *github.ListCheckRunsOptions {
	return &github.ListCheckRunsOptions{Filter: github.String("latest"), ListOptions: github.ListOptions{PerPage: 100}}
}

// GetCiFailures implements the get_ci_failures tool: the latest check runs
// of the commit, and for at most maxExcerpts failed Actions jobs the job
// (failed steps, run) and its log around the first error. GitHub serves
// check runs for any ref, so a ref or a pull request (by the ref GitHub
// keeps for its head, refs/pull/{n}/head) costs that one call, the commit
// being the runs' head_sha; the commit is read first (the commits list for
// a ref or short sha, the pull request) only when no run names it. A full
// sha is read directly. Commit statuses are not read: they carry no log to
// explain a failure.
func (s *Service) GetCiFailures(ctx context.Context, req *ghopsv1.GetCiFailuresRequest) (*ghopsv1.GetCiFailuresResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolGetCiFailures, Repo: req.GetRepo()}
	owner, name := splitRepo(req.GetRepo())
	gh := s.client(ctx)
	sha := req.GetSha()
	var runs *github.ListCheckRunsResults
	switch {
	case req.PrNumber != nil:
		c.PR, c.Resource = int(req.GetPrNumber()), prResource(req.GetRepo(), req.GetPrNumber())
		var err error
		if runs, sha, err = runsByRef(ctx, gh, owner, name, "refs/pull/"+strconv.Itoa(int(req.GetPrNumber()))+"/head"); err != nil {
			return nil, s.fail(ctx, err, c)
		}
		if runs == nil {
			pr, _, err := gh.PullRequests.Get(ctx, owner, name, int(req.GetPrNumber()))
			if err != nil {
				return nil, s.fail(ctx, err, c)
			}
			sha = pr.GetHead().GetSHA()
		}
	case len(sha) != 40:
		from := req.GetRef()
		if from == "" {
			from = sha
		}
		c.Resource = &ghopsv1.Resource{Type: "ref", Id: resID(req.GetRepo(), "", from)}
		if req.Ref != nil {
			var err error
			if runs, sha, err = runsByRef(ctx, gh, owner, name, from); err != nil {
				return nil, s.fail(ctx, err, c)
			}
		}
		if runs == nil {
			list, _, err := gh.Repositories.ListCommits(ctx, owner, name, &github.CommitsListOptions{SHA: from, ListOptions: github.ListOptions{PerPage: 1}})
			if err != nil {
				return nil, s.fail(ctx, err, c)
			}
			if len(list) == 0 {
				return nil, ghstatus.New(codes.NotFound, ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, "ref "+c.Resource.GetId()+" not found", c, &ghopsv1.GitHubError{Resource: c.Resource})
			}
			sha = list[0].GetSHA()
		}
	}
	c.SHA = sha
	c.Resource = &ghopsv1.Resource{Type: "commit", Id: req.GetRepo() + "@" + sha}
	if runs == nil {
		var err error
		if runs, _, err = gh.Checks.ListCheckRunsForRef(ctx, owner, name, sha, checkRunsOpts()); err != nil {
			return nil, s.fail(ctx, err, c)
		}
	}
	out := &ghopsv1.GetCiFailuresResponse{Sha: sha, Truncated: runs.GetTotal() > len(runs.CheckRuns)}
	excerpts := 0
	for _, r := range runs.CheckRuns {
		switch runResult(r.GetStatus(), r.GetConclusion()) {
		case "success":
			out.Passed++
			continue
		case "pending":
			out.Pending++
			continue
		}
		if len(out.Failed) == maxFailedChecks {
			out.Truncated = true
			continue
		}
		f := &ghopsv1.FailedCheck{Name: r.GetName(), Conclusion: r.GetConclusion(), Summary: r.GetOutput().GetTitle()}
		out.Failed = append(out.Failed, f)
		if r.GetApp().GetSlug() != actionsApp {
			continue
		}
		f.JobId, f.RunId = r.GetID(), runFromDetails(r.GetDetailsURL())
		if excerpts == maxExcerpts {
			continue
		}
		excerpts++
		// Best effort past the check runs: a job or log GitHub cannot give
		// leaves the failure listed without its details.
		job, _, err := gh.Actions.GetWorkflowJobByID(ctx, owner, name, f.JobId)
		if err == nil {
			// The check run's id is used for the log only once GitHub's
			// job answer says it is this repository's job.
			err = ownJob(job, req.GetRepo(), f.JobId)
		}
		if err != nil {
			s.log.InfoContext(ctx, "job of a failed check not read", "repo", req.GetRepo(), "job_id", f.JobId, "status", ghstatus.HTTPStatus(err), "cause", ghstatus.Text(err))
			continue
		}
		f.RunId = job.GetRunID()
		for _, st := range job.Steps {
			if runResult(st.GetStatus(), st.GetConclusion()) == "failure" {
				f.FailedSteps = append(f.FailedSteps, st.GetName())
			}
		}
		w, err := s.readLog(ctx, gh, owner, name, f.JobId, joblog.Excerpt)
		if err != nil {
			s.log.InfoContext(ctx, "log of a failed job not read", "repo", req.GetRepo(), "job_id", f.JobId, "status", ghstatus.HTTPStatus(err))
			continue
		}
		f.LogExcerpt = &ghopsv1.LogExcerpt{FirstLine: int32(w.FirstLine), ErrorLine: int32(w.ErrorLine), Lines: w.Lines, TotalLines: int32(w.TotalLines)}
		out.ContentReport = contentclean.AddLog(out.ContentReport, w.Removed, w.Cleaned, "failed["+strconv.Itoa(len(out.Failed)-1)+"].log_excerpt.lines")
	}
	return out, nil
}

// runsByRef reads the latest check runs of the commit ref names (a branch,
// a tag, refs/pull/{n}/head) in one call, with that commit's sha from the
// runs' head_sha. It answers no runs and no error when that cannot tell the
// sha (no check run yet, runs of differing commits) or when GitHub answers
// 404 or 422 for the ref (a ref GitHub does not resolve): the caller then
// reads the commit first, as it would without this saving, so that the
// answer always names the commit it describes and a missing pull request
// or ref is reported as such.
func runsByRef(ctx context.Context, gh *github.Client, owner, name, ref string) (*github.ListCheckRunsResults, string, error) {
	runs, _, err := gh.Checks.ListCheckRunsForRef(ctx, owner, name, ref, checkRunsOpts())
	if err != nil {
		if st := ghstatus.HTTPStatus(err); st == http.StatusNotFound || st == http.StatusUnprocessableEntity {
			return nil, "", nil
		}
		return nil, "", err
	}
	if sha := sameHeadSHA(runs.CheckRuns); sha != "" {
		return runs, sha, nil
	}
	return nil, "", nil
}

// sameHeadSHA is the head_sha all of runs carry, "" when there is no run or
// they name different commits (or none).
func sameHeadSHA(runs []*github.CheckRun) string {
	if len(runs) == 0 {
		return ""
	}
	sha := runs[0].GetHeadSHA()
	for _, r := range runs[1:] {
		if r.GetHeadSHA() != sha {
			return ""
		}
	}
	if len(sha) != 40 {
		return ""
	}
	return sha
}

// runFromDetails reads the run id from an Actions check run's details URL
// (".../actions/runs/{run_id}/job/{job_id}"), so that failures past the
// excerpts still name their run without a request; 0 when absent.
func runFromDetails(u string) int64 {
	_, rest, ok := strings.Cut(u, "/actions/runs/")
	if !ok {
		return 0
	}
	id, _, _ := strings.Cut(rest, "/")
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// GetJobLog implements the get_job_log tool: the job (ownJob: GitHub's
// answer must name the call's repository, one conditional GET that a
// finished job answers with a 304), the log's URL (GitHub answers a
// redirect to a signed download URL), then the download, read as a stream
// into the window asked for (validation has checked that exactly one of
// tail_lines and start_line+max_lines is given).
func (s *Service) GetJobLog(ctx context.Context, req *ghopsv1.GetJobLogRequest) (*ghopsv1.GetJobLogResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolGetJobLog, Repo: req.GetRepo(), Resource: jobRes(req.GetRepo(), req.GetJobId())}
	owner, name := splitRepo(req.GetRepo())
	window := func(r io.Reader) (joblog.Window, error) {
		if req.TailLines != nil {
			return joblog.Tail(r, int(req.GetTailLines()))
		}
		return joblog.Range(r, int(req.GetStartLine()), int(req.GetMaxLines()))
	}
	gh := s.client(ctx)
	if err := s.checkJob(ctx, gh, req.GetRepo(), req.GetJobId()); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	w, err := s.readLog(ctx, gh, owner, name, req.GetJobId(), window)
	if errors.Is(err, joblog.ErrRefused) {
		return nil, ghstatus.New(codes.Internal, ghopsv1.ErrorReason_ERROR_REASON_INTERNAL, "the job log's download was refused: GitHub sent it to a host outside the allowed log hosts, or through too many redirects", c, nil)
	}
	if errors.Is(err, errLogDownload) {
		return nil, ghstatus.New(codes.Unavailable, ghopsv1.ErrorReason_ERROR_REASON_UPSTREAM_UNAVAILABLE, "the job log could not be downloaded from the URL GitHub gave", c, nil)
	}
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.GetJobLogResponse{Lines: w.Lines, FirstLine: int32(w.FirstLine), TotalLines: int32(w.TotalLines), Truncated: w.Truncated,
		ContentReport: contentclean.AddLog(nil, w.Removed, w.Cleaned, "lines")}, nil
}

// errLogDownload is a failed download of a log from the URL GitHub gave:
// the service cannot say more than that (the URL is signed, so it is never
// logged nor shown), and get_job_log answers Unavailable.
var errLogDownload = errors.New("job log download failed")

// WithLogHosts sets the hosts job logs may be downloaded from (package
// joblog: GitHub's log storage and the configured GitHub host).
func (s *Service) WithLogHosts(hosts joblog.Hosts) *Service {
	s.logs = joblog.NewDownloader(hosts, logTimeout)
	return s
}

// readLog asks GitHub for the job log's URL and reads the log from there
// into a window. GitHub's answer is a 302 that go-github returns without
// following it; the download goes through s.logs, without the token.
func (s *Service) readLog(ctx context.Context, gh *github.Client, owner, name string, jobID int64, window func(io.Reader) (joblog.Window, error)) (joblog.Window, error) {
	u, resp, err := gh.Actions.GetWorkflowJobLogs(ctx, owner, name, jobID, 1)
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusFound {
			// go-github reports any other answer as a plain error; give
			// ghstatus the status GitHub sent.
			return joblog.Window{}, &github.ErrorResponse{Response: resp.Response, Message: http.StatusText(resp.StatusCode)}
		}
		return joblog.Window{}, err
	}
	if u == nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return joblog.Window{}, errLogDownload
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return joblog.Window{}, errLogDownload
	}
	got, err := s.logs.Get(hreq)
	if err != nil {
		var refused *joblog.RefusedError
		switch {
		case errors.As(err, &refused):
			// The host only: the URL's query is a signature.
			s.log.WarnContext(ctx, "job log download refused", "host", refused.Host, "why", refused.Why)
			return joblog.Window{}, err
		case ctx.Err() != nil:
			return joblog.Window{}, ctx.Err()
		}
		return joblog.Window{}, errLogDownload
	}
	defer got.Body.Close()
	if got.StatusCode != http.StatusOK {
		return joblog.Window{}, errLogDownload
	}
	return window(got.Body)
}

// checkJob reads job id of repo (through the memo) and checks that GitHub
// answered with that job of that repository (ownJob).
func (s *Service) checkJob(ctx context.Context, gh *github.Client, repo string, id int64) error {
	u, err := ghpath.Repo("repo", repo, ghpath.Lit("actions/jobs"), ghpath.One("jobId", strconv.FormatInt(id, 10)))
	if err != nil {
		return err
	}
	job, _, err := get[*github.WorkflowJob](ctx, s, gh, u, nil)
	if err != nil {
		return err
	}
	return ownJob(job, repo, id)
}

// RerunFailedJobs implements the rerun_failed_jobs tool: the failed jobs
// (and the jobs they need) of a finished run again, as a new attempt of the
// same run (runWrite).
func (s *Service) RerunFailedJobs(ctx context.Context, req *ghopsv1.RerunFailedJobsRequest) (*ghopsv1.RerunFailedJobsResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolRerunFailedJobs, Repo: req.GetRepo(), Resource: runRes(req.GetRepo(), req.GetRunId())}
	after, err := s.runWrite(ctx, c, req.GetRepo(), req.GetRunId(), func(gh *github.Client, owner, name string) error {
		_, err := gh.Actions.RerunFailedJobsByID(ctx, owner, name, req.GetRunId())
		return err
	})
	if err != nil {
		return nil, err
	}
	out := &ghopsv1.RerunFailedJobsResponse{RunId: req.GetRunId(), Status: "queued"}
	if after.GetStatus() != "" {
		out.Status = after.GetStatus()
	}
	return out, nil
}
