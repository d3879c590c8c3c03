package ops

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/go-github/v66/github"

	"ghops.dev/services/github/internal/ghpath"
	"ghops.dev/services/github/internal/ghstatus"
)

// A tool acts only on the kind of thing it names, in the call's repository
// (docs/security.md). GitHub's issue endpoints serve pull requests too (a
// pull request is an issue with a pull_request key), so the issue tools read
// the number's kind before anything else and refuse a pull request's; the
// pulls endpoints cannot cross (an issue's number is their 404), so the pull
// request tools only say, on that 404, that the number is an issue's. Ids
// that GitHub scopes by the URL's repository alone (an Actions run or job,
// a pull request's GraphQL node id) are compared with the repository of
// GitHub's own answer before they are used, instead of trusting the path
// scoping; package reposcope already refuses any request, redirects
// included, outside the call's repository, and this is the check of what
// comes back. Every refusal is -32002 (ghstatus.Mismatch) and comes before
// any write.

// kindError is a number of the other kind: a pull request's given to an
// issue tool (pull true), or an issue's given to a pull request tool.
type kindError struct{ pull bool }

// Error implements error.
func (e *kindError) Error() string {
	if e.pull {
		return "the number names a pull request, not an issue"
	}
	return "the number names an issue, not a pull request"
}

// foreignError is an answer of GitHub's that belongs to another repository
// than the call's (or names another object than the one asked for): what
// names the object ("an issue", "a pull request", "a run", "a job"), got
// GitHub's answer, for the service's log.
type foreignError struct{ what, got string }

// Error implements error.
func (e *foreignError) Error() string {
	return "GitHub answered with " + e.what + " of another repository (" + e.got + ")"
}

// mismatch turns a kindError or foreignError into the call's -32002, and a
// 404 of a pull request tool into one that says the number is an issue's
// when it is (one more GET, only on that failure path). nil for any other
// error.
func (s *Service) mismatch(ctx context.Context, err error, c ghstatus.Context) error {
	var ke *kindError
	if errors.As(err, &ke) {
		return ghstatus.Mismatch(c, 0, kindText(c.Resource.GetId(), ke.pull))
	}
	var fe *foreignError
	if errors.As(err, &fe) {
		// The other repository is not named: it may be one the principal
		// may not see. The service's log has it.
		s.log.WarnContext(ctx, "GitHub answered with an object of another repository", "tool", c.Tool, "repo", c.Repo, "object", fe.what, "answer", fe.got)
		return ghstatus.Mismatch(c, 0, c.Resource.GetType()+" "+c.Resource.GetId()+" not found: GitHub answered with "+fe.what+
			" of another repository (a renamed or transferred repository is called by its current name); nothing was done")
	}
	if c.PR > 0 && c.Resource.GetType() == "pr" && ghstatus.HTTPStatus(err) == http.StatusNotFound && ctx.Err() == nil {
		if is, ierr := s.issueKind(ctx, s.client(ctx), c.Repo, c.PR); ierr == nil && !is.IsPullRequest() {
			return ghstatus.Mismatch(c, http.StatusNotFound, kindText(c.Resource.GetId(), false))
		}
	}
	return nil
}

// kindText is the message of a number of the other kind: what it is and
// which tools act on it.
func kindText(id string, pull bool) string {
	if pull {
		return id + " is a pull request, not an issue: use the pull request tools (get_pull_request, update_pull_request)"
	}
	return id + " is an issue, not a pull request: use the issue tools (get_issue, update_issue)"
}

// issueKind reads issue n of repo (one GET, conditional and memoised like
// get_issue's, whose cache entry it shares) and checks that GitHub answered
// with that number of that repository; it may be a pull request.
func (s *Service) issueKind(ctx context.Context, gh *github.Client, repo string, n int) (*ghIssue, error) {
	u, err := ghpath.Repo("repo", repo, ghpath.Lit("issues"), ghpath.Lit(strconv.Itoa(n)))
	if err != nil {
		return nil, err
	}
	is, _, err := get[*ghIssue](ctx, s, gh, u, nil)
	if err != nil {
		return nil, err
	}
	if is == nil || is.GetNumber() != n || !sameRepo(repoOfURL(is.GetRepositoryURL()), repo) {
		return nil, &foreignError{what: "an issue", got: is.GetRepositoryURL() + "#" + strconv.Itoa(is.GetNumber())}
	}
	s.kinds.put(repo, n, is.GetID(), is.IsPullRequest())
	return is, nil
}

// issueID is issueOnly for a write that needs only the number's kind and
// the issue's id: no request when an answer of GitHub's said within
// kindTTL that n is an issue of repo (kindmemo.go), else issueOnly's GET.
func (s *Service) issueID(ctx context.Context, gh *github.Client, repo string, n int) (int64, error) {
	if e, ok := s.kinds.known(repo, n); ok && !e.pull {
		return e.id, nil
	}
	is, err := s.issueOnly(ctx, gh, repo, n)
	if err != nil {
		return 0, err
	}
	return is.GetID(), nil
}

// issueOnly is issueKind refusing a pull request: the first request of
// every issue tool given a number (a pull request's number never becomes
// an issue's, so nothing can change between this read and the write).
func (s *Service) issueOnly(ctx context.Context, gh *github.Client, repo string, n int) (*ghIssue, error) {
	is, err := s.issueKind(ctx, gh, repo, n)
	if err != nil {
		return nil, err
	}
	if is.IsPullRequest() {
		return nil, &kindError{pull: true}
	}
	return is, nil
}

// pullOnly is issueKind refusing an issue: the first request of the pull
// request tools that reach a pull request through GitHub's issue endpoints
// (its conversation comments), which would serve an issue's number too. A
// number known to be a pull request (kindmemo.go) needs no request.
func (s *Service) pullOnly(ctx context.Context, gh *github.Client, repo string, n int) error {
	if e, ok := s.kinds.known(repo, n); ok && e.pull {
		return nil // an answer of GitHub's said so within kindTTL (kindmemo.go)
	}
	is, err := s.issueKind(ctx, gh, repo, n)
	if err != nil {
		return err
	}
	if !is.IsPullRequest() {
		return &kindError{pull: false}
	}
	return nil
}

// ownPull checks that GitHub's pull request answer is number n of repo (its
// base repository), before its node id or head is used for a write.
func ownPull(pr *github.PullRequest, repo string, n int) error {
	if pr.GetNumber() != n || !sameRepo(pr.GetBase().GetRepo().GetFullName(), repo) {
		return &foreignError{what: "a pull request", got: pr.GetBase().GetRepo().GetFullName() + "#" + strconv.Itoa(pr.GetNumber())}
	}
	return nil
}

// ownRun checks that GitHub's run answer is run id of repo.
func ownRun(run *github.WorkflowRun, repo string, id int64) error {
	if run.GetID() != id || !sameRepo(run.GetRepository().GetFullName(), repo) {
		return &foreignError{what: "a run", got: run.GetRepository().GetFullName() + "/actions/runs/" + strconv.FormatInt(run.GetID(), 10)}
	}
	return nil
}

// ownJob checks that GitHub's job answer is job id of repo: a job's answer
// names its repository only in its URLs (url, run_url), which GitHub builds
// from the repository's current name.
func ownJob(job *github.WorkflowJob, repo string, id int64) error {
	if job.GetID() != id || !sameRepo(repoOfAPIURL(job.GetURL()), repo) || !sameRepo(repoOfAPIURL(job.GetRunURL()), repo) {
		return &foreignError{what: "a job", got: job.GetURL()}
	}
	return nil
}

// sameRepo tells whether GitHub's "owner/name" a is the call's b: GitHub's
// names are case-insensitive; an answer that names none is not the call's.
func sameRepo(a, b string) bool { return a != "" && strings.EqualFold(a, b) }

// repoOfAPIURL is "owner/name" of a REST URL under /repos/{owner}/{name}/,
// "" when u is not one. The path is read as sent (escaped): a repository's
// name never needs escaping, so an escaped "/" cannot pass for one.
func repoOfAPIURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	_, rest, ok := strings.Cut(p.EscapedPath(), "/repos/")
	if !ok {
		return ""
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return ""
	}
	return parts[0] + "/" + parts[1]
}
