package fakehub_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/internal/openapisubset"
)

// serviceOperations are the GitHub operations the GitHub service (services/github/internal/ops
// and appauth) calls, by the go-github call that makes them. Each must be served and listed in
// testdata/openapi-operations.txt, so that the conformance test covers it.
var serviceOperations = map[string]string{
	"RateLimit.Get":                       "GET /rate_limit",
	"Users.Get":                           "GET /user",
	"Search.Repositories":                 "GET /search/repositories",
	"Repositories.Get":                    "GET /repos/{owner}/{repo}",
	"Repositories.GetReadme":              "GET /repos/{owner}/{repo}/readme",
	"contents (read_file, list_dir)":      "GET /repos/{owner}/{repo}/contents/{path}",
	"Repositories.ListCommits":            "GET /repos/{owner}/{repo}/commits",
	"commit (get_commit)":                 "GET /repos/{owner}/{repo}/commits/{ref}",
	"Repositories.GetCombinedStatus":      "GET /repos/{owner}/{repo}/commits/{ref}/status",
	"Checks.ListCheckRunsForRef":          "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
	"branches (list_branches)":            "GET /repos/{owner}/{repo}/branches",
	"Git.GetRef":                          "GET /repos/{owner}/{repo}/git/ref/{ref}",
	"Git.GetCommit":                       "GET /repos/{owner}/{repo}/git/commits/{commit_sha}",
	"Git.GetTree":                         "GET /repos/{owner}/{repo}/git/trees/{tree_sha}",
	"Git.GetBlob and the raw blob":        "GET /repos/{owner}/{repo}/git/blobs/{file_sha}",
	"Git.CreateBlob":                      "POST /repos/{owner}/{repo}/git/blobs",
	"Git.CreateTree":                      "POST /repos/{owner}/{repo}/git/trees",
	"Git.CreateCommit":                    "POST /repos/{owner}/{repo}/git/commits",
	"Git.UpdateRef":                       "PATCH /repos/{owner}/{repo}/git/refs/{ref}",
	"Git.DeleteRef":                       "DELETE /repos/{owner}/{repo}/git/refs/{ref}",
	"pulls (list_pull_requests)":          "GET /repos/{owner}/{repo}/pulls",
	"PullRequests.Create":                 "POST /repos/{owner}/{repo}/pulls",
	"PullRequests.Get":                    "GET /repos/{owner}/{repo}/pulls/{pull_number}",
	"pull update (update_pr)":             "PATCH /repos/{owner}/{repo}/pulls/{pull_number}",
	"PullRequests.Merge":                  "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge",
	"PullRequests.ListFiles":              "GET /repos/{owner}/{repo}/pulls/{pull_number}/files",
	"compare (compare_refs)":              "GET /repos/{owner}/{repo}/compare/{basehead}",
	"Actions.GetWorkflowRunByID":          "GET /repos/{owner}/{repo}/actions/runs/{run_id}",
	"Actions.GetWorkflowJobByID":          "GET /repos/{owner}/{repo}/actions/jobs/{job_id}",
	"Actions.GetWorkflowJobLogs":          "GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs",
	"Actions.RerunFailedJobsByID":         "POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs",
	"appauth installation token":          "POST /app/installations/{installation_id}/access_tokens",
	"labels (list_labels)":                "GET /repos/{owner}/{repo}/labels",
	"label create (create_label)":         "POST /repos/{owner}/{repo}/labels",
	"label update (update_label)":         "PATCH /repos/{owner}/{repo}/labels/{name}",
	"issue labels add (label_issue)":      "POST /repos/{owner}/{repo}/issues/{issue_number}/labels",
	"issue label remove (label_issue)":    "DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}",
	"sub-issues (list_sub_issues)":        "GET /repos/{owner}/{repo}/issues/{issue_number}/sub_issues",
	"sub-issue add (add_sub_issue)":       "POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues",
	"sub-issue remove (remove_sub_issue)": "DELETE /repos/{owner}/{repo}/issues/{issue_number}/sub_issue",
}

// notYetServed are the operations the next tools will call that fakehub does not serve yet, each
// with a request that must still answer 404. When fakehub learns one, this test fails: move it to
// testdata/openapi-operations.txt, refresh the subset (testdata/README.md) and give it
// conformance cases.
var notYetServed = []struct{ op, method, path string }{
	{"GET /repos/{owner}/{repo}/check-runs/{check_run_id}", "GET", "repos/octo-org/hello-world/check-runs/1"},
}

// notAPI are routes fakehub serves that are no REST operation of GitHub's description: raw
// downloads (raw.githubusercontent.com's role) and GraphQL, which has no OpenAPI description.
var notAPI = []string{
	"GET /raw/{owner}/{repo}/{sha}/{path}",
	"POST /graphql",
	"POST /api/graphql",
	"GET /_logs/{owner}/{repo}/jobs/{job_id}", // the signed download URL job logs redirect to
}

// rateLimitHeaders are on every API answer GitHub gives, errors included (docs.github.com, "Rate
// limits for the REST API").
var rateLimitHeaders = []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Used", "X-RateLimit-Reset", "X-RateLimit-Resource"}

// TestConformance sends every case to fakehub and checks status, headers and body against
// GitHub's OpenAPI description (testdata/openapi-subset.json), in order: later cases see what
// earlier ones wrote.
func TestConformance(t *testing.T) {
	c := loadContract(t)
	f := newConformanceFixture(t)
	// feature/x on the conformance repository, for the pull request case.
	if _, err := f.srv.Hub.Commit("octo-org/conformance", "feature/x", "x", map[string]string{"x.txt": "x\n"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range append(append(append(f.cases(), f.reviewCases(t)...), f.labelCases(t)...), f.projectCases(t)...) {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(strings.Fields(tc.op)[0], f.srv.URL+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.token != "" {
				req.Header.Set("Authorization", tc.token)
			}
			if tc.accept != "" {
				req.Header.Set("Accept", tc.accept)
			}
			resp, err := noRedirects.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			c.conform(t, tc, resp, body)
			if tc.then != nil {
				tc.then(t, resp, body)
			}
		})
	}
}

// noRedirects sends the cases' requests: a 302 (job logs) is the answer to check, not a hop.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// conform checks one answer against the description of tc.op.
func (c *contract) conform(t testing.TB, tc conformanceCase, resp *http.Response, body []byte) {
	t.Helper()
	method, tmpl, _ := strings.Cut(tc.op, " ")
	op, ok := c.paths[tmpl].(map[string]any)[strings.ToLower(method)].(map[string]any)
	if !ok {
		t.Errorf("%s is not in testdata/openapi-subset.json", tc.op)
		return
	}
	for _, h := range rateLimitHeaders {
		v := resp.Header.Get(h)
		if _, err := strconv.Atoi(v); v == "" || err != nil && h != "X-RateLimit-Resource" {
			t.Errorf("header %s = %q, want GitHub's rate-limit header on every answer", h, v)
		}
	}
	documented, isDocumented := op["responses"].(map[string]any)[strconv.Itoa(resp.StatusCode)].(map[string]any)
	switch {
	case isDocumented && tc.undocumented != "":
		t.Errorf("status %d is documented for %s; drop the case's undocumented reason", resp.StatusCode, tc.op)
	case !isDocumented && tc.undocumented == "":
		t.Errorf("status %d is not documented for %s: %s", resp.StatusCode, tc.op, body)
		return
	}
	if content, _ := documented["content"].(map[string]any); resp.StatusCode >= 400 && (!isDocumented || len(content) > 0) {
		checkBasicError(t, method, tc.path, resp.StatusCode, body)
		checkErrorList(t, body)
	}
	if !isDocumented {
		return
	}
	// Headers the description declares for this answer. Link is only sent when there is another
	// page, so it is required where the case asks for one.
	headers, _ := documented["headers"].(map[string]any)
	for h, decl := range headers {
		v := resp.Header.Get(h)
		if strings.EqualFold(h, "Link") && !tc.link && v == "" {
			continue
		}
		if v == "" {
			t.Errorf("header %s missing; the description declares it for %d", h, resp.StatusCode)
			continue
		}
		// Header schemas are scalars; a header's text is checked against the type declared.
		schema, _ := decl.(map[string]any)["schema"].(map[string]any)
		switch schema["type"] {
		case "integer":
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				t.Errorf("header %s = %q, want an integer", h, v)
			}
		case "string":
			if strings.EqualFold(h, "Location") && !strings.HasPrefix(v, "http") {
				t.Errorf("header Location = %q, want an absolute URL", v)
			}
		}
	}
	if tc.link && resp.Header.Get("Link") == "" {
		t.Errorf("no Link header on a page of several")
	}
	content, _ := documented["content"].(map[string]any)
	if len(content) == 0 {
		return
	}
	mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		t.Errorf("Content-Type %q: %v", resp.Header.Get("Content-Type"), err)
		return
	}
	if tc.raw != nil {
		// The raw media type (docs.github.com, "Media types") is outside the description.
		if mt != "application/vnd.github.raw" {
			t.Errorf("Content-Type %q, want application/vnd.github.raw", mt)
			return
		}
		if !bytes.Equal(body, tc.raw) {
			t.Errorf("raw body of %d bytes differs from the %d wanted (starts %q)", len(body), len(tc.raw), body[:min(len(body), 40)])
			return
		}
		return
	}
	want := "application/json"
	if _, ok := content[tc.accept]; ok && tc.accept != "" {
		want = tc.accept // an alternative representation the description documents
	} else if strings.HasSuffix(tc.accept, "+json") {
		if _, ok := content[strings.TrimSuffix(tc.accept, "+json")]; ok {
			want = strings.TrimSuffix(tc.accept, "+json")
		}
	}
	if mt != "application/json" {
		t.Errorf("Content-Type %q, want application/json", mt)
	}
	s, has, err := c.schemaFor(method, tmpl, resp.StatusCode, want)
	if err != nil {
		t.Errorf("schema: %v", err)
		return
	}
	if !has {
		t.Errorf("no %s schema for %s %d", want, tc.op, resp.StatusCode)
		return
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Errorf("body is not JSON: %v", err)
		return
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("%s %d does not match the %s schema: %v", tc.op, resp.StatusCode, want, err)
	}
	if resp.StatusCode == http.StatusCreated {
		if loc, u := resp.Header.Get("Location"), fieldOf(body, "url"); u != nil && loc != u {
			t.Errorf("Location %q, want the new object's url %v", loc, u)
		}
	}
}

// checkErrorList holds 422 bodies to what GitHub sends: an errors list only when it has items,
// and no item naming an empty field.
func checkErrorList(t testing.TB, body []byte) {
	t.Helper()
	var e struct {
		Errors *[]map[string]any `json:"errors"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Errors == nil {
		return
	}
	if len(*e.Errors) == 0 {
		t.Errorf("empty errors list: %s", body)
	}
	for _, item := range *e.Errors {
		if f, ok := item["field"]; ok && f == "" {
			t.Errorf(`error item with "field": "": %s`, body)
		}
	}
}

func fieldOf(body []byte, name string) any {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	return m[name]
}

func wantMessage(msg string) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, _ *http.Response, body []byte) {
		t.Helper()
		if got := fieldOf(body, "message"); got != msg {
			t.Errorf("message %v, want %q", got, msg)
		}
	}
}

func wantHeader(name, value string) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, resp *http.Response, _ []byte) {
		t.Helper()
		if got := resp.Header.Get(name); got != value {
			t.Errorf("%s = %q, want %q", name, got, value)
		}
	}
}

func wantFields(want map[string]any) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, _ *http.Response, body []byte) {
		t.Helper()
		for k, v := range want {
			if got := fieldOf(body, k); got != v {
				t.Errorf("%s = %#v, want %#v", k, got, v)
			}
		}
	}
}

// wantHeadSHAs requires a non-empty list (the body, or its key list) whose items all carry sha
// in field: the commits of a ref resolved to that commit.
func wantHeadSHAs(list, field, sha string) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, _ *http.Response, body []byte) {
		t.Helper()
		var items []map[string]any
		if list == "" {
			_ = json.Unmarshal(body, &items)
		} else {
			var o map[string]json.RawMessage
			_ = json.Unmarshal(body, &o)
			_ = json.Unmarshal(o[list], &items)
		}
		if len(items) == 0 {
			t.Fatalf("no %s items in %.300s", field, body)
		}
		for i, it := range items {
			if it[field] != sha {
				t.Errorf("item %d: %s %v, want %s", i, field, it[field], sha)
			}
		}
	}
}

// wantContentsAt requires a file answer read at commit sha (its download_url names the commit).
func wantContentsAt(sha string) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, _ *http.Response, body []byte) {
		t.Helper()
		var o struct {
			DownloadURL string `json:"download_url"`
		}
		if err := json.Unmarshal(body, &o); err != nil || !strings.Contains(o.DownloadURL, "/"+sha+"/") {
			t.Errorf("download_url %q, want it read at %s (%v)", o.DownloadURL, sha, err)
		}
	}
}

func noEmptyField(t *testing.T, _ *http.Response, body []byte) {
	t.Helper()
	if bytes.Contains(body, []byte(`"field":""`)) {
		t.Errorf(`"field":"" in %s`, body)
	}
}

func wantEntries(t *testing.T, _ *http.Response, body []byte) {
	t.Helper()
	var o struct {
		Type    string `json:"type"`
		Entries []any  `json:"entries"`
	}
	if err := json.Unmarshal(body, &o); err != nil || o.Type != "dir" || len(o.Entries) == 0 {
		t.Errorf("want a dir object with entries, got %.200s (%v)", body, err)
	}
}

// wantTestMerge: while a pull request is mergeable, merge_commit_sha names its test merge, a
// commit whose parents are the base and the head.
func wantTestMerge(t *testing.T, _ *http.Response, body []byte) {
	t.Helper()
	var p struct {
		Mergeable *bool   `json:"mergeable"`
		SHA       *string `json:"merge_commit_sha"`
		Head      struct{ SHA string }
		Base      struct{ SHA string }
	}
	if err := json.Unmarshal(body, &p); err != nil || p.Mergeable == nil || !*p.Mergeable || p.SHA == nil {
		t.Fatalf("want mergeable with a merge_commit_sha: %.300s (%v)", body, err)
	}
	if *p.SHA == p.Head.SHA || *p.SHA == p.Base.SHA {
		t.Fatalf("merge_commit_sha %s is a branch head, not a test merge", *p.SHA)
	}
}

// rateLimitResources: /rate_limit lists every resource the description's schema names.
func rateLimitResources(t *testing.T, _ *http.Response, body []byte) {
	t.Helper()
	c := theContract
	schema := c.paths["/rate_limit"].(map[string]any)["get"].(map[string]any)["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
	props := schema["properties"].(map[string]any)["resources"].(map[string]any)["properties"].(map[string]any)
	var got struct {
		Resources map[string]struct{ Limit, Remaining int } `json:"resources"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	for name := range props {
		r, ok := got.Resources[name]
		if !ok {
			t.Errorf("resource %s missing", name)
			continue
		}
		if r.Limit <= 0 {
			t.Errorf("resource %s has limit %d", name, r.Limit)
		}
	}
	if cs, s := got.Resources["code_search"].Limit, got.Resources["search"].Limit; cs != 10 || s != 30 {
		t.Errorf("code_search limit %d, search %d: want 10 and 30 a minute, in buckets of their own", cs, s)
	}
}

// TestConformanceCoverage: every API route fakehub serves is listed in
// testdata/openapi-operations.txt and has a success and an error case; every operation the
// service calls is served; the next tools' operations are not served yet.
func TestConformanceCoverage(t *testing.T) {
	data, err := os.ReadFile("testdata/openapi-operations.txt")
	if err != nil {
		t.Fatal(err)
	}
	ops, err := openapisubset.ReadOperations(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, op := range ops {
		listed[op.String()] = true
	}
	f := newConformanceFixture(t)
	served := fakehub.Routes(f.srv.Hub)
	t.Run("served routes are listed", func(t *testing.T) {
		for _, r := range served {
			if !listed[r] && !slices.Contains(notAPI, r) {
				t.Errorf("fakehub serves %s, which testdata/openapi-operations.txt does not list", r)
			}
		}
		for op := range listed {
			if !slices.Contains(served, op) {
				t.Errorf("%s is listed but not served", op)
			}
		}
	})
	t.Run("each operation has a success and an error case", func(t *testing.T) {
		ok, bad := map[string]bool{}, map[string]bool{}
		for _, tc := range append(append(append(f.cases(), f.reviewCases(t)...), f.labelCases(t)...), f.projectCases(t)...) {
			if !listed[tc.op] {
				t.Errorf("case %q: %s is not listed", tc.name, tc.op)
			}
			if tc.status < 400 {
				ok[tc.op] = true
			} else {
				bad[tc.op] = true
			}
		}
		for op := range listed {
			if !ok[op] || !bad[op] {
				t.Errorf("%s: success case %v, error case %v", op, ok[op], bad[op])
			}
		}
	})
	t.Run("the service's operations are served", func(t *testing.T) {
		for call, op := range serviceOperations {
			if !listed[op] {
				t.Errorf("the service's %s calls %s, which fakehub does not serve", call, op)
			}
		}
	})
	for _, n := range notYetServed {
		t.Run("not yet served: "+n.op, func(t *testing.T) {
			req, err := http.NewRequest(n.method, f.srv.URL+n.path, strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "token "+writer)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Fatalf("%s answers %d: fakehub serves it now, so list it in testdata/openapi-operations.txt and give it conformance cases", n.op, resp.StatusCode)
			}
		})
	}
}

// TestConformanceCheckerRejects shows conform can fail: each answer breaks one rule.
func TestConformanceCheckerRejects(t *testing.T) {
	c := loadContract(t)
	okHeaders := func() http.Header {
		h := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
		for _, n := range rateLimitHeaders {
			h.Set(n, "1")
		}
		h.Set("X-RateLimit-Resource", "core")
		return h
	}
	blob := `{"sha":"a","url":"http://x/repos/o/r/git/blobs/a"}`
	tests := []struct {
		name   string
		tc     conformanceCase
		status int
		header func(http.Header)
		body   string
	}{
		{"no Location on a 201", conformanceCase{op: "POST /repos/{owner}/{repo}/git/blobs"}, 201, func(h http.Header) {}, blob},
		{"Location elsewhere", conformanceCase{op: "POST /repos/{owner}/{repo}/git/blobs"}, 201, func(h http.Header) { h.Set("Location", "http://x/other") }, blob},
		{"no rate-limit headers", conformanceCase{op: "POST /repos/{owner}/{repo}/git/blobs"}, 201, func(h http.Header) {
			h.Set("Location", "http://x/repos/o/r/git/blobs/a")
			h.Del("X-RateLimit-Used")
		}, blob},
		{"body off the schema", conformanceCase{op: "POST /repos/{owner}/{repo}/git/blobs"}, 201, func(h http.Header) { h.Set("Location", "http://x/repos/o/r/git/blobs/a") }, `{"sha":"a"}`},
		{"undocumented status", conformanceCase{op: "GET /repos/{owner}/{repo}/commits/{ref}/check-runs"}, 404, func(h http.Header) {}, `{"message":"Not Found","documentation_url":"d","status":"404"}`},
		{"empty errors list", conformanceCase{op: "POST /repos/{owner}/{repo}/git/refs"}, 422, func(h http.Header) {}, `{"message":"m","documentation_url":"d","status":"422","errors":[]}`},
		{"empty field", conformanceCase{op: "POST /repos/{owner}/{repo}/git/refs"}, 422, func(h http.Header) {}, `{"message":"m","documentation_url":"d","status":"422","errors":[{"resource":"Ref","field":"","code":"custom"}]}`},
		{"JSON where raw was asked", conformanceCase{op: "GET /repos/{owner}/{repo}/git/blobs/{file_sha}", raw: []byte("hi")}, 200, func(h http.Header) {}, `{"sha":"a"}`},
		{"no Link on a page of several", conformanceCase{op: "GET /repos/{owner}/{repo}/branches", link: true}, 200, func(h http.Header) {}, `[]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := okHeaders()
			tc.header(h)
			resp := &http.Response{StatusCode: tc.status, Header: h}
			rec := &recordingTB{TB: t}
			c.conform(rec, tc.tc, resp, []byte(tc.body))
			failed := rec.failed
			if !failed {
				t.Fatalf("conform accepted it")
			}
		})
	}
}

// wantPatch requires the first diff entry to be file with a patch that
// starts at a hunk header (GitHub's patch has no file headers) and contains
// line.
func wantPatch(file, line string) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, _ *http.Response, body []byte) {
		t.Helper()
		var files []struct {
			Filename string `json:"filename"`
			Patch    string `json:"patch"`
		}
		if err := json.Unmarshal(body, &files); err != nil || len(files) == 0 {
			t.Fatalf("want diff entries, got %.200s (%v)", body, err)
		}
		f := files[0]
		if f.Filename != file || !strings.HasPrefix(f.Patch, "@@ -") || !strings.Contains(f.Patch, "\n"+line) {
			t.Errorf("entry = %s with patch %q, want %s with a patch holding %q", f.Filename, f.Patch, file, line)
		}
	}
}

// wantLogAt follows a job logs redirect without a token, as a client must
// (the signed URL needs none), and requires the log to contain text, each
// line after GitHub's timestamp.
func wantLogAt(text string) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, resp *http.Response, _ []byte) {
		t.Helper()
		loc := resp.Header.Get("Location")
		got, err := http.Get(loc)
		if err != nil {
			t.Fatal(err)
		}
		defer got.Body.Close()
		log, _ := io.ReadAll(got.Body)
		if got.StatusCode != 200 || !bytes.Contains(log, []byte(text)) || !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z `).Match(log) {
			t.Errorf("GET %s: %d %.200q", loc, got.StatusCode, log)
		}
		// Without its signature, the URL gives nothing.
		if bad, err := http.Get(strings.Split(loc, "?")[0]); err != nil || bad.StatusCode != 403 {
			t.Errorf("unsigned log URL: %v %v", bad, err)
		} else {
			bad.Body.Close()
		}
	}
}

// commitStats requires one commit's page of one file and stats that count
// every file of the commit (octo-org/conformance's head adds four symlinks
// of one line each), not only the page's.
func commitStats(t *testing.T, _ *http.Response, body []byte) {
	t.Helper()
	var o struct {
		Stats struct{ Additions, Deletions, Total int } `json:"stats"`
		Files []struct {
			Filename string `json:"filename"`
			Patch    string `json:"patch"`
		} `json:"files"`
	}
	if err := json.Unmarshal(body, &o); err != nil {
		t.Fatal(err)
	}
	if o.Stats.Additions != 4 || o.Stats.Deletions != 0 || o.Stats.Total != 4 {
		t.Errorf("stats %+v, want 4 additions, 0 deletions, total 4", o.Stats)
	}
	if len(o.Files) != 1 || o.Files[0].Patch == "" {
		t.Errorf("files %+v, want one file with its patch", o.Files)
	}
}
