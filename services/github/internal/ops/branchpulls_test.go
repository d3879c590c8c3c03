package ops

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"

	"ghops.dev/services/github/internal/jsonmemo"
)

// prServer answers GitHub's pull request #1 of o/r with body (status
// 404 when body is "404"), stamped with its digest as the service's cache
// stamps the bodies it keeps, and the head's checks as empty lists.
func prServer(t *testing.T, body string) *github.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/repos/o/r/pulls/1" && body == "404":
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"message":"Not Found"}`))
		case r.URL.Path == "/repos/o/r/pulls/1":
			w.Header().Set(jsonmemo.DigestHeader, jsonmemo.Digest([]byte(body)))
			w.Write([]byte(body))
		case strings.HasSuffix(r.URL.Path, "/check-runs"):
			w.Write([]byte(`{"total_count":0,"check_runs":[]}`))
		case strings.HasSuffix(r.URL.Path, "/status"):
			w.Write([]byte(`{"state":"success","total_count":0,"statuses":[]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	gh := github.NewClient(srv.Client())
	u, err := url.Parse(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	gh.BaseURL = u
	return gh
}

const fullPR = `{"number":1,"title":"Document the greet package","body":"Adds a guide.","state":"open","draft":false,
"merged":false,"mergeable":true,"mergeable_state":"clean","user":{"login":"octocat"},
"head":{"ref":"feature/clean","sha":"1111111111111111111111111111111111111111"},
"base":{"ref":"main","sha":"2222222222222222222222222222222222222222","repo":{"full_name":"o/r"}},
"html_url":"https://github.com/o/r/pull/1","commits":2,"changed_files":1,"additions":4,"deletions":0,
"updated_at":"2026-11-24T10:00:00Z","labels":[{"name":"docs"},{"name":"good first issue"}]}`

// The pull request read through the memo is what go-github's
// PullRequests.Get gives for the same answer, first decoded and then
// from the memo, errors included; an answer that is not pull request #1 of
// o/r (ownPull) is refused however it decodes.
func TestPullRequestAsGoGitHub(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		hit     bool // the second read comes from the memo
		foreign bool // refused as another repository's
	}{
		{name: "full pull request", body: fullPR, hit: true},
		{name: "mergeable not yet computed", body: `{"number":1,"state":"open","mergeable":null,"head":{"sha":"1111111111111111111111111111111111111111"},"base":{"repo":{"full_name":"O/R"}}}`, hit: true},
		{name: "empty answer", body: "", hit: true, foreign: true},
		{name: "another repository's pull request", body: strings.Replace(fullPR, `"full_name":"o/r"`, `"full_name":"o/other"`, 1), hit: true, foreign: true},
		{name: "another number", body: strings.Replace(fullPR, `"number":1,`, `"number":2,`, 1), hit: true, foreign: true},
		{name: "not found", body: "404"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			gh := prServer(t, tt.body)
			want, _, wantErr := gh.PullRequests.Get(ctx, "o", "r", 1)
			memo := jsonmemo.New(1 << 20)
			s := New(nil, Limits{}, nil).WithMemo(memo)
			for i := range 2 {
				got, err := s.pullRequest(ctx, gh, "o/r", 1)
				if tt.foreign {
					var fe *foreignError
					if !errors.As(err, &fe) {
						t.Fatalf("read %d: error %v, want the answer refused as another repository's", i, err)
					}
					continue
				}
				if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
					t.Fatalf("read %d: error %v, want %v", i, err, wantErr)
				}
				if err == nil && !reflect.DeepEqual(got, want) {
					t.Errorf("read %d: got %+v, want %+v", i, got, want)
				}
			}
			if got := memo.Hits() > 0; got != tt.hit {
				t.Errorf("memo hit %v, want %v", got, tt.hit)
			}
		})
	}
}

// An answer never points into the pull request the memo shares: changing
// one call's answer leaves the next call's as GitHub sent it.
func TestMergeabilityAnswerOwnsItsValues(t *testing.T) {
	gh := prServer(t, fullPR)
	s := New(func(context.Context) *github.Client { return gh }, Limits{MergeabilityAttempts: 1}, nil).WithMemo(jsonmemo.New(1 << 20))
	req := &ghopsv1.GetPrMergeabilityRequest{Repo: "o/r", PrNumber: 1}
	tests := []struct {
		name string
		want bool
	}{
		{name: "first call", want: true},
		{name: "after the first answer was changed", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := s.GetPrMergeability(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if r.Mergeable == nil || *r.Mergeable != tt.want {
				t.Fatalf("mergeable %v (set %v), want %v", r.GetMergeable(), r.Mergeable != nil, tt.want)
			}
			*r.Mergeable = !*r.Mergeable // a caller changing its answer
		})
	}
}
