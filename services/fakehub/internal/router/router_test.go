package router

import (
	"reflect"
	"testing"
)

func TestMatch(t *testing.T) {
	rt := New("path", "ref", "branch")
	rt.Add("GET", "/repos/{owner}/{repo}")
	rt.Add("GET", "/repos/{owner}/{repo}/contents/{path}")
	rt.Add("GET", "/repos/{owner}/{repo}/commits")
	rt.Add("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs")
	rt.Add("GET", "/repos/{owner}/{repo}/branches/{branch}")
	rt.Add("PUT", "/repos/{owner}/{repo}/pulls/{pull_number}/merge")
	tests := []struct {
		name, method, path, route string
		params                    Params
		mismatch                  bool
	}{
		{"repo", "GET", "/repos/o/r", "/repos/{owner}/{repo}", Params{"owner": "o", "repo": "r"}, false},
		{"contents root slash", "GET", "/repos/o/r/contents/", "/repos/{owner}/{repo}/contents/{path}", Params{"owner": "o", "repo": "r", "path": ""}, false},
		{"contents root bare", "GET", "/repos/o/r/contents", "/repos/{owner}/{repo}/contents/{path}", Params{"owner": "o", "repo": "r", "path": ""}, false},
		{"contents nested", "GET", "/repos/o/r/contents/a/b%20c.go", "/repos/{owner}/{repo}/contents/{path}", Params{"owner": "o", "repo": "r", "path": "a/b c.go"}, false},
		{"check runs slash ref", "GET", "/repos/o/r/commits/feature/x/check-runs", "/repos/{owner}/{repo}/commits/{ref}/check-runs", Params{"owner": "o", "repo": "r", "ref": "feature/x"}, false},
		{"branch slash", "GET", "/repos/o/r/branches/feature/x", "/repos/{owner}/{repo}/branches/{branch}", Params{"owner": "o", "repo": "r", "branch": "feature/x"}, false},
		{"method mismatch", "POST", "/repos/o/r", "", nil, true},
		{"no route", "GET", "/nope", "", nil, false},
		{"merge", "PUT", "/repos/o/r/pulls/3/merge", "/repos/{owner}/{repo}/pulls/{pull_number}/merge", Params{"owner": "o", "repo": "r", "pull_number": "3"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, p, mm := rt.Match(tc.method, tc.path)
			got := ""
			if r != nil {
				got = r.Template
			}
			if got != tc.route || mm != tc.mismatch || (r != nil && !reflect.DeepEqual(p, tc.params)) {
				t.Fatalf("Match(%s %s) = %q %v %v, want %q %v %v", tc.method, tc.path, got, p, mm, tc.route, tc.params, tc.mismatch)
			}
		})
	}
}

func FuzzMatch(f *testing.F) {
	rt := New("path", "ref", "branch")
	rt.Add("GET", "/repos/{owner}/{repo}/contents/{path}")
	rt.Add("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs")
	for _, s := range []string{"/repos/o/r/contents/", "/repos/o/r/commits/a/b/check-runs", "//", "/repos/%zz/r", "/repos/o/r/commits//check-runs"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		r, p, _ := rt.Match("GET", path)
		if r != nil && (p["owner"] == "" || p["repo"] == "") {
			t.Fatalf("matched %q with empty owner/repo: %v", path, p)
		}
	})
}
