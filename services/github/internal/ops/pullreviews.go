package ops

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/github/internal/ghpath"
	"ghops.dev/services/github/internal/ghstatus"
	"ghops.dev/services/github/internal/reposcope"
)

// Pull request reviews: the reviews themselves through REST, where one
// request does what the tool says (create_review sends the review and all
// its line comments in one POST), and review threads through GraphQL, the
// only API that has them (reviewThreads, isResolved, resolveReviewThread).
// A thread's and a review's id are global; each is used only after GitHub's
// answer showed that it belongs to the call's pull request of the call's
// repository (ghstatus.Mismatch, -32002, before anything is written).

// Caps of the review answers (docs/errors.md lists every tool's caps).
const (
	// threadsPerPage is how many of GitHub's threads one page of
	// list_review_threads reads (filtered by state afterwards).
	threadsPerPage = 25
	// commentsPerThread is how many comments of each thread it returns.
	commentsPerThread = 20
	// maxDiffHunkBytes caps a thread's diff hunk, keeping its end: the
	// commented line is the hunk's last.
	maxDiffHunkBytes = 2048
)

// GraphQL documents of the review tools: whole constants, validated
// against GitHub's schema by TestGraphQLDocuments.
const (
	reviewThreadsQuery  = `query($owner: String!, $name: String!, $number: Int!, $first: Int!, $after: String) { repository(owner: $owner, name: $name) { pullRequest(number: $number) { reviewThreads(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { id path line startLine diffSide isResolved isOutdated comments(first: 20) { totalCount nodes { databaseId author { login } authorAssociation body createdAt diffHunk } } } } } } }`
	threadOwnerQuery    = `query($id: ID!) { node(id: $id) { ... on PullRequestReviewThread { id isResolved pullRequest { number repository { nameWithOwner } } } } }`
	threadReplyMutation = `mutation($id: ID!, $body: String!) { addPullRequestReviewThreadReply(input: {pullRequestReviewThreadId: $id, body: $body}) { comment { databaseId } } }`
	resolveMutation     = `mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) { thread { isResolved } } }`
	unresolveMutation   = `mutation($id: ID!) { unresolveReviewThread(input: {threadId: $id}) { thread { isResolved } } }`
)

func reviewResource(repo string, n int32, id int64) *ghopsv1.Resource {
	return &ghopsv1.Resource{Type: "review", Id: repo + "#" + strconv.Itoa(int(n)) + "/reviews/" + strconv.FormatInt(id, 10)}
}

func threadResource(repo string, n int32, id string) *ghopsv1.Resource {
	return &ghopsv1.Resource{Type: "thread", Id: repo + "#" + strconv.Itoa(int(n)) + "/threads/" + id}
}

func reviewsPath(repo string, n int32, rest ...ghpath.Part) (string, error) {
	parts := append([]ghpath.Part{ghpath.Lit("pulls"), ghpath.One("prNumber", itoa(int(n)))}, rest...)
	return ghpath.Repo("repo", repo, parts...)
}

// reviewState is GitHub's review state as the tools name it
// (CHANGES_REQUESTED -> changes_requested).
func reviewState(s string) string { return strings.ToLower(s) }

// reviewEvent is a tool's event as GitHub's REST API names it.
func reviewEvent(e string) string { return strings.ToUpper(e) }

func toReview(r *github.PullRequestReview) *ghopsv1.Review {
	body, cut := capText(r.GetBody(), MaxCommentBytes)
	return &ghopsv1.Review{
		Id: r.GetID(), Author: r.GetUser().GetLogin(), AuthorAssociation: r.GetAuthorAssociation(), State: reviewState(r.GetState()),
		Body: body, BodyTruncated: cut, CommitSha: r.GetCommitID(), SubmittedAt: ts(r.SubmittedAt),
	}
}

// ListPullRequestReviews implements the list_pull_request_reviews tool in
// one request.
func (s *Service) ListPullRequestReviews(ctx context.Context, req *ghopsv1.ListPullRequestReviewsRequest) (*ghopsv1.ListPullRequestReviewsResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolListPullRequestReviews, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), Resource: prResource(req.GetRepo(), req.GetPrNumber())}
	p, pp := pageOf(req.Page, req.PerPage)
	u, err := reviewsPath(req.GetRepo(), req.GetPrNumber(), ghpath.Lit("reviews"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	list, resp, err := get[[]*github.PullRequestReview](ctx, s, s.client(ctx), u, listQuery(p, pp))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.ListPullRequestReviewsResponse{Reviews: []*ghopsv1.Review{}, Page: pageInfo(p, pp, resp)}
	for _, r := range list {
		if r != nil {
			out.Reviews = append(out.Reviews, toReview(r))
		}
	}
	return out, nil
}

// reviewThreadNode is one thread of the reviewThreads answer.
type reviewThreadNode struct {
	ID         string `json:"id"`
	Path       string `json:"path"`
	Line       *int32 `json:"line"`
	StartLine  *int32 `json:"startLine"`
	DiffSide   string `json:"diffSide"`
	IsResolved bool   `json:"isResolved"`
	IsOutdated bool   `json:"isOutdated"`
	Comments   struct {
		TotalCount int32 `json:"totalCount"`
		Nodes      []*struct {
			DatabaseID int64 `json:"databaseId"`
			Author     *struct {
				Login string `json:"login"`
			} `json:"author"`
			AuthorAssociation string    `json:"authorAssociation"`
			Body              string    `json:"body"`
			CreatedAt         time.Time `json:"createdAt"`
			DiffHunk          string    `json:"diffHunk"`
		} `json:"nodes"`
	} `json:"comments"`
}

// ListReviewThreads implements the list_review_threads tool: page p is
// GitHub's p-th page of 25 threads (p GraphQL requests, following the
// cursors), keeping the threads in the asked state.
func (s *Service) ListReviewThreads(ctx context.Context, req *ghopsv1.ListReviewThreadsRequest) (*ghopsv1.ListReviewThreadsResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolListReviewThreads, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), Resource: prResource(req.GetRepo(), req.GetPrNumber())}
	gh := s.client(ctx)
	if err := reposcope.CheckNamed(ctx, GraphQLURL(gh.BaseURL).EscapedPath(), req.GetRepo()); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	owner, name := splitRepo(req.GetRepo())
	page := 1
	if req.Page != nil {
		page = int(req.GetPage())
	}
	state := req.GetState()
	if state == "" {
		state = "unresolved"
	}
	var after any
	var conn struct {
		PageInfo struct {
			HasNextPage bool   `json:"hasNextPage"`
			EndCursor   string `json:"endCursor"`
		} `json:"pageInfo"`
		Nodes []*reviewThreadNode `json:"nodes"`
	}
	for i := 1; i <= page; i++ {
		var data struct {
			Repository *struct {
				PullRequest *struct {
					ReviewThreads json.RawMessage `json:"reviewThreads"`
				} `json:"pullRequest"`
			} `json:"repository"`
		}
		vars := map[string]any{"owner": owner, "name": name, "number": req.GetPrNumber(), "first": threadsPerPage, "after": after}
		if err := graphQL(ctx, gh, new(meter), reviewThreadsQuery, vars, &data); err != nil {
			if ghstatus.GraphQLType(err) == "NOT_FOUND" && i == 1 {
				// GitHub resolves no pull request for an issue's number: say
				// so, as the REST 404 of the other pull request tools does.
				if is, ierr := s.issueKind(ctx, gh, req.GetRepo(), int(req.GetPrNumber())); ierr == nil && !is.IsPullRequest() {
					err = &kindError{pull: false}
				}
			}
			return nil, s.fail(ctx, err, c)
		}
		if data.Repository == nil || data.Repository.PullRequest == nil {
			return nil, ghstatus.NotFound(c, "GitHub GraphQL answered no pull request")
		}
		conn.Nodes = nil
		if err := json.Unmarshal(data.Repository.PullRequest.ReviewThreads, &conn); err != nil {
			return nil, s.fail(ctx, err, c)
		}
		if i < page && !conn.PageInfo.HasNextPage {
			conn.Nodes, conn.PageInfo.HasNextPage = nil, false
			break
		}
		after = conn.PageInfo.EndCursor
	}
	out := &ghopsv1.ListReviewThreadsResponse{Threads: []*ghopsv1.ReviewThread{}, Page: &ghopsv1.PageInfo{Page: int32(page), PerPage: threadsPerPage, HasNext: conn.PageInfo.HasNextPage}}
	for _, t := range conn.Nodes {
		if t == nil || (state == "unresolved" && t.IsResolved) || (state == "resolved" && !t.IsResolved) {
			continue
		}
		out.Threads = append(out.Threads, toThread(t))
	}
	return out, nil
}

func toThread(t *reviewThreadNode) *ghopsv1.ReviewThread {
	th := &ghopsv1.ReviewThread{
		Id: t.ID, Path: t.Path, Side: t.DiffSide, IsResolved: t.IsResolved, IsOutdated: t.IsOutdated,
		Comments: []*ghopsv1.ThreadComment{},
	}
	if t.Line != nil {
		th.Line = *t.Line
	}
	if t.StartLine != nil {
		th.StartLine = *t.StartLine
	}
	for i, cm := range t.Comments.Nodes {
		if cm == nil {
			continue
		}
		if i == 0 {
			th.DiffHunk = hunkTail(cm.DiffHunk, maxDiffHunkBytes)
		}
		body, cut := capText(cm.Body, MaxCommentBytes)
		tc := &ghopsv1.ThreadComment{Id: cm.DatabaseID, AuthorAssociation: cm.AuthorAssociation, Body: body, BodyTruncated: cut}
		if cm.Author != nil {
			tc.Author = cm.Author.Login
		}
		if !cm.CreatedAt.IsZero() {
			tc.CreatedAt = ts(&github.Timestamp{Time: cm.CreatedAt})
		}
		th.Comments = append(th.Comments, tc)
	}
	th.CommentsOmitted = max(t.Comments.TotalCount-int32(len(th.Comments)), 0)
	return th
}

// hunkTail keeps the end of a diff hunk within limit bytes, from a line
// start: the commented line is its last, so the end is what matters.
func hunkTail(h string, limit int) string {
	if len(h) <= limit {
		return h
	}
	tail := h[len(h)-limit:]
	if i := strings.IndexByte(tail, '\n'); i >= 0 {
		return tail[i+1:]
	}
	return ""
}

// CreateReview implements the create_review tool: the pull request (the
// conditional GET get_pull_request shares), whose head must be commit_sha
// (-32006 otherwise, nothing written), then one POST with the review and
// all its line comments. GitHub refuses a comment outside the diff with
// 422 and plain-text errors, answered as -32003 naming the comments field.
func (s *Service) CreateReview(ctx context.Context, req *ghopsv1.CreateReviewRequest) (*ghopsv1.CreateReviewResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolCreateReview, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), SHA: req.GetCommitSha(), Resource: prResource(req.GetRepo(), req.GetPrNumber())}
	gh := s.client(ctx)
	pr, err := s.pullRequest(ctx, gh, req.GetRepo(), int(req.GetPrNumber()))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	head := pr.GetHead().GetSHA()
	if head == "" || !strings.HasPrefix(head, req.GetCommitSha()) {
		c.ExpectedSHA, c.ActualSHA = req.GetCommitSha(), head
		return nil, ghstatus.HeadMismatch(c, &ghopsv1.GitHubError{})
	}
	u, err := reviewsPath(req.GetRepo(), req.GetPrNumber(), ghpath.Lit("reviews"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	body := map[string]any{"commit_id": head}
	if req.Event != nil {
		body["event"] = reviewEvent(req.GetEvent())
	}
	if req.Body != nil {
		body["body"] = req.GetBody()
	}
	if len(req.GetComments()) > 0 {
		comments := make([]map[string]any, 0, len(req.GetComments()))
		for _, lc := range req.GetComments() {
			m := map[string]any{"path": lc.GetPath(), "line": lc.GetLine(), "body": lc.GetBody(), "side": "RIGHT"}
			if lc.Side != nil {
				m["side"] = lc.GetSide()
			}
			if lc.StartLine != nil {
				m["start_line"] = lc.GetStartLine()
			}
			if lc.StartSide != nil {
				m["start_side"] = lc.GetStartSide()
			}
			comments = append(comments, m)
		}
		body["comments"] = comments
		c.Field = "comments"
	}
	hreq, err := gh.NewRequest(http.MethodPost, u, body)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	r := new(github.PullRequestReview)
	if _, err := gh.Do(ctx, hreq, r); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.CreateReviewResponse{Id: r.GetID(), State: reviewState(r.GetState()), CommitSha: r.GetCommitID()}, nil
}

// ownReview reads review id and checks that it is one of pull request n of
// repo: GitHub's answer names its pull request in pull_request_url.
func (s *Service) ownReview(ctx context.Context, gh *github.Client, repo string, n int32, id int64) (*github.PullRequestReview, error) {
	u, err := reviewsPath(repo, n, ghpath.Lit("reviews"), ghpath.Lit(strconv.FormatInt(id, 10)))
	if err != nil {
		return nil, err
	}
	hreq, err := gh.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	r := new(github.PullRequestReview)
	if _, err := gh.Do(ctx, hreq, r); err != nil {
		return nil, err
	}
	pu := r.GetPullRequestURL()
	if r.GetID() != id || !sameRepo(repoOfAPIURL(pu), repo) || !strings.HasSuffix(pu, "/pulls/"+strconv.Itoa(int(n))) {
		return nil, &foreignError{what: "a review", got: pu}
	}
	return r, nil
}

// SubmitReview implements the submit_review tool: the review (its pull
// request checked), then its event.
func (s *Service) SubmitReview(ctx context.Context, req *ghopsv1.SubmitReviewRequest) (*ghopsv1.SubmitReviewResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolSubmitReview, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), Resource: reviewResource(req.GetRepo(), req.GetPrNumber(), req.GetReviewId())}
	gh := s.client(ctx)
	if _, err := s.ownReview(ctx, gh, req.GetRepo(), req.GetPrNumber(), req.GetReviewId()); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	u, err := reviewsPath(req.GetRepo(), req.GetPrNumber(), ghpath.Lit("reviews"), ghpath.Lit(strconv.FormatInt(req.GetReviewId(), 10)), ghpath.Lit("events"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	body := map[string]any{"event": reviewEvent(req.GetEvent())}
	if req.Body != nil {
		body["body"] = req.GetBody()
	}
	hreq, err := gh.NewRequest(http.MethodPost, u, body)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	r := new(github.PullRequestReview)
	if _, err := gh.Do(ctx, hreq, r); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.SubmitReviewResponse{Id: r.GetID(), State: reviewState(r.GetState())}, nil
}

// DeletePendingReview implements the delete_pending_review tool: the
// review (its pull request checked), then the DELETE, which GitHub refuses
// (422) for a submitted review.
func (s *Service) DeletePendingReview(ctx context.Context, req *ghopsv1.DeletePendingReviewRequest) (*ghopsv1.DeletePendingReviewResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolDeletePendingReview, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), Resource: reviewResource(req.GetRepo(), req.GetPrNumber(), req.GetReviewId())}
	gh := s.client(ctx)
	if _, err := s.ownReview(ctx, gh, req.GetRepo(), req.GetPrNumber(), req.GetReviewId()); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	u, err := reviewsPath(req.GetRepo(), req.GetPrNumber(), ghpath.Lit("reviews"), ghpath.Lit(strconv.FormatInt(req.GetReviewId(), 10)))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	hreq, err := gh.NewRequest(http.MethodDelete, u, nil)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	if _, err := gh.Do(ctx, hreq, nil); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.DeletePendingReviewResponse{Deleted: true}, nil
}

// ownThread reads thread id through GraphQL's node(id:) and checks that it
// is a review thread of pull request n of repo; it returns whether it is
// resolved. A node that is no review thread is NOT_FOUND.
func (s *Service) ownThread(ctx context.Context, gh *github.Client, c ghstatus.Context, repo string, n int32, id string) (bool, error) {
	var data struct {
		Node *struct {
			ID          string `json:"id"`
			IsResolved  bool   `json:"isResolved"`
			PullRequest *struct {
				Number     int `json:"number"`
				Repository struct {
					NameWithOwner string `json:"nameWithOwner"`
				} `json:"repository"`
			} `json:"pullRequest"`
		} `json:"node"`
	}
	if err := graphQL(ctx, gh, new(meter), threadOwnerQuery, map[string]any{"id": id}, &data); err != nil {
		return false, s.fail(ctx, err, c)
	}
	if data.Node == nil || data.Node.PullRequest == nil || data.Node.ID != id {
		return false, ghstatus.NotFound(c, "GitHub GraphQL answered no review thread for the id")
	}
	got := data.Node.PullRequest
	if !sameRepo(got.Repository.NameWithOwner, repo) {
		return false, s.fail(ctx, &foreignError{what: "a review thread", got: got.Repository.NameWithOwner + "#" + strconv.Itoa(got.Number)}, c)
	}
	if got.Number != int(n) {
		return false, ghstatus.Mismatch(c, 0, c.Resource.GetType()+" "+c.Resource.GetId()+" not found: the thread belongs to pull request #"+
			strconv.Itoa(got.Number)+" of "+repo+"; nothing was done")
	}
	return data.Node.IsResolved, nil
}

// ReplyToReviewThread implements the reply_to_review_thread tool: the
// thread's owner (GraphQL node), then addPullRequestReviewThreadReply.
func (s *Service) ReplyToReviewThread(ctx context.Context, req *ghopsv1.ReplyToReviewThreadRequest) (*ghopsv1.ReplyToReviewThreadResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolReplyToReviewThread, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), Resource: threadResource(req.GetRepo(), req.GetPrNumber(), req.GetThreadId())}
	gh := s.client(ctx)
	if _, err := s.ownThread(ctx, gh, c, req.GetRepo(), req.GetPrNumber(), req.GetThreadId()); err != nil {
		return nil, err
	}
	var data struct {
		Reply *struct {
			Comment *struct {
				DatabaseID int64 `json:"databaseId"`
			} `json:"comment"`
		} `json:"addPullRequestReviewThreadReply"`
	}
	if err := graphQL(ctx, gh, new(meter), threadReplyMutation, map[string]any{"id": req.GetThreadId(), "body": req.GetBody()}, &data); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	if data.Reply == nil || data.Reply.Comment == nil {
		return nil, s.fail(ctx, errors.New("graphql answer without the comment"), c)
	}
	return &ghopsv1.ReplyToReviewThreadResponse{Id: data.Reply.Comment.DatabaseID}, nil
}

// ResolveReviewThread implements the resolve_review_thread tool: the
// thread's owner and state (GraphQL node), then resolveReviewThread or
// unresolveReviewThread unless it is already so (one request then).
func (s *Service) ResolveReviewThread(ctx context.Context, req *ghopsv1.ResolveReviewThreadRequest) (*ghopsv1.ResolveReviewThreadResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolResolveReviewThread, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), Resource: threadResource(req.GetRepo(), req.GetPrNumber(), req.GetThreadId())}
	gh := s.client(ctx)
	resolved, err := s.ownThread(ctx, gh, c, req.GetRepo(), req.GetPrNumber(), req.GetThreadId())
	if err != nil {
		return nil, err
	}
	if resolved == req.GetResolved() {
		return &ghopsv1.ResolveReviewThreadResponse{IsResolved: resolved}, nil
	}
	query, field := resolveMutation, "resolveReviewThread"
	if !req.GetResolved() {
		query, field = unresolveMutation, "unresolveReviewThread"
	}
	var data map[string]*struct {
		Thread *struct {
			IsResolved bool `json:"isResolved"`
		} `json:"thread"`
	}
	if err := graphQL(ctx, gh, new(meter), query, map[string]any{"id": req.GetThreadId()}, &data); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	if data[field] == nil || data[field].Thread == nil {
		return nil, s.fail(ctx, errors.New("graphql answer without the thread"), c)
	}
	return &ghopsv1.ResolveReviewThreadResponse{IsResolved: data[field].Thread.IsResolved}, nil
}

// RequestReviewers implements the request_reviewers tool in one request:
// POST requested_reviewers, or DELETE with remove. The answer is who is
// asked afterwards, from GitHub's pull request answer.
func (s *Service) RequestReviewers(ctx context.Context, req *ghopsv1.RequestReviewersRequest) (*ghopsv1.RequestReviewersResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolRequestReviewers, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), Resource: prResource(req.GetRepo(), req.GetPrNumber())}
	if len(req.GetReviewers()) == 0 && len(req.GetTeamReviewers()) == 0 {
		return nil, ghstatus.InvalidField(ghstatus.Context{Tool: c.Tool}, "give reviewers or team_reviewers", "reviewers", "required")
	}
	gh := s.client(ctx)
	u, err := reviewsPath(req.GetRepo(), req.GetPrNumber(), ghpath.Lit("requested_reviewers"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	method := http.MethodPost
	if req.GetRemove() {
		method = http.MethodDelete
	}
	body := map[string]any{"reviewers": nonNil(req.GetReviewers()), "team_reviewers": nonNil(req.GetTeamReviewers())}
	hreq, err := gh.NewRequest(method, u, body)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	pr := new(github.PullRequest)
	if _, err := gh.Do(ctx, hreq, pr); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	if err := ownPull(pr, req.GetRepo(), int(req.GetPrNumber())); err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.RequestReviewersResponse{Reviewers: []string{}, TeamReviewers: []string{}}
	for _, u := range pr.RequestedReviewers {
		out.Reviewers = append(out.Reviewers, u.GetLogin())
	}
	for _, t := range pr.RequestedTeams {
		out.TeamReviewers = append(out.TeamReviewers, t.GetSlug())
	}
	return out, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ListPullRequestCommits implements the list_pull_request_commits tool in
// one request; each message is capped as compare_refs caps them.
func (s *Service) ListPullRequestCommits(ctx context.Context, req *ghopsv1.ListPullRequestCommitsRequest) (*ghopsv1.ListPullRequestCommitsResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolListPullRequestCommits, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), Resource: prResource(req.GetRepo(), req.GetPrNumber())}
	p, pp := pageOf(req.Page, req.PerPage)
	u, err := reviewsPath(req.GetRepo(), req.GetPrNumber(), ghpath.Lit("commits"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	list, resp, err := get[[]*listedCommit](ctx, s, s.client(ctx), u, listQuery(p, pp))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.ListPullRequestCommitsResponse{Commits: []*ghopsv1.Commit{}, Page: pageInfo(p, pp, resp)}
	for _, rc := range list {
		if rc == nil {
			continue
		}
		msg, _ := capText(rc.Commit.Message, maxCommitMessageBytes)
		cm := &ghopsv1.Commit{Sha: rc.SHA, Message: msg, Author: rc.Author.Login, Date: ts(rc.Commit.Author.Date)}
		if cm.Author == "" {
			cm.Author = rc.Commit.Author.Name
		}
		for _, par := range rc.Parents {
			cm.Parents = append(cm.Parents, par.SHA)
		}
		out.Commits = append(out.Commits, cm)
	}
	return out, nil
}

// UpdatePullRequestBranch implements the update_pull_request_branch tool
// in one request: PUT update-branch with expected_head_sha, which GitHub
// accepts with 202 and does asynchronously. GitHub refuses a head that is
// not the expected one with 422 ("expected head sha didn't match current
// head ref"), answered as -32006 with the head read afterwards.
func (s *Service) UpdatePullRequestBranch(ctx context.Context, req *ghopsv1.UpdatePullRequestBranchRequest) (*ghopsv1.UpdatePullRequestBranchResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolUpdatePullRequestBranch, Repo: req.GetRepo(), PR: int(req.GetPrNumber()), SHA: req.GetExpectedHeadSha(), Resource: prResource(req.GetRepo(), req.GetPrNumber())}
	gh := s.client(ctx)
	u, err := reviewsPath(req.GetRepo(), req.GetPrNumber(), ghpath.Lit("update-branch"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	hreq, err := gh.NewRequest(http.MethodPut, u, map[string]any{"expected_head_sha": req.GetExpectedHeadSha()})
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	var ans struct {
		Message string `json:"message"`
	}
	_, err = gh.Do(ctx, hreq, &ans)
	var accepted *github.AcceptedError
	switch {
	case errors.As(err, &accepted):
		_ = json.Unmarshal(accepted.Raw, &ans)
	case err != nil:
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnprocessableEntity &&
			strings.Contains(strings.ToLower(er.Message), "expected head sha") {
			c.ExpectedSHA = req.GetExpectedHeadSha()
			if pr, perr := s.pullRequest(ctx, gh, req.GetRepo(), int(req.GetPrNumber())); perr == nil {
				c.ActualSHA = pr.GetHead().GetSHA()
			}
			return nil, ghstatus.HeadMismatch(c, &ghopsv1.GitHubError{Status: http.StatusUnprocessableEntity, Message: ghstatus.Sanitize(er.Message)})
		}
		return nil, s.fail(ctx, err, c)
	}
	msg, _ := capText(ans.Message, 256)
	return &ghopsv1.UpdatePullRequestBranchResponse{Message: msg}, nil
}
