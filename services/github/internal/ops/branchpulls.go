package ops

import (
	"context"
	"net/http"
	"strings"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"
	"google.golang.org/grpc/codes"

	"ghops.dev/services/github/internal/ghpath"
	"ghops.dev/services/github/internal/ghstatus"
)

// The caps of the diff answers (issue 22: patches are cut, never dumped),
// as documented on ghopsv1.ChangedFile.
const (
	// MaxPatchBytes caps one file's patch.
	MaxPatchBytes = 8192
	// MaxAnswerPatchBytes caps all patches of one answer together.
	MaxAnswerPatchBytes = 65536
	// maxCommitMessageBytes caps each commit message of compare_refs.
	maxCommitMessageBytes = 1024
)

// CreateBranch implements the create_branch tool in two calls: the commit
// `from` names (a branch, a tag or a commit sha, resolved by GitHub's
// commit list as the read tools do; the default branch without it), then
// the new ref. A branch that exists is GitHub's 422 "Reference already
// exists", so -32003.
func (s *Service) CreateBranch(ctx context.Context, req *ghopsv1.CreateBranchRequest) (*ghopsv1.CreateBranchResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolCreateBranch, Repo: req.GetRepo(), Resource: &ghopsv1.Resource{Type: "ref", Id: resID(req.GetRepo(), "", req.GetFrom())}}
	owner, name := splitRepo(req.GetRepo())
	gh := s.client(ctx)
	if err := ghpath.Check("branch", req.GetBranch()); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	list, _, err := gh.Repositories.ListCommits(ctx, owner, name, &github.CommitsListOptions{SHA: req.GetFrom(), ListOptions: github.ListOptions{PerPage: 1}})
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	if len(list) == 0 {
		return nil, ghstatus.New(codes.NotFound, ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, "ref "+c.Resource.GetId()+" not found", c, &ghopsv1.GitHubError{Resource: c.Resource})
	}
	sha := list[0].GetSHA()
	c.Resource = &ghopsv1.Resource{Type: "branch", Id: req.GetRepo() + "@" + req.GetBranch()}
	ref, _, err := gh.Git.CreateRef(ctx, owner, name, &github.Reference{Ref: github.String("refs/heads/" + req.GetBranch()), Object: &github.GitObject{SHA: github.String(sha)}})
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.CreateBranchResponse{Branch: strings.TrimPrefix(ref.GetRef(), "refs/heads/"), Sha: ref.GetObject().GetSHA()}, nil
}

// GetPullRequest implements the get_pull_request tool in one call.
func (s *Service) GetPullRequest(ctx context.Context, req *ghopsv1.GetPullRequestRequest) (*ghopsv1.GetPullRequestResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolGetPullRequest, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), Resource: prResource(req.GetRepo(), req.GetPrNumber())}
	pr, err := s.pullRequest(ctx, s.client(ctx), req.GetRepo(), int(req.GetPrNumber()))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.PullRequestDetails{
		Number: int32(pr.GetNumber()), Title: pr.GetTitle(), Body: pr.GetBody(), State: pr.GetState(), Draft: pr.GetDraft(),
		Merged: pr.GetMerged(), Author: pr.GetUser().GetLogin(), Head: pr.GetHead().GetRef(), Base: pr.GetBase().GetRef(),
		HeadSha: pr.GetHead().GetSHA(), BaseSha: pr.GetBase().GetSHA(), MergeableState: pr.GetMergeableState(),
		HtmlUrl: pr.GetHTMLURL(), Commits: int32(pr.GetCommits()), ChangedFiles: int32(pr.GetChangedFiles()),
		Additions: int32(pr.GetAdditions()), Deletions: int32(pr.GetDeletions()), UpdatedAt: ts(pr.UpdatedAt),
		AuthorAssociation: pr.GetAuthorAssociation(),
	}
	for _, l := range pr.Labels {
		out.Labels = append(out.Labels, l.GetName())
	}
	return &ghopsv1.GetPullRequestResponse{PullRequest: out}, nil
}

// pullRequest is go-github's PullRequests.Get (the same one GET of
// repos/{owner}/{repo}/pulls/{number}, with the same headers) with the
// answer decoded through the memo: a pull request is GitHub's largest
// object among the hot reads, and decoding it again on every call, cached
// answer or not, was most of get_pull_request's CPU in the service
// (docs/benchmarks.md, "Throughput against github-mcp-server"). The value
// may be shared with other calls: read it, never change it. An answer that
// is not that pull request of repo (ownPull) is refused.
func (s *Service) pullRequest(ctx context.Context, gh *github.Client, repo string, number int) (*github.PullRequest, error) {
	u, err := ghpath.Repo("repo", repo, ghpath.Lit("pulls"), ghpath.One("prNumber", itoa(number)))
	if err != nil {
		return nil, err
	}
	pr, _, err := get[*github.PullRequest](ctx, s, gh, u, nil)
	if err != nil {
		return nil, err
	}
	if err := ownPull(pr, repo, number); err != nil {
		return nil, err
	}
	return pr, nil
}

// ListPullRequestFiles implements the list_pull_request_files tool in one
// call, capping the patches.
func (s *Service) ListPullRequestFiles(ctx context.Context, req *ghopsv1.ListPullRequestFilesRequest) (*ghopsv1.ListPullRequestFilesResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolListPullRequestFiles, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), Resource: prResource(req.GetRepo(), req.GetPrNumber())}
	owner, name := splitRepo(req.GetRepo())
	p, pp := pageOf(req.Page, req.PerPage)
	files, resp, err := s.client(ctx).PullRequests.ListFiles(ctx, owner, name, int(req.GetPrNumber()), &github.ListOptions{Page: p, PerPage: pp})
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.ListPullRequestFilesResponse{Files: changedFiles(files), Page: pageInfo(p, pp, resp)}, nil
}

// CompareRefs implements the compare_refs tool in one call.
func (s *Service) CompareRefs(ctx context.Context, req *ghopsv1.CompareRefsRequest) (*ghopsv1.CompareRefsResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolCompareRefs, Repo: req.GetRepo(), Resource: &ghopsv1.Resource{Type: "ref", Id: req.GetRepo() + "@" + req.GetBase() + "..." + req.GetHead()}}
	p, pp := pageOf(req.Page, req.PerPage)
	u, err := comparePath(req.GetRepo(), req.GetBase(), req.GetHead())
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	gh := s.client(ctx)
	hreq, err := gh.NewRequest(http.MethodGet, u+"?page="+itoa(p)+"&per_page="+itoa(pp), nil)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	cmp := new(github.CommitsComparison)
	resp, err := gh.Do(ctx, hreq, cmp)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.CompareRefsResponse{
		Status: cmp.GetStatus(), AheadBy: int32(cmp.GetAheadBy()), BehindBy: int32(cmp.GetBehindBy()),
		MergeBaseSha: cmp.GetMergeBaseCommit().GetSHA(), Files: changedFiles(cmp.Files), Page: pageInfo(p, pp, resp),
		FilesTruncated: len(cmp.Files) >= 300,
	}
	for _, rc := range cmp.Commits {
		msg, _ := capText(rc.GetCommit().GetMessage(), maxCommitMessageBytes)
		cm := &ghopsv1.Commit{Sha: rc.GetSHA(), Message: msg, Author: rc.GetAuthor().GetLogin(), Date: ts(rc.GetCommit().GetAuthor().Date)}
		if cm.Author == "" {
			cm.Author = rc.GetCommit().GetAuthor().GetName()
		}
		for _, par := range rc.Parents {
			cm.Parents = append(cm.Parents, par.GetSHA())
		}
		out.Commits = append(out.Commits, cm)
	}
	return out, nil
}

// comparePath is repos/{owner}/{repo}/compare/{base}...{head} with each
// ref escaped segment by segment through ghpath. go-github's CompareCommits
// escapes a ref's "/" as %2F, which the reposcope guard refuses as a path
// trick; GitHub takes the slashes as they are, and the ref-name rules forbid
// ".." in a ref, so "..." still separates the two.
func comparePath(repo, base, head string) (string, error) {
	b, err := ghpath.Join(ghpath.Segments("base", base))
	if err != nil {
		return "", err
	}
	h, err := ghpath.Join(ghpath.Segments("head", head))
	if err != nil {
		return "", err
	}
	r, err := ghpath.Repo("repo", repo, ghpath.Lit("compare"))
	if err != nil {
		return "", err
	}
	return r + "/" + b + "..." + h, nil
}

// changedFiles maps GitHub's diff entries, cutting each patch at
// MaxPatchBytes and leaving patches out once the answer holds
// MaxAnswerPatchBytes.
func changedFiles(files []*github.CommitFile) []*ghopsv1.ChangedFile {
	out := make([]*ghopsv1.ChangedFile, 0, len(files))
	budget := MaxAnswerPatchBytes
	for _, f := range files {
		cf := &ghopsv1.ChangedFile{
			Path: f.GetFilename(), Status: f.GetStatus(), Additions: int32(f.GetAdditions()),
			Deletions: int32(f.GetDeletions()), PreviousPath: f.GetPreviousFilename(),
		}
		if patch := f.GetPatch(); patch != "" {
			cf.Patch, cf.PatchTruncated = capPatch(patch, min(MaxPatchBytes, budget))
			budget -= len(cf.Patch)
		}
		out = append(out, cf)
	}
	return out
}

// capPatch cuts a patch to at most limit bytes at a line end, so that no
// hunk line is half shown.
func capPatch(patch string, limit int) (string, bool) {
	if len(patch) <= limit {
		return patch, false
	}
	if limit <= 0 {
		return "", true
	}
	cut := patch[:limit]
	if i := strings.LastIndexByte(cut, '\n'); i >= 0 {
		cut = cut[:i]
	} else {
		cut = ""
	}
	// A hunk header left last announces lines that are not there.
	for strings.HasPrefix(cut[strings.LastIndexByte(cut, '\n')+1:], "@@") {
		cut = cut[:max(strings.LastIndexByte(cut, '\n'), 0)]
	}
	return cut, true
}

// capText cuts s to at most limit bytes on a rune boundary.
func capText(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	return string(trimPartialRune([]byte(s[:limit]))), true
}

// copyBool is a copy of *b: an answer must not point into a pull request
// the memo shares with other calls.
func copyBool(b *bool) *bool {
	if b == nil {
		return nil
	}
	v := *b
	return &v
}
