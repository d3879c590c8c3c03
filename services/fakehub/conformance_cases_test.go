package fakehub_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
)

// conformanceCase is one request and what GitHub's description allows as its answer.
type conformanceCase struct {
	name   string
	op     string // "METHOD /template" of testdata/openapi-operations.txt
	path   string // request path below the API root, query included
	token  string // "token ..." or "Bearer ..." Authorization, or none
	accept string
	body   string
	status int
	// undocumented says why GitHub answers a status its description does not list for op; such
	// answers are checked against GitHub's error shape.
	undocumented string
	// raw, when set, is the body a raw media type answer must carry instead of JSON.
	raw []byte
	// link requires a Link header (the case asks for one item of several).
	link bool
	// then checks what the schema cannot: the fixes of issue 23 in particular.
	then func(t *testing.T, resp *http.Response, body []byte)
}

// conformanceFixture is the hub the conformance cases run against: the demo dataset, a
// repository with a large file and symlinks, and an App installation.
type conformanceFixture struct {
	srv      *fakehubtest.Server
	instTok  string
	appJWT   string
	big      []byte
	conf     string // octo-org/conformance's main head
	confTree string
	bigBlob  string
	main     string // hello-world's main head
	clean    string // feature/clean's head
	ciHead   string // feature/greet-test's head: pull request 3's, whose CI fails
	ciRun    string // the demo's workflow run on feature/greet-test
	ciJob    string // its failed "test" job
	bug      string // the number of the demo issue "Greeting ignores empty names"
}

func newConformanceFixture(t *testing.T) *conformanceFixture {
	t.Helper()
	key := rsaKey(t)
	s := startHub(t, fakehub.Config{Apps: []fakehub.App{{ID: 42, PublicKey: &key.PublicKey,
		Installations: []fakehub.Installation{{ID: 7, Repos: map[string]fakehub.Permission{"octo-org/hello-world": fakehub.PermRead}}}}}})
	f := &conformanceFixture{srv: s}
	now := time.Now()
	f.appJWT = appJWT(t, jwt.SigningMethodRS256, key, "42", now.Add(-30*time.Second), now.Add(5*time.Minute))
	status, body := do(t, http.MethodPost, s.URL+"app/installations/7/access_tokens", "Bearer "+f.appJWT)
	if status != 201 {
		t.Fatalf("installation token: %d %v", status, body)
	}
	f.instTok, _ = body["token"].(string)

	if err := s.Hub.CreateRepo(fakehub.RepoOptions{Owner: "octo-org", Name: "conformance", DefaultBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	// Over 1 MB: the contents API answers encoding "none" and the raw blob is the way to the bytes.
	f.big = bytes.Repeat([]byte("0123456789abcdef\n"), 70000)
	if _, err := s.Hub.Commit("octo-org/conformance", "main", "Add files", map[string]string{
		"big.txt": string(f.big), "docs/a.md": "# A\n", "docs/b.md": "# B\n",
	}); err != nil {
		t.Fatal(err)
	}
	head, err := s.Hub.BranchSHA("octo-org/conformance", "main")
	if err != nil {
		t.Fatal(err)
	}
	// Symlinks are made through the API, as a client would: a tree with mode 120000 entries.
	_, cm := do2(t, s, "GET", "repos/octo-org/conformance/git/commits/"+head, "", writer)
	base := cm["tree"].(map[string]any)["sha"].(string)
	_, tree := do2(t, s, "POST", "repos/octo-org/conformance/git/trees", fmt.Sprintf(`{"base_tree":%q,"tree":[
		{"path":"link-to-file","mode":"120000","type":"blob","content":"docs/a.md"},
		{"path":"docs/up","mode":"120000","type":"blob","content":"../big.txt"},
		{"path":"link-outside","mode":"120000","type":"blob","content":"../../etc/passwd"},
		{"path":"link-to-dir","mode":"120000","type":"blob","content":"docs"}]}`, base), writer)
	f.confTree = tree["sha"].(string)
	_, commit := do2(t, s, "POST", "repos/octo-org/conformance/git/commits",
		fmt.Sprintf(`{"message":"Add symlinks","tree":%q,"parents":[%q]}`, f.confTree, head), writer)
	f.conf = commit["sha"].(string)
	if st, b := do2(t, s, "PATCH", "repos/octo-org/conformance/git/refs/heads/main", fmt.Sprintf(`{"sha":%q,"force":false}`, f.conf), writer); st != 200 {
		t.Fatalf("update ref: %d %v", st, b)
	}
	_, blobs := do2(t, s, "GET", "repos/octo-org/conformance/contents/big.txt", "", writer)
	f.bigBlob = blobs["sha"].(string)
	if f.main, err = s.Hub.BranchSHA("octo-org/hello-world", "main"); err != nil {
		t.Fatal(err)
	}
	if f.clean, err = s.Hub.BranchSHA("octo-org/hello-world", "feature/clean"); err != nil {
		t.Fatal(err)
	}
	if f.ciHead, err = s.Hub.BranchSHA("octo-org/hello-world", "feature/greet-test"); err != nil {
		t.Fatal(err)
	}
	_, runs := do2(t, s, "GET", "repos/octo-org/hello-world/commits/feature/greet-test/check-runs?check_name=test", "", writer)
	if list, _ := runs["check_runs"].([]any); len(list) == 1 {
		f.ciJob = fmt.Sprint(int64(list[0].(map[string]any)["id"].(float64)))
	}
	_, job := do2(t, s, "GET", "repos/octo-org/hello-world/actions/jobs/"+f.ciJob, "", writer)
	f.ciRun = fmt.Sprint(int64(job["run_id"].(float64)))
	f.bug = strconv.Itoa(demoIssueNumber(t, s, "Greeting ignores empty names"))
	return f
}

// do2 sends one JSON request with a token and decodes an object answer.
func do2(t *testing.T, s *fakehubtest.Server, method, path, body, token string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %v", method, path, resp.StatusCode, out)
	}
	return resp.StatusCode, out
}

func (f *conformanceFixture) cases() []conformanceCase {
	w, ro, inst := "token "+writer, "token "+readOnly, "token "+f.instTok
	const hw = "repos/octo-org/hello-world/"
	const cf = "repos/octo-org/conformance/"
	const empty = "repos/octo-org/empty/"
	missingSHA := strings.Repeat("0", 40)
	return append(append([]conformanceCase{
		{name: "rate limit", op: "GET /rate_limit", path: "rate_limit", token: w, status: 200, then: rateLimitResources},
		{name: "rate limit, bad credentials", op: "GET /rate_limit", path: "rate_limit", token: "token revoked", status: 401,
			undocumented: "GitHub answers bad credentials 401 on every operation"},

		{name: "user", op: "GET /user", path: "user", token: w, status: 200},
		{name: "user without a token", op: "GET /user", path: "user", status: 401},
		{name: "user with an installation token", op: "GET /user", path: "user", token: inst, status: 403,
			then: wantMessage("Resource not accessible by integration")},

		{name: "search repositories", op: "GET /search/repositories", path: "search/repositories?q=greeter", token: w, status: 200},
		{name: "search repositories without q", op: "GET /search/repositories", path: "search/repositories", token: w, status: 422},
		{name: "search code", op: "GET /search/code", path: "search/code?q=Hello+repo:octo-org/hello-world", token: w, status: 200,
			then: wantHeader("X-RateLimit-Resource", "code_search")},
		{name: "search code without q", op: "GET /search/code", path: "search/code", token: w, status: 422},
		{name: "search issues", op: "GET /search/issues", path: "search/issues?q=greeting+is:issue+is:open+label:bug+repo:octo-org/hello-world", token: w, status: 200,
			then: wantHeader("X-RateLimit-Resource", "search")},
		{name: "search issues without q", op: "GET /search/issues", path: "search/issues", token: w, status: 422},
		{name: "search issues beyond the first 1000 results", op: "GET /search/issues", path: "search/issues?q=greeting&page=11&per_page=100", token: w, status: 422,
			then: wantMessage("Only the first 1000 search results are available")},
		{name: "search code beyond the first 1000 results", op: "GET /search/code", path: "search/code?q=greeting&page=35&per_page=30", token: w, status: 422,
			then: wantMessage("Only the first 1000 search results are available")},

		{name: "repository", op: "GET /repos/{owner}/{repo}", path: "repos/octo-org/hello-world", token: w, status: 200},
		{name: "repository it cannot see", op: "GET /repos/{owner}/{repo}", path: "repos/octo-org/secret", token: ro, status: 404},
		{name: "readme", op: "GET /repos/{owner}/{repo}/readme", path: hw + "readme", token: w, status: 200},
		{name: "readme of an empty repository", op: "GET /repos/{owner}/{repo}/readme", path: empty + "readme", token: w, status: 404},

		{name: "contents of a file", op: "GET /repos/{owner}/{repo}/contents/{path}", path: hw + "contents/go.mod", token: w, status: 200},
		{name: "contents of a directory", op: "GET /repos/{owner}/{repo}/contents/{path}", path: hw + "contents/cmd", token: w, status: 200},
		{name: "contents of the root, object media type", op: "GET /repos/{owner}/{repo}/contents/{path}", path: hw + "contents/",
			token: w, accept: "application/vnd.github.object", status: 200, then: wantEntries},
		{name: "contents of a directory, object media type", op: "GET /repos/{owner}/{repo}/contents/{path}", path: cf + "contents/docs",
			token: w, accept: "application/vnd.github.object+json", status: 200, then: wantEntries},
		{name: "contents of a file, object media type", op: "GET /repos/{owner}/{repo}/contents/{path}", path: cf + "contents/docs/a.md",
			token: w, accept: "application/vnd.github.object", status: 200, then: wantFields(map[string]any{"type": "file", "content": "IyBBCg==\n"})},
		{name: "contents of a file, raw", op: "GET /repos/{owner}/{repo}/contents/{path}", path: cf + "contents/docs/a.md",
			token: w, accept: "application/vnd.github.raw", status: 200, raw: []byte("# A\n")},
		{name: "contents of a file, raw+json", op: "GET /repos/{owner}/{repo}/contents/{path}", path: cf + "contents/docs/b.md",
			token: w, accept: "application/vnd.github.raw+json", status: 200, raw: []byte("# B\n")},
		{name: "contents of a large file", op: "GET /repos/{owner}/{repo}/contents/{path}", path: cf + "contents/big.txt", token: w, status: 200,
			then: wantFields(map[string]any{"encoding": "none", "content": "", "size": float64(len(f.big))})},
		{name: "contents of a large file, raw", op: "GET /repos/{owner}/{repo}/contents/{path}", path: cf + "contents/big.txt",
			token: w, accept: "application/vnd.github.raw", status: 200, raw: f.big},
		{name: "symlink to a file", op: "GET /repos/{owner}/{repo}/contents/{path}", path: cf + "contents/link-to-file", token: w, status: 200,
			then: wantFields(map[string]any{"type": "file", "path": "docs/a.md", "content": "IyBBCg==\n"})},
		{name: "symlink to a file above it", op: "GET /repos/{owner}/{repo}/contents/{path}", path: cf + "contents/docs/up", token: w, status: 200,
			then: wantFields(map[string]any{"type": "file", "path": "big.txt", "encoding": "none"})},
		{name: "symlink to a file, raw", op: "GET /repos/{owner}/{repo}/contents/{path}", path: cf + "contents/link-to-file",
			token: w, accept: "application/vnd.github.raw", status: 200, raw: []byte("# A\n")},
		{name: "symlink out of the repository", op: "GET /repos/{owner}/{repo}/contents/{path}", path: cf + "contents/link-outside", token: w, status: 200,
			then: wantFields(map[string]any{"type": "symlink", "target": "../../etc/passwd", "path": "link-outside"})},
		{name: "symlink to a directory", op: "GET /repos/{owner}/{repo}/contents/{path}", path: cf + "contents/link-to-dir", token: w, status: 200,
			then: wantFields(map[string]any{"type": "symlink", "target": "docs"})},
		{name: "contents of a missing path", op: "GET /repos/{owner}/{repo}/contents/{path}", path: hw + "contents/nope", token: w, status: 404},

		{name: "tree, recursive", op: "GET /repos/{owner}/{repo}/git/trees/{tree_sha}", path: cf + "git/trees/main?recursive=1", token: w, status: 200,
			then: wantFields(map[string]any{"truncated": false})},
		{name: "tree of a missing sha", op: "GET /repos/{owner}/{repo}/git/trees/{tree_sha}", path: hw + "git/trees/" + missingSHA, token: w, status: 404},
		{name: "tree of an empty repository", op: "GET /repos/{owner}/{repo}/git/trees/{tree_sha}", path: empty + "git/trees/main", token: w, status: 409},
		{name: "create tree", op: "POST /repos/{owner}/{repo}/git/trees", path: hw + "git/trees", token: w, status: 201,
			body: `{"tree":[{"path":"a.txt","mode":"100644","type":"blob","content":"a\n"}]}`},
		{name: "create tree with a bad mode", op: "POST /repos/{owner}/{repo}/git/trees", path: hw + "git/trees", token: w, status: 422,
			body: `{"tree":[{"path":"a.txt","mode":"777","type":"blob","content":"a\n"}]}`},
		{name: "create tree without write access", op: "POST /repos/{owner}/{repo}/git/trees", path: hw + "git/trees", token: ro, status: 403,
			body: `{"tree":[{"path":"a.txt","mode":"100644","type":"blob","content":"a\n"}]}`},
		{name: "create tree in an empty repository", op: "POST /repos/{owner}/{repo}/git/trees", path: empty + "git/trees", token: w, status: 409,
			body: `{"tree":[{"path":"a.txt","mode":"100644","type":"blob","content":"a\n"}]}`},

		{name: "blob", op: "GET /repos/{owner}/{repo}/git/blobs/{file_sha}", path: cf + "git/blobs/" + f.bigBlob, token: w, status: 200},
		{name: "blob, raw", op: "GET /repos/{owner}/{repo}/git/blobs/{file_sha}", path: cf + "git/blobs/" + f.bigBlob,
			token: w, accept: "application/vnd.github.raw", status: 200, raw: f.big},
		{name: "blob, raw+json", op: "GET /repos/{owner}/{repo}/git/blobs/{file_sha}", path: cf + "git/blobs/" + f.bigBlob,
			token: w, accept: "application/vnd.github.raw+json", status: 200, raw: f.big},
		{name: "missing blob", op: "GET /repos/{owner}/{repo}/git/blobs/{file_sha}", path: hw + "git/blobs/" + missingSHA, token: w, status: 404},
		{name: "create blob", op: "POST /repos/{owner}/{repo}/git/blobs", path: hw + "git/blobs", token: w, status: 201, body: `{"content":"aGk=","encoding":"base64"}`},
		{name: "create blob with a bad encoding", op: "POST /repos/{owner}/{repo}/git/blobs", path: hw + "git/blobs", token: w, status: 422,
			body: `{"content":"hi","encoding":"rot13"}`, then: noEmptyField},
		{name: "create blob without write access", op: "POST /repos/{owner}/{repo}/git/blobs", path: hw + "git/blobs", token: ro, status: 403, body: `{"content":"hi"}`},
		{name: "create blob in an empty repository", op: "POST /repos/{owner}/{repo}/git/blobs", path: empty + "git/blobs", token: w, status: 409,
			body: `{"content":"hi"}`, then: wantMessage("Git Repository is empty.")},

		{name: "commit", op: "GET /repos/{owner}/{repo}/git/commits/{commit_sha}", path: hw + "git/commits/" + f.main, token: w, status: 200},
		{name: "missing commit", op: "GET /repos/{owner}/{repo}/git/commits/{commit_sha}", path: hw + "git/commits/" + missingSHA, token: w, status: 404},
		{name: "commit in an empty repository", op: "GET /repos/{owner}/{repo}/git/commits/{commit_sha}", path: empty + "git/commits/" + missingSHA, token: w, status: 409},
		{name: "create commit", op: "POST /repos/{owner}/{repo}/git/commits", path: cf + "git/commits", token: w, status: 201,
			body: fmt.Sprintf(`{"message":"again","tree":%q,"parents":[%q]}`, f.confTree, f.conf)},
		{name: "create commit of a missing tree", op: "POST /repos/{owner}/{repo}/git/commits", path: cf + "git/commits", token: w, status: 422,
			body: fmt.Sprintf(`{"message":"again","tree":%q}`, missingSHA), then: noEmptyField},

		{name: "ref", op: "GET /repos/{owner}/{repo}/git/ref/{ref}", path: hw + "git/ref/heads/feature/clean", token: w, status: 200},
		{name: "missing ref", op: "GET /repos/{owner}/{repo}/git/ref/{ref}", path: hw + "git/ref/heads/nope", token: w, status: 404},
		{name: "ref in an empty repository", op: "GET /repos/{owner}/{repo}/git/ref/{ref}", path: empty + "git/ref/heads/main", token: w, status: 409},
		{name: "create ref", op: "POST /repos/{owner}/{repo}/git/refs", path: cf + "git/refs", token: w, status: 201,
			body: fmt.Sprintf(`{"ref":"refs/heads/conformance","sha":%q}`, f.conf)},
		{name: "create an existing ref", op: "POST /repos/{owner}/{repo}/git/refs", path: cf + "git/refs", token: w, status: 422,
			body: fmt.Sprintf(`{"ref":"refs/heads/main","sha":%q}`, f.conf), then: wantMessage("Reference already exists")},
		{name: "update ref", op: "PATCH /repos/{owner}/{repo}/git/refs/{ref}", path: cf + "git/refs/heads/conformance", token: w, status: 200,
			body: fmt.Sprintf(`{"sha":%q,"force":false}`, f.conf)},
		{name: "update a fully qualified ref", op: "PATCH /repos/{owner}/{repo}/git/refs/{ref}", path: cf + "git/refs/refs/heads/conformance", token: w, status: 422,
			body: fmt.Sprintf(`{"sha":%q,"force":true}`, f.conf), then: wantMessage("Reference does not exist")},
		{name: "update ref, not a fast forward", op: "PATCH /repos/{owner}/{repo}/git/refs/{ref}", path: hw + "git/refs/heads/feature/clean", token: w, status: 422,
			body: fmt.Sprintf(`{"sha":%q,"force":false}`, f.main), then: wantMessage("Update is not a fast forward")},
		{name: "delete ref", op: "DELETE /repos/{owner}/{repo}/git/refs/{ref}", path: cf + "git/refs/heads/conformance", token: w, status: 204},
		{name: "delete a missing ref", op: "DELETE /repos/{owner}/{repo}/git/refs/{ref}", path: cf + "git/refs/heads/conformance", token: w, status: 422},

		{name: "commits, one a page", op: "GET /repos/{owner}/{repo}/commits", path: hw + "commits?per_page=1", token: w, status: 200, link: true},
		{name: "commits of a missing ref", op: "GET /repos/{owner}/{repo}/commits", path: hw + "commits?sha=nope", token: w, status: 404},
		{name: "commits of an empty repository", op: "GET /repos/{owner}/{repo}/commits", path: empty + "commits", token: w, status: 409},
		{name: "one commit", op: "GET /repos/{owner}/{repo}/commits/{ref}", path: hw + "commits/" + f.main, token: w, status: 200,
			then: wantFields(map[string]any{"sha": f.main})},
		{name: "one commit by branch, one file a page", op: "GET /repos/{owner}/{repo}/commits/{ref}", path: cf + "commits/main?per_page=1", token: w, status: 200,
			link: true, then: commitStats},
		{name: "one commit of a missing ref", op: "GET /repos/{owner}/{repo}/commits/{ref}", path: hw + "commits/nope", token: w, status: 422,
			then: wantMessage("No commit found for SHA: nope")},
		{name: "one commit of a missing repository", op: "GET /repos/{owner}/{repo}/commits/{ref}", path: "repos/octo-org/nope/commits/main", token: w, status: 404},
		{name: "one commit of an empty repository", op: "GET /repos/{owner}/{repo}/commits/{ref}", path: empty + "commits/main", token: w, status: 409},
		{name: "check runs", op: "GET /repos/{owner}/{repo}/commits/{ref}/check-runs", path: hw + "commits/feature/clean/check-runs", token: w, status: 200},
		{name: "check runs, all", op: "GET /repos/{owner}/{repo}/commits/{ref}/check-runs", path: hw + "commits/feature/clean/check-runs?filter=all", token: w, status: 200},
		{name: "check runs, unknown filter", op: "GET /repos/{owner}/{repo}/commits/{ref}/check-runs", path: hw + "commits/main/check-runs?filter=some", token: w, status: 422,
			undocumented: "the description lists only 200; GitHub refuses a value outside filter's enum with 422", then: noEmptyField},
		{name: "check runs of a missing repository", op: "GET /repos/{owner}/{repo}/commits/{ref}/check-runs", path: "repos/octo-org/nope/commits/main/check-runs", token: w, status: 404,
			undocumented: "the description lists only 200; GitHub answers a repository it cannot see 404 everywhere"},
		{name: "combined status", op: "GET /repos/{owner}/{repo}/commits/{ref}/status", path: hw + "commits/main/status", token: w, status: 200},
		{name: "combined status of a missing ref", op: "GET /repos/{owner}/{repo}/commits/{ref}/status", path: hw + "commits/nope/status", token: w, status: 404},
		// GitHub keeps refs/pull/{n}/head for every pull request and resolves it wherever it takes a
		// ref, with or without "refs/".
		{name: "check runs of a pull request's head ref", op: "GET /repos/{owner}/{repo}/commits/{ref}/check-runs", path: hw + "commits/refs/pull/3/head/check-runs", token: w, status: 200,
			then: wantHeadSHAs("check_runs", "head_sha", f.ciHead)},
		{name: "check runs of a short pull request ref", op: "GET /repos/{owner}/{repo}/commits/{ref}/check-runs", path: hw + "commits/pull/3/head/check-runs", token: w, status: 200,
			then: wantHeadSHAs("check_runs", "head_sha", f.ciHead)},
		{name: "check runs of a missing pull request's ref", op: "GET /repos/{owner}/{repo}/commits/{ref}/check-runs", path: hw + "commits/refs/pull/99/head/check-runs", token: w, status: 422,
			undocumented: "the description lists only 200; GitHub answers a ref it cannot resolve 422 No commit found for SHA", then: wantMessage("No commit found for SHA: refs/pull/99/head")},
		{name: "combined status of a pull request's head ref", op: "GET /repos/{owner}/{repo}/commits/{ref}/status", path: hw + "commits/refs/pull/1/head/status", token: w, status: 200,
			then: wantFields(map[string]any{"sha": f.clean})},
		{name: "combined status of a missing pull request's ref", op: "GET /repos/{owner}/{repo}/commits/{ref}/status", path: hw + "commits/pull/99/head/status", token: w, status: 404},
		{name: "commits of a pull request's head ref", op: "GET /repos/{owner}/{repo}/commits", path: hw + "commits?per_page=1&sha=refs/pull/1/head", token: w, status: 200, link: true,
			then: wantHeadSHAs("", "sha", f.clean)},
		{name: "commits of a missing pull request's ref", op: "GET /repos/{owner}/{repo}/commits", path: hw + "commits?sha=refs/pull/99/head", token: w, status: 404},
		{name: "contents at a pull request's head ref", op: "GET /repos/{owner}/{repo}/contents/{path}", path: hw + "contents/internal/greet/greet_test.go?ref=pull/3/head", token: w, status: 200,
			then: wantContentsAt(f.ciHead)},
		{name: "contents at a missing pull request's ref", op: "GET /repos/{owner}/{repo}/contents/{path}", path: hw + "contents/go.mod?ref=refs/pull/99/head", token: w, status: 404},

		{name: "branches", op: "GET /repos/{owner}/{repo}/branches", path: hw + "branches?per_page=1", token: w, status: 200, link: true},
		{name: "branches of a missing repository", op: "GET /repos/{owner}/{repo}/branches", path: "repos/octo-org/nope/branches", token: w, status: 404},
		{name: "branch", op: "GET /repos/{owner}/{repo}/branches/{branch}", path: hw + "branches/feature/clean", token: w, status: 200},
		{name: "missing branch", op: "GET /repos/{owner}/{repo}/branches/{branch}", path: hw + "branches/nope", token: w, status: 404},

		{name: "pull requests", op: "GET /repos/{owner}/{repo}/pulls", path: hw + "pulls?per_page=1", token: w, status: 200, link: true},
		{name: "pull requests in a bad state", op: "GET /repos/{owner}/{repo}/pulls", path: hw + "pulls?state=nope", token: w, status: 422, then: noEmptyField},
		{name: "create pull request", op: "POST /repos/{owner}/{repo}/pulls", path: cf + "pulls", token: w, status: 201,
			body: `{"title":"t","head":"feature/x","base":"main"}`},
		{name: "create pull request without commits", op: "POST /repos/{owner}/{repo}/pulls", path: hw + "pulls", token: w, status: 422,
			body: `{"title":"t","head":"main","base":"main"}`, then: noEmptyField},
		{name: "create pull request without write access", op: "POST /repos/{owner}/{repo}/pulls", path: hw + "pulls", token: ro, status: 403,
			body: `{"title":"t","head":"feature/clean","base":"main"}`},
		{name: "pull request files", op: "GET /repos/{owner}/{repo}/pulls/{pull_number}/files", path: hw + "pulls/1/files", token: w, status: 200,
			then: wantPatch("docs/guide.md", "+## Packages")},
		{name: "pull request files, one per page", op: "GET /repos/{owner}/{repo}/pulls/{pull_number}/files", path: hw + "pulls/2/files?per_page=1", token: w, status: 200},
		{name: "files of a missing pull request", op: "GET /repos/{owner}/{repo}/pulls/{pull_number}/files", path: hw + "pulls/99/files", token: w, status: 404,
			undocumented: "GitHub answers 404 for a pull request that does not exist"},
		{name: "compare diverged branches", op: "GET /repos/{owner}/{repo}/compare/{basehead}", path: hw + "compare/main...feature/conflict", token: w, status: 200,
			then: wantFields(map[string]any{"status": "diverged", "ahead_by": float64(1), "behind_by": float64(1), "total_commits": float64(1)})},
		{name: "compare with a page of commits", op: "GET /repos/{owner}/{repo}/compare/{basehead}", path: hw + "compare/main...feature/clean?per_page=1", token: w, status: 200},
		{name: "compare a missing ref", op: "GET /repos/{owner}/{repo}/compare/{basehead}", path: hw + "compare/main...nope", token: w, status: 404},
		{name: "workflow run", op: "GET /repos/{owner}/{repo}/actions/runs/{run_id}", path: hw + "actions/runs/" + f.ciRun, token: w, status: 200,
			then: wantFields(map[string]any{"status": "completed", "conclusion": "failure", "head_branch": "feature/greet-test"})},
		{name: "missing workflow run", op: "GET /repos/{owner}/{repo}/actions/runs/{run_id}", path: hw + "actions/runs/1", token: w, status: 404,
			undocumented: "GitHub answers 404 for a run that does not exist"},
		{name: "failed job", op: "GET /repos/{owner}/{repo}/actions/jobs/{job_id}", path: hw + "actions/jobs/" + f.ciJob, token: w, status: 200,
			then: wantFields(map[string]any{"name": "test", "conclusion": "failure"})},
		{name: "missing job", op: "GET /repos/{owner}/{repo}/actions/jobs/{job_id}", path: hw + "actions/jobs/1", token: w, status: 404,
			undocumented: "GitHub answers 404 for a job that does not exist"},
		{name: "job logs redirect", op: "GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs", path: hw + "actions/jobs/" + f.ciJob + "/logs", token: w, status: 302,
			then: wantLogAt("--- FAIL: TestHello")},
		{name: "logs of a missing job", op: "GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs", path: hw + "actions/jobs/1/logs", token: w, status: 404,
			undocumented: "GitHub answers 404 for a job that does not exist"},
		{name: "re-run failed jobs without write access", op: "POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs", path: hw + "actions/runs/" + f.ciRun + "/rerun-failed-jobs", token: ro, status: 403,
			body: `{}`, undocumented: "GitHub answers 403 to a token without write access on every mutation"},
		{name: "re-run failed jobs", op: "POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs", path: hw + "actions/runs/" + f.ciRun + "/rerun-failed-jobs", token: w, status: 201, body: `{}`},
		{name: "re-run a run in progress", op: "POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs", path: hw + "actions/runs/" + f.ciRun + "/rerun-failed-jobs", token: w, status: 403,
			body: `{}`, undocumented: "GitHub refuses to re-run a run that has not finished with 403"},
		{name: "re-run a missing run", op: "POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs", path: hw + "actions/runs/1/rerun-failed-jobs", token: w, status: 404,
			body: `{}`, undocumented: "GitHub answers 404 for a run that does not exist"},
		{name: "cancel the re-run", op: "POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel", path: hw + "actions/runs/" + f.ciRun + "/cancel", token: w, status: 202},
		{name: "cancel a completed run", op: "POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel", path: hw + "actions/runs/" + f.ciRun + "/cancel", token: w, status: 409},
		{name: "cancel without write access", op: "POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel", path: hw + "actions/runs/" + f.ciRun + "/cancel", token: ro, status: 403,
			undocumented: "GitHub answers 403 to a token without write access on every mutation"},
		{name: "cancel a missing run", op: "POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel", path: hw + "actions/runs/1/cancel", token: w, status: 404,
			undocumented: "GitHub answers 404 for a run that does not exist"},
		{name: "re-run a cancelled run", op: "POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun", path: hw + "actions/runs/" + f.ciRun + "/rerun", token: w, status: 201, body: `{}`},
		{name: "re-run a queued run", op: "POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun", path: hw + "actions/runs/" + f.ciRun + "/rerun", token: w, status: 403,
			undocumented: "GitHub refuses to re-run a run that has not finished with 403"},
		{name: "re-run without write access", op: "POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun", path: hw + "actions/runs/" + f.ciRun + "/rerun", token: ro, status: 403,
			undocumented: "GitHub answers 403 to a token without write access on every mutation"},
		{name: "re-run a missing run", op: "POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun", path: hw + "actions/runs/1/rerun", token: w, status: 404,
			undocumented: "GitHub answers 404 for a run that does not exist"},
		{name: "jobs of a run", op: "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs", path: hw + "actions/runs/" + f.ciRun + "/jobs", token: w, status: 200,
			then: wantFields(map[string]any{"total_count": float64(2)})},
		{name: "jobs of every attempt", op: "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs", path: hw + "actions/runs/" + f.ciRun + "/jobs?filter=all&per_page=1", token: w, status: 200, link: true},
		{name: "jobs with an unknown filter", op: "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs", path: hw + "actions/runs/" + f.ciRun + "/jobs?filter=some", token: w, status: 422,
			undocumented: "GitHub refuses a filter other than latest or all with 422"},
		{name: "jobs of a missing run", op: "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs", path: hw + "actions/runs/1/jobs", token: w, status: 404,
			undocumented: "GitHub answers 404 for a run that does not exist"},
		{name: "workflows", op: "GET /repos/{owner}/{repo}/actions/workflows", path: hw + "actions/workflows", token: w, status: 200,
			then: wantFields(map[string]any{"total_count": float64(2)})},
		{name: "workflows of a missing repository", op: "GET /repos/{owner}/{repo}/actions/workflows", path: "repos/octo-org/nope/actions/workflows", token: w, status: 404,
			undocumented: "GitHub answers 404 for a repository the token cannot see"},
		{name: "workflows, one per page", op: "GET /repos/{owner}/{repo}/actions/workflows", path: hw + "actions/workflows?per_page=1", token: w, status: 200, link: true},
		{name: "workflow by id", op: "GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}", path: hw + "actions/workflows/161335", token: w, status: 200,
			then: wantFields(map[string]any{"name": "CI", "path": ".github/workflows/ci.yml"})},
		{name: "workflow by file name", op: "GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}", path: hw + "actions/workflows/release.yml", token: w, status: 200,
			then: wantFields(map[string]any{"name": "Release"})},
		{name: "missing workflow", op: "GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}", path: hw + "actions/workflows/nope.yml", token: w, status: 404,
			undocumented: "GitHub answers 404 for a workflow that does not exist"},
		{name: "runs", op: "GET /repos/{owner}/{repo}/actions/runs", path: hw + "actions/runs", token: w, status: 200,
			then: wantFields(map[string]any{"total_count": float64(5)})},
		{name: "runs by status, branch and event", op: "GET /repos/{owner}/{repo}/actions/runs", path: hw + "actions/runs?status=queued&branch=main&event=push&per_page=1", token: w, status: 200,
			then: wantFields(map[string]any{"total_count": float64(1)})},
		{name: "runs by conclusion", op: "GET /repos/{owner}/{repo}/actions/runs", path: hw + "actions/runs?status=cancelled", token: w, status: 200,
			then: wantFields(map[string]any{"total_count": float64(1)})},
		{name: "runs of a missing repository", op: "GET /repos/{owner}/{repo}/actions/runs", path: "repos/octo-org/nope/actions/runs", token: w, status: 404,
			undocumented: "GitHub answers 404 for a repository the token cannot see"},
		{name: "runs of a workflow", op: "GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs", path: hw + "actions/workflows/release.yml/runs", token: w, status: 200,
			then: wantFields(map[string]any{"total_count": float64(2)})},
		{name: "runs of a missing workflow", op: "GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs", path: hw + "actions/workflows/nope.yml/runs", token: w, status: 404,
			undocumented: "GitHub answers 404 for a workflow that does not exist"},
		{name: "dispatch a workflow", op: "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", path: hw + "actions/workflows/ci.yml/dispatches", token: w, status: 204,
			body: `{"ref":"main","inputs":{"level":"debug"}}`},
		{name: "dispatch with run details", op: "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", path: hw + "actions/workflows/161335/dispatches", token: w, status: 200,
			body: `{"ref":"main","return_run_details":true}`},
		{name: "dispatch a workflow without workflow_dispatch", op: "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", path: hw + "actions/workflows/release.yml/dispatches", token: w, status: 422,
			body: `{"ref":"main"}`, undocumented: "GitHub refuses to dispatch a workflow without the workflow_dispatch trigger with 422"},
		{name: "dispatch on an unknown ref", op: "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", path: hw + "actions/workflows/ci.yml/dispatches", token: w, status: 422,
			body: `{"ref":"nope"}`, undocumented: "GitHub refuses a ref it cannot resolve with 422"},
		{name: "dispatch without a ref", op: "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", path: hw + "actions/workflows/ci.yml/dispatches", token: w, status: 422,
			body: `{}`, undocumented: "GitHub refuses a dispatch without its required ref with 422"},
		{name: "dispatch a missing workflow", op: "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", path: hw + "actions/workflows/nope.yml/dispatches", token: w, status: 404,
			body: `{"ref":"main"}`, undocumented: "GitHub answers 404 for a workflow that does not exist"},
		{name: "dispatch without write access", op: "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", path: hw + "actions/workflows/ci.yml/dispatches", token: ro, status: 403,
			body: `{"ref":"main"}`, undocumented: "GitHub answers 403 to a token without write access on every mutation"},
		{name: "runs after the dispatches", op: "GET /repos/{owner}/{repo}/actions/runs", path: hw + "actions/runs?event=workflow_dispatch", token: w, status: 200,
			then: wantFields(map[string]any{"total_count": float64(2)})},
		{name: "mergeable pull request", op: "GET /repos/{owner}/{repo}/pulls/{pull_number}", path: hw + "pulls/1", token: w, status: 200, then: wantTestMerge},
		{name: "conflicting pull request", op: "GET /repos/{owner}/{repo}/pulls/{pull_number}", path: hw + "pulls/2", token: w, status: 200,
			then: wantFields(map[string]any{"mergeable": false, "merge_commit_sha": nil})},
		{name: "missing pull request", op: "GET /repos/{owner}/{repo}/pulls/{pull_number}", path: hw + "pulls/99", token: w, status: 404},
		{name: "update pull request", op: "PATCH /repos/{owner}/{repo}/pulls/{pull_number}", path: hw + "pulls/2", token: w, status: 200, body: `{"title":"Greet casually"}`},
		{name: "update pull request to a bad state", op: "PATCH /repos/{owner}/{repo}/pulls/{pull_number}", path: hw + "pulls/2", token: w, status: 422,
			body: `{"state":"merged"}`, then: noEmptyField},
		{name: "update pull request without write access", op: "PATCH /repos/{owner}/{repo}/pulls/{pull_number}", path: hw + "pulls/2", token: ro, status: 403, body: `{"title":"x"}`},

		{name: "issues, one a page", op: "GET /repos/{owner}/{repo}/issues", path: hw + "issues?per_page=1", token: w, status: 200, link: true},
		{name: "issues hold pull requests", op: "GET /repos/{owner}/{repo}/issues", path: hw + "issues?state=all&labels=bug", token: w, status: 200,
			then: wantIssueNumbers(false)},
		{name: "issues and pull requests", op: "GET /repos/{owner}/{repo}/issues", path: hw + "issues?state=all", token: w, status: 200,
			then: wantIssueNumbers(true)},
		{name: "issues in a bad state", op: "GET /repos/{owner}/{repo}/issues", path: hw + "issues?state=nope", token: w, status: 422, then: noEmptyField},
		{name: "issues of a missing repository", op: "GET /repos/{owner}/{repo}/issues", path: "repos/octo-org/nope/issues", token: w, status: 404},
		{name: "create issue", op: "POST /repos/{owner}/{repo}/issues", path: hw + "issues", token: w, status: 201,
			body: `{"title":"t","body":"b","labels":["bug",{"name":"fresh"}],"assignees":["writer"],"milestone":1}`,
			then: wantLabels("bug", "fresh")},
		{name: "create issue without push access drops labels", op: "POST /repos/{owner}/{repo}/issues", path: hw + "issues", token: ro, status: 201,
			body: `{"title":"t","labels":["bug"],"assignees":["writer"],"milestone":1}`, then: wantLabels()},
		{name: "create issue without a title", op: "POST /repos/{owner}/{repo}/issues", path: hw + "issues", token: w, status: 422, body: `{"body":"b"}`, then: noEmptyField},
		{name: "create issue for an unknown assignee", op: "POST /repos/{owner}/{repo}/issues", path: hw + "issues", token: w, status: 422,
			body: `{"title":"t","assignees":["nobody-here"]}`, then: noEmptyField},
		{name: "create issue in an unknown milestone", op: "POST /repos/{owner}/{repo}/issues", path: hw + "issues", token: w, status: 422,
			body: `{"title":"t","milestone":99}`, then: noEmptyField},
		{name: "issue", op: "GET /repos/{owner}/{repo}/issues/{issue_number}", path: hw + "issues/" + f.bug, token: w, status: 200,
			then: wantFields(map[string]any{"state": "open", "comments": float64(1)})},
		{name: "pull request as an issue", op: "GET /repos/{owner}/{repo}/issues/{issue_number}", path: hw + "issues/1", token: w, status: 200,
			then: wantPullRequestKey},
		{name: "missing issue", op: "GET /repos/{owner}/{repo}/issues/{issue_number}", path: hw + "issues/999", token: w, status: 404},
		{name: "close issue as a duplicate", op: "PATCH /repos/{owner}/{repo}/issues/{issue_number}", path: hw + "issues/" + f.bug, token: w, status: 200,
			body: `{"state":"closed","state_reason":"duplicate"}`, then: wantFields(map[string]any{"state": "closed", "state_reason": "duplicate"})},
		{name: "reopen issue", op: "PATCH /repos/{owner}/{repo}/issues/{issue_number}", path: hw + "issues/" + f.bug, token: w, status: 200,
			body: `{"state":"open"}`, then: wantFields(map[string]any{"state": "open", "state_reason": "reopened", "closed_at": nil})},
		{name: "update issue with a bad state reason", op: "PATCH /repos/{owner}/{repo}/issues/{issue_number}", path: hw + "issues/" + f.bug, token: w, status: 422,
			body: `{"state":"closed","state_reason":"bored"}`, then: noEmptyField},
		{name: "update issue without write access", op: "PATCH /repos/{owner}/{repo}/issues/{issue_number}", path: hw + "issues/" + f.bug, token: ro, status: 403,
			body: `{"title":"x"}`},
		{name: "update missing issue", op: "PATCH /repos/{owner}/{repo}/issues/{issue_number}", path: hw + "issues/999", token: w, status: 404, body: `{"title":"x"}`},
		{name: "issue comments", op: "GET /repos/{owner}/{repo}/issues/{issue_number}/comments", path: hw + "issues/" + f.bug + "/comments", token: w, status: 200},
		{name: "comments of a missing issue", op: "GET /repos/{owner}/{repo}/issues/{issue_number}/comments", path: hw + "issues/999/comments", token: w, status: 404},
		{name: "comment on a pull request", op: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments", path: hw + "issues/1/comments", token: ro, status: 201,
			body: `{"body":"Looks good"}`},
		{name: "empty comment", op: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments", path: hw + "issues/1/comments", token: w, status: 422,
			body: `{"body":""}`, then: noEmptyField},
		{name: "comment on a missing issue", op: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments", path: hw + "issues/999/comments", token: w, status: 404,
			body: `{"body":"x"}`},
		{name: "labels", op: "GET /repos/{owner}/{repo}/labels", path: hw + "labels?per_page=1", token: w, status: 200, link: true},
		{name: "labels of a missing repository", op: "GET /repos/{owner}/{repo}/labels", path: "repos/octo-org/nope/labels", token: w, status: 404},
		{name: "milestones", op: "GET /repos/{owner}/{repo}/milestones", path: hw + "milestones", token: w, status: 200},
		{name: "milestones of a missing repository", op: "GET /repos/{owner}/{repo}/milestones", path: "repos/octo-org/nope/milestones", token: w, status: 404},
		{name: "create milestone", op: "POST /repos/{owner}/{repo}/milestones", path: hw + "milestones", token: w, status: 201,
			body: `{"title":"v2.0","description":"Next","due_on":"2026-12-01T00:00:00Z"}`, then: wantFields(map[string]any{"number": 2.0, "due_on": "2026-12-01T00:00:00Z", "state": "open"})},
		{name: "create milestone, title taken", op: "POST /repos/{owner}/{repo}/milestones", path: hw + "milestones", token: w, status: 422,
			body: `{"title":"v1.0"}`, then: noEmptyField},
		{name: "create milestone without a title", op: "POST /repos/{owner}/{repo}/milestones", path: hw + "milestones", token: w, status: 422,
			body: `{"description":"x"}`, then: noEmptyField},
		{name: "create milestone, bad due_on", op: "POST /repos/{owner}/{repo}/milestones", path: hw + "milestones", token: w, status: 422,
			body: `{"title":"v3","due_on":"soon"}`, then: noEmptyField},
		{name: "create milestone without write access", op: "POST /repos/{owner}/{repo}/milestones", path: hw + "milestones", token: ro, status: 403,
			body: `{"title":"v3"}`, undocumented: "GitHub answers 403 when the token cannot push"},
		{name: "create milestone in a missing repository", op: "POST /repos/{owner}/{repo}/milestones", path: "repos/octo-org/nope/milestones", token: w, status: 404,
			body: `{"title":"v3"}`},
		{name: "milestone", op: "GET /repos/{owner}/{repo}/milestones/{milestone_number}", path: hw + "milestones/1", token: w, status: 200,
			then: wantFields(map[string]any{"title": "v1.0", "number": 1.0})},
		{name: "missing milestone", op: "GET /repos/{owner}/{repo}/milestones/{milestone_number}", path: hw + "milestones/99", token: w, status: 404},
		{name: "close milestone", op: "PATCH /repos/{owner}/{repo}/milestones/{milestone_number}", path: hw + "milestones/2", token: w, status: 200,
			body: `{"state":"closed","description":null}`, then: wantFields(map[string]any{"state": "closed", "description": nil})},
		{name: "update milestone, bad state", op: "PATCH /repos/{owner}/{repo}/milestones/{milestone_number}", path: hw + "milestones/2", token: w, status: 422,
			body: `{"state":"done"}`, undocumented: "GitHub refuses an invalid state with 422 Validation Failed", then: noEmptyField},
		{name: "update missing milestone", op: "PATCH /repos/{owner}/{repo}/milestones/{milestone_number}", path: hw + "milestones/99", token: w, status: 404,
			body: `{"state":"closed"}`, undocumented: "GitHub answers 404 for a milestone that does not exist"},
		{name: "closed milestones", op: "GET /repos/{owner}/{repo}/milestones", path: hw + "milestones?state=closed", token: w, status: 200},
		{name: "delete milestone", op: "DELETE /repos/{owner}/{repo}/milestones/{milestone_number}", path: hw + "milestones/2", token: w, status: 204},
		{name: "delete missing milestone", op: "DELETE /repos/{owner}/{repo}/milestones/{milestone_number}", path: hw + "milestones/2", token: w, status: 404},
		{name: "merge a conflicting pull request", op: "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge", path: hw + "pulls/2/merge", token: w, status: 405, body: `{}`},
		{name: "merge with a stale head", op: "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge", path: hw + "pulls/1/merge", token: w, status: 409,
			body: fmt.Sprintf(`{"sha":%q}`, f.main)},
		{name: "merge a missing pull request", op: "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge", path: hw + "pulls/99/merge", token: w, status: 404, body: `{}`},
		{name: "merge without write access", op: "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge", path: hw + "pulls/1/merge", token: ro, status: 403, body: `{}`},
		{name: "not merged yet", op: "GET /repos/{owner}/{repo}/pulls/{pull_number}/merge", path: hw + "pulls/1/merge", token: w, status: 404},
		{name: "merge", op: "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge", path: hw + "pulls/1/merge", token: w, status: 200,
			body: fmt.Sprintf(`{"sha":%q}`, f.clean)},
		{name: "merged", op: "GET /repos/{owner}/{repo}/pulls/{pull_number}/merge", path: hw + "pulls/1/merge", token: w, status: 204},

		{name: "installation token", op: "POST /app/installations/{installation_id}/access_tokens", path: "app/installations/7/access_tokens",
			token: "Bearer " + f.appJWT, status: 201},
		{name: "installation token without a JWT", op: "POST /app/installations/{installation_id}/access_tokens", path: "app/installations/7/access_tokens", status: 401},
	}, f.releaseCases()...), f.repoCases()...)
}
