package ghopsv1_test

import (
	"errors"
	"sort"
	"strconv"
	"strings"
	"testing"

	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// violation is what a broken rule must produce: the field path as
// protovalidate prints it and the rule id.
type violation struct {
	field string
	rule  string
}

// ruleCase breaks exactly one rule of the contract (or none, when want is
// empty) at its boundary.
type ruleCase struct {
	name string
	msg  proto.Message
	want []violation
}

const (
	sha7  = "abcdef0"
	sha40 = "0123456789abcdef0123456789abcdef01234567"
)

func n(s string, count int) string { return strings.Repeat(s, count) }

// distinct is count different ids.
func distinct(count int) []string {
	out := make([]string, count)
	for k := range out {
		out[k] = "PVTI_" + strings.Repeat("x", k+1)
	}
	return out
}

// TestContractRules feeds protovalidate, for every tool, a valid request and
// a request breaking each rule of the seed's Validation Rules section at its
// boundary, and checks the violation's field path and rule id.
func TestContractRules(t *testing.T) {
	v, err := protovalidate.New()
	if err != nil {
		t.Fatal(err)
	}
	s := proto.String
	i := proto.Int32
	b := proto.Bool
	file := func(path string) *ghopsv1.FileChange {
		return &ghopsv1.FileChange{Path: path, Content: s("x")}
	}
	files := func(count int) []*ghopsv1.FileChange {
		out := make([]*ghopsv1.FileChange, count)
		for k := range out {
			out[k] = file("f" + strings.Repeat("x", k))
		}
		return out
	}
	// lineComments makes count review line comments.
	lineComments := func(count int) []*ghopsv1.ReviewLineComment {
		out := make([]*ghopsv1.ReviewLineComment, count)
		for k := range out {
			out[k] = &ghopsv1.ReviewLineComment{Path: "main.go", Line: int32(k + 1), Body: "b"}
		}
		return out
	}
	// labels makes count label names of size characters each.
	labels := func(count, size int) []string {
		out := make([]string, count)
		for k := range out {
			out[k] = n("l", size)
		}
		return out
	}
	tools := map[string][]ruleCase{
		"search": {
			{"valid minimal", &ghopsv1.SearchRequest{Query: "q"}, nil},
			{"valid query 256 page 1..100", &ghopsv1.SearchRequest{Query: n("q", 256), Page: i(100), PerPage: i(1)}, nil},
			{"query missing", &ghopsv1.SearchRequest{}, []violation{{"query", "required"}}},
			{"query 257", &ghopsv1.SearchRequest{Query: n("q", 257)}, []violation{{"query", "string.max_len"}}},
			{"query 256 multibyte", &ghopsv1.SearchRequest{Query: n("é", 256)}, nil},
			{"page 0", &ghopsv1.SearchRequest{Query: "q", Page: i(0)}, []violation{{"page", "int32.gte_lte"}}},
			{"page 101", &ghopsv1.SearchRequest{Query: "q", Page: i(101)}, []violation{{"page", "int32.gte_lte"}}},
			{"per_page 0", &ghopsv1.SearchRequest{Query: "q", PerPage: i(0)}, []violation{{"per_page", "int32.gte_lte"}}},
			{"per_page 101", &ghopsv1.SearchRequest{Query: "q", PerPage: i(101)}, []violation{{"per_page", "int32.gte_lte"}}},
		},
		"fetch": {
			{"valid", &ghopsv1.FetchRequest{Repo: "octo-org/hello.world_1"}, nil},
			{"repo missing", &ghopsv1.FetchRequest{}, []violation{{"repo", "required"}}},
			{"repo no slash", &ghopsv1.FetchRequest{Repo: "octo-org"}, []violation{{"repo", "string.pattern"}}},
			{"repo two slashes", &ghopsv1.FetchRequest{Repo: "a/b/c"}, []violation{{"repo", "string.pattern"}}},
			{"repo bad char", &ghopsv1.FetchRequest{Repo: "a/b c"}, []violation{{"repo", "string.pattern"}}},
			{"repo 140", &ghopsv1.FetchRequest{Repo: n("a", 39) + "/" + n("b", 100)}, nil},
			{"repo 141", &ghopsv1.FetchRequest{Repo: n("a", 40) + "/" + n("b", 100)}, []violation{{"repo", "string.max_len"}}},
		},
		"list_directory": {
			{"valid branch", &ghopsv1.ListDirectoryRequest{Repo: "a/b", Path: "/", Branch: s("feature/x")}, nil},
			{"valid ref", &ghopsv1.ListDirectoryRequest{Repo: "a/b", Path: n("p", 500), Ref: s(sha40)}, nil},
			{"path missing", &ghopsv1.ListDirectoryRequest{Repo: "a/b"}, []violation{{"path", "required"}}},
			{"path 501", &ghopsv1.ListDirectoryRequest{Repo: "a/b", Path: n("p", 501)}, []violation{{"path", "string.max_len"}}},
			{"branch and ref", &ghopsv1.ListDirectoryRequest{Repo: "a/b", Path: "/", Branch: s("main"), Ref: s("main")}, []violation{{"", "message.oneof"}}},
			{"branch 100", &ghopsv1.ListDirectoryRequest{Repo: "a/b", Path: "/", Branch: s(n("b", 100))}, nil},
			{"branch 101", &ghopsv1.ListDirectoryRequest{Repo: "a/b", Path: "/", Branch: s(n("b", 101))}, []violation{{"branch", "string.max_len"}}},
			{"branch bad char", &ghopsv1.ListDirectoryRequest{Repo: "a/b", Path: "/", Branch: s("a b")}, []violation{{"branch", "string.pattern"}}},
			{"branch empty", &ghopsv1.ListDirectoryRequest{Repo: "a/b", Path: "/", Branch: s("")}, []violation{{"branch", "string.pattern"}}},
		},
		"read_file": {
			{"valid", &ghopsv1.ReadFileRequest{Repo: "a/b", Path: "README.md"}, nil},
			{"repo missing", &ghopsv1.ReadFileRequest{Path: "x"}, []violation{{"repo", "required"}}},
			{"path missing", &ghopsv1.ReadFileRequest{Repo: "a/b"}, []violation{{"path", "required"}}},
			{"path 501", &ghopsv1.ReadFileRequest{Repo: "a/b", Path: n("p", 501)}, []violation{{"path", "string.max_len"}}},
			{"branch and ref", &ghopsv1.ReadFileRequest{Repo: "a/b", Path: "x", Branch: s("main"), Ref: s("v1")}, []violation{{"", "message.oneof"}}},
			{"ref bad char", &ghopsv1.ReadFileRequest{Repo: "a/b", Path: "x", Ref: s("v1~1")}, []violation{{"ref", "string.pattern"}}},
		},
		"get_tree": {
			{"valid", &ghopsv1.GetTreeRequest{Repo: "a/b", Ref: s("v1.0")}, nil},
			{"repo missing", &ghopsv1.GetTreeRequest{}, []violation{{"repo", "required"}}},
			{"branch and ref", &ghopsv1.GetTreeRequest{Repo: "a/b", Branch: s("main"), Ref: s("main")}, []violation{{"", "message.oneof"}}},
		},
		"get_commits": {
			{"valid", &ghopsv1.GetCommitsRequest{Repo: "a/b", Branch: s("main"), Sha: s(sha7), Page: i(1), PerPage: i(100)}, nil},
			{"sha 40", &ghopsv1.GetCommitsRequest{Repo: "a/b", Sha: s(sha40)}, nil},
			{"sha 6", &ghopsv1.GetCommitsRequest{Repo: "a/b", Sha: s("abcdef")}, []violation{{"sha", "string.pattern"}}},
			{"sha 41", &ghopsv1.GetCommitsRequest{Repo: "a/b", Sha: s(sha40 + "8")}, []violation{{"sha", "string.pattern"}}},
			{"sha uppercase", &ghopsv1.GetCommitsRequest{Repo: "a/b", Sha: s("ABCDEF0")}, []violation{{"sha", "string.pattern"}}},
			{"page 0", &ghopsv1.GetCommitsRequest{Repo: "a/b", Page: i(0)}, []violation{{"page", "int32.gte_lte"}}},
			{"per_page 101", &ghopsv1.GetCommitsRequest{Repo: "a/b", PerPage: i(101)}, []violation{{"per_page", "int32.gte_lte"}}},
			{"branch 101", &ghopsv1.GetCommitsRequest{Repo: "a/b", Branch: s(n("b", 101))}, []violation{{"branch", "string.max_len"}}},
		},
		"get_branches": {
			{"valid", &ghopsv1.GetBranchesRequest{Repo: "a/b", Page: i(2), PerPage: i(50)}, nil},
			{"repo missing", &ghopsv1.GetBranchesRequest{}, []violation{{"repo", "required"}}},
			{"page 101", &ghopsv1.GetBranchesRequest{Repo: "a/b", Page: i(101)}, []violation{{"page", "int32.gte_lte"}}},
			{"per_page 0", &ghopsv1.GetBranchesRequest{Repo: "a/b", PerPage: i(0)}, []violation{{"per_page", "int32.gte_lte"}}},
		},
		"list_pull_requests": {
			{"valid all", &ghopsv1.ListPullRequestsRequest{Repo: "a/b", State: s("all")}, nil},
			{"valid open", &ghopsv1.ListPullRequestsRequest{Repo: "a/b", State: s("open")}, nil},
			{"valid closed", &ghopsv1.ListPullRequestsRequest{Repo: "a/b", State: s("closed")}, nil},
			{"state merged", &ghopsv1.ListPullRequestsRequest{Repo: "a/b", State: s("merged")}, []violation{{"state", "string.in"}}},
			{"state Open", &ghopsv1.ListPullRequestsRequest{Repo: "a/b", State: s("Open")}, []violation{{"state", "string.in"}}},
			{"page 0", &ghopsv1.ListPullRequestsRequest{Repo: "a/b", Page: i(0)}, []violation{{"page", "int32.gte_lte"}}},
		},
		"get_pr_mergeability": {
			{"valid", &ghopsv1.GetPrMergeabilityRequest{Repo: "a/b", PrNumber: 1}, nil},
			{"prNumber missing", &ghopsv1.GetPrMergeabilityRequest{Repo: "a/b"}, []violation{{"pr_number", "required"}}},
			{"prNumber -1", &ghopsv1.GetPrMergeabilityRequest{Repo: "a/b", PrNumber: -1}, []violation{{"pr_number", "int32.gte"}}},
		},
		"get_checks_for_sha": {
			{"valid", &ghopsv1.GetChecksForShaRequest{Repo: "a/b", Sha: sha40}, nil},
			{"sha missing", &ghopsv1.GetChecksForShaRequest{Repo: "a/b"}, []violation{{"sha", "required"}}},
			{"sha 6", &ghopsv1.GetChecksForShaRequest{Repo: "a/b", Sha: "abcdef"}, []violation{{"sha", "string.pattern"}}},
			{"sha 41", &ghopsv1.GetChecksForShaRequest{Repo: "a/b", Sha: sha40 + "1"}, []violation{{"sha", "string.pattern"}}},
			{"sha not hex", &ghopsv1.GetChecksForShaRequest{Repo: "a/b", Sha: "abcdefg"}, []violation{{"sha", "string.pattern"}}},
		},
		"create_pull_request": {
			{"valid", &ghopsv1.CreatePullRequestRequest{Repo: "a/b", Title: n("t", 256), Head: "feature/x", Base: "main", Body: s(n("b", 10000)), Draft: b(true)}, nil},
			{"valid empty body", &ghopsv1.CreatePullRequestRequest{Repo: "a/b", Title: "t", Head: "h", Base: "main", Body: s("")}, nil},
			{"title missing", &ghopsv1.CreatePullRequestRequest{Repo: "a/b", Head: "h", Base: "main"}, []violation{{"title", "required"}}},
			{"title 257", &ghopsv1.CreatePullRequestRequest{Repo: "a/b", Title: n("t", 257), Head: "h", Base: "main"}, []violation{{"title", "string.max_len"}}},
			{"head missing", &ghopsv1.CreatePullRequestRequest{Repo: "a/b", Title: "t", Base: "main"}, []violation{{"head", "required"}}},
			{"base missing", &ghopsv1.CreatePullRequestRequest{Repo: "a/b", Title: "t", Head: "h"}, []violation{{"base", "required"}}},
			{"head bad char", &ghopsv1.CreatePullRequestRequest{Repo: "a/b", Title: "t", Head: "me:h", Base: "main"}, []violation{{"head", "string.pattern"}}},
			{"base 101", &ghopsv1.CreatePullRequestRequest{Repo: "a/b", Title: "t", Head: "h", Base: n("b", 101)}, []violation{{"base", "string.max_len"}}},
			{"body 10001", &ghopsv1.CreatePullRequestRequest{Repo: "a/b", Title: "t", Head: "h", Base: "main", Body: s(n("b", 10001))}, []violation{{"body", "string.max_len"}}},
		},
		"update_pull_request": {
			{"valid", &ghopsv1.UpdatePullRequestRequest{Repo: "a/b", PrNumber: 3, Title: s("t"), Body: s(""), State: s("closed"), Draft: b(false)}, nil},
			{"prNumber 0", &ghopsv1.UpdatePullRequestRequest{Repo: "a/b"}, []violation{{"pr_number", "required"}}},
			{"title empty", &ghopsv1.UpdatePullRequestRequest{Repo: "a/b", PrNumber: 1, Title: s("")}, []violation{{"title", "string.min_len"}}},
			{"title 257", &ghopsv1.UpdatePullRequestRequest{Repo: "a/b", PrNumber: 1, Title: s(n("t", 257))}, []violation{{"title", "string.max_len"}}},
			{"body 10001", &ghopsv1.UpdatePullRequestRequest{Repo: "a/b", PrNumber: 1, Body: s(n("b", 10001))}, []violation{{"body", "string.max_len"}}},
			{"state all", &ghopsv1.UpdatePullRequestRequest{Repo: "a/b", PrNumber: 1, State: s("all")}, []violation{{"state", "string.in"}}},
		},
		"merge_pull_request": {
			{"valid", &ghopsv1.MergePullRequestRequest{Repo: "a/b", PrNumber: 1, MergeMethod: s("squash"), CommitTitle: s(n("t", 256)), CommitMessage: s(n("m", 10000)), Sha: s(sha40), DeleteBranch: b(true)}, nil},
			{"valid rebase empty title", &ghopsv1.MergePullRequestRequest{Repo: "a/b", PrNumber: 1, MergeMethod: s("rebase"), CommitTitle: s("")}, nil},
			{"merge_method fast-forward", &ghopsv1.MergePullRequestRequest{Repo: "a/b", PrNumber: 1, MergeMethod: s("fast-forward")}, []violation{{"merge_method", "string.in"}}},
			{"commit_title 257", &ghopsv1.MergePullRequestRequest{Repo: "a/b", PrNumber: 1, CommitTitle: s(n("t", 257))}, []violation{{"commit_title", "string.max_len"}}},
			{"commit_message 10001", &ghopsv1.MergePullRequestRequest{Repo: "a/b", PrNumber: 1, CommitMessage: s(n("m", 10001))}, []violation{{"commit_message", "string.max_len"}}},
			{"sha 6", &ghopsv1.MergePullRequestRequest{Repo: "a/b", PrNumber: 1, Sha: s("abcdef")}, []violation{{"sha", "string.pattern"}}},
			{"sha 41", &ghopsv1.MergePullRequestRequest{Repo: "a/b", PrNumber: 1, Sha: s(sha40 + "a")}, []violation{{"sha", "string.pattern"}}},
			{"repo missing", &ghopsv1.MergePullRequestRequest{PrNumber: 1}, []violation{{"repo", "required"}}},
		},
		"commit_files": {
			{"valid 1 file", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m", Files: files(1)}, nil},
			{"valid 20 files", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: n("m", 256), Files: files(20)}, nil},
			{"valid empty content base64", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{{Path: n("p", 500), Content: s("aGk="), Encoding: s("base64")}, {Path: "e", Content: s(""), Encoding: s("utf8")}}}, nil},
			{"files 0", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m"}, []violation{{"files", "repeated.min_items"}}},
			{"files 21", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m", Files: files(21)}, []violation{{"files", "repeated.max_items"}}},
			{"branch missing", &ghopsv1.CommitFilesRequest{Repo: "a/b", Message: "m", Files: files(1)}, []violation{{"branch", "required"}}},
			{"message missing", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Files: files(1)}, []violation{{"message", "required"}}},
			{"message 257", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: n("m", 257), Files: files(1)}, []violation{{"message", "string.max_len"}}},
			{"file path missing", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{{Content: s("x")}}}, []violation{{"files[0].path", "required"}}},
			{"file path 501", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{file("a"), file(n("p", 501))}}, []violation{{"files[1].path", "string.max_len"}}},
			{"file content missing", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{{Path: "a"}}}, []violation{{"files[0].content", "required"}}},
			{"file encoding utf16", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{{Path: "a", Content: s("x"), Encoding: s("utf16")}}}, []violation{{"files[0].encoding", "string.in"}}},
			{"file base64 invalid", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{{Path: "a", Content: s("not base64!"), Encoding: s("base64")}}}, []violation{{"files[0]", "file.content_base64"}}},
			{"file path dotfiles", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{file(".gitignore"), file(".github/ci.yml"), file("a..b/..."), file("x.git")}}, nil},
			{"file path empty segment", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{file("docs//x.txt")}}, []violation{{"files[0].path", "string.pattern"}}},
			{"file path leading slash", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{file("/x")}}, []violation{{"files[0].path", "string.pattern"}}},
			{"file path trailing slash", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{file("x/")}}, []violation{{"files[0].path", "string.pattern"}}},
			{"file path dot", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{file("./x")}}, []violation{{"files[0].path", "string.pattern"}}},
			{"file path dot dot", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{file("a/../x")}}, []violation{{"files[0].path", "string.pattern"}}},
			{"file path dot git", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{file(".git/config")}}, []violation{{"files[0].path", "string.pattern"}}},
			{"file path control character", &ghopsv1.CommitFilesRequest{Repo: "a/b", Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{file("a\nb")}}, []violation{{"files[0].path", "string.pattern"}}},
		},
		"apply_patch": {
			{"valid", &ghopsv1.ApplyPatchRequest{Repo: "a/b", Branch: "main", Message: "m", Patch: "--- a/x\n+++ b/x\n"}, nil},
			{"valid with sha", &ghopsv1.ApplyPatchRequest{Repo: "a/b", Branch: "main", Message: "m", Patch: "p", Sha: s(n("a", 40))}, nil},
			{"patch missing", &ghopsv1.ApplyPatchRequest{Repo: "a/b", Branch: "main", Message: "m"}, []violation{{"patch", "required"}}},
			{"patch over 1 MiB", &ghopsv1.ApplyPatchRequest{Repo: "a/b", Branch: "main", Message: "m", Patch: n("p", 1<<20+1)}, []violation{{"patch", "string.max_len"}}},
			{"sha short", &ghopsv1.ApplyPatchRequest{Repo: "a/b", Branch: "main", Message: "m", Patch: "p", Sha: s("abc1234")}, []violation{{"sha", "string.pattern"}}},
			{"branch missing", &ghopsv1.ApplyPatchRequest{Repo: "a/b", Message: "m", Patch: "p"}, []violation{{"branch", "required"}}},
			{"message missing", &ghopsv1.ApplyPatchRequest{Repo: "a/b", Branch: "main", Patch: "p"}, []violation{{"message", "required"}}},
		},
		"create_branch": {
			{"valid minimal", &ghopsv1.CreateBranchRequest{Repo: "a/b", Branch: "feature/x"}, nil},
			{"valid from sha", &ghopsv1.CreateBranchRequest{Repo: "a/b", Branch: n("b", 100), From: s(sha7)}, nil},
			{"valid from tag", &ghopsv1.CreateBranchRequest{Repo: "a/b", Branch: "x", From: s("v1.0.0")}, nil},
			{"repo missing", &ghopsv1.CreateBranchRequest{Branch: "x"}, []violation{{"repo", "required"}}},
			{"branch missing", &ghopsv1.CreateBranchRequest{Repo: "a/b"}, []violation{{"branch", "required"}}},
			{"branch 101", &ghopsv1.CreateBranchRequest{Repo: "a/b", Branch: n("b", 101)}, []violation{{"branch", "string.max_len"}}},
			{"branch dot dot", &ghopsv1.CreateBranchRequest{Repo: "a/b", Branch: "a..b"}, []violation{{"branch", "ref_name.dot_dot"}}},
			{"branch lock", &ghopsv1.CreateBranchRequest{Repo: "a/b", Branch: "x.lock"}, []violation{{"branch", "ref_name.lock_suffix"}}},
			{"from bad char", &ghopsv1.CreateBranchRequest{Repo: "a/b", Branch: "x", From: s("main~1")}, []violation{{"from", "string.pattern"}}},
			{"from dot segment", &ghopsv1.CreateBranchRequest{Repo: "a/b", Branch: "x", From: s("a/.b")}, []violation{{"from", "ref_name.dot_segment"}}},
			{"repo dot dot", &ghopsv1.CreateBranchRequest{Repo: "../b", Branch: "x"}, []violation{{"repo", "repo_name.dot_segment"}}},
		},
		"get_pull_request": {
			{"valid", &ghopsv1.GetPullRequestRequest{Repo: "a/b", PrNumber: 1}, nil},
			{"prNumber missing", &ghopsv1.GetPullRequestRequest{Repo: "a/b"}, []violation{{"pr_number", "required"}}},
			{"prNumber -1", &ghopsv1.GetPullRequestRequest{Repo: "a/b", PrNumber: -1}, []violation{{"pr_number", "int32.gte"}}},
			{"repo missing", &ghopsv1.GetPullRequestRequest{PrNumber: 1}, []violation{{"repo", "required"}}},
		},
		"list_pull_request_files": {
			{"valid", &ghopsv1.ListPullRequestFilesRequest{Repo: "a/b", PrNumber: 2, Page: i(100), PerPage: i(1)}, nil},
			{"prNumber missing", &ghopsv1.ListPullRequestFilesRequest{Repo: "a/b"}, []violation{{"pr_number", "required"}}},
			{"page 0", &ghopsv1.ListPullRequestFilesRequest{Repo: "a/b", PrNumber: 1, Page: i(0)}, []violation{{"page", "int32.gte_lte"}}},
			{"per_page 101", &ghopsv1.ListPullRequestFilesRequest{Repo: "a/b", PrNumber: 1, PerPage: i(101)}, []violation{{"per_page", "int32.gte_lte"}}},
		},
		"compare_refs": {
			{"valid", &ghopsv1.CompareRefsRequest{Repo: "a/b", Base: "main", Head: sha40, Page: i(1), PerPage: i(100)}, nil},
			{"base missing", &ghopsv1.CompareRefsRequest{Repo: "a/b", Head: "x"}, []violation{{"base", "required"}}},
			{"head missing", &ghopsv1.CompareRefsRequest{Repo: "a/b", Base: "main"}, []violation{{"head", "required"}}},
			{"head with owner", &ghopsv1.CompareRefsRequest{Repo: "a/b", Base: "main", Head: "me:x"}, []violation{{"head", "string.pattern"}}},
			{"base at brace", &ghopsv1.CompareRefsRequest{Repo: "a/b", Base: "main@{1}", Head: "x"}, []violation{{"base", "ref_name.at_brace"}, {"base", "string.pattern"}}},
			{"base trailing slash", &ghopsv1.CompareRefsRequest{Repo: "a/b", Base: "main/", Head: "x"}, []violation{{"base", "ref_name.slash_edge"}}},
			{"per_page 0", &ghopsv1.CompareRefsRequest{Repo: "a/b", Base: "a", Head: "b", PerPage: i(0)}, []violation{{"per_page", "int32.gte_lte"}}},
		},
		"list_issues": {
			{"valid minimal", &ghopsv1.ListIssuesRequest{Repo: "a/b"}, nil},
			{"valid all filters", &ghopsv1.ListIssuesRequest{Repo: "a/b", State: s("all"), Labels: labels(100, 100), Assignee: s("*"), Since: s("2024-05-01T00:00:00Z"), Page: i(1), PerPage: i(100)}, nil},
			{"valid since offset", &ghopsv1.ListIssuesRequest{Repo: "a/b", Since: s("2024-05-01T10:00:00.123+02:00"), Assignee: s("none")}, nil},
			{"state merged", &ghopsv1.ListIssuesRequest{Repo: "a/b", State: s("merged")}, []violation{{"state", "string.in"}}},
			{"labels 101", &ghopsv1.ListIssuesRequest{Repo: "a/b", Labels: labels(101, 1)}, []violation{{"labels", "repeated.max_items"}}},
			{"label 101 chars", &ghopsv1.ListIssuesRequest{Repo: "a/b", Labels: []string{"bug", n("l", 101)}}, []violation{{"labels[1]", "string.max_len"}}},
			{"label empty", &ghopsv1.ListIssuesRequest{Repo: "a/b", Labels: []string{""}}, []violation{{"labels[0]", "string.min_len"}}},
			{"assignee 40", &ghopsv1.ListIssuesRequest{Repo: "a/b", Assignee: s(n("a", 40))}, []violation{{"assignee", "string.max_len"}}},
			{"assignee bad char", &ghopsv1.ListIssuesRequest{Repo: "a/b", Assignee: s("a b")}, []violation{{"assignee", "string.pattern"}}},
			{"since date only", &ghopsv1.ListIssuesRequest{Repo: "a/b", Since: s("2024-05-01")}, []violation{{"since", "string.pattern"}}},
			{"page 101", &ghopsv1.ListIssuesRequest{Repo: "a/b", Page: i(101)}, []violation{{"page", "int32.gte_lte"}}},
			{"valid milestone number", &ghopsv1.ListIssuesRequest{Repo: "a/b", Milestone: s("12")}, nil},
			{"valid milestone none", &ghopsv1.ListIssuesRequest{Repo: "a/b", Milestone: s("none")}, nil},
			{"valid any milestone", &ghopsv1.ListIssuesRequest{Repo: "a/b", Milestone: s("*")}, nil},
			{"milestone by title", &ghopsv1.ListIssuesRequest{Repo: "a/b", Milestone: s("v1.0")}, []violation{{"milestone", "string.pattern"}}},
			{"milestone 0", &ghopsv1.ListIssuesRequest{Repo: "a/b", Milestone: s("0")}, []violation{{"milestone", "string.pattern"}}},
		},
		"get_issue": {
			{"valid", &ghopsv1.GetIssueRequest{Repo: "a/b", IssueNumber: 1}, nil},
			{"issueNumber missing", &ghopsv1.GetIssueRequest{Repo: "a/b"}, []violation{{"issue_number", "required"}}},
			{"issueNumber -1", &ghopsv1.GetIssueRequest{Repo: "a/b", IssueNumber: -1}, []violation{{"issue_number", "int32.gte"}}},
		},
		"list_issue_comments": {
			{"valid", &ghopsv1.ListIssueCommentsRequest{Repo: "a/b", IssueNumber: 3, Page: i(2), PerPage: i(100)}, nil},
			{"issueNumber missing", &ghopsv1.ListIssueCommentsRequest{Repo: "a/b"}, []violation{{"issue_number", "required"}}},
			{"per_page 101", &ghopsv1.ListIssueCommentsRequest{Repo: "a/b", IssueNumber: 1, PerPage: i(101)}, []violation{{"per_page", "int32.gte_lte"}}},
		},
		"search_issues": {
			{"valid", &ghopsv1.SearchIssuesRequest{Query: n("q", 256), Page: i(1), PerPage: i(100)}, nil},
			{"query missing", &ghopsv1.SearchIssuesRequest{}, []violation{{"query", "required"}}},
			{"query 257", &ghopsv1.SearchIssuesRequest{Query: n("q", 257)}, []violation{{"query", "string.max_len"}}},
			{"page 0", &ghopsv1.SearchIssuesRequest{Query: "q", Page: i(0)}, []violation{{"page", "int32.gte_lte"}}},
		},
		"create_issue": {
			{"valid minimal", &ghopsv1.CreateIssueRequest{Repo: "a/b", Title: "t"}, nil},
			{"valid full", &ghopsv1.CreateIssueRequest{Repo: "a/b", Title: n("t", 256), Body: s(n("b", 65536)), Labels: labels(100, 100), Assignees: labels(100, 1), Milestone: i(1)}, nil},
			{"title missing", &ghopsv1.CreateIssueRequest{Repo: "a/b"}, []violation{{"title", "required"}}},
			{"title 257", &ghopsv1.CreateIssueRequest{Repo: "a/b", Title: n("t", 257)}, []violation{{"title", "string.max_len"}}},
			{"body 65537", &ghopsv1.CreateIssueRequest{Repo: "a/b", Title: "t", Body: s(n("b", 65537))}, []violation{{"body", "string.max_len"}}},
			{"assignees 101", &ghopsv1.CreateIssueRequest{Repo: "a/b", Title: "t", Assignees: labels(101, 1)}, []violation{{"assignees", "repeated.max_items"}}},
			{"label 101 chars", &ghopsv1.CreateIssueRequest{Repo: "a/b", Title: "t", Labels: []string{n("l", 101)}}, []violation{{"labels[0]", "string.max_len"}}},
			{"milestone 0", &ghopsv1.CreateIssueRequest{Repo: "a/b", Title: "t", Milestone: i(0)}, []violation{{"milestone", "int32.gte"}}},
		},
		"update_issue": {
			{"valid", &ghopsv1.UpdateIssueRequest{Repo: "a/b", IssueNumber: 1, Title: s("t"), Body: s(""), State: s("closed"), StateReason: s("not_planned"), Labels: []string{"bug"}, Assignees: []string{"octocat"}, Milestone: i(2)}, nil},
			{"valid duplicate", &ghopsv1.UpdateIssueRequest{Repo: "a/b", IssueNumber: 1, State: s("closed"), StateReason: s("duplicate")}, nil},
			{"issueNumber missing", &ghopsv1.UpdateIssueRequest{Repo: "a/b"}, []violation{{"issue_number", "required"}}},
			{"title empty", &ghopsv1.UpdateIssueRequest{Repo: "a/b", IssueNumber: 1, Title: s("")}, []violation{{"title", "string.min_len"}}},
			{"body 65537", &ghopsv1.UpdateIssueRequest{Repo: "a/b", IssueNumber: 1, Body: s(n("b", 65537))}, []violation{{"body", "string.max_len"}}},
			{"state all", &ghopsv1.UpdateIssueRequest{Repo: "a/b", IssueNumber: 1, State: s("all")}, []violation{{"state", "string.in"}}},
			{"state_reason wontfix", &ghopsv1.UpdateIssueRequest{Repo: "a/b", IssueNumber: 1, StateReason: s("wontfix")}, []violation{{"state_reason", "string.in"}}},
			{"labels 101", &ghopsv1.UpdateIssueRequest{Repo: "a/b", IssueNumber: 1, Labels: labels(101, 1)}, []violation{{"labels", "repeated.max_items"}}},
		},
		"add_issue_comment": {
			{"valid", &ghopsv1.AddIssueCommentRequest{Repo: "a/b", IssueNumber: 1, Body: n("b", 65536)}, nil},
			{"body missing", &ghopsv1.AddIssueCommentRequest{Repo: "a/b", IssueNumber: 1}, []violation{{"body", "required"}}},
			{"body 65537", &ghopsv1.AddIssueCommentRequest{Repo: "a/b", IssueNumber: 1, Body: n("b", 65537)}, []violation{{"body", "string.max_len"}}},
			{"issueNumber missing", &ghopsv1.AddIssueCommentRequest{Repo: "a/b", Body: "b"}, []violation{{"issue_number", "required"}}},
		},
		"list_pull_request_comments": {
			{"valid", &ghopsv1.ListPullRequestCommentsRequest{Repo: "a/b", PrNumber: 3, Page: i(2), PerPage: i(100)}, nil},
			{"prNumber missing", &ghopsv1.ListPullRequestCommentsRequest{Repo: "a/b"}, []violation{{"pr_number", "required"}}},
			{"per_page 101", &ghopsv1.ListPullRequestCommentsRequest{Repo: "a/b", PrNumber: 1, PerPage: i(101)}, []violation{{"per_page", "int32.gte_lte"}}},
		},
		"add_pull_request_comment": {
			{"valid", &ghopsv1.AddPullRequestCommentRequest{Repo: "a/b", PrNumber: 1, Body: n("b", 65536)}, nil},
			{"body missing", &ghopsv1.AddPullRequestCommentRequest{Repo: "a/b", PrNumber: 1}, []violation{{"body", "required"}}},
			{"body 65537", &ghopsv1.AddPullRequestCommentRequest{Repo: "a/b", PrNumber: 1, Body: n("b", 65537)}, []violation{{"body", "string.max_len"}}},
			{"prNumber missing", &ghopsv1.AddPullRequestCommentRequest{Repo: "a/b", Body: "b"}, []violation{{"pr_number", "required"}}},
		},
		"get_commit": {
			{"valid sha", &ghopsv1.GetCommitRequest{Repo: "a/b", Sha: sha40, Page: i(2), PerPage: i(100)}, nil},
			{"valid branch", &ghopsv1.GetCommitRequest{Repo: "a/b", Sha: "feature/x"}, nil},
			{"sha missing", &ghopsv1.GetCommitRequest{Repo: "a/b"}, []violation{{"sha", "required"}}},
			{"sha with space", &ghopsv1.GetCommitRequest{Repo: "a/b", Sha: "not a sha"}, []violation{{"sha", "string.pattern"}}},
			{"sha at brace", &ghopsv1.GetCommitRequest{Repo: "a/b", Sha: "main@{1}"}, []violation{{"sha", "ref_name.at_brace"}, {"sha", "string.pattern"}}},
			{"per_page 101", &ghopsv1.GetCommitRequest{Repo: "a/b", Sha: "main", PerPage: i(101)}, []violation{{"per_page", "int32.gte_lte"}}},
			{"repo missing", &ghopsv1.GetCommitRequest{Sha: "main"}, []violation{{"repo", "required"}}},
		},
		"list_pull_request_reviews": {
			{"valid", &ghopsv1.ListPullRequestReviewsRequest{Repo: "a/b", PrNumber: 1, Page: i(100), PerPage: i(100)}, nil},
			{"prNumber 0", &ghopsv1.ListPullRequestReviewsRequest{Repo: "a/b"}, []violation{{"pr_number", "required"}}},
			{"page 101", &ghopsv1.ListPullRequestReviewsRequest{Repo: "a/b", PrNumber: 1, Page: i(101)}, []violation{{"page", "int32.gte_lte"}}},
			{"repo no slash", &ghopsv1.ListPullRequestReviewsRequest{Repo: "ab", PrNumber: 1}, []violation{{"repo", "string.pattern"}}},
		},
		"list_review_threads": {
			{"valid", &ghopsv1.ListReviewThreadsRequest{Repo: "a/b", PrNumber: 1, State: s("all"), Page: i(20)}, nil},
			{"state open", &ghopsv1.ListReviewThreadsRequest{Repo: "a/b", PrNumber: 1, State: s("open")}, []violation{{"state", "string.in"}}},
			{"page 21", &ghopsv1.ListReviewThreadsRequest{Repo: "a/b", PrNumber: 1, Page: i(21)}, []violation{{"page", "int32.gte_lte"}}},
			{"prNumber missing", &ghopsv1.ListReviewThreadsRequest{Repo: "a/b"}, []violation{{"pr_number", "required"}}},
		},
		"create_review": {
			{"valid pending", &ghopsv1.CreateReviewRequest{Repo: "a/b", PrNumber: 1, CommitSha: sha7}, nil},
			{"valid with 50 comments", &ghopsv1.CreateReviewRequest{Repo: "a/b", PrNumber: 1, CommitSha: sha40, Event: s("request_changes"), Body: s(n("b", 65536)), Comments: lineComments(50)}, nil},
			{"comments 51", &ghopsv1.CreateReviewRequest{Repo: "a/b", PrNumber: 1, CommitSha: sha40, Comments: lineComments(51)}, []violation{{"comments", "repeated.max_items"}}},
			{"commit_sha missing", &ghopsv1.CreateReviewRequest{Repo: "a/b", PrNumber: 1}, []violation{{"commit_sha", "required"}}},
			{"commit_sha 6", &ghopsv1.CreateReviewRequest{Repo: "a/b", PrNumber: 1, CommitSha: "abcdef"}, []violation{{"commit_sha", "string.pattern"}}},
			{"event APPROVE", &ghopsv1.CreateReviewRequest{Repo: "a/b", PrNumber: 1, CommitSha: sha7, Event: s("APPROVE")}, []violation{{"event", "string.in"}}},
			{"body 65537", &ghopsv1.CreateReviewRequest{Repo: "a/b", PrNumber: 1, CommitSha: sha7, Body: s(n("b", 65537))}, []violation{{"body", "string.max_len"}}},
			{"comment line 0", &ghopsv1.CreateReviewRequest{Repo: "a/b", PrNumber: 1, CommitSha: sha7, Comments: []*ghopsv1.ReviewLineComment{{Path: "p", Body: "b"}}}, []violation{{"comments[0].line", "required"}}},
			{"comment path missing", &ghopsv1.CreateReviewRequest{Repo: "a/b", PrNumber: 1, CommitSha: sha7, Comments: []*ghopsv1.ReviewLineComment{{Line: 1, Body: "b"}}}, []violation{{"comments[0].path", "required"}}},
			{"comment side middle", &ghopsv1.CreateReviewRequest{Repo: "a/b", PrNumber: 1, CommitSha: sha7, Comments: []*ghopsv1.ReviewLineComment{{Path: "p", Line: 1, Body: "b", Side: s("MIDDLE")}}}, []violation{{"comments[0].side", "string.in"}}},
			{"comment body empty", &ghopsv1.CreateReviewRequest{Repo: "a/b", PrNumber: 1, CommitSha: sha7, Comments: []*ghopsv1.ReviewLineComment{{Path: "p", Line: 1}}}, []violation{{"comments[0].body", "required"}}},
		},
		"submit_review": {
			{"valid", &ghopsv1.SubmitReviewRequest{Repo: "a/b", PrNumber: 1, ReviewId: 1 << 40, Event: "approve", Body: s("ok")}, nil},
			{"event missing", &ghopsv1.SubmitReviewRequest{Repo: "a/b", PrNumber: 1, ReviewId: 1}, []violation{{"event", "required"}}},
			{"event pending", &ghopsv1.SubmitReviewRequest{Repo: "a/b", PrNumber: 1, ReviewId: 1, Event: "pending"}, []violation{{"event", "string.in"}}},
			{"review_id missing", &ghopsv1.SubmitReviewRequest{Repo: "a/b", PrNumber: 1, Event: "comment"}, []violation{{"review_id", "required"}}},
		},
		"delete_pending_review": {
			{"valid", &ghopsv1.DeletePendingReviewRequest{Repo: "a/b", PrNumber: 1, ReviewId: 7}, nil},
			{"review_id -1", &ghopsv1.DeletePendingReviewRequest{Repo: "a/b", PrNumber: 1, ReviewId: -1}, []violation{{"review_id", "int64.gte"}}},
		},
		"reply_to_review_thread": {
			{"valid", &ghopsv1.ReplyToReviewThreadRequest{Repo: "a/b", PrNumber: 1, ThreadId: "PRRT_kwDOAbc-_=", Body: n("b", 65536)}, nil},
			{"thread_id missing", &ghopsv1.ReplyToReviewThreadRequest{Repo: "a/b", PrNumber: 1, Body: "b"}, []violation{{"thread_id", "required"}}},
			{"thread_id with slash", &ghopsv1.ReplyToReviewThreadRequest{Repo: "a/b", PrNumber: 1, ThreadId: "PRRT/x", Body: "b"}, []violation{{"thread_id", "string.pattern"}}},
			{"thread_id 101", &ghopsv1.ReplyToReviewThreadRequest{Repo: "a/b", PrNumber: 1, ThreadId: n("T", 101), Body: "b"}, []violation{{"thread_id", "string.max_len"}}},
			{"body missing", &ghopsv1.ReplyToReviewThreadRequest{Repo: "a/b", PrNumber: 1, ThreadId: "T"}, []violation{{"body", "required"}}},
		},
		"resolve_review_thread": {
			{"valid resolve", &ghopsv1.ResolveReviewThreadRequest{Repo: "a/b", PrNumber: 1, ThreadId: "T", Resolved: b(true)}, nil},
			{"valid unresolve", &ghopsv1.ResolveReviewThreadRequest{Repo: "a/b", PrNumber: 1, ThreadId: "T", Resolved: b(false)}, nil},
			{"resolved missing", &ghopsv1.ResolveReviewThreadRequest{Repo: "a/b", PrNumber: 1, ThreadId: "T"}, []violation{{"resolved", "required"}}},
		},
		"request_reviewers": {
			{"valid", &ghopsv1.RequestReviewersRequest{Repo: "a/b", PrNumber: 1, Reviewers: []string{"octocat", "a-b"}, TeamReviewers: []string{"core.team"}, Remove: b(true)}, nil},
			{"reviewer with slash", &ghopsv1.RequestReviewersRequest{Repo: "a/b", PrNumber: 1, Reviewers: []string{"a/b"}}, []violation{{"reviewers[0]", "string.pattern"}}},
			{"reviewers 16", &ghopsv1.RequestReviewersRequest{Repo: "a/b", PrNumber: 1, Reviewers: labels(16, 3)}, []violation{{"reviewers", "repeated.max_items"}}},
		},
		"list_pull_request_commits": {
			{"valid", &ghopsv1.ListPullRequestCommitsRequest{Repo: "a/b", PrNumber: 1, PerPage: i(1)}, nil},
			{"per_page 0", &ghopsv1.ListPullRequestCommitsRequest{Repo: "a/b", PrNumber: 1, PerPage: i(0)}, []violation{{"per_page", "int32.gte_lte"}}},
		},
		"update_pull_request_branch": {
			{"valid", &ghopsv1.UpdatePullRequestBranchRequest{Repo: "a/b", PrNumber: 1, ExpectedHeadSha: sha40}, nil},
			{"expected_head_sha 7", &ghopsv1.UpdatePullRequestBranchRequest{Repo: "a/b", PrNumber: 1, ExpectedHeadSha: sha7}, []violation{{"expected_head_sha", "string.pattern"}}},
			{"expected_head_sha missing", &ghopsv1.UpdatePullRequestBranchRequest{Repo: "a/b", PrNumber: 1}, []violation{{"expected_head_sha", "required"}}},
		},
		"search_code": {
			{"valid", &ghopsv1.SearchCodeRequest{Query: "greeting repo:a/b", Page: i(100), PerPage: i(1)}, nil},
			{"query missing", &ghopsv1.SearchCodeRequest{}, []violation{{"query", "required"}}},
			{"query 257", &ghopsv1.SearchCodeRequest{Query: n("q", 257)}, []violation{{"query", "string.max_len"}}},
			{"per_page 0", &ghopsv1.SearchCodeRequest{Query: "q", PerPage: i(0)}, []violation{{"per_page", "int32.gte_lte"}}},
		},
		"get_ci_failures": {
			{"valid ref", &ghopsv1.GetCiFailuresRequest{Repo: "a/b", Ref: s("main")}, nil},
			{"valid sha", &ghopsv1.GetCiFailuresRequest{Repo: "a/b", Sha: s(sha40)}, nil},
			{"valid prNumber", &ghopsv1.GetCiFailuresRequest{Repo: "a/b", PrNumber: i(1)}, nil},
			{"none", &ghopsv1.GetCiFailuresRequest{Repo: "a/b"}, []violation{{"", "message.oneof"}}},
			{"ref and sha", &ghopsv1.GetCiFailuresRequest{Repo: "a/b", Ref: s("main"), Sha: s(sha7)}, []violation{{"", "message.oneof"}}},
			{"sha and prNumber", &ghopsv1.GetCiFailuresRequest{Repo: "a/b", Sha: s(sha7), PrNumber: i(1)}, []violation{{"", "message.oneof"}}},
			{"sha 6", &ghopsv1.GetCiFailuresRequest{Repo: "a/b", Sha: s("abcdef")}, []violation{{"sha", "string.pattern"}}},
			{"ref dot dot", &ghopsv1.GetCiFailuresRequest{Repo: "a/b", Ref: s("a/../b")}, []violation{{"ref", "ref_name.dot_dot"}, {"ref", "ref_name.dot_segment"}}},
			{"prNumber 0", &ghopsv1.GetCiFailuresRequest{Repo: "a/b", PrNumber: i(0)}, []violation{{"pr_number", "int32.gte"}}},
		},
		"get_job_log": {
			{"valid tail", &ghopsv1.GetJobLogRequest{Repo: "a/b", JobId: 1 << 40, TailLines: i(500)}, nil},
			{"valid window", &ghopsv1.GetJobLogRequest{Repo: "a/b", JobId: 1, StartLine: i(1), MaxLines: i(500)}, nil},
			{"job_id missing", &ghopsv1.GetJobLogRequest{Repo: "a/b", TailLines: i(1)}, []violation{{"job_id", "required"}}},
			{"job_id -1", &ghopsv1.GetJobLogRequest{Repo: "a/b", JobId: -1, TailLines: i(1)}, []violation{{"job_id", "int64.gte"}}},
			{"neither", &ghopsv1.GetJobLogRequest{Repo: "a/b", JobId: 1}, []violation{{"", "message.oneof"}}},
			{"tail and window", &ghopsv1.GetJobLogRequest{Repo: "a/b", JobId: 1, TailLines: i(1), StartLine: i(1), MaxLines: i(1)}, []violation{{"", "message.oneof"}}},
			{"tail and max_lines", &ghopsv1.GetJobLogRequest{Repo: "a/b", JobId: 1, TailLines: i(1), MaxLines: i(1)}, []violation{{"", "job_log.range"}}},
			{"tail and start_line", &ghopsv1.GetJobLogRequest{Repo: "a/b", JobId: 1, TailLines: i(1), StartLine: i(1)}, []violation{{"", "message.oneof"}, {"", "job_log.range"}}},
			{"start_line alone", &ghopsv1.GetJobLogRequest{Repo: "a/b", JobId: 1, StartLine: i(1)}, []violation{{"", "job_log.range"}}},
			{"max_lines alone", &ghopsv1.GetJobLogRequest{Repo: "a/b", JobId: 1, MaxLines: i(1)}, []violation{{"", "message.oneof"}, {"", "job_log.range"}}},
			{"tail_lines 501", &ghopsv1.GetJobLogRequest{Repo: "a/b", JobId: 1, TailLines: i(501)}, []violation{{"tail_lines", "int32.gte_lte"}}},
			{"max_lines 501", &ghopsv1.GetJobLogRequest{Repo: "a/b", JobId: 1, StartLine: i(1), MaxLines: i(501)}, []violation{{"max_lines", "int32.gte_lte"}}},
			{"start_line 0", &ghopsv1.GetJobLogRequest{Repo: "a/b", JobId: 1, StartLine: i(0), MaxLines: i(1)}, []violation{{"start_line", "int32.gte"}}},
		},
		"rerun_failed_jobs": {
			{"valid", &ghopsv1.RerunFailedJobsRequest{Repo: "a/b", RunId: 1 << 40}, nil},
			{"run_id missing", &ghopsv1.RerunFailedJobsRequest{Repo: "a/b"}, []violation{{"run_id", "required"}}},
			{"run_id -5", &ghopsv1.RerunFailedJobsRequest{Repo: "a/b", RunId: -5}, []violation{{"run_id", "int64.gte"}}},
			{"repo missing", &ghopsv1.RerunFailedJobsRequest{RunId: 1}, []violation{{"repo", "required"}}},
		},
		"list_projects": {
			{"valid", &ghopsv1.ListProjectsRequest{Owner: "octo-org", Query: s("sprint"), IncludeClosed: b(true), Page: i(10)}, nil},
			{"owner missing", &ghopsv1.ListProjectsRequest{}, []violation{{"owner", "required"}}},
			{"owner with slash", &ghopsv1.ListProjectsRequest{Owner: "a/b"}, []violation{{"owner", "string.pattern"}}},
			{"page 11", &ghopsv1.ListProjectsRequest{Owner: "a", Page: i(11)}, []violation{{"page", "int32.gte_lte"}}},
		},
		"get_project": {
			{"valid", &ghopsv1.GetProjectRequest{Project: "octo-org/1"}, nil},
			{"project missing", &ghopsv1.GetProjectRequest{}, []violation{{"project", "required"}}},
			{"no number", &ghopsv1.GetProjectRequest{Project: "octo-org"}, []violation{{"project", "string.pattern"}}},
			{"number not digits", &ghopsv1.GetProjectRequest{Project: "octo-org/x"}, []violation{{"project", "string.pattern"}}},
			{"dot dot", &ghopsv1.GetProjectRequest{Project: "../1"}, []violation{{"project", "string.pattern"}}},
		},
		"list_project_items": {
			{"valid", &ghopsv1.ListProjectItemsRequest{Project: "o/1", Filter: s("status:Todo"), Fields: []string{"Status"}, Page: i(50)}, nil},
			{"filter 1025", &ghopsv1.ListProjectItemsRequest{Project: "o/1", Filter: s(n("f", 1025))}, []violation{{"filter", "string.max_len"}}},
			{"empty field name", &ghopsv1.ListProjectItemsRequest{Project: "o/1", Fields: []string{""}}, []violation{{"fields[0]", "string.min_len"}}},
			{"page 51", &ghopsv1.ListProjectItemsRequest{Project: "o/1", Page: i(51)}, []violation{{"page", "int32.gte_lte"}}},
		},
		"add_project_item": {
			{"valid issue", &ghopsv1.AddProjectItemRequest{Project: "o/1", Repo: s("a/b"), Number: i(3), Fields: map[string]*structpb.Value{"Status": structpb.NewStringValue("Todo")}}, nil},
			{"valid draft", &ghopsv1.AddProjectItemRequest{Project: "o/1", Draft: &ghopsv1.DraftIssue{Title: "t"}}, nil},
			{"neither", &ghopsv1.AddProjectItemRequest{Project: "o/1"}, []violation{{"", "message.oneof"}}},
			{"both", &ghopsv1.AddProjectItemRequest{Project: "o/1", Repo: s("a/b"), Number: i(1), Draft: &ghopsv1.DraftIssue{Title: "t"}}, []violation{{"", "message.oneof"}}},
			{"repo without number", &ghopsv1.AddProjectItemRequest{Project: "o/1", Repo: s("a/b")}, []violation{{"", "add_project_item.number"}}},
			{"draft without title", &ghopsv1.AddProjectItemRequest{Project: "o/1", Draft: &ghopsv1.DraftIssue{}}, []violation{{"draft.title", "required"}}},
		},
		"update_project_items": {
			{"valid", &ghopsv1.UpdateProjectItemsRequest{Project: "o/1", ItemIds: []string{"PVTI_1", "PVTI_2"}, Fields: map[string]*structpb.Value{"Sprint": structpb.NewStringValue("@next")}, Clear: []string{"Due"}}, nil},
			{"no items", &ghopsv1.UpdateProjectItemsRequest{Project: "o/1", Fields: map[string]*structpb.Value{"S": structpb.NewStringValue("x")}}, []violation{{"item_ids", "repeated.min_items"}}},
			{"51 items", &ghopsv1.UpdateProjectItemsRequest{Project: "o/1", ItemIds: distinct(51), Fields: map[string]*structpb.Value{"S": structpb.NewStringValue("x")}}, []violation{{"item_ids", "repeated.max_items"}}},
			{"repeated item", &ghopsv1.UpdateProjectItemsRequest{Project: "o/1", ItemIds: []string{"a", "a"}, Fields: map[string]*structpb.Value{"S": structpb.NewStringValue("x")}}, []violation{{"item_ids", "repeated.unique"}}},
			{"21 fields", &ghopsv1.UpdateProjectItemsRequest{Project: "o/1", ItemIds: []string{"a"}, Fields: fieldValues(21)}, []violation{{"fields", "map.max_pairs"}}},
		},
		"archive_project_item": {
			{"valid", &ghopsv1.ArchiveProjectItemRequest{Project: "o/1", ItemId: "PVTI_1", Archived: true}, nil},
			{"item_id missing", &ghopsv1.ArchiveProjectItemRequest{Project: "o/1"}, []violation{{"item_id", "required"}}},
		},
		"delete_project_item": {
			{"valid", &ghopsv1.DeleteProjectItemRequest{Project: "o/1", ItemId: "PVTI_1"}, nil},
			{"project missing", &ghopsv1.DeleteProjectItemRequest{ItemId: "PVTI_1"}, []violation{{"project", "required"}}},
		},
		"create_project": {
			{"valid", &ghopsv1.CreateProjectRequest{Owner: "octo-org", Title: "Plan", Repo: s("a/b")}, nil},
			{"title missing", &ghopsv1.CreateProjectRequest{Owner: "octo-org"}, []violation{{"title", "required"}}},
			{"repo bad", &ghopsv1.CreateProjectRequest{Owner: "o", Title: "t", Repo: s("nope")}, []violation{{"repo", "string.pattern"}}},
		},
		"create_project_field": {
			{"valid select", &ghopsv1.CreateProjectFieldRequest{Project: "o/1", Name: "Priority", Type: "single_select", Options: []string{"P1", "P2"}}, nil},
			{"valid iteration", &ghopsv1.CreateProjectFieldRequest{Project: "o/1", Name: "Sprint", Type: "iteration", Iteration: &ghopsv1.IterationSetup{StartDate: "2026-12-01", DurationDays: 14, Count: i(3)}}, nil},
			{"bad type", &ghopsv1.CreateProjectFieldRequest{Project: "o/1", Name: "x", Type: "checkbox"}, []violation{{"type", "string.in"}}},
			{"duration 43", &ghopsv1.CreateProjectFieldRequest{Project: "o/1", Name: "S", Type: "iteration", Iteration: &ghopsv1.IterationSetup{StartDate: "2026-12-01", DurationDays: 43}}, []violation{{"iteration.duration_days", "int32.gte_lte"}}},
			{"repeated option", &ghopsv1.CreateProjectFieldRequest{Project: "o/1", Name: "P", Type: "single_select", Options: []string{"a", "a"}}, []violation{{"options", "repeated.unique"}}},
		},
		"create_project_status_update": {
			{"valid", &ghopsv1.CreateProjectStatusUpdateRequest{Project: "o/1", Status: "at_risk", Body: "b", StartDate: s("2026-12-01"), TargetDate: s("2026-12-31")}, nil},
			{"bad status", &ghopsv1.CreateProjectStatusUpdateRequest{Project: "o/1", Status: "late"}, []violation{{"status", "string.in"}}},
			{"bad date", &ghopsv1.CreateProjectStatusUpdateRequest{Project: "o/1", Status: "complete", TargetDate: s("31.12.2026")}, []violation{{"target_date", "string.pattern"}}},
		},
		"list_milestones": {
			{"valid", &ghopsv1.ListMilestonesRequest{Repo: "a/b", State: s("all"), Page: i(2)}, nil},
			{"bad state", &ghopsv1.ListMilestonesRequest{Repo: "a/b", State: s("done")}, []violation{{"state", "string.in"}}},
		},
		"create_milestone": {
			{"valid", &ghopsv1.CreateMilestoneRequest{Repo: "a/b", Title: "v1", Description: s("d")}, nil},
			{"title missing", &ghopsv1.CreateMilestoneRequest{Repo: "a/b"}, []violation{{"title", "required"}}},
		},
		"update_milestone": {
			{"valid", &ghopsv1.UpdateMilestoneRequest{Repo: "a/b", Number: 1, State: s("closed")}, nil},
			{"number missing", &ghopsv1.UpdateMilestoneRequest{Repo: "a/b"}, []violation{{"number", "required"}}},
			{"bad state", &ghopsv1.UpdateMilestoneRequest{Repo: "a/b", Number: 1, State: s("all")}, []violation{{"state", "string.in"}}},
		},
		"list_releases": {
			{"valid", &ghopsv1.ListReleasesRequest{Repo: "a/b", Page: i(100)}, nil},
			{"page 0", &ghopsv1.ListReleasesRequest{Repo: "a/b", Page: i(0)}, []violation{{"page", "int32.gte_lte"}}},
		},
		"get_release": {
			{"valid tag", &ghopsv1.GetReleaseRequest{Repo: "a/b", Tag: s("v1.2.3-rc.1+build")}, nil},
			{"valid latest", &ghopsv1.GetReleaseRequest{Repo: "a/b", Latest: b(true)}, nil},
			{"neither", &ghopsv1.GetReleaseRequest{Repo: "a/b"}, []violation{{"", "message.oneof"}}},
			{"both", &ghopsv1.GetReleaseRequest{Repo: "a/b", Tag: s("v1"), Latest: b(true)}, []violation{{"", "message.oneof"}}},
			{"tag with a slash", &ghopsv1.GetReleaseRequest{Repo: "a/b", Tag: s("a/b")}, []violation{{"tag", "string.pattern"}}},
		},
		"create_release": {
			{"valid", &ghopsv1.CreateReleaseRequest{Repo: "a/b", Tag: "v1", Target: s("main"), Name: s(n("n", 256)), Body: s(n("b", 125000)), GenerateNotes: b(true)}, nil},
			{"tag missing", &ghopsv1.CreateReleaseRequest{Repo: "a/b"}, []violation{{"tag", "required"}}},
			{"name too long", &ghopsv1.CreateReleaseRequest{Repo: "a/b", Tag: "v1", Name: s(n("n", 257))}, []violation{{"name", "string.max_len"}}},
			{"body too long", &ghopsv1.CreateReleaseRequest{Repo: "a/b", Tag: "v1", Body: s(n("b", 125001))}, []violation{{"body", "string.max_len"}}},
		},
		"update_release": {
			{"valid", &ghopsv1.UpdateReleaseRequest{Repo: "a/b", ReleaseId: 1, Draft: b(false)}, nil},
			{"release_id missing", &ghopsv1.UpdateReleaseRequest{Repo: "a/b"}, []violation{{"release_id", "required"}}},
			{"release_id negative", &ghopsv1.UpdateReleaseRequest{Repo: "a/b", ReleaseId: -1}, []violation{{"release_id", "int64.gte"}}},
		},
		"list_tags": {
			{"valid", &ghopsv1.ListTagsRequest{Repo: "a/b"}, nil},
			{"repo missing", &ghopsv1.ListTagsRequest{}, []violation{{"repo", "required"}}},
		},
		"list_repositories": {
			{"valid empty", &ghopsv1.ListRepositoriesRequest{}, nil},
			{"valid", &ghopsv1.ListRepositoriesRequest{Owner: s("octo-org"), Type: s("forks"), Sort: s("pushed"), Page: i(2)}, nil},
			{"bad owner", &ghopsv1.ListRepositoriesRequest{Owner: s("a/b")}, []violation{{"owner", "string.pattern"}}},
			{"bad type", &ghopsv1.ListRepositoriesRequest{Type: s("mine")}, []violation{{"type", "string.in"}}},
			{"bad sort", &ghopsv1.ListRepositoriesRequest{Sort: s("stars")}, []violation{{"sort", "string.in"}}},
		},
		"create_repository": {
			{"valid", &ghopsv1.CreateRepositoryRequest{Owner: s("octo-org"), Name: "a.b_c-d", Private: true, Description: s("d"), AutoInit: b(true)}, nil},
			{"name missing", &ghopsv1.CreateRepositoryRequest{}, []violation{{"name", "required"}}},
			{"bad name", &ghopsv1.CreateRepositoryRequest{Name: "a b"}, []violation{{"name", "string.pattern"}}},
			{"owner too long", &ghopsv1.CreateRepositoryRequest{Owner: s(n("o", 40)), Name: "x"}, []violation{{"owner", "string.max_len"}}},
		},
		"fork_repository": {
			{"valid", &ghopsv1.ForkRepositoryRequest{Repo: "a/b", Owner: s("octo-org"), Name: s("c")}, nil},
			{"repo missing", &ghopsv1.ForkRepositoryRequest{}, []violation{{"repo", "required"}}},
			{"bad name", &ghopsv1.ForkRepositoryRequest{Repo: "a/b", Name: s("x/y")}, []violation{{"name", "string.pattern"}}},
		},
		"get_me": {
			{"valid", &ghopsv1.GetMeRequest{}, nil},
		},
		"list_labels": {
			{"valid", &ghopsv1.ListLabelsRequest{Repo: "a/b", Page: i(2)}, nil},
			{"repo missing", &ghopsv1.ListLabelsRequest{}, []violation{{"repo", "required"}}},
		},
		"create_label": {
			{"valid", &ghopsv1.CreateLabelRequest{Repo: "a/b", Name: "good first issue", Color: "7057ff", Description: s("Good for newcomers")}, nil},
			{"valid color with #", &ghopsv1.CreateLabelRequest{Repo: "a/b", Name: "x", Color: "#ABCDEF"}, nil},
			{"color missing", &ghopsv1.CreateLabelRequest{Repo: "a/b", Name: "x"}, []violation{{"color", "required"}}},
			{"color named", &ghopsv1.CreateLabelRequest{Repo: "a/b", Name: "x", Color: "red"}, []violation{{"color", "string.pattern"}}},
			{"name 51", &ghopsv1.CreateLabelRequest{Repo: "a/b", Name: n("l", 51), Color: "ffffff"}, []violation{{"name", "string.max_len"}}},
			{"description 101", &ghopsv1.CreateLabelRequest{Repo: "a/b", Name: "x", Color: "ffffff", Description: s(n("d", 101))}, []violation{{"description", "string.max_len"}}},
		},
		"update_label": {
			{"valid", &ghopsv1.UpdateLabelRequest{Repo: "a/b", Name: "bug", NewName: s("defect")}, nil},
			{"name missing", &ghopsv1.UpdateLabelRequest{Repo: "a/b", Color: s("ffffff")}, []violation{{"name", "required"}}},
			{"bad color", &ghopsv1.UpdateLabelRequest{Repo: "a/b", Name: "bug", Color: s("fff")}, []violation{{"color", "string.pattern"}}},
			{"new_name empty", &ghopsv1.UpdateLabelRequest{Repo: "a/b", Name: "bug", NewName: s("")}, []violation{{"new_name", "string.min_len"}}},
		},
		"label_issue": {
			{"valid", &ghopsv1.LabelIssueRequest{Repo: "a/b", IssueNumber: 1, Add: []string{"bug"}, Remove: []string{"question"}}, nil},
			{"number missing", &ghopsv1.LabelIssueRequest{Repo: "a/b", Add: []string{"bug"}}, []violation{{"issue_number", "required"}}},
			{"empty label", &ghopsv1.LabelIssueRequest{Repo: "a/b", IssueNumber: 1, Remove: []string{""}}, []violation{{"remove[0]", "string.min_len"}}},
			{"101 labels", &ghopsv1.LabelIssueRequest{Repo: "a/b", IssueNumber: 1, Add: labels(101, 1)}, []violation{{"add", "repeated.max_items"}}},
		},
		"list_sub_issues": {
			{"valid", &ghopsv1.ListSubIssuesRequest{Repo: "a/b", IssueNumber: 1}, nil},
			{"number missing", &ghopsv1.ListSubIssuesRequest{Repo: "a/b"}, []violation{{"issue_number", "required"}}},
		},
		"add_sub_issue": {
			{"valid", &ghopsv1.AddSubIssueRequest{Repo: "a/b", IssueNumber: 1, SubIssue: 2}, nil},
			{"valid other repository", &ghopsv1.AddSubIssueRequest{Repo: "a/b", IssueNumber: 1, SubIssue: 2, SubIssueRepo: s("a/c"), ReplaceParent: b(true)}, nil},
			{"sub_issue missing", &ghopsv1.AddSubIssueRequest{Repo: "a/b", IssueNumber: 1}, []violation{{"sub_issue", "required"}}},
			{"bad sub_issue_repo", &ghopsv1.AddSubIssueRequest{Repo: "a/b", IssueNumber: 1, SubIssue: 2, SubIssueRepo: s("a/c#2")}, []violation{{"sub_issue_repo", "string.pattern"}}},
		},
		"remove_sub_issue": {
			{"valid", &ghopsv1.RemoveSubIssueRequest{Repo: "a/b", IssueNumber: 1, SubIssue: 2}, nil},
			{"sub_issue missing", &ghopsv1.RemoveSubIssueRequest{Repo: "a/b", IssueNumber: 1}, []violation{{"sub_issue", "required"}}},
		},
		"list_workflows": {
			{"valid", &ghopsv1.ListWorkflowsRequest{Repo: "a/b", Page: i(2)}, nil},
			{"page 0", &ghopsv1.ListWorkflowsRequest{Repo: "a/b", Page: i(0)}, []violation{{"page", "int32.gte_lte"}}},
		},
		"list_workflow_runs": {
			{"valid", &ghopsv1.ListWorkflowRunsRequest{Repo: "a/b", Workflow: s("ci.yml"), Branch: s("main"), Status: s("failure"), Event: s("workflow_dispatch"), Page: i(1)}, nil},
			{"valid id", &ghopsv1.ListWorkflowRunsRequest{Repo: "a/b", Workflow: s("161335")}, nil},
			{"workflow a path", &ghopsv1.ListWorkflowRunsRequest{Repo: "a/b", Workflow: s("../ci.yml")}, []violation{{"workflow", "string.pattern"}}},
			{"bad status", &ghopsv1.ListWorkflowRunsRequest{Repo: "a/b", Status: s("done")}, []violation{{"status", "string.in"}}},
			{"bad event", &ghopsv1.ListWorkflowRunsRequest{Repo: "a/b", Event: s("Push!")}, []violation{{"event", "string.pattern"}}},
		},
		"get_workflow_run": {
			{"valid", &ghopsv1.GetWorkflowRunRequest{Repo: "a/b", RunId: 1 << 40}, nil},
			{"run_id missing", &ghopsv1.GetWorkflowRunRequest{Repo: "a/b"}, []violation{{"run_id", "required"}}},
		},
		"run_workflow": {
			{"valid", &ghopsv1.RunWorkflowRequest{Repo: "a/b", Workflow: "release.yaml", Ref: "v1.0", Inputs: map[string]string{"level": "debug"}}, nil},
			{"ref missing", &ghopsv1.RunWorkflowRequest{Repo: "a/b", Workflow: "ci.yml"}, []violation{{"ref", "required"}}},
			{"workflow not a file", &ghopsv1.RunWorkflowRequest{Repo: "a/b", Workflow: "ci", Ref: "main"}, []violation{{"workflow", "string.pattern"}}},
			{"26 inputs", &ghopsv1.RunWorkflowRequest{Repo: "a/b", Workflow: "ci.yml", Ref: "main", Inputs: inputs(26)}, []violation{{"inputs", "map.max_pairs"}}},
		},
		"cancel_workflow_run": {
			{"valid", &ghopsv1.CancelWorkflowRunRequest{Repo: "a/b", RunId: 1}, nil},
			{"run_id 0", &ghopsv1.CancelWorkflowRunRequest{Repo: "a/b", RunId: 0}, []violation{{"run_id", "required"}}},
		},
		"rerun_workflow_run": {
			{"valid", &ghopsv1.RerunWorkflowRunRequest{Repo: "a/b", RunId: 1}, nil},
			{"run_id -1", &ghopsv1.RerunWorkflowRunRequest{Repo: "a/b", RunId: -1}, []violation{{"run_id", "int64.gte"}}},
		},
		"validate_environment": {
			{"valid empty", &ghopsv1.ValidateEnvironmentRequest{}, nil},
			{"valid repo", &ghopsv1.ValidateEnvironmentRequest{Repo: s("a/b")}, nil},
			{"repo bad", &ghopsv1.ValidateEnvironmentRequest{Repo: s("no-slash")}, []violation{{"repo", "string.pattern"}}},
		},
	}

	// Every RPC of the service must have its table: a tool added to the
	// proto without rules tests fails here.
	methods := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService").Methods()
	for k := 0; k < methods.Len(); k++ {
		opts := proto.GetExtension(methods.Get(k).Options(), ghopsv1.E_Tool).(*ghopsv1.ToolOptions)
		if _, ok := tools[opts.GetName()]; !ok {
			t.Errorf("tool %q has no rule table", opts.GetName())
		}
	}
	if len(tools) != methods.Len() {
		t.Errorf("rule tables for %d tools, service has %d RPCs", len(tools), methods.Len())
	}

	for tool, cases := range tools {
		for _, tc := range cases {
			t.Run(tool+"/"+tc.name, func(t *testing.T) {
				got := violations(t, v.Validate(tc.msg))
				if strings.Join(got, ",") != strings.Join(format(tc.want), ",") {
					t.Errorf("violations = %q, want %q", got, format(tc.want))
				}
			})
		}
	}
}

func violations(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var verr *protovalidate.ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("not a validation error: %v", err)
	}
	out := make([]string, 0, len(verr.Violations))
	for _, v := range verr.Violations {
		out = append(out, protovalidate.FieldPathString(v.Proto.GetField())+" "+v.Proto.GetRuleId())
	}
	sort.Strings(out)
	return out
}

func format(vs []violation) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.field+" "+v.rule)
	}
	sort.Strings(out)
	return out
}

// fieldValues are n project field values (names F0, F1, ...).
func fieldValues(n int) map[string]*structpb.Value {
	out := map[string]*structpb.Value{}
	for k := range n {
		out["F"+strconv.Itoa(k)] = structpb.NewNumberValue(float64(k))
	}
	return out
}

// inputs is a workflow_dispatch inputs map of n entries.
func inputs(n int) map[string]string {
	m := make(map[string]string, n)
	for k := range n {
		m[strconv.Itoa(k)] = "v"
	}
	return m
}
