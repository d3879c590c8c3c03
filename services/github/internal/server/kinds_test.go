package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/servicetest"
)

// alias is a repository that the GitHub in front of the service answers
// with octo-org/hello-world's objects, as if GitHub's path scoping failed:
// the ids the service is given are then resolved in another repository, and
// only the repository GitHub's answer names tells.
const alias = "octo-org/alias"

// quantities are the integer request fields that count or place things
// (pages, log windows, a review comment's lines, a project field's sprint
// count and length) rather than name a GitHub object.
var quantities = map[protoreflect.Name]bool{"page": true, "per_page": true, "tail_lines": true, "start_line": true, "max_lines": true, "line": true, "count": true, "duration_days": true}

// idFields lists, as "tool.field" (nested fields dotted), every request
// field of every tool that names a GitHub object by number or id: integer
// fields other than quantities, and string fields named id or *_id (node
// ids), found in the descriptors so that a new tool or field is listed
// without code.
func idFields(t *testing.T) []string {
	t.Helper()
	var out []string
	var walk func(tool string, md protoreflect.MessageDescriptor, prefix string, depth int)
	walk = func(tool string, md protoreflect.MessageDescriptor, prefix string, depth int) {
		if depth > 4 || strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
			return
		}
		fields := md.Fields()
		for i := 0; i < fields.Len(); i++ {
			fd := fields.Get(i)
			name := prefix + string(fd.Name())
			switch fd.Kind() {
			case protoreflect.Int32Kind, protoreflect.Int64Kind, protoreflect.Uint32Kind, protoreflect.Uint64Kind,
				protoreflect.Sint32Kind, protoreflect.Sint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind,
				protoreflect.Sfixed32Kind, protoreflect.Sfixed64Kind:
				if !quantities[fd.Name()] {
					out = append(out, tool+"."+name)
				}
			case protoreflect.StringKind:
				if fd.Name() == "id" || strings.HasSuffix(string(fd.Name()), "_id") {
					out = append(out, tool+"."+name)
				}
			case protoreflect.MessageKind:
				walk(tool, fd.Message(), name+".", depth+1)
			}
		}
	}
	methods := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService").Methods()
	tools := 0
	for i := 0; i < methods.Len(); i++ {
		m := methods.Get(i)
		opt, _ := proto.GetExtension(m.Options(), ghopsv1.E_Tool).(*ghopsv1.ToolOptions)
		if opt.GetName() == "" {
			continue
		}
		tools++
		walk(opt.GetName(), m.Input(), "", 0)
	}
	if tools < 30 || len(out) == 0 {
		t.Fatalf("%d tools, id fields %v: the descriptors were not read", tools, out)
	}
	sort.Strings(out)
	return out
}

// aliasing starts fakehub behind a loopback proxy that answers requests for
// alias with octo-org/hello-world's objects, and the service on the proxy.
func aliasing(t *testing.T) *env {
	e, _ := aliasingMutations(t)
	return e
}

// aliasingMutations is aliasing that also counts the GraphQL mutations
// sent through the proxy: a POST /graphql is a read unless its document is
// a mutation, which only its body tells.
func aliasingMutations(t *testing.T) (*env, *atomic.Int64) {
	t.Helper()
	mutations := new(atomic.Int64)
	hs := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	target, err := url.Parse(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		if strings.HasSuffix(r.In.URL.Path, "/graphql") && r.In.Body != nil {
			body, _ := io.ReadAll(r.In.Body)
			var doc struct {
				Query string `json:"query"`
			}
			if json.Unmarshal(body, &doc) == nil && strings.HasPrefix(strings.TrimSpace(doc.Query), "mutation") {
				mutations.Add(1)
			}
			r.Out.Body = io.NopCloser(bytes.NewReader(body))
			r.Out.ContentLength = int64(len(body))
		}
		r.SetURL(target)
		r.Out.Host = r.In.Host
		for _, p := range []*string{&r.Out.URL.Path, &r.Out.URL.RawPath} {
			if rest, ok := strings.CutPrefix(*p, "/repos/"+alias+"/"); ok {
				*p = "/repos/" + repo + "/" + rest
			}
		}
	}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(proxy)
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	svc := servicetest.Start(t, servicetest.Options{GitHubURL: srv.URL + "/", Token: fakehub.DemoToken})
	return &env{hub: hs.Hub, url: srv.URL + "/", svc: svc}, mutations
}

// idCase is one call with a number or id GitHub resolves to something the
// tool must not act on.
type idCase struct {
	name string
	call func(x context.Context, c ghopsv1.GitHubServiceClient) error
	// code is the answer's gRPC code: NotFound (-32002) unless said.
	code codes.Code
	// resType and msg are data.resource's type and a part of the message.
	resType, msg string
	// refusedWrite allows one write GitHub itself refused with 404 or 422
	// (an endpoint that cannot cross kinds); any other write fails the case.
	refusedWrite bool
	// check, when set, runs on the answer instead of the code's checks.
	check func(t *testing.T, err error, calls []fakehub.RequestRecord)
}

// idRow is what the service does with one id-like field of one tool, and
// the cases that show it. A row with no case says why (how).
type idRow struct {
	how   string
	cases []idCase
}

// TestIDFieldsOfEveryTool: every tool acts only on the kind of thing it
// names, in the call's repository. For every id-like request field of every
// tool (read from the descriptors: a new tool or field without a row fails
// here), numbers of the other kind (a pull request's for an issue tool, an
// issue's for a pull request tool, a job's for a run) and ids that GitHub
// answers from another repository (the alias proxy) are -32002 saying what
// the value is, and nothing is written: fakehub sees no write but those it
// refused itself. A kind refusal names the tools to use.
func TestIDFieldsOfEveryTool(t *testing.T) {
	e, mutations := aliasingMutations(t)
	c := e.svc.Client
	x := ctx(t)
	bug := demoIssue(t, c, "Greeting ignores empty names")
	prs, err := c.ListPullRequests(x, &ghopsv1.ListPullRequestsRequest{Repo: repo, State: ptr("all")})
	if err != nil {
		t.Fatal(err)
	}
	var pr int32 = 1
	if !slices.ContainsFunc(prs.PullRequests, func(p *ghopsv1.PullRequestSummary) bool { return p.Number == pr }) {
		t.Fatalf("#%d is not a demo pull request: %v", pr, prs)
	}
	ci, err := c.GetCiFailures(x, &ghopsv1.GetCiFailuresRequest{Repo: repo, PrNumber: ptr[int32](3)})
	if err != nil || len(ci.Failed) != 1 || ci.Failed[0].JobId == 0 || ci.Failed[0].RunId == 0 || ci.Failed[0].LogExcerpt == nil {
		t.Fatalf("the demo's failed job: %v, %v", ci, err)
	}
	job, run := ci.Failed[0].JobId, ci.Failed[0].RunId
	thread, threadPR := demoThread(t, c)
	review, reviewPR := demoReview(t, c)
	otherPR := threadPR%3 + 1 // another demo pull request
	if otherPR == reviewPR {
		otherPR = otherPR%3 + 1
	}
	before := snapshot(t, c)

	isPR := func(n int32) string {
		return repo + "#" + num(n) + " is a pull request, not an issue: use the pull request tools (get_pull_request"
	}
	isIssue := func(n int32) string {
		return repo + "#" + num(n) + " is an issue, not a pull request: use the issue tools (get_issue"
	}
	const foreign = "of another repository (a renamed or transferred repository is called by its current name); nothing was done"
	issueRow := func(call func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error) idRow {
		return idRow{how: "the issue is read first (issueOnly): a pull request's number or another repository's issue is refused before anything else", cases: []idCase{
			{name: "a pull request's number", resType: "issue", msg: isPR(pr), call: func(x context.Context, c ghopsv1.GitHubServiceClient) error {
				return call(x, c, repo, pr)
			}},
			{name: "another repository's issue", resType: "issue", msg: "issue " + alias + "#" + num(bug) + " not found: GitHub answered with an issue " + foreign, call: func(x context.Context, c ghopsv1.GitHubServiceClient) error {
				return call(x, c, alias, bug)
			}},
		}}
	}
	prKind := func(call func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error, write bool) idCase {
		name := "an issue's number"
		if write {
			name += ", refused by GitHub"
		}
		return idCase{name: name, resType: "pr", msg: isIssue(bug), refusedWrite: write, call: func(x context.Context, c ghopsv1.GitHubServiceClient) error {
			return call(x, c, repo, bug)
		}}
	}
	prForeign := func(call func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error) idCase {
		return idCase{name: "another repository's pull request", resType: "pr", msg: "pr " + alias + "#1 not found: GitHub answered with a pull request " + foreign, call: func(x context.Context, c ghopsv1.GitHubServiceClient) error {
			return call(x, c, alias, pr)
		}}
	}
	getPR := func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
		_, err := c.GetPullRequest(x, &ghopsv1.GetPullRequestRequest{Repo: r, PrNumber: n})
		return err
	}
	mergeability := func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
		_, err := c.GetPrMergeability(x, &ghopsv1.GetPrMergeabilityRequest{Repo: r, PrNumber: n})
		return err
	}
	files := func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
		_, err := c.ListPullRequestFiles(x, &ghopsv1.ListPullRequestFilesRequest{Repo: r, PrNumber: n})
		return err
	}
	retitle := func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
		_, err := c.UpdatePullRequest(x, &ghopsv1.UpdatePullRequestRequest{Repo: r, PrNumber: n, Title: ptr("retitled"), State: ptr("closed")})
		return err
	}
	draft := func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
		_, err := c.UpdatePullRequest(x, &ghopsv1.UpdatePullRequestRequest{Repo: r, PrNumber: n, Draft: ptr(true)})
		return err
	}
	merge := func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
		_, err := c.MergePullRequest(x, &ghopsv1.MergePullRequestRequest{Repo: r, PrNumber: n, DeleteBranch: ptr(true)})
		return err
	}
	ciOf := func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
		_, err := c.GetCiFailures(x, &ghopsv1.GetCiFailuresRequest{Repo: r, PrNumber: ptr(n)})
		return err
	}
	prComments := func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
		_, err := c.ListPullRequestComments(x, &ghopsv1.ListPullRequestCommentsRequest{Repo: r, PrNumber: n})
		return err
	}
	prComment := func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
		_, err := c.AddPullRequestComment(x, &ghopsv1.AddPullRequestCommentRequest{Repo: r, PrNumber: n, Body: "a comment"})
		return err
	}
	reviews := func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
		_, err := c.ListPullRequestReviews(x, &ghopsv1.ListPullRequestReviewsRequest{Repo: r, PrNumber: n})
		return err
	}
	threads := func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
		_, err := c.ListReviewThreads(x, &ghopsv1.ListReviewThreadsRequest{Repo: r, PrNumber: n})
		return err
	}
	createReview := func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
		_, err := c.CreateReview(x, &ghopsv1.CreateReviewRequest{Repo: r, PrNumber: n, CommitSha: "0000000", Event: ptr("comment"), Body: ptr("b")})
		return err
	}
	prCommits := func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
		_, err := c.ListPullRequestCommits(x, &ghopsv1.ListPullRequestCommitsRequest{Repo: r, PrNumber: n})
		return err
	}
	askReview := func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
		_, err := c.RequestReviewers(x, &ghopsv1.RequestReviewersRequest{Repo: r, PrNumber: n, Reviewers: []string{"octocat"}})
		return err
	}
	updateBranch := func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
		_, err := c.UpdatePullRequestBranch(x, &ghopsv1.UpdatePullRequestBranchRequest{Repo: r, PrNumber: n, ExpectedHeadSha: strings.Repeat("0", 40)})
		return err
	}
	submit := func(r string, n int32) func(x context.Context, c ghopsv1.GitHubServiceClient) error {
		return func(x context.Context, c ghopsv1.GitHubServiceClient) error {
			_, err := c.SubmitReview(x, &ghopsv1.SubmitReviewRequest{Repo: r, PrNumber: n, ReviewId: review, Event: "approve"})
			return err
		}
	}
	deleteReview := func(r string, n int32) func(x context.Context, c ghopsv1.GitHubServiceClient) error {
		return func(x context.Context, c ghopsv1.GitHubServiceClient) error {
			_, err := c.DeletePendingReview(x, &ghopsv1.DeletePendingReviewRequest{Repo: r, PrNumber: n, ReviewId: review})
			return err
		}
	}
	reply := func(r string, n int32) func(x context.Context, c ghopsv1.GitHubServiceClient) error {
		return func(x context.Context, c ghopsv1.GitHubServiceClient) error {
			_, err := c.ReplyToReviewThread(x, &ghopsv1.ReplyToReviewThreadRequest{Repo: r, PrNumber: n, ThreadId: thread, Body: "a reply"})
			return err
		}
	}
	resolve := func(r string, n int32) func(x context.Context, c ghopsv1.GitHubServiceClient) error {
		return func(x context.Context, c ghopsv1.GitHubServiceClient) error {
			_, err := c.ResolveReviewThread(x, &ghopsv1.ResolveReviewThreadRequest{Repo: r, PrNumber: n, ThreadId: thread, Resolved: ptr(true)})
			return err
		}
	}
	reviewID := func(r string, n int32) string {
		return "review " + r + "#" + num(n) + "/reviews/" + strconv.FormatInt(review, 10) + " not found"
	}
	threadID := func(r string, n int32) string {
		return "thread " + r + "#" + num(n) + "/threads/" + thread + " not found"
	}
	reviewRows := func(call func(r string, n int32) func(x context.Context, c ghopsv1.GitHubServiceClient) error) (idRow, idRow) {
		how := "the review is read first (ownReview): its pull_request_url must be the call's pull request of the call's repository before anything is written"
		byNumber := idRow{how: how, cases: []idCase{
			{name: "another pull request's review", resType: "review", msg: reviewID(repo, otherPR), call: call(repo, otherPR)},
			{name: "an issue's number", resType: "review", msg: reviewID(repo, bug), call: call(repo, bug)},
		}}
		byID := idRow{how: how, cases: []idCase{
			{name: "another repository's review", resType: "review", msg: reviewID(alias, reviewPR) + ": GitHub answered with a review " + foreign, call: call(alias, reviewPR)},
		}}
		return byNumber, byID
	}
	threadRows := func(call func(r string, n int32) func(x context.Context, c ghopsv1.GitHubServiceClient) error) (idRow, idRow) {
		how := "the thread is read first (ownThread, GraphQL node): its pull request and repository must be the call's before the mutation"
		byNumber := idRow{how: how, cases: []idCase{
			{name: "another pull request's thread", resType: "thread", msg: threadID(repo, otherPR) + ": the thread belongs to pull request #" + num(threadPR), call: call(repo, otherPR)},
			{name: "an issue's number", resType: "thread", msg: threadID(repo, bug) + ": the thread belongs to pull request #" + num(threadPR), call: call(repo, bug)},
		}}
		byID := idRow{how: how, cases: []idCase{
			{name: "another repository's thread", resType: "thread", msg: threadID(alias, threadPR) + ": GitHub answered with a review thread " + foreign, call: call(alias, threadPR)},
			{name: "a pull request's node id", resType: "thread", msg: "not found", call: func(x context.Context, c ghopsv1.GitHubServiceClient) error {
				_, err := c.ResolveReviewThread(x, &ghopsv1.ResolveReviewThreadRequest{Repo: repo, PrNumber: threadPR, ThreadId: "PR_kwDOnotathread", Resolved: ptr(true)})
				return err
			}},
		}}
		return byNumber, byID
	}
	submitByNumber, submitByID := reviewRows(submit)
	deleteByNumber, deleteByID := reviewRows(deleteReview)
	replyByNumber, replyByID := threadRows(reply)
	resolveByNumber, resolveByID := threadRows(resolve)
	rerun := func(r string, id int64) func(x context.Context, c ghopsv1.GitHubServiceClient) error {
		return func(x context.Context, c ghopsv1.GitHubServiceClient) error {
			_, err := c.RerunFailedJobs(x, &ghopsv1.RerunFailedJobsRequest{Repo: r, RunId: id})
			return err
		}
	}
	rerunAll := func(r string, id int64) func(x context.Context, c ghopsv1.GitHubServiceClient) error {
		return func(x context.Context, c ghopsv1.GitHubServiceClient) error {
			_, err := c.RerunWorkflowRun(x, &ghopsv1.RerunWorkflowRunRequest{Repo: r, RunId: id})
			return err
		}
	}
	cancelRun := func(r string, id int64) func(x context.Context, c ghopsv1.GitHubServiceClient) error {
		return func(x context.Context, c ghopsv1.GitHubServiceClient) error {
			_, err := c.CancelWorkflowRun(x, &ghopsv1.CancelWorkflowRunRequest{Repo: r, RunId: id})
			return err
		}
	}
	getRun := func(r string, id int64) func(x context.Context, c ghopsv1.GitHubServiceClient) error {
		return func(x context.Context, c ghopsv1.GitHubServiceClient) error {
			_, err := c.GetWorkflowRun(x, &ghopsv1.GetWorkflowRunRequest{Repo: r, RunId: id})
			return err
		}
	}
	// runRow is the row of a run_id: the run is read first (ownRun), and
	// GitHub's answer must name the call's repository before then happens.
	runRow := func(then string, call func(r string, id int64) func(x context.Context, c ghopsv1.GitHubServiceClient) error) idRow {
		return idRow{how: "the run is read first (ownRun): GitHub's answer must name the call's repository before " + then,
			cases: []idCase{
				{name: "a job's id", resType: "run", msg: "run " + repo + "/actions/runs/" + strconv.FormatInt(job, 10) + " not found", call: call(repo, job)},
				{name: "another repository's run", resType: "run", msg: "run " + alias + "/actions/runs/" + strconv.FormatInt(run, 10) + " not found: GitHub answered with a run " + foreign, call: call(alias, run)},
			}}
	}
	jobLog := func(r string, id int64) func(x context.Context, c ghopsv1.GitHubServiceClient) error {
		return func(x context.Context, c ghopsv1.GitHubServiceClient) error {
			_, err := c.GetJobLog(x, &ghopsv1.GetJobLogRequest{Repo: r, JobId: id, TailLines: ptr[int32](5)})
			return err
		}
	}
	milestone := func(call func(x context.Context, c ghopsv1.GitHubServiceClient) error) idRow {
		return idRow{how: "a milestone number, resolved by GitHub inside the repository of the path only; an unknown one is GitHub's 422, and nothing is written", cases: []idCase{
			{name: "an unknown milestone", code: codes.FailedPrecondition, resType: "milestone", msg: "milestone", refusedWrite: true, call: call},
		}}
	}
	itemRow := func(call func(x context.Context, c ghopsv1.GitHubServiceClient, id string) error) idRow {
		return idRow{how: "the item is read in the project's own request and must be an item of that project before any mutation", cases: []idCase{
			{name: "an unknown item", resType: "item", msg: "item PVTI_unknown", call: func(x context.Context, c ghopsv1.GitHubServiceClient) error {
				return call(x, c, "PVTI_unknown")
			}},
		}}
	}
	parent := demoIssue(t, c, "Speak more languages")
	pathRow := func(how string, write bool, call func(x context.Context, c ghopsv1.GitHubServiceClient, n int32) error) idRow {
		name := "a pull request's number"
		if write {
			name += ", refused by GitHub"
		}
		return idRow{how: how, cases: []idCase{
			{name: name, resType: "issue", msg: "not found", refusedWrite: write, call: func(x context.Context, c ghopsv1.GitHubServiceClient) error { return call(x, c, pr) }},
			{name: "an unknown number", resType: "issue", msg: "not found", refusedWrite: write, call: func(x context.Context, c ghopsv1.GitHubServiceClient) error { return call(x, c, 999) }},
		}}
	}
	rows := map[string]idRow{
		"label_issue.issue_number": {how: "a POST (adds) or, after a read of the issue, DELETEs (removes) of the issue's labels endpoint, which serves issues and pull requests alike by design; path-scoped (reposcope), an unknown number is GitHub's 404",
			cases: []idCase{{name: "an unknown number, refused by GitHub", resType: "issue", msg: "not found", refusedWrite: true, call: func(x context.Context, c ghopsv1.GitHubServiceClient) error {
				_, err := c.LabelIssue(x, &ghopsv1.LabelIssueRequest{Repo: repo, IssueNumber: 999, Add: []string{"bug"}})
				return err
			}}, {name: "an unknown number, read first", resType: "issue", msg: "not found", call: func(x context.Context, c ghopsv1.GitHubServiceClient) error {
				_, err := c.LabelIssue(x, &ghopsv1.LabelIssueRequest{Repo: repo, IssueNumber: 999, Remove: []string{"bug"}})
				return err
			}}}},
		"list_sub_issues.issue_number": pathRow("a read of the issue's sub_issues endpoint: GitHub resolves the number inside the path's repository (reposcope); a pull request has none (404)", false,
			func(x context.Context, c ghopsv1.GitHubServiceClient, n int32) error {
				_, err := c.ListSubIssues(x, &ghopsv1.ListSubIssuesRequest{Repo: repo, IssueNumber: n})
				return err
			}),
		"add_sub_issue.issue_number": pathRow("the parent is the path of the POST: GitHub resolves it inside the call's repository and answers 404 for a pull request or an unknown number, nothing written", true,
			func(x context.Context, c ghopsv1.GitHubServiceClient, n int32) error {
				_, err := c.AddSubIssue(x, &ghopsv1.AddSubIssueRequest{Repo: repo, IssueNumber: n, SubIssue: bug})
				return err
			}),
		"remove_sub_issue.issue_number": pathRow("the parent is the path of the DELETE: GitHub resolves it inside the call's repository and answers 404, nothing written", true,
			func(x context.Context, c ghopsv1.GitHubServiceClient, n int32) error {
				_, err := c.RemoveSubIssue(x, &ghopsv1.RemoveSubIssueRequest{Repo: repo, IssueNumber: n, SubIssue: bug})
				return err
			}),
		"add_sub_issue.sub_issue": issueRow(func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
			_, err := c.AddSubIssue(x, &ghopsv1.AddSubIssueRequest{Repo: repo, IssueNumber: parent, SubIssue: n, SubIssueRepo: ptr(r)})
			return err
		}),
		"remove_sub_issue.sub_issue": issueRow(func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
			_, err := c.RemoveSubIssue(x, &ghopsv1.RemoveSubIssueRequest{Repo: repo, IssueNumber: parent, SubIssue: n, SubIssueRepo: ptr(r)})
			return err
		}),
		"add_project_item.number": {how: "read through issueKind: GitHub's answer must be that number of the call's repository before its node id is added",
			cases: []idCase{{name: "another repository's issue", resType: "issue", msg: "issue " + alias + "#" + num(bug) + " not found: GitHub answered with an issue " + foreign, call: func(x context.Context, c ghopsv1.GitHubServiceClient) error {
				_, err := c.AddProjectItem(x, &ghopsv1.AddProjectItemRequest{Project: "octo-org/1", Repo: ptr(alias), Number: ptr(bug)})
				return err
			}}}},
		"archive_project_item.item_id": itemRow(func(x context.Context, c ghopsv1.GitHubServiceClient, id string) error {
			_, err := c.ArchiveProjectItem(x, &ghopsv1.ArchiveProjectItemRequest{Project: "octo-org/1", ItemId: id, Archived: true})
			return err
		}),
		"delete_project_item.item_id": itemRow(func(x context.Context, c ghopsv1.GitHubServiceClient, id string) error {
			_, err := c.DeleteProjectItem(x, &ghopsv1.DeleteProjectItemRequest{Project: "octo-org/1", ItemId: id})
			return err
		}),
		"update_milestone.number": {how: "a PATCH of the repository's milestones endpoint: GitHub resolves the number inside the path's repository; an unknown one is its 404, nothing written",
			cases: []idCase{{name: "an unknown milestone", resType: "milestone", msg: "milestone " + repo + "#42 not found", refusedWrite: true, call: func(x context.Context, c ghopsv1.GitHubServiceClient) error {
				_, err := c.UpdateMilestone(x, &ghopsv1.UpdateMilestoneRequest{Repo: repo, Number: 42, State: ptr("closed")})
				return err
			}}}},
		"update_release.release_id": {how: "a PATCH of the repository's releases endpoint: GitHub resolves the id inside the path's repository only; an unknown one (another repository's included) is its 404, nothing written",
			cases: []idCase{{name: "an unknown release", resType: "release", msg: "release " + repo + "#42 not found", refusedWrite: true, call: func(x context.Context, c ghopsv1.GitHubServiceClient) error {
				_, err := c.UpdateRelease(x, &ghopsv1.UpdateReleaseRequest{Repo: repo, ReleaseId: 42, Name: ptr("x")})
				return err
			}}}},
		"get_issue.issue_number": issueRow(func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
			_, err := c.GetIssue(x, &ghopsv1.GetIssueRequest{Repo: r, IssueNumber: n})
			return err
		}),
		"list_issue_comments.issue_number": issueRow(func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
			_, err := c.ListIssueComments(x, &ghopsv1.ListIssueCommentsRequest{Repo: r, IssueNumber: n})
			return err
		}),
		"update_issue.issue_number": issueRow(func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
			_, err := c.UpdateIssue(x, &ghopsv1.UpdateIssueRequest{Repo: r, IssueNumber: n, Title: ptr("retitled"), State: ptr("closed")})
			return err
		}),
		"add_issue_comment.issue_number": issueRow(func(x context.Context, c ghopsv1.GitHubServiceClient, r string, n int32) error {
			_, err := c.AddIssueComment(x, &ghopsv1.AddIssueCommentRequest{Repo: r, IssueNumber: n, Body: "a comment"})
			return err
		}),
		"update_issue.milestone": milestone(func(x context.Context, c ghopsv1.GitHubServiceClient) error {
			_, err := c.UpdateIssue(x, &ghopsv1.UpdateIssueRequest{Repo: repo, IssueNumber: bug, State: ptr("closed"), Milestone: ptr[int32](42)})
			return err
		}),
		"create_issue.milestone": milestone(func(x context.Context, c ghopsv1.GitHubServiceClient) error {
			_, err := c.CreateIssue(x, &ghopsv1.CreateIssueRequest{Repo: repo, Title: "t", Milestone: ptr[int32](42)})
			return err
		}),
		"get_pull_request.pr_number": {how: "read through ownPull: GitHub's answer must be that pull request of the call's base repository",
			cases: []idCase{prKind(getPR, false), prForeign(getPR)}},
		"get_pr_mergeability.pr_number": {how: "read through ownPull, as get_pull_request",
			cases: []idCase{prKind(mergeability, false), prForeign(mergeability)}},
		"list_pull_request_files.pr_number": {how: "a read of the pulls endpoint, which cannot cross kinds; its answer names no repository (path-scoped, and reposcope refuses any other repository's path)",
			cases: []idCase{prKind(files, false)}},
		"update_pull_request.pr_number": {how: "a PATCH of the pulls endpoint (GitHub's 404 for an issue's number, nothing written); the GraphQL node id of draft only from an answer that ownPull accepts",
			cases: []idCase{prKind(retitle, true), prKind(draft, false), prForeign(draft)}},
		"merge_pull_request.pr_number": {how: "a PUT of the pulls endpoint (GitHub's 404 for an issue's number); the head branch is deleted only from an answer that ownPull accepts, with its head in the call's repository",
			cases: []idCase{prKind(merge, true)}},
		"get_ci_failures.pr_number": {how: "read by refs/pull/{n}/head, then the pulls endpoint; a job's log is read only when GitHub's job answer names the call's repository (ownJob)",
			cases: []idCase{prKind(ciOf, false), {name: "another repository's jobs", call: func(x context.Context, c ghopsv1.GitHubServiceClient) error {
				r, err := c.GetCiFailures(x, &ghopsv1.GetCiFailuresRequest{Repo: alias, PrNumber: ptr[int32](3)})
				if err == nil && (len(r.Failed) != 1 || r.Failed[0].LogExcerpt != nil || len(r.Failed[0].FailedSteps) != 0) {
					t.Errorf("another repository's job was read: %v", r)
				}
				return err
			}, check: func(t *testing.T, err error, calls []fakehub.RequestRecord) {
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range calls {
					if strings.Contains(r.Route, "/logs") || strings.HasPrefix(r.Route, "GET /_logs/") {
						t.Errorf("log of another repository's job read: %v", r)
					}
				}
			}}}},
		"list_pull_request_comments.pr_number": {how: "the number's kind is read first (pullOnly): GitHub's issue endpoints would serve an issue's number",
			cases: []idCase{prKind(prComments, false), {name: "another repository's pull request", resType: "pr", msg: "pr " + alias + "#1 not found: GitHub answered with an issue " + foreign, call: func(x context.Context, c ghopsv1.GitHubServiceClient) error {
				return prComments(x, c, alias, pr)
			}}}},
		"add_pull_request_comment.pr_number": {how: "the number's kind is read first (pullOnly): an issue's number is refused before anything is written",
			cases: []idCase{prKind(prComment, false), {name: "another repository's pull request", resType: "pr", msg: "pr " + alias + "#1 not found: GitHub answered with an issue " + foreign, call: func(x context.Context, c ghopsv1.GitHubServiceClient) error {
				return prComment(x, c, alias, pr)
			}}}},
		"list_pull_request_reviews.pr_number": {how: "a read of the pulls endpoint, which cannot cross kinds; path-scoped (reposcope)",
			cases: []idCase{prKind(reviews, false)}},
		"list_review_threads.pr_number": {how: "GraphQL repository(owner, name).pullRequest(number): an issue's number is GraphQL's NOT_FOUND, the repository is the call's by construction",
			cases: []idCase{prKind(threads, false)}},
		"create_review.pr_number": {how: "the pull request is read first through ownPull (its head is compared with commit_sha), before the POST",
			cases: []idCase{prKind(createReview, false), prForeign(createReview)}},
		"list_pull_request_commits.pr_number": {how: "a read of the pulls endpoint, which cannot cross kinds; path-scoped (reposcope)",
			cases: []idCase{prKind(prCommits, false)}},
		"request_reviewers.pr_number": {how: "a POST of the pulls endpoint (GitHub's 404 for an issue's number, nothing written); the answer is checked with ownPull",
			cases: []idCase{prKind(askReview, true)}},
		"update_pull_request_branch.pr_number": {how: "a PUT of the pulls endpoint (GitHub's 404 for an issue's number, nothing written)",
			cases: []idCase{prKind(updateBranch, true)}},
		"submit_review.pr_number":          submitByNumber,
		"submit_review.review_id":          submitByID,
		"delete_pending_review.pr_number":  deleteByNumber,
		"delete_pending_review.review_id":  deleteByID,
		"reply_to_review_thread.pr_number": replyByNumber,
		"reply_to_review_thread.thread_id": replyByID,
		"resolve_review_thread.pr_number":  resolveByNumber,
		"resolve_review_thread.thread_id":  resolveByID,
		"get_job_log.job_id": {how: "the job is read first (checkJob): GitHub's answer must name the call's repository before its log is read",
			cases: []idCase{
				{name: "a run's id", resType: "job", msg: "job " + repo + "/actions/jobs/" + strconv.FormatInt(run, 10) + " not found", call: jobLog(repo, run)},
				{name: "another repository's job", resType: "job", msg: "job " + alias + "/actions/jobs/" + strconv.FormatInt(job, 10) + " not found: GitHub answered with a job " + foreign, call: jobLog(alias, job)},
			}},
		"rerun_failed_jobs.run_id":   runRow("the re-run is asked for", rerun),
		"rerun_workflow_run.run_id":  runRow("the re-run is asked for", rerunAll),
		"cancel_workflow_run.run_id": runRow("the cancellation is asked for", cancelRun),
		"get_workflow_run.run_id":    runRow("its jobs are read", getRun),
	}
	fields := idFields(t)
	for _, f := range fields {
		if _, ok := rows[f]; !ok {
			t.Errorf("%s names a GitHub object by number or id and has no row: say how the service checks its kind and repository, and show it", f)
		}
	}
	for f := range rows {
		if !slices.Contains(fields, f) {
			t.Errorf("row %s names no id field of a tool", f)
		}
	}
	for _, f := range fields {
		row := rows[f]
		for _, tc := range row.cases {
			t.Run(f+"/"+tc.name, func(t *testing.T) {
				e.hub.ResetStats()
				sent := mutations.Load()
				err := tc.call(ctx(t), c)
				calls := e.hub.Requests()
				if n := mutations.Load() - sent; n > 0 {
					t.Errorf("a write reached GitHub (%s): %d GraphQL mutations", row.how, n)
				}
				for _, r := range calls {
					if r.Method == http.MethodGet || r.Method == http.MethodHead || (r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/graphql")) {
						continue // a GraphQL mutation is counted above
					}
					if !tc.refusedWrite || (r.Status != http.StatusNotFound && r.Status != http.StatusUnprocessableEntity) {
						t.Errorf("a write reached GitHub (%s): %s %s answered %d", row.how, r.Method, r.Path, r.Status)
					}
				}
				if tc.check != nil {
					tc.check(t, err, calls)
					return
				}
				code := tc.code
				if code == 0 {
					code = codes.NotFound
				}
				reason := ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND
				if code == codes.FailedPrecondition {
					reason = ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION
				}
				d := wantStatus(t, err, code, reason)
				if !strings.Contains(d.st.Message(), tc.msg) || d.gh.GetResource().GetType() != tc.resType {
					t.Errorf("message %q, resource %v; want %q about a %s", d.st.Message(), d.gh.GetResource(), tc.msg, tc.resType)
				}
				if strings.Contains(d.st.Message(), repo) && strings.Contains(tc.name, "another repository") {
					t.Errorf("the refusal names the other repository: %q", d.st.Message())
				}
			})
		}
	}
	t.Run("nothing changed", func(t *testing.T) {
		if after := snapshot(t, c); after != before {
			t.Errorf("after the refused calls:\n%s\nbefore:\n%s", after, before)
		}
	})
}

// snapshot is what the refused calls could have changed, as text: the
// demo's issues and pull requests (title, state, draft, comments) and its
// failed job's run.
func snapshot(t *testing.T, c ghopsv1.GitHubServiceClient) string {
	t.Helper()
	x := ctx(t)
	var b strings.Builder
	is, err := c.ListIssues(x, &ghopsv1.ListIssuesRequest{Repo: repo, State: ptr("all"), PerPage: ptr[int32](100)})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range is.Issues {
		b.WriteString("issue " + num(i.Number) + " " + i.Title + " " + i.State + " " + strings.Join(i.Labels, ",") + " comments " + num(i.Comments) + "\n")
	}
	prs, err := c.ListPullRequests(x, &ghopsv1.ListPullRequestsRequest{Repo: repo, State: ptr("all")})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prs.PullRequests {
		cm, err := c.GetPullRequest(x, &ghopsv1.GetPullRequestRequest{Repo: repo, PrNumber: p.Number})
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("pr " + num(p.Number) + " " + p.Title + " " + p.State + " draft " + strconv.FormatBool(p.Draft) + " merged " + strconv.FormatBool(p.Merged) + " head " + cm.PullRequest.Head + "\n")
	}
	ci, err := c.GetCiFailures(x, &ghopsv1.GetCiFailuresRequest{Repo: repo, PrNumber: ptr[int32](3)})
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString("ci failed " + num(int32(len(ci.Failed))) + " pending " + num(ci.Pending) + "\n")
	return b.String()
}

// num is n in decimal, as numbers appear in messages and resource ids.
func num(n int32) string { return strconv.Itoa(int(n)) }

// demoThread is a review thread of the demo (fakehub's demo data has a pull
// request with open and resolved threads) and its pull request's number.
func demoThread(t *testing.T, c ghopsv1.GitHubServiceClient) (string, int32) {
	t.Helper()
	for n := int32(1); n <= 3; n++ {
		r, err := c.ListReviewThreads(ctx(t), &ghopsv1.ListReviewThreadsRequest{Repo: repo, PrNumber: n, State: ptr("all")})
		if err != nil {
			t.Fatalf("list_review_threads #%d: %v", n, err)
		}
		if len(r.Threads) > 0 {
			return r.Threads[0].Id, n
		}
	}
	t.Fatal("the demo has no review thread")
	return "", 0
}

// demoReview is a review of the demo and its pull request's number.
func demoReview(t *testing.T, c ghopsv1.GitHubServiceClient) (int64, int32) {
	t.Helper()
	for n := int32(1); n <= 3; n++ {
		r, err := c.ListPullRequestReviews(ctx(t), &ghopsv1.ListPullRequestReviewsRequest{Repo: repo, PrNumber: n})
		if err != nil {
			t.Fatalf("list_pull_request_reviews #%d: %v", n, err)
		}
		if len(r.Reviews) > 0 {
			return r.Reviews[0].Id, n
		}
	}
	t.Fatal("the demo has no review")
	return 0, 0
}
