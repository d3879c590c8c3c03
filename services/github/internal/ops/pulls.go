package ops

import (
	"context"
	"net/http"
	"sort"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"

	"ghops.dev/services/github/internal/ghpath"
	"ghops.dev/services/github/internal/ghstatus"
	"ghops.dev/services/github/internal/progress"
)

func prResource(repo string, n int32) *ghopsv1.Resource {
	return &ghopsv1.Resource{Type: "pr", Id: repo + "#" + itoa(int(n))}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// GetPrMergeability implements the get_pr_mergeability tool: the pull
// request, polled with exponential backoff while GitHub computes mergeable
// (bounded by the attempts and the call's deadline), then the head's checks.
func (s *Service) GetPrMergeability(ctx context.Context, req *ghopsv1.GetPrMergeabilityRequest) (*ghopsv1.GetPrMergeabilityResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolGetPrMergeability, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), Resource: prResource(req.GetRepo(), req.GetPrNumber())}
	owner, name := splitRepo(req.GetRepo())
	gh := s.client(ctx)
	var pr *github.PullRequest
	delay := s.limits.MergeabilityBackoff
	for attempt := 1; ; attempt++ {
		var err error
		pr, err = s.pullRequest(ctx, gh, req.GetRepo(), int(req.GetPrNumber()))
		if err != nil {
			return nil, s.fail(ctx, err, c)
		}
		if pr.Mergeable != nil || pr.GetState() != "open" || attempt >= s.limits.MergeabilityAttempts {
			break
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < delay+time.Second {
			break // keep time to read the checks and answer
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, s.fail(ctx, ctx.Err(), c)
		case <-t.C:
		}
		delay *= 2
	}
	out := &ghopsv1.GetPrMergeabilityResponse{
		Number: int32(pr.GetNumber()), State: pr.GetState(), Merged: pr.GetMerged(), Draft: pr.GetDraft(),
		Mergeable: copyBool(pr.Mergeable), MergeableState: pr.GetMergeableState(), Head: pr.GetHead().GetRef(),
		Base: pr.GetBase().GetRef(), HeadSha: pr.GetHead().GetSHA(),
	}
	c.SHA = out.HeadSha
	if out.HeadSha != "" {
		summary, _, _, err := s.checks(ctx, gh, owner, name, out.HeadSha)
		if err != nil {
			return nil, s.fail(ctx, err, c)
		}
		out.Checks = summary
	}
	return out, nil
}

// GetChecksForSha implements the get_checks_for_sha tool in two calls.
func (s *Service) GetChecksForSha(ctx context.Context, req *ghopsv1.GetChecksForShaRequest) (*ghopsv1.GetChecksForShaResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolGetChecksForSha, Repo: req.GetRepo(), SHA: req.GetSha(), Resource: &ghopsv1.Resource{Type: "commit", Id: req.GetRepo() + "@" + req.GetSha()}}
	owner, name := splitRepo(req.GetRepo())
	summary, checks, truncated, err := s.checks(ctx, s.client(ctx), owner, name, req.GetSha())
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.GetChecksForShaResponse{Sha: req.GetSha(), Summary: summary, Checks: checks, Truncated: truncated}, nil
}

func (s *Service) checks(ctx context.Context, gh *github.Client, owner, name, sha string) (*ghopsv1.ChecksSummary, []*ghopsv1.Check, bool, error) {
	if err := ghpath.Check("sha", sha); err != nil {
		return nil, nil, false, err
	}
	runs, _, err := gh.Checks.ListCheckRunsForRef(ctx, owner, name, sha, &github.ListCheckRunsOptions{ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		return nil, nil, false, err
	}
	combined, _, err := gh.Repositories.GetCombinedStatus(ctx, owner, name, sha, &github.ListOptions{PerPage: 100})
	if err != nil {
		return nil, nil, false, err
	}
	var runChecks, statusChecks []*ghopsv1.Check
	for _, r := range runs.CheckRuns {
		runChecks = append(runChecks, &ghopsv1.Check{
			Name: r.GetName(), Kind: "check_run", Result: runResult(r.GetStatus(), r.GetConclusion()),
			Status: r.GetStatus(), Conclusion: r.GetConclusion(), Description: r.GetOutput().GetTitle(),
		})
	}
	for _, st := range combined.Statuses {
		statusChecks = append(statusChecks, &ghopsv1.Check{
			Name: st.GetContext(), Kind: "status", Result: statusResult(st.GetState()), Status: st.GetState(), Description: st.GetDescription(),
		})
	}
	byName := func(cs []*ghopsv1.Check) {
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	}
	byName(runChecks)
	byName(statusChecks)
	all := append(runChecks, statusChecks...)
	truncated := runs.GetTotal() > len(runs.CheckRuns) || combined.GetTotalCount() > len(combined.Statuses)
	return Summarize(all), all, truncated, nil
}

// Summarize counts checks and gives the verdict: failure when any failed,
// else pending when any is unfinished, else success, or none without checks.
func Summarize(checks []*ghopsv1.Check) *ghopsv1.ChecksSummary {
	s := &ghopsv1.ChecksSummary{Total: int32(len(checks))}
	for _, c := range checks {
		switch c.Result {
		case "success":
			s.Passed++
		case "failure":
			s.Failed++
		default:
			s.Pending++
		}
	}
	switch {
	case s.Total == 0:
		s.Verdict = "none"
	case s.Failed > 0:
		s.Verdict = "failure"
	case s.Pending > 0:
		s.Verdict = "pending"
	default:
		s.Verdict = "success"
	}
	return s
}

func runResult(status, conclusion string) string {
	if status != "completed" {
		return "pending"
	}
	switch conclusion {
	case "success", "neutral", "skipped":
		return "success"
	case "failure", "cancelled", "timed_out", "action_required", "startup_failure":
		return "failure"
	}
	return "pending" // stale or not yet reported
}

func statusResult(state string) string {
	switch state {
	case "success":
		return "success"
	case "failure", "error":
		return "failure"
	}
	return "pending"
}

func toPR(pr *github.PullRequest) *ghopsv1.PullRequest {
	return &ghopsv1.PullRequest{
		Number: int32(pr.GetNumber()), Title: pr.GetTitle(), State: pr.GetState(), Merged: pr.GetMerged(),
		Draft: pr.GetDraft(), Head: pr.GetHead().GetRef(), Base: pr.GetBase().GetRef(), HeadSha: pr.GetHead().GetSHA(),
		HtmlUrl: pr.GetHTMLURL(),
	}
}

// CreatePullRequest implements the create_pull_request tool (never retried).
func (s *Service) CreatePullRequest(ctx context.Context, req *ghopsv1.CreatePullRequestRequest) (*ghopsv1.CreatePullRequestResponse, error) {
	owner, name := splitRepo(req.GetRepo())
	pr, _, err := s.client(ctx).PullRequests.Create(ctx, owner, name, &github.NewPullRequest{
		Title: github.String(req.GetTitle()), Head: github.String(req.GetHead()), Base: github.String(req.GetBase()),
		Body: req.Body, Draft: req.Draft,
	})
	if err != nil {
		return nil, s.fail(ctx, err, ghstatus.Context{Tool: ghopsv1.ToolCreatePullRequest, Repo: req.GetRepo()})
	}
	s.kinds.put(req.GetRepo(), pr.GetNumber(), 0, true)
	return &ghopsv1.CreatePullRequestResponse{PullRequest: toPR(pr)}, nil
}

// UpdatePullRequest implements the update_pull_request tool. Title, body
// and state go in one REST PATCH; draft only through GraphQL (REST ignores
// it), and only when it differs from the pull request's current state, read
// from the PATCH answer or, without other fields, from a GET. When closing,
// the draft change goes first, since GitHub changes only open pull requests.
// The answer is the pull request as GitHub reports it afterwards.
func (s *Service) UpdatePullRequest(ctx context.Context, req *ghopsv1.UpdatePullRequestRequest) (*ghopsv1.UpdatePullRequestResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolUpdatePullRequest, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), Resource: prResource(req.GetRepo(), req.GetPrNumber())}
	owner, name := splitRepo(req.GetRepo())
	gh := s.client(ctx)
	body := map[string]any{}
	if req.Title != nil {
		body["title"] = req.GetTitle()
	}
	if req.Body != nil {
		body["body"] = req.GetBody()
	}
	if req.State != nil {
		body["state"] = req.GetState()
	}
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("pulls"), ghpath.One("prNumber", itoa(int(req.GetPrNumber()))))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	patch := func() (*github.PullRequest, error) {
		hreq, err := gh.NewRequest(http.MethodPatch, u, body)
		if err != nil {
			return nil, err
		}
		pr := new(github.PullRequest)
		if _, err := gh.Do(ctx, hreq, pr); err != nil {
			return nil, err
		}
		return pr, nil
	}
	if req.Draft == nil {
		pr, err := patch()
		if err != nil {
			return nil, s.fail(ctx, err, c)
		}
		return &ghopsv1.UpdatePullRequestResponse{PullRequest: toPR(pr)}, nil
	}
	patchLater := len(body) > 0 && req.GetState() == "closed"
	var pr *github.PullRequest
	if len(body) > 0 && !patchLater {
		pr, err = patch()
	} else {
		pr, _, err = gh.PullRequests.Get(ctx, owner, name, int(req.GetPrNumber()))
	}
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	if pr.GetDraft() != req.GetDraft() {
		// The node id is global: it is used only once the answer that
		// gave it is this pull request of this repository.
		if err := ownPull(pr, req.GetRepo(), int(req.GetPrNumber())); err != nil {
			return nil, s.fail(ctx, err, c)
		}
		draft, err := setDraft(ctx, gh, pr.GetNodeID(), req.GetDraft())
		if err != nil {
			return nil, s.fail(ctx, err, c)
		}
		pr.Draft = github.Bool(draft)
	}
	if patchLater {
		if pr, err = patch(); err != nil {
			return nil, s.fail(ctx, err, c)
		}
	}
	return &ghopsv1.UpdatePullRequestResponse{PullRequest: toPR(pr)}, nil
}

// MergePullRequest implements the merge_pull_request tool, passing sha as
// GitHub's stale-head guard. On 405 it reads the pull request's
// mergeable_state, on 409 its current head, to say why.
func (s *Service) MergePullRequest(ctx context.Context, req *ghopsv1.MergePullRequestRequest) (*ghopsv1.MergePullRequestResponse, error) {
	c := ghstatus.Context{Tool: ghstatus.ToolMerge, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), SHA: req.GetSha(), Resource: prResource(req.GetRepo(), req.GetPrNumber())}
	owner, name := splitRepo(req.GetRepo())
	gh := s.client(ctx)
	res, _, err := gh.PullRequests.Merge(ctx, owner, name, int(req.GetPrNumber()), req.GetCommitMessage(), &github.PullRequestOptions{
		CommitTitle: req.GetCommitTitle(), SHA: req.GetSha(), MergeMethod: req.GetMergeMethod(),
	})
	if err != nil {
		switch ghstatus.HTTPStatus(err) {
		case http.StatusMethodNotAllowed, http.StatusConflict:
			c.ExpectedSHA = req.GetSha()
			if pr, _, perr := gh.PullRequests.Get(ctx, owner, name, int(req.GetPrNumber())); perr == nil {
				c.MergeableState = pr.GetMergeableState()
				c.ActualSHA = pr.GetHead().GetSHA()
			}
		}
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.MergePullRequestResponse{Merged: res.GetMerged(), Sha: res.GetSHA(), Message: res.GetMessage()}
	if req.GetDeleteBranch() && out.Merged {
		// Best effort: the merge happened; a failed delete is reported by branch_deleted=false.
		// The head branch is deleted only when GitHub's answer is this pull
		// request of this repository and its head lives there too (not a
		// fork's, nor a deleted fork's, whose branch name may exist here).
		if pr, _, perr := gh.PullRequests.Get(ctx, owner, name, int(req.GetPrNumber())); perr == nil && ownPull(pr, req.GetRepo(), int(req.GetPrNumber())) == nil {
			head := pr.GetHead()
			if sameRepo(head.GetRepo().GetFullName(), req.GetRepo()) {
				if derr := deleteBranch(ctx, gh, owner, name, head.GetRef()); derr == nil {
					out.BranchDeleted = true
				} else {
					s.log.InfoContext(ctx, "head branch not deleted after merge", "repo", req.GetRepo(), "status", ghstatus.HTTPStatus(derr))
				}
			}
		}
	}
	return out, nil
}

// CommitFiles implements the commit_files tool in two GitHub requests
// whatever the number of files: the branch head (GET git/ref), then one
// GraphQL createCommitOnBranch that checks that head and appends the commit
// in one step (commitOnBranch). Where the mutation cannot express the call
// (planCommitOnBranch: a blank first message line, base64 Go cannot
// decode, contents over maxCommitOnBranchBase64) it falls back to the git
// data API in five requests (a blob more per base64 file): the head, its
// commit (for the tree), one tree with the text inline, the commit, and a
// non-forced ref update that GitHub refuses if the branch moved. Either
// way nothing is visible until the last request succeeds, so a failure
// leaves the branch as it was and creates no ref.
func (s *Service) CommitFiles(ctx context.Context, req *ghopsv1.CommitFilesRequest) (*ghopsv1.CommitFilesResponse, error) {
	c := ghstatus.Context{Tool: ghstatus.ToolCommitFiles, Repo: req.GetRepo(), Resource: &ghopsv1.Resource{Type: "branch", Id: req.GetRepo() + "@" + req.GetBranch()}}
	owner, name := splitRepo(req.GetRepo())
	gh := s.client(ctx)
	// Each path already follows the safe-path rule (its protovalidate
	// pattern); what is left to refuse is a path given twice.
	seen := map[string]bool{}
	for _, f := range req.GetFiles() {
		if seen[f.GetPath()] {
			return nil, badPath(c.Tool, "each file path must be given once: "+f.GetPath())
		}
		seen[f.GetPath()] = true
	}
	plan := planCommitOnBranch(req)
	progress.Expect(ctx, commitRequests(plan, req.GetFiles()))
	ref, err := branchRef(ctx, gh, owner, name, req.GetBranch())
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	parent := ref.GetObject().GetSHA()
	c.SHA, c.ExpectedSHA = parent, parent
	if plan != nil {
		sha, err := s.commitFilesGraphQL(ctx, gh, c, req, parent, plan)
		if err != nil {
			return nil, err
		}
		return &ghopsv1.CommitFilesResponse{CommitSha: sha, ParentSha: parent, Branch: req.GetBranch(), FilesChanged: int32(len(req.GetFiles()))}, nil
	}
	parentCommit, _, err := gh.Git.GetCommit(ctx, owner, name, parent)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	entries := make([]*github.TreeEntry, 0, len(req.GetFiles()))
	for _, f := range req.GetFiles() {
		e := &github.TreeEntry{Path: github.String(f.GetPath()), Mode: github.String("100644"), Type: github.String("blob")}
		if f.GetEncoding() == "base64" {
			blob, _, err := gh.Git.CreateBlob(ctx, owner, name, &github.Blob{Content: github.String(f.GetContent()), Encoding: github.String("base64")})
			if err != nil {
				return nil, s.fail(ctx, err, c)
			}
			e.SHA = blob.SHA
		} else {
			e.Content = github.String(f.GetContent())
		}
		entries = append(entries, e)
	}
	sha, err := s.writeCommit(ctx, gh, c, req.GetBranch(), req.GetMessage(), parent, parentCommit.GetTree().GetSHA(), entries)
	if err != nil {
		return nil, err
	}
	return &ghopsv1.CommitFilesResponse{CommitSha: sha, ParentSha: parent, Branch: req.GetBranch(), FilesChanged: int32(len(entries))}, nil
}

// writeCommit is the tail shared by commit_files and apply_patch: one tree
// on baseTree, one commit on parent, and a non-forced ref update that
// GitHub refuses if the branch moved (answered as BRANCH_MOVED). Nothing is
// visible until the ref update succeeds.
func (s *Service) writeCommit(ctx context.Context, gh *github.Client, c ghstatus.Context, branch, message, parent, baseTree string, entries []*github.TreeEntry) (string, error) {
	// The callers read the branch through branchRef already; checked again
	// here since this is where the ref is written (Git.UpdateRef).
	if err := ghpath.Check("branch", branch); err != nil {
		return "", s.fail(ctx, err, c)
	}
	owner, name := splitRepo(c.Repo)
	tree, _, err := gh.Git.CreateTree(ctx, owner, name, baseTree, entries)
	if err != nil {
		return "", s.fail(ctx, err, c)
	}
	commit, _, err := gh.Git.CreateCommit(ctx, owner, name, &github.Commit{
		Message: github.String(message), Tree: &github.Tree{SHA: tree.SHA}, Parents: []*github.Commit{{SHA: github.String(parent)}},
	}, nil)
	if err != nil {
		return "", s.fail(ctx, err, c)
	}
	_, _, err = gh.Git.UpdateRef(ctx, owner, name, &github.Reference{
		Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: commit.SHA},
	}, false)
	if err != nil {
		if st := ghstatus.HTTPStatus(err); st == http.StatusUnprocessableEntity || st == http.StatusConflict {
			// The new commit's only parent is the head read at the start, so
			// a non-forced update of that head is a fast forward by
			// construction: GitHub refuses it only because the branch moved
			// (or went away) meanwhile, whatever its wording ("Update is not
			// a fast forward", "Reference cannot be updated", ...). Every
			// such refusal is a lost race, -32006 (docs/errors.md); the
			// re-read only names the head that won, when it can.
			if now, rerr := branchRef(ctx, gh, owner, name, branch); rerr == nil && now.GetObject().GetSHA() != parent {
				c.ActualSHA = now.GetObject().GetSHA()
			}
			return "", ghstatus.BranchMoved(c, &ghopsv1.GitHubError{Status: int32(st)})
		}
		return "", s.fail(ctx, err, c)
	}
	return commit.GetSHA(), nil
}

// branchRef reads a branch's ref. The branch goes through ghpath.Check
// first: go-github escapes a ref's segments but keeps "..", which URL
// resolution would apply (another repository's ref).
func branchRef(ctx context.Context, gh *github.Client, owner, name, branch string) (*github.Reference, error) {
	if err := ghpath.Check("branch", branch); err != nil {
		return nil, err
	}
	ref, _, err := gh.Git.GetRef(ctx, owner, name, "heads/"+branch)
	return ref, err
}

// deleteBranch deletes a branch GitHub named (a pull request's head),
// through ghpath.Check like every ref.
func deleteBranch(ctx context.Context, gh *github.Client, owner, name, branch string) error {
	if err := ghpath.Check("head", branch); err != nil {
		return err
	}
	_, err := gh.Git.DeleteRef(ctx, owner, name, "heads/"+branch)
	return err
}
