package toolschema

import (
	"ghops.dev/gateway/internal/rpcerror"

	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// v renders one expected violation as JSON, params given in sorted key order
// (encoding/json sorts map keys) and value as raw JSON.
func v(message, path, keyword, params, value string) string {
	return fmt.Sprintf(`{"message":%s,"path":%s,"keyword":%q,"params":%s,"value":%s}`, quote(message), quote(path), keyword, params, value)
}

func quote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSpace(b.String())
}

func list(vs ...string) string { return "[" + strings.Join(vs, ",") + "]" }

// violationCase is a call Decode refuses, with the violations it reports.
type violationCase struct{ name, tool, args, want string }

// decodeViolationCases are the refused calls of TestDecodeViolations, also
// the corpus of the fast check's soundness test (fastcheck_test.go).
func decodeViolationCases() []violationCase {
	q257 := strings.Repeat("q", 257)
	long501 := strings.Repeat("p", 501)
	file := `{"path":"a.txt","content":"hi"}`
	files21 := "[" + strings.TrimSuffix(strings.Repeat(file+",", 21), ",") + "]"
	filesBad3 := `[` + file + `,` + file + `,` + file + `,{"path":"` + long501 + `","content":"x"}]`
	repoPattern := `^[a-zA-Z0-9._-]+/[a-zA-Z0-9._-]+$`
	shaPattern := `^[a-f0-9]{7,40}$`
	b64 := `^[A-Za-z0-9+/]*={0,2}$`
	cf2 := func(branch string) string {
		return `{"repo":"o/r","branch":` + branch + `,"message":"m","files":[{"path":"a","content":""}]}`
	}
	cf := func(files string) string {
		return `{"repo":"o/r","branch":"main","message":"m","files":` + files + `}`
	}
	return []violationCase{
		{"required query (contract example)", "search", `{}`,
			list(v("must have required property 'query'", "root", "required", `{"missingProperty":"query"}`, `{}`))},
		{"absent arguments are {}", "search", ``,
			list(v("must have required property 'query'", "root", "required", `{"missingProperty":"query"}`, `{}`))},
		{"query of 257 chars", "search", `{"query":"` + q257 + `"}`,
			list(v("must NOT be longer than 256 characters", "/query", "maxLength", `{"limit":256}`, `"`+q257+`"`))},
		{"query of 257 code points outside the BMP", "search", `{"query":"` + strings.Repeat("😀", 257) + `"}`,
			list(v("must NOT be longer than 256 characters", "/query", "maxLength", `{"limit":256}`, `"`+strings.Repeat("😀", 257)+`"`))},
		{"empty query", "search", `{"query":""}`,
			list(v("must NOT be shorter than 1 characters", "/query", "minLength", `{"limit":1}`, `""`))},
		{"page 0", "search", `{"query":"x","page":0}`,
			list(v("must be >= 1", "/page", "minimum", `{"comparison":">=","limit":1}`, `0`))},
		{"page 101", "search", `{"query":"x","page":101}`,
			list(v("must be <= 100", "/page", "maximum", `{"comparison":"<=","limit":100}`, `101`))},
		{"per_page as a string", "search", `{"query":"x","per_page":"2"}`,
			list(v("must be integer", "/per_page", "type", `{"type":"integer"}`, `"2"`))},
		{"page with a fraction", "search", `{"query":"x","page":2.5}`,
			list(v("must be integer", "/page", "type", `{"type":"integer"}`, `2.5`))},
		{"page with a fraction below the minimum", "search", `{"query":"x","page":0.5}`,
			list(v("must be integer", "/page", "type", `{"type":"integer"}`, `0.5`),
				v("must be >= 1", "/page", "minimum", `{"comparison":">=","limit":1}`, `0.5`))},
		{"page null", "search", `{"query":"x","page":null}`,
			list(v("must be integer", "/page", "type", `{"type":"integer"}`, `null`))},
		{"prNumber beyond int32", "get_pr_mergeability", `{"repo":"o/r","prNumber":2147483648}`,
			list(v("must be <= 2147483647", "/prNumber", "maximum", `{"comparison":"<=","limit":2147483647}`, `2147483648`))},
		{"sha of 6 chars", "get_checks_for_sha", `{"repo":"o/r","sha":"abcdef"}`,
			list(v(`must match pattern "`+shaPattern+`"`, "/sha", "pattern", `{"pattern":"`+shaPattern+`"}`, `"abcdef"`))},
		{"sha of 41 chars", "get_checks_for_sha", `{"repo":"o/r","sha":"` + strings.Repeat("a", 41) + `"}`,
			list(v(`must match pattern "`+shaPattern+`"`, "/sha", "pattern", `{"pattern":"`+shaPattern+`"}`, `"`+strings.Repeat("a", 41)+`"`))},
		{"branch with ..", "apply_patch", `{"repo":"o/r","branch":"a/../../x","message":"m","patch":"p"}`,
			list(v(`must not contain ".."`, "/branch", "ref_name", `{"rule":"ref_name.dot_dot"}`, `"a/../../x"`),
				v(`no segment may start with "."`, "/branch", "ref_name", `{"rule":"ref_name.dot_segment"}`, `"a/../../x"`))},
		{"branch with every broken ref rule", "commit_files", cf2(`"/.a//b..c.lock/@{/"`),
			list(v(`must match pattern "^[a-zA-Z0-9._/-]+$"`, "/branch", "pattern", `{"pattern":"^[a-zA-Z0-9._/-]+$"}`, `"/.a//b..c.lock/@{/"`),
				v(`must not contain ".."`, "/branch", "ref_name", `{"rule":"ref_name.dot_dot"}`, `"/.a//b..c.lock/@{/"`),
				v(`must not contain an empty segment ("//")`, "/branch", "ref_name", `{"rule":"ref_name.empty_segment"}`, `"/.a//b..c.lock/@{/"`),
				v(`must not start or end with "/"`, "/branch", "ref_name", `{"rule":"ref_name.slash_edge"}`, `"/.a//b..c.lock/@{/"`),
				v(`no segment may start with "."`, "/branch", "ref_name", `{"rule":"ref_name.dot_segment"}`, `"/.a//b..c.lock/@{/"`),
				v(`no segment may end with ".lock"`, "/branch", "ref_name", `{"rule":"ref_name.lock_suffix"}`, `"/.a//b..c.lock/@{/"`),
				v(`must not contain "@{"`, "/branch", "ref_name", `{"rule":"ref_name.at_brace"}`, `"/.a//b..c.lock/@{/"`))},
		{"ref segment ending in .lock", "get_tree", `{"repo":"o/r","ref":"heads.lock/x"}`,
			list(v(`no segment may end with ".lock"`, "/ref", "ref_name", `{"rule":"ref_name.lock_suffix"}`, `"heads.lock/x"`))},
		{"ref . and ref ..", "read_file", `{"repo":"o/r","path":"a","ref":"."}`,
			list(v(`must not start or end with "."`, "/ref", "ref_name", `{"rule":"ref_name.dot_edge"}`, `"."`))},
		{"repo ../..", "fetch", `{"repo":"../.."}`,
			list(v(`owner and name must not be "." or ".."`, "/repo", "repo_name", `{"rule":"repo_name.dot_segment"}`, `"../.."`))},
		{"repo o/.", "get_branches", `{"repo":"o/."}`,
			list(v(`owner and name must not be "." or ".."`, "/repo", "repo_name", `{"rule":"repo_name.dot_segment"}`, `"o/."`))},
		{"repo not owner/repo", "fetch", `{"repo":"nope"}`,
			list(v(`must match pattern "`+repoPattern+`"`, "/repo", "pattern", `{"pattern":"`+repoPattern+`"}`, `"nope"`))},
		{"21 files", "commit_files", cf(files21),
			list(v("must NOT have more than 20 items", "/files", "maxItems", `{"limit":20}`, files21))},
		{"no files", "commit_files", cf(`[]`),
			list(v("must NOT have fewer than 1 items", "/files", "minItems", `{"limit":1}`, `[]`))},
		{"files not an array", "commit_files", cf(`{}`),
			list(v("must be array", "/files", "type", `{"type":"array"}`, `{}`))},
		{"file not an object", "commit_files", cf(`[1]`),
			list(v("must be object", "/files/0", "type", `{"type":"object"}`, `1`))},
		{"files[3].path too long", "commit_files", cf(filesBad3),
			list(v("must NOT be longer than 500 characters", "/files/3/path", "maxLength", `{"limit":500}`, `"`+long501+`"`))},
		{"file without content", "commit_files", cf(`[{"path":"a"}]`),
			list(v("must have required property 'content'", "/files/0", "required", `{"missingProperty":"content"}`, `{"path":"a"}`))},
		{"encoding utf16", "commit_files", cf(`[{"path":"a","content":"x","encoding":"utf16"}]`),
			list(v("must be equal to one of the allowed values", "/files/0/encoding", "enum", `{"allowedValues":["utf8","base64"]}`, `"utf16"`))},
		{"base64 content that is not base64", "commit_files", cf(`[{"path":"a","content":"!!","encoding":"base64"}]`),
			list(v(`must match pattern "`+b64+`"`, "/files/0/content", "pattern", `{"pattern":"`+b64+`"}`, `"!!"`),
				v(`must match "then" schema`, "/files/0", "if", `{"failingKeyword":"then"}`, `{"path":"a","content":"!!","encoding":"base64"}`))},
		{"branch with ref", "list_directory", `{"repo":"o/r","path":"/","branch":"main","ref":"v1"}`,
			list(v("must NOT be valid", "root", "not", `{}`, `{"repo":"o/r","path":"/","branch":"main","ref":"v1"}`))},
		{"unknown property", "search", `{"query":"x","foo":1}`,
			list(v("must NOT have additional properties", "root", "additionalProperties", `{"additionalProperty":"foo"}`, `{"query":"x","foo":1}`))},
		{"pr_number instead of prNumber", "get_pr_mergeability", `{"repo":"o/r","pr_number":5}`,
			list(v("must have required property 'prNumber'", "root", "required", `{"missingProperty":"prNumber"}`, `{"repo":"o/r","pr_number":5}`),
				v("must NOT have additional properties", "root", "additionalProperties", `{"additionalProperty":"pr_number"}`, `{"repo":"o/r","pr_number":5}`))},
		{"state enum with a number", "update_pull_request", `{"repo":"o/r","prNumber":1,"state":5}`,
			list(v("must be string", "/state", "type", `{"type":"string"}`, `5`),
				v("must be equal to one of the allowed values", "/state", "enum", `{"allowedValues":["open","closed"]}`, `5`))},
		{"draft not a boolean", "create_pull_request", `{"repo":"o/r","title":"t","head":"h","base":"b","draft":"yes"}`,
			list(v("must be boolean", "/draft", "type", `{"type":"boolean"}`, `"yes"`))},
		{"repo not a string", "fetch", `{"repo":7}`,
			list(v("must be string", "/repo", "type", `{"type":"string"}`, `7`))},
		{"too long and bad pattern: AJV order", "fetch", `{"repo":"` + strings.Repeat("!", 141) + `"}`,
			list(v("must NOT be longer than 140 characters", "/repo", "maxLength", `{"limit":140}`, `"`+strings.Repeat("!", 141)+`"`),
				v(`must match pattern "`+repoPattern+`"`, "/repo", "pattern", `{"pattern":"`+repoPattern+`"}`, `"`+strings.Repeat("!", 141)+`"`))},
		{"everything wrong: AJV order", "list_directory", `{"zz":1,"branch":"a","ref":"b","path":""}`,
			list(v("must NOT be valid", "root", "not", `{}`, `{"zz":1,"branch":"a","ref":"b","path":""}`),
				v("must have required property 'repo'", "root", "required", `{"missingProperty":"repo"}`, `{"zz":1,"branch":"a","ref":"b","path":""}`),
				v("must NOT have additional properties", "root", "additionalProperties", `{"additionalProperty":"zz"}`, `{"zz":1,"branch":"a","ref":"b","path":""}`),
				v("must NOT be shorter than 1 characters", "/path", "minLength", `{"limit":1}`, `""`))},
		{"arguments []", "list_directory", `[]`,
			list(v("must be object", "root", "type", `{"type":"object"}`, `[]`))},
		{"arguments null", "search", `null`,
			list(v("must be object", "root", "type", `{"type":"object"}`, `null`))},
		{"arguments string", "search", `"x"`,
			list(v("must be object", "root", "type", `{"type":"object"}`, `"x"`))},
		{"invalid JSON", "search", `{"query":`,
			list(v("must be valid JSON", "root", "type", `{"type":"object"}`, `null`))},
		{"duplicate key", "search", `{"query":"a","query":"b"}`,
			list(v("must be valid JSON", "root", "type", `{"type":"object"}`, `null`))},
		{"lone surrogate", "search", `{"query":"\ud800"}`,
			list(v("must be valid JSON", "root", "type", `{"type":"object"}`, `null`))},
		{"invalid UTF-8", "search", "{\"query\":\"\xff\"}",
			list(v("must be valid JSON", "root", "type", `{"type":"object"}`, `null`))},
		{"value echoed compact", "search", "{ \"query\" : \"x\" ,\n \"foo\": [1, 2] }",
			list(v("must NOT have additional properties", "root", "additionalProperties", `{"additionalProperty":"foo"}`, `{"query":"x","foo":[1,2]}`))},
	}
}

func TestDecodeViolations(t *testing.T) {
	for _, tc := range decodeViolationCases() {
		t.Run(tc.name, func(t *testing.T) {
			msg, vs := tool(t, tc.tool).Decode(json.RawMessage(tc.args))
			if msg != nil {
				t.Errorf("got a message %v with violations", msg)
			}
			if got, want := mustMarshal(t, vs), compactJSON(t, tc.want); got != want {
				t.Errorf("violations\n got %s\nwant %s", got, want)
			}
			if got, want := rpcerror.ValidationMessage(vs), "Validation errors: "+joinMessages(vs); got != want {
				t.Errorf("Message = %q, want %q", got, want)
			}
		})
	}
}

func joinMessages(vs []Violation) string {
	var ms []string
	for _, v := range vs {
		ms = append(ms, v.Message)
	}
	return strings.Join(ms, ", ")
}

// validCase is a call Decode accepts, with the request it decodes.
type validCase struct {
	tool, args string
	want       proto.Message
}

// decodeValidCases are the accepted calls of TestDecodeValid, one or more
// per tool, also the corpus of the fast check's tests (fastcheck_test.go).
func decodeValidCases() []validCase {
	return []validCase{
		{"search", `{"query":"language:go stars:>10","page":2.0,"per_page":1e2}`,
			&ghopsv1.SearchRequest{Query: "language:go stars:>10", Page: proto.Int32(2), PerPage: proto.Int32(100)}},
		{"search", `{"query":"` + strings.Repeat("😀", 256) + `"}`, &ghopsv1.SearchRequest{Query: strings.Repeat("😀", 256)}},
		{"fetch", `{"repo":"octo-org/hello.world"}`, &ghopsv1.FetchRequest{Repo: "octo-org/hello.world"}},
		{"list_directory", `{"repo":"o/r","path":"/","ref":"v1.0"}`, &ghopsv1.ListDirectoryRequest{Repo: "o/r", Path: "/", Ref: proto.String("v1.0")}},
		{"read_file", `{"repo":"o/r","path":"README.md","branch":"feature/x"}`, &ghopsv1.ReadFileRequest{Repo: "o/r", Path: "README.md", Branch: proto.String("feature/x")}},
		{"get_tree", `{"repo":"o/r"}`, &ghopsv1.GetTreeRequest{Repo: "o/r"}},
		{"get_commits", `{"repo":"o/r","branch":"main","sha":"abcdef1","page":1,"per_page":100}`,
			&ghopsv1.GetCommitsRequest{Repo: "o/r", Branch: proto.String("main"), Sha: proto.String("abcdef1"), Page: proto.Int32(1), PerPage: proto.Int32(100)}},
		{"get_branches", `{"repo":"o/r","per_page":5}`, &ghopsv1.GetBranchesRequest{Repo: "o/r", PerPage: proto.Int32(5)}},
		{"list_pull_requests", `{"repo":"o/r","state":"all"}`, &ghopsv1.ListPullRequestsRequest{Repo: "o/r", State: proto.String("all")}},
		{"get_pr_mergeability", `{"repo":"o/r","prNumber":2147483647}`, &ghopsv1.GetPrMergeabilityRequest{Repo: "o/r", PrNumber: 2147483647}},
		{"get_checks_for_sha", `{"repo":"o/r","sha":"` + strings.Repeat("f", 40) + `"}`, &ghopsv1.GetChecksForShaRequest{Repo: "o/r", Sha: strings.Repeat("f", 40)}},
		{"create_pull_request", `{"repo":"o/r","title":"T","head":"feat","base":"main","body":"","draft":false}`,
			&ghopsv1.CreatePullRequestRequest{Repo: "o/r", Title: "T", Head: "feat", Base: "main", Body: proto.String(""), Draft: proto.Bool(false)}},
		{"update_pull_request", `{"repo":"o/r","prNumber":3,"state":"closed","draft":true}`,
			&ghopsv1.UpdatePullRequestRequest{Repo: "o/r", PrNumber: 3, State: proto.String("closed"), Draft: proto.Bool(true)}},
		{"merge_pull_request", `{"repo":"o/r","prNumber":3,"merge_method":"squash","sha":"abcdef0","delete_branch":true,"commit_title":"t","commit_message":""}`,
			&ghopsv1.MergePullRequestRequest{Repo: "o/r", PrNumber: 3, MergeMethod: proto.String("squash"), Sha: proto.String("abcdef0"), DeleteBranch: proto.Bool(true), CommitTitle: proto.String("t"), CommitMessage: proto.String("")}},
		{"commit_files", `{"repo":"o/r","branch":"main","message":"m","files":[{"path":"a","content":""},{"path":"b","content":"aGk=","encoding":"base64"},{"path":"c","content":"!!","encoding":"utf8"}]}`,
			&ghopsv1.CommitFilesRequest{Repo: "o/r", Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{
				{Path: "a", Content: proto.String("")},
				{Path: "b", Content: proto.String("aGk="), Encoding: proto.String("base64")},
				{Path: "c", Content: proto.String("!!"), Encoding: proto.String("utf8")},
			}}},
		{"apply_patch", `{"repo":"o/r","branch":"main","message":"m","patch":"--- a/x\n+++ b/x\n","sha":"` + strings.Repeat("a", 40) + `"}`,
			&ghopsv1.ApplyPatchRequest{Repo: "o/r", Branch: "main", Message: "m", Patch: "--- a/x\n+++ b/x\n", Sha: proto.String(strings.Repeat("a", 40))}},
		{"validate_environment", `{}`, &ghopsv1.ValidateEnvironmentRequest{}},
		{"create_branch", `{"repo":"o/r","branch":"feature/y","from":"v1.0"}`, &ghopsv1.CreateBranchRequest{Repo: "o/r", Branch: "feature/y", From: proto.String("v1.0")}},
		{"get_pull_request", `{"repo":"o/r","prNumber":3}`, &ghopsv1.GetPullRequestRequest{Repo: "o/r", PrNumber: 3}},
		{"list_pull_request_files", `{"repo":"o/r","prNumber":3,"page":2,"per_page":50}`,
			&ghopsv1.ListPullRequestFilesRequest{Repo: "o/r", PrNumber: 3, Page: proto.Int32(2), PerPage: proto.Int32(50)}},
		{"compare_refs", `{"repo":"o/r","base":"main","head":"feature/x"}`, &ghopsv1.CompareRefsRequest{Repo: "o/r", Base: "main", Head: "feature/x"}},
		{"list_issues", `{"repo":"o/r","state":"closed","labels":["bug"],"assignee":"*","since":"2026-01-02T03:04:05Z"}`,
			&ghopsv1.ListIssuesRequest{Repo: "o/r", State: proto.String("closed"), Labels: []string{"bug"}, Assignee: proto.String("*"), Since: proto.String("2026-01-02T03:04:05Z")}},
		{"get_issue", `{"repo":"o/r","issueNumber":4}`, &ghopsv1.GetIssueRequest{Repo: "o/r", IssueNumber: 4}},
		{"list_issue_comments", `{"repo":"o/r","issueNumber":4,"per_page":10}`, &ghopsv1.ListIssueCommentsRequest{Repo: "o/r", IssueNumber: 4, PerPage: proto.Int32(10)}},
		{"search_issues", `{"query":"repo:o/r is:open"}`, &ghopsv1.SearchIssuesRequest{Query: "repo:o/r is:open"}},
		{"create_issue", `{"repo":"o/r","title":"T","body":"","labels":["bug"],"assignees":["octocat"],"milestone":1}`,
			&ghopsv1.CreateIssueRequest{Repo: "o/r", Title: "T", Body: proto.String(""), Labels: []string{"bug"}, Assignees: []string{"octocat"}, Milestone: proto.Int32(1)}},
		{"update_issue", `{"repo":"o/r","issueNumber":4,"state":"closed","state_reason":"not_planned"}`,
			&ghopsv1.UpdateIssueRequest{Repo: "o/r", IssueNumber: 4, State: proto.String("closed"), StateReason: proto.String("not_planned")}},
		{"add_issue_comment", `{"repo":"o/r","issueNumber":4,"body":"b"}`, &ghopsv1.AddIssueCommentRequest{Repo: "o/r", IssueNumber: 4, Body: "b"}},
		{"list_pull_request_comments", `{"repo":"o/r","prNumber":2,"page":1,"per_page":10}`,
			&ghopsv1.ListPullRequestCommentsRequest{Repo: "o/r", PrNumber: 2, Page: proto.Int32(1), PerPage: proto.Int32(10)}},
		{"add_pull_request_comment", `{"repo":"o/r","prNumber":2,"body":"b"}`, &ghopsv1.AddPullRequestCommentRequest{Repo: "o/r", PrNumber: 2, Body: "b"}},
		{"search_code", `{"query":"func main repo:o/r","page":1}`, &ghopsv1.SearchCodeRequest{Query: "func main repo:o/r", Page: proto.Int32(1)}},
		{"get_ci_failures", `{"repo":"o/r","prNumber":3}`, &ghopsv1.GetCiFailuresRequest{Repo: "o/r", PrNumber: proto.Int32(3)}},
		{"get_job_log", `{"repo":"o/r","job_id":7,"start_line":10,"max_lines":20}`,
			&ghopsv1.GetJobLogRequest{Repo: "o/r", JobId: 7, StartLine: proto.Int32(10), MaxLines: proto.Int32(20)}},
		{"rerun_failed_jobs", `{"repo":"o/r","run_id":9}`, &ghopsv1.RerunFailedJobsRequest{Repo: "o/r", RunId: 9}},
		{"get_commit", `{"repo":"o/r","sha":"feature/x","page":2,"per_page":100}`,
			&ghopsv1.GetCommitRequest{Repo: "o/r", Sha: "feature/x", Page: proto.Int32(2), PerPage: proto.Int32(100)}},
		{"list_pull_request_reviews", `{"repo":"o/r","prNumber":2,"per_page":5}`, &ghopsv1.ListPullRequestReviewsRequest{Repo: "o/r", PrNumber: 2, PerPage: proto.Int32(5)}},
		{"list_review_threads", `{"repo":"o/r","prNumber":2,"state":"all","page":2}`,
			&ghopsv1.ListReviewThreadsRequest{Repo: "o/r", PrNumber: 2, State: proto.String("all"), Page: proto.Int32(2)}},
		{"create_review", `{"repo":"o/r","prNumber":2,"commit_sha":"abcdef1","event":"request_changes","body":"b","comments":[{"path":"a.go","line":3,"start_line":1,"side":"RIGHT","start_side":"RIGHT","body":"c"}]}`,
			&ghopsv1.CreateReviewRequest{Repo: "o/r", PrNumber: 2, CommitSha: "abcdef1", Event: proto.String("request_changes"), Body: proto.String("b"),
				Comments: []*ghopsv1.ReviewLineComment{{Path: "a.go", Line: 3, StartLine: proto.Int32(1), Side: proto.String("RIGHT"), StartSide: proto.String("RIGHT"), Body: "c"}}}},
		{"submit_review", `{"repo":"o/r","prNumber":2,"review_id":80,"event":"approve"}`, &ghopsv1.SubmitReviewRequest{Repo: "o/r", PrNumber: 2, ReviewId: 80, Event: "approve"}},
		{"delete_pending_review", `{"repo":"o/r","prNumber":2,"review_id":80}`, &ghopsv1.DeletePendingReviewRequest{Repo: "o/r", PrNumber: 2, ReviewId: 80}},
		{"reply_to_review_thread", `{"repo":"o/r","prNumber":2,"thread_id":"PRRT_kwDO1","body":"done"}`,
			&ghopsv1.ReplyToReviewThreadRequest{Repo: "o/r", PrNumber: 2, ThreadId: "PRRT_kwDO1", Body: "done"}},
		{"resolve_review_thread", `{"repo":"o/r","prNumber":2,"thread_id":"PRRT_kwDO1","resolved":false}`,
			&ghopsv1.ResolveReviewThreadRequest{Repo: "o/r", PrNumber: 2, ThreadId: "PRRT_kwDO1", Resolved: proto.Bool(false)}},
		{"request_reviewers", `{"repo":"o/r","prNumber":2,"reviewers":["octocat"],"team_reviewers":["core"],"remove":true}`,
			&ghopsv1.RequestReviewersRequest{Repo: "o/r", PrNumber: 2, Reviewers: []string{"octocat"}, TeamReviewers: []string{"core"}, Remove: proto.Bool(true)}},
		{"list_pull_request_commits", `{"repo":"o/r","prNumber":2,"page":1}`, &ghopsv1.ListPullRequestCommitsRequest{Repo: "o/r", PrNumber: 2, Page: proto.Int32(1)}},
		{"update_pull_request_branch", `{"repo":"o/r","prNumber":2,"expected_head_sha":"0123456789abcdef0123456789abcdef01234567"}`,
			&ghopsv1.UpdatePullRequestBranchRequest{Repo: "o/r", PrNumber: 2, ExpectedHeadSha: "0123456789abcdef0123456789abcdef01234567"}},
		{"list_projects", `{"owner":"octo-org","query":"sprint","include_closed":true,"page":2}`,
			&ghopsv1.ListProjectsRequest{Owner: "octo-org", Query: proto.String("sprint"), IncludeClosed: proto.Bool(true), Page: proto.Int32(2)}},
		{"get_project", `{"project":"octo-org/1"}`, &ghopsv1.GetProjectRequest{Project: "octo-org/1"}},
		{"list_project_items", `{"project":"octo-org/1","filter":"status:Todo iteration:@current","fields":["Status"],"page":1}`,
			&ghopsv1.ListProjectItemsRequest{Project: "octo-org/1", Filter: proto.String("status:Todo iteration:@current"), Fields: []string{"Status"}, Page: proto.Int32(1)}},
		{"add_project_item", `{"project":"octo-org/1","repo":"o/r","number":3,"fields":{"Status":"Todo"}}`,
			&ghopsv1.AddProjectItemRequest{Project: "octo-org/1", Repo: proto.String("o/r"), Number: proto.Int32(3), Fields: map[string]*structpb.Value{"Status": structpb.NewStringValue("Todo")}}},
		{"update_project_items", `{"project":"octo-org/1","item_ids":["PVTI_1"],"fields":{"Sprint":"@next","Estimate":3},"clear":["Due"]}`,
			&ghopsv1.UpdateProjectItemsRequest{Project: "octo-org/1", ItemIds: []string{"PVTI_1"}, Fields: map[string]*structpb.Value{"Sprint": structpb.NewStringValue("@next"), "Estimate": structpb.NewNumberValue(3)}, Clear: []string{"Due"}}},
		{"archive_project_item", `{"project":"octo-org/1","item_id":"PVTI_1","archived":true}`, &ghopsv1.ArchiveProjectItemRequest{Project: "octo-org/1", ItemId: "PVTI_1", Archived: true}},
		{"delete_project_item", `{"project":"octo-org/1","item_id":"PVTI_1"}`, &ghopsv1.DeleteProjectItemRequest{Project: "octo-org/1", ItemId: "PVTI_1"}},
		{"create_project", `{"owner":"octo-org","title":"Plan"}`, &ghopsv1.CreateProjectRequest{Owner: "octo-org", Title: "Plan"}},
		{"create_project_field", `{"project":"octo-org/1","name":"Sprint","type":"iteration","iteration":{"start_date":"2026-12-01","duration_days":14}}`,
			&ghopsv1.CreateProjectFieldRequest{Project: "octo-org/1", Name: "Sprint", Type: "iteration", Iteration: &ghopsv1.IterationSetup{StartDate: "2026-12-01", DurationDays: 14}}},
		{"create_project_status_update", `{"project":"octo-org/1","status":"at_risk","body":"b","target_date":"2026-12-31"}`,
			&ghopsv1.CreateProjectStatusUpdateRequest{Project: "octo-org/1", Status: "at_risk", Body: "b", TargetDate: proto.String("2026-12-31")}},
		{"list_milestones", `{"repo":"o/r","state":"all"}`, &ghopsv1.ListMilestonesRequest{Repo: "o/r", State: proto.String("all")}},
		{"create_milestone", `{"repo":"o/r","title":"v1","due_on":"2026-12-01"}`, &ghopsv1.CreateMilestoneRequest{Repo: "o/r", Title: "v1", DueOn: proto.String("2026-12-01")}},
		{"update_milestone", `{"repo":"o/r","number":1,"state":"closed"}`, &ghopsv1.UpdateMilestoneRequest{Repo: "o/r", Number: 1, State: proto.String("closed")}},
		{"list_releases", `{"repo":"o/r","page":2}`, &ghopsv1.ListReleasesRequest{Repo: "o/r", Page: proto.Int32(2)}},
		{"get_release", `{"repo":"o/r","tag":"v1.0.0"}`, &ghopsv1.GetReleaseRequest{Repo: "o/r", Tag: proto.String("v1.0.0")}},
		{"create_release", `{"repo":"o/r","tag":"v1.1.0","target":"main","name":"One","body":"b","draft":true,"prerelease":false,"generate_notes":true}`,
			&ghopsv1.CreateReleaseRequest{Repo: "o/r", Tag: "v1.1.0", Target: proto.String("main"), Name: proto.String("One"), Body: proto.String("b"),
				Draft: proto.Bool(true), Prerelease: proto.Bool(false), GenerateNotes: proto.Bool(true)}},
		{"update_release", `{"repo":"o/r","release_id":4100001,"draft":false}`, &ghopsv1.UpdateReleaseRequest{Repo: "o/r", ReleaseId: 4100001, Draft: proto.Bool(false)}},
		{"list_tags", `{"repo":"o/r"}`, &ghopsv1.ListTagsRequest{Repo: "o/r"}},
		{"list_repositories", `{"owner":"octo-org","type":"sources","sort":"pushed"}`,
			&ghopsv1.ListRepositoriesRequest{Owner: proto.String("octo-org"), Type: proto.String("sources"), Sort: proto.String("pushed")}},
		{"create_repository", `{"owner":"octo-org","name":"lab","private":true,"auto_init":true}`,
			&ghopsv1.CreateRepositoryRequest{Owner: proto.String("octo-org"), Name: "lab", Private: true, AutoInit: proto.Bool(true)}},
		{"fork_repository", `{"repo":"o/r","owner":"octo-org","name":"r2"}`, &ghopsv1.ForkRepositoryRequest{Repo: "o/r", Owner: proto.String("octo-org"), Name: proto.String("r2")}},
		{"get_me", `{}`, &ghopsv1.GetMeRequest{}},
		{"list_workflows", `{"repo":"o/r","page":2}`, &ghopsv1.ListWorkflowsRequest{Repo: "o/r", Page: proto.Int32(2)}},
		{"list_workflow_runs", `{"repo":"o/r","workflow":"ci.yml","branch":"main","status":"failure","event":"push"}`,
			&ghopsv1.ListWorkflowRunsRequest{Repo: "o/r", Workflow: proto.String("ci.yml"), Branch: proto.String("main"), Status: proto.String("failure"), Event: proto.String("push")}},
		{"get_workflow_run", `{"repo":"o/r","run_id":9}`, &ghopsv1.GetWorkflowRunRequest{Repo: "o/r", RunId: 9}},
		{"run_workflow", `{"repo":"o/r","workflow":"161335","ref":"v1.0","inputs":{"level":"debug"}}`,
			&ghopsv1.RunWorkflowRequest{Repo: "o/r", Workflow: "161335", Ref: "v1.0", Inputs: map[string]string{"level": "debug"}}},
		{"cancel_workflow_run", `{"repo":"o/r","run_id":9}`, &ghopsv1.CancelWorkflowRunRequest{Repo: "o/r", RunId: 9}},
		{"rerun_workflow_run", `{"repo":"o/r","run_id":9}`, &ghopsv1.RerunWorkflowRunRequest{Repo: "o/r", RunId: 9}},
		{"list_labels", `{"repo":"o/r","page":2}`, &ghopsv1.ListLabelsRequest{Repo: "o/r", Page: proto.Int32(2)}},
		{"create_label", `{"repo":"o/r","name":"good first issue","color":"#7057FF","description":"Good for newcomers"}`,
			&ghopsv1.CreateLabelRequest{Repo: "o/r", Name: "good first issue", Color: "#7057FF", Description: proto.String("Good for newcomers")}},
		{"update_label", `{"repo":"o/r","name":"stale","new_name":"inactive","color":"c0ffee"}`,
			&ghopsv1.UpdateLabelRequest{Repo: "o/r", Name: "stale", NewName: proto.String("inactive"), Color: proto.String("c0ffee")}},
		{"label_issue", `{"repo":"o/r","issueNumber":4,"add":["stale"],"remove":["bug"]}`,
			&ghopsv1.LabelIssueRequest{Repo: "o/r", IssueNumber: 4, Add: []string{"stale"}, Remove: []string{"bug"}}},
		{"list_sub_issues", `{"repo":"o/r","issueNumber":9}`, &ghopsv1.ListSubIssuesRequest{Repo: "o/r", IssueNumber: 9}},
		{"add_sub_issue", `{"repo":"o/r","issueNumber":9,"sub_issue":3,"sub_issue_repo":"o/s","replace_parent":true}`,
			&ghopsv1.AddSubIssueRequest{Repo: "o/r", IssueNumber: 9, SubIssue: 3, SubIssueRepo: proto.String("o/s"), ReplaceParent: proto.Bool(true)}},
		{"remove_sub_issue", `{"repo":"o/r","issueNumber":9,"sub_issue":3}`, &ghopsv1.RemoveSubIssueRequest{Repo: "o/r", IssueNumber: 9, SubIssue: 3}},
	}
}

func TestDecodeValid(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range decodeValidCases() {
		seen[tc.tool] = true
		t.Run(tc.tool, func(t *testing.T) {
			msg, vs := tool(t, tc.tool).Decode(json.RawMessage(tc.args))
			if len(vs) != 0 || msg == nil {
				t.Fatalf("Decode(%s) = %v, %s", tc.args, msg, mustMarshal(t, vs))
			}
			if !proto.Equal(msg, tc.want) {
				t.Errorf("Decode(%s)\n got %v\nwant %v", tc.args, msg, tc.want)
			}
		})
	}
	for _, tl := range registry(t).Tools() {
		if !seen[tl.Name] {
			t.Errorf("no valid example for tool %s", tl.Name)
		}
	}
}
