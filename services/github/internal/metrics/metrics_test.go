package metrics

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestRoute(t *testing.T) {
	tests := []struct{ name, method, path, want string }{
		{name: "repo", method: "GET", path: "/repos/o/r", want: "GET /repos/{owner}/{repo}"},
		{name: "contents root", method: "GET", path: "/repos/o/r/contents/", want: "GET /repos/{owner}/{repo}/contents"},
		{name: "nested contents", method: "GET", path: "/repos/o/r/contents/a/b/c.go", want: "GET /repos/{owner}/{repo}/contents/{path}"},
		{name: "ref with slash", method: "GET", path: "/repos/o/r/git/ref/heads/feature/x", want: "GET /repos/{owner}/{repo}/git/ref/{ref}"},
		{name: "check runs of slashed ref", method: "GET", path: "/repos/o/r/commits/feature/x/check-runs", want: "GET /repos/{owner}/{repo}/commits/{ref}/check-runs"},
		{name: "merge", method: "PUT", path: "/repos/o/r/pulls/1/merge", want: "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge"},
		{name: "unknown", method: "GET", path: "/users/x", want: "GET other"},
		{name: "graphql", method: "POST", path: "/graphql", want: "POST /graphql"},
		{name: "enterprise graphql", method: "POST", path: "/api/graphql", want: "POST /api/graphql"},
		{name: "readme", method: "GET", path: "/repos/o/r/readme", want: "GET /repos/{owner}/{repo}/readme"},
		{name: "odd method", method: "BREW", path: "/repos/o/r", want: "OTHER /repos/{owner}/{repo}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Route(tt.method, tt.path); got != tt.want {
				t.Errorf("Route(%s %s) = %q, want %q", tt.method, tt.path, got, tt.want)
			}
		})
	}
}

func FuzzRoute(f *testing.F) {
	for _, p := range []string{"/", "", "/repos/o/r/contents/a/b", "//repos//", "/repos/o/r/commits/x/status", "/search/repositories"} {
		f.Add("GET", p)
	}
	f.Fuzz(func(t *testing.T, method, path string) {
		got := Route(method, path)
		if !strings.HasSuffix(got, " other") && !strings.Contains(got, " /") {
			t.Errorf("Route(%q, %q) = %q", method, path, got)
		}
		if strings.ContainsAny(strings.SplitN(got, " ", 2)[1], "?#") {
			t.Errorf("label leaks raw path: %q", got)
		}
	})
}

func TestTransportCounts(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Remaining", "42")
		w.Header().Set("X-RateLimit-Resource", "core")
	}))
	t.Cleanup(ts.Close)
	m := New()
	c := &http.Client{Transport: m.Transport(nil, "/")}
	resp, err := c.Get(ts.URL + "/repos/o/r")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`ghops_github_requests_total{route="GET /repos/{owner}/{repo}",status="200"} 1`,
		`ghops_github_rate_limit_remaining{resource="core"} 42`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestContentRemoved(t *testing.T) {
	m := New()
	m.ContentRemoved("secret", 2)
	m.ContentRemoved("secret", 1)
	m.ContentRemoved("invisible", 0)
	if got := testutil.ToFloat64(m.content.WithLabelValues("secret")); got != 3 {
		t.Errorf("secret = %v, want 3", got)
	}
	if n := testutil.CollectAndCount(m.content); n != 1 {
		t.Errorf("%d series, want 1 (a zero count adds none)", n)
	}
}

// TestContentWithheld: content trust's hook counts withheld texts by method.
func TestContentWithheld(t *testing.T) {
	m := New()
	m.ContentWithheld("/ghops.v1.GitHubService/GetIssue", 2)
	m.ContentWithheld("/ghops.v1.GitHubService/GetIssue", 1)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if want := `ghops_content_withheld_total{method="/ghops.v1.GitHubService/GetIssue"} 3`; !strings.Contains(rec.Body.String(), want) {
		t.Errorf("metrics lack %s", want)
	}
}
