package server_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"ghops.dev/services/github/servicetest"
)

// The hostile-input tests (issue 19, point 1): every request field that
// reaches a URL gets values an attacker would try, through the real service
// over gRPC to fakehub behind a recording handler, and every request that
// reached "GitHub" must stay under /repos/{the call's repository}/ or be one
// of the few endpoints of no repository. The service's token can see
// octo-org/secret, so an escape would have been answered, not refused.

// authorized is the repository the hostile calls name.
const authorized = "octo-org/hello-world"

// wideToken can read and write octo-org/secret as well.
const wideToken = "ghops-hostile-wide-token"

// pathRecorder records the raw path of every request it passes to the hub.
type pathRecorder struct {
	next http.Handler
	mu   sync.Mutex
	reqs []string // "METHOD /escaped/path"
}

func (p *pathRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.reqs = append(p.reqs, r.Method+" "+r.URL.EscapedPath())
	p.mu.Unlock()
	p.next.ServeHTTP(w, r)
}

func (p *pathRecorder) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.reqs
	p.reqs = nil
	return out
}

// startRecorded starts fakehub (demo data, plus a token that sees every
// repository) behind a pathRecorder on 127.0.0.1, and the service on it.
func startRecorded(tb testing.TB, opts ...func(*servicetest.Options)) (*pathRecorder, ghopsv1.GitHubServiceClient) {
	tb.Helper()
	hub, err := fakehub.New(fakehub.Config{Seed: "demo", Tokens: []fakehub.Token{{Value: wideToken, Login: "admin",
		Repos: map[string]fakehub.Permission{authorized: fakehub.PermWrite, "octo-org/secret": fakehub.PermWrite}}}})
	if err != nil {
		tb.Fatal(err)
	}
	rec := &pathRecorder{next: hub}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(rec)
	srv.Listener = l
	srv.Start()
	tb.Cleanup(srv.Close)
	o := servicetest.Options{GitHubURL: srv.URL + "/", Token: wideToken}
	for _, opt := range opts {
		opt(&o)
	}
	svc := servicetest.Start(tb, o)
	return rec, svc.Client
}

// fieldKind says which rules a field obeys.
type fieldKind int

const (
	kindRepo  fieldKind = iota // "owner/repo": the contract pattern and repo_name
	kindRef                    // a branch or ref: the contract pattern and ref_name
	kindSHA                    // a commit sha: hex only
	kindPath                   // a file or directory path (no pattern): ghpath
	kindQuery                  // search syntax: goes into the query string only
)

// hostileField is one request field of one tool that reaches a URL (or, for
// head and base, names a ref), with how to call the tool with a value in it.
type hostileField struct {
	tool, field string
	kind        fieldKind
	call        func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error
}

func err2[T any](_ T, err error) error { return err }

var hostileFields = []hostileField{
	{"search", "query", kindQuery, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.Search(ctx, &ghopsv1.SearchRequest{Query: v}))
	}},
	{"fetch", "repo", kindRepo, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.Fetch(ctx, &ghopsv1.FetchRequest{Repo: v}))
	}},
	{"list_directory", "repo", kindRepo, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.ListDirectory(ctx, &ghopsv1.ListDirectoryRequest{Repo: v, Path: "/"}))
	}},
	{"list_directory", "path", kindPath, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.ListDirectory(ctx, &ghopsv1.ListDirectoryRequest{Repo: authorized, Path: v}))
	}},
	{"list_directory", "branch", kindRef, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.ListDirectory(ctx, &ghopsv1.ListDirectoryRequest{Repo: authorized, Path: "/", Branch: &v}))
	}},
	{"list_directory", "ref", kindRef, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.ListDirectory(ctx, &ghopsv1.ListDirectoryRequest{Repo: authorized, Path: "/", Ref: &v}))
	}},
	{"read_file", "repo", kindRepo, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.ReadFile(ctx, &ghopsv1.ReadFileRequest{Repo: v, Path: "README.md"}))
	}},
	{"read_file", "path", kindPath, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.ReadFile(ctx, &ghopsv1.ReadFileRequest{Repo: authorized, Path: v}))
	}},
	{"read_file", "branch", kindRef, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.ReadFile(ctx, &ghopsv1.ReadFileRequest{Repo: authorized, Path: "README.md", Branch: &v}))
	}},
	{"read_file", "ref", kindRef, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.ReadFile(ctx, &ghopsv1.ReadFileRequest{Repo: authorized, Path: "README.md", Ref: &v}))
	}},
	{"get_tree", "repo", kindRepo, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.GetTree(ctx, &ghopsv1.GetTreeRequest{Repo: v}))
	}},
	{"get_tree", "branch", kindRef, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.GetTree(ctx, &ghopsv1.GetTreeRequest{Repo: authorized, Branch: &v}))
	}},
	{"get_tree", "ref", kindRef, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.GetTree(ctx, &ghopsv1.GetTreeRequest{Repo: authorized, Ref: &v}))
	}},
	{"get_commits", "repo", kindRepo, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.GetCommits(ctx, &ghopsv1.GetCommitsRequest{Repo: v}))
	}},
	{"get_commits", "branch", kindRef, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.GetCommits(ctx, &ghopsv1.GetCommitsRequest{Repo: authorized, Branch: &v}))
	}},
	{"get_commits", "sha", kindSHA, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.GetCommits(ctx, &ghopsv1.GetCommitsRequest{Repo: authorized, Sha: &v}))
	}},
	{"get_branches", "repo", kindRepo, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.GetBranches(ctx, &ghopsv1.GetBranchesRequest{Repo: v}))
	}},
	{"list_pull_requests", "repo", kindRepo, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.ListPullRequests(ctx, &ghopsv1.ListPullRequestsRequest{Repo: v}))
	}},
	{"get_pr_mergeability", "repo", kindRepo, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.GetPrMergeability(ctx, &ghopsv1.GetPrMergeabilityRequest{Repo: v, PrNumber: 1}))
	}},
	{"get_checks_for_sha", "repo", kindRepo, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.GetChecksForSha(ctx, &ghopsv1.GetChecksForShaRequest{Repo: v, Sha: "abcdef0"}))
	}},
	{"get_checks_for_sha", "sha", kindSHA, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.GetChecksForSha(ctx, &ghopsv1.GetChecksForShaRequest{Repo: authorized, Sha: v}))
	}},
	{"create_pull_request", "repo", kindRepo, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.CreatePullRequest(ctx, &ghopsv1.CreatePullRequestRequest{Repo: v, Title: "t", Head: "feature/greeting", Base: "main"}))
	}},
	{"create_pull_request", "head", kindRef, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.CreatePullRequest(ctx, &ghopsv1.CreatePullRequestRequest{Repo: authorized, Title: "t", Head: v, Base: "main"}))
	}},
	{"create_pull_request", "base", kindRef, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.CreatePullRequest(ctx, &ghopsv1.CreatePullRequestRequest{Repo: authorized, Title: "t", Head: "main", Base: v}))
	}},
	{"update_pull_request", "repo", kindRepo, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.UpdatePullRequest(ctx, &ghopsv1.UpdatePullRequestRequest{Repo: v, PrNumber: 1, Title: ptr("t")}))
	}},
	{"merge_pull_request", "repo", kindRepo, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.MergePullRequest(ctx, &ghopsv1.MergePullRequestRequest{Repo: v, PrNumber: 1}))
	}},
	{"commit_files", "repo", kindRepo, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.CommitFiles(ctx, &ghopsv1.CommitFilesRequest{Repo: v, Branch: "main", Message: "m",
			Files: []*ghopsv1.FileChange{{Path: "hostile.txt", Content: ptr("x")}}}))
	}},
	{"commit_files", "branch", kindRef, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.CommitFiles(ctx, &ghopsv1.CommitFilesRequest{Repo: authorized, Branch: v, Message: "m",
			Files: []*ghopsv1.FileChange{{Path: "hostile.txt", Content: ptr("x")}}}))
	}},
	{"apply_patch", "repo", kindRepo, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.ApplyPatch(ctx, &ghopsv1.ApplyPatchRequest{Repo: v, Branch: "main", Message: "m", Patch: "x"}))
	}},
	{"apply_patch", "branch", kindRef, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.ApplyPatch(ctx, &ghopsv1.ApplyPatchRequest{Repo: authorized, Branch: v, Message: "m", Patch: "x"}))
	}},
	{"validate_environment", "repo", kindRepo, func(ctx context.Context, c ghopsv1.GitHubServiceClient, v string) error {
		return err2(c.ValidateEnvironment(ctx, &ghopsv1.ValidateEnvironmentRequest{Repo: &v}))
	}},
}

// hostile is a value and, per kind of field, the words of the rule that
// must refuse it with INVALID_ARGUMENT ("" where any answer will do, as
// long as every request stays in the repository). read_file and
// list_directory refuse a path with ".." by their own older rule, in the
// same words as ref_name.
type hostile struct {
	value string
	want  map[fieldKind]string
}

const (
	wPattern = "does not match regex pattern"
	wDotDot  = `must not contain ".."`
	wDotSeg  = `must not have a "." or ".." segment`
	wRepoDot = `owner and name must not be "." or ".."`
)

var hostileValues = []hostile{
	{"..", map[fieldKind]string{kindRepo: wPattern, kindRef: wDotDot, kindSHA: wPattern, kindPath: wDotDot}},
	{"a/../../x", map[fieldKind]string{kindRepo: wPattern, kindRef: wDotDot, kindSHA: wPattern, kindPath: wDotDot}},
	{"a/../../../../../../octo-org/secret/git/ref/heads/main", map[fieldKind]string{kindRepo: wPattern, kindRef: wDotDot, kindSHA: wPattern, kindPath: wDotDot}},
	{"../../../octo-org/secret/contents/README.md", map[fieldKind]string{kindRepo: wPattern, kindRef: wDotDot, kindSHA: wPattern, kindPath: wDotDot}},
	{"./a", map[fieldKind]string{kindRepo: wRepoDot, kindRef: `must not start or end with "."`, kindSHA: wPattern, kindPath: wDotSeg}},
	{"a/./b", map[fieldKind]string{kindRepo: wPattern, kindRef: `no segment may start with "."`, kindSHA: wPattern, kindPath: wDotSeg}},
	{"%2e%2e", map[fieldKind]string{kindRepo: wPattern, kindRef: wPattern, kindSHA: wPattern}},
	{"%2e%2e/%2e%2e/octo-org/secret", map[fieldKind]string{kindRepo: wPattern, kindRef: wPattern, kindSHA: wPattern}},
	{"a%2F..%2F..%2Fx", map[fieldKind]string{kindRepo: wPattern, kindRef: wPattern, kindSHA: wPattern}},
	{"?x=1", map[fieldKind]string{kindRepo: wPattern, kindRef: wPattern, kindSHA: wPattern}},
	{"a#frag", map[fieldKind]string{kindRepo: wPattern, kindRef: wPattern, kindSHA: wPattern}},
	{`..\..\x`, map[fieldKind]string{kindRepo: wPattern, kindRef: wPattern, kindSHA: wPattern}},
	{"a@{1}", map[fieldKind]string{kindRepo: wPattern, kindRef: `must not contain "@{"`, kindSHA: wPattern}},
	{"heads.lock/x", map[fieldKind]string{kindRef: `no segment may end with ".lock"`, kindSHA: wPattern}},
	{"a//b", map[fieldKind]string{kindRepo: wPattern, kindRef: `must not contain an empty segment ("//")`, kindSHA: wPattern, kindPath: "must not have an empty segment"}},
	{"/a/", map[fieldKind]string{kindRepo: wPattern, kindRef: `must not start or end with "/"`, kindSHA: wPattern}},
	{"a\x01b", map[fieldKind]string{kindRepo: wPattern, kindRef: "must not contain control characters", kindSHA: wPattern}},
	{"\u2024\u2024/\uff0e\uff0e/x", map[fieldKind]string{kindRepo: wPattern, kindRef: wPattern, kindSHA: wPattern}},
	{strings.Repeat("a/", 2500), map[fieldKind]string{kindRepo: "at most", kindRef: "at most", kindSHA: wPattern, kindPath: "at most", kindQuery: "at most"}},
	{"../..", map[fieldKind]string{kindRepo: wRepoDot, kindRef: wDotDot, kindSHA: wPattern, kindPath: wDotDot}},
	{"octo-org/..", map[fieldKind]string{kindRepo: wRepoDot, kindRef: wDotDot, kindSHA: wPattern, kindPath: wDotDot}},
	{"../hello-world", map[fieldKind]string{kindRepo: wRepoDot, kindRef: wDotDot, kindSHA: wPattern, kindPath: wDotDot}},
	{"octo-org/hello-world/../secret", map[fieldKind]string{kindRepo: wPattern, kindRef: wDotDot, kindSHA: wPattern, kindPath: wDotDot}},
}

// allowedElsewhere are the endpoints of no repository (reposcope.Endpoints).
var allowedElsewhere = map[string]bool{
	"GET /search/repositories": true, "GET /search/issues": true, "GET /search/code": true, "GET /user": true, "GET /rate_limit": true, "POST /graphql": true,
}

// inScope reports whether a recorded request stayed in repo: under
// /repos/{repo}, with no segment a server could resolve as a dot segment.
func inScope(req, repo string) bool {
	if allowedElsewhere[req] {
		return true
	}
	_, path, _ := strings.Cut(req, " ")
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		s, err := url.PathUnescape(seg)
		if err != nil || s == "." || s == ".." || strings.Contains(s, "/") {
			return false
		}
		segs[i] = strings.ToLower(s)
	}
	// /repos/{owner}/{name}, then anything: the owner and name exactly.
	owner, name, ok := strings.Cut(strings.ToLower(repo), "/")
	return ok && len(segs) >= 4 && segs[0] == "" && segs[1] == "repos" && segs[2] == owner && segs[3] == name && owner != "" && name != ""
}

// checkHostile runs one call and checks its outcome; want is the rule
// that must refuse the value ("" for any answer).
func checkHostile(t *testing.T, rec *pathRecorder, c ghopsv1.GitHubServiceClient, f hostileField, value, want string) {
	t.Helper()
	rec.take()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := f.call(ctx, c, value)
	reqs := rec.take()
	scope := authorized
	if f.kind == kindRepo {
		scope = value
	}
	for _, r := range reqs {
		if !inScope(r, scope) {
			t.Errorf("%s %s=%q: request left the repository: %s", f.tool, f.field, value, r)
		}
	}
	st, _ := status.FromError(err)
	if st.Code() == codes.InvalidArgument && len(reqs) > 0 {
		t.Errorf("%s %s=%q: refused, yet GitHub was called: %v", f.tool, f.field, value, reqs)
	}
	if st.Code() == codes.Internal || st.Code() == codes.Unknown {
		t.Errorf("%s %s=%q: %v", f.tool, f.field, value, err)
	}
	if want == "" {
		return
	}
	if st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), f.field+" ") && !strings.Contains(st.Message(), f.field+": ") || !strings.Contains(st.Message(), want) {
		t.Errorf("%s %s=%q: got %v, want INVALID_ARGUMENT naming %s with %q", f.tool, f.field, value, err, f.field, want)
	}
}

func TestHostileValuesStayInTheRepository(t *testing.T) {
	rec, c := startRecorded(t)
	for _, f := range hostileFields {
		for _, h := range hostileValues {
			value := h.value
			name := value
			if len(name) > 40 {
				name = name[:40]
			}
			t.Run(f.tool+"/"+f.field+"/"+name, func(t *testing.T) {
				checkHostile(t, rec, c, f, value, h.want[f.kind])
			})
		}
	}
}

// TestHostileValuesReachNothingElse is the control of the test above: the
// recorder sees the calls that are not refused, so an empty record means
// refused, not unobserved.
func TestHostileValuesReachNothingElse(t *testing.T) {
	rec, c := startRecorded(t)
	tests := []struct {
		name, tool, field, v string
	}{
		{"read_file of a plain path", "read_file", "path", "README.md"},
		{"list_directory of a branch", "list_directory", "branch", "main"},
		{"get_branches", "get_branches", "repo", authorized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var f hostileField
			for _, hf := range hostileFields {
				if hf.tool == tc.tool && hf.field == tc.field {
					f = hf
				}
			}
			if f.call == nil {
				t.Fatalf("no hostile field %s.%s", tc.tool, tc.field)
			}
			rec.take()
			if err := f.call(ctx(t), c, tc.v); err != nil {
				t.Fatalf("%s: %v", f.tool, err)
			}
			reqs := rec.take()
			if len(reqs) == 0 {
				t.Fatalf("%s %s=%q reached nothing", f.tool, f.field, tc.v)
			}
			for _, r := range reqs {
				if !inScope(r, authorized) {
					t.Errorf("request outside the repository: %s", r)
				}
			}
		})
	}
}

// FuzzHostileValues sends any value in any of the fields above: every
// request must stay in the call's repository, a refusal must call nothing,
// and a ref with a dot or empty segment must be refused.
func FuzzHostileValues(f *testing.F) {
	for i := range hostileFields {
		for _, h := range hostileValues {
			f.Add(uint8(i), h.value)
		}
	}
	rec, c := startRecorded(f)
	f.Fuzz(func(t *testing.T, which uint8, value string) {
		hf := hostileFields[int(which)%len(hostileFields)]
		// proto3 strings are UTF-8: a client cannot send anything else.
		value = strings.ToValidUTF8(value, "\uFFFD")
		want := ""
		if hf.kind == kindRef && value != "" {
			for _, seg := range strings.Split(value, "/") {
				if seg == "" || seg == "." || seg == ".." {
					want = " " // any rule's words, as long as it is refused
				}
			}
		}
		checkHostile(t, rec, c, hf, value, want)
	})
}

// TestScopeOfTheConfiguredRepository: validate_environment's default
// repository comes from the service's configuration, not the request, and
// the call may reach it (and only it besides the endpoints of no
// repository).
func TestScopeOfTheConfiguredRepository(t *testing.T) {
	rec, c := startRecorded(t, func(o *servicetest.Options) { o.CheckRepo = authorized })
	tests := []struct {
		name, repo, want string
	}{
		{"the configured repository", "", authorized},
		{"the request's own repository", "octo-org/secret", "octo-org/secret"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec.take()
			req := &ghopsv1.ValidateEnvironmentRequest{}
			if tc.repo != "" {
				req.Repo = &tc.repo
			}
			resp, err := c.ValidateEnvironment(ctx(t), req)
			if err != nil {
				t.Fatal(err)
			}
			var repoCheck *ghopsv1.EnvironmentCheck
			for _, ch := range resp.GetChecks() {
				if ch.GetName() == "github.repo" {
					repoCheck = ch
				}
			}
			if repoCheck == nil || repoCheck.GetLevel() != "ok" || !strings.HasPrefix(repoCheck.GetMessage(), tc.want+":") {
				t.Fatalf("github.repo check = %v, want ok for %s", repoCheck, tc.want)
			}
			reached := false
			for _, r := range rec.take() {
				if !inScope(r, tc.want) {
					t.Errorf("request outside %s: %s", tc.want, r)
				}
				reached = reached || strings.HasPrefix(r, "GET /repos/")
			}
			if !reached {
				t.Error("the repository was not read")
			}
		})
	}
}
