package reposcope

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// recorder is a loopback GitHub stand-in that records the paths it gets.
type recorder struct {
	mu    sync.Mutex
	paths []string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.paths = append(r.paths, req.Method+" "+req.URL.EscapedPath())
	r.mu.Unlock()
	_, _ = io.WriteString(w, "{}")
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.paths
	r.paths = nil
	return out
}

func TestTransport(t *testing.T) {
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	base, err := url.Parse(srv.URL + "/api/v3/")
	if err != nil {
		t.Fatal(err)
	}
	gql, _ := url.Parse(srv.URL + "/api/graphql")
	tr := &Transport{Base: http.DefaultTransport, API: base, Allow: Endpoints(base, gql)}
	scoped := With(context.Background(), "octo-org/hello-world")
	owned := withOwners(context.Background(), "octo-org")
	tests := []struct {
		name, method, url string
		ctx               context.Context
		sent              bool
	}{
		{"repository root", "GET", "api/v3/repos/octo-org/hello-world", scoped, true},
		{"under the repository", "GET", "api/v3/repos/octo-org/hello-world/git/ref/heads/main", scoped, true},
		{"owner and name in another case", "GET", "api/v3/repos/Octo-Org/Hello-World/branches", scoped, true},
		{"escaped file name", "GET", "api/v3/repos/octo-org/hello-world/contents/a%20b%3F", scoped, true},
		{"root directory", "GET", "api/v3/repos/octo-org/hello-world/contents/", scoped, true},
		{"search", "GET", "api/v3/search/repositories?q=x", context.Background(), true},
		{"issue search", "GET", "api/v3/search/issues?q=repo:octo-org/secret+x", scoped, true},
		{"code search", "GET", "api/v3/search/code?q=x", context.Background(), true},
		{"another search", "GET", "api/v3/search/commits?q=x", scoped, false},
		{"issue search with the wrong method", "POST", "api/v3/search/issues", scoped, false},
		{"user", "GET", "api/v3/user", context.Background(), true},
		{"rate limit", "GET", "api/v3/rate_limit", scoped, true},
		{"graphql", "POST", "api/graphql", scoped, true},
		{"another repository", "GET", "api/v3/repos/octo-org/secret/git/ref/heads/main", scoped, false},
		{"a prefix of the name", "GET", "api/v3/repos/octo-org/hello-world-2/branches", scoped, false},
		{"no scope", "GET", "api/v3/repos/octo-org/hello-world", context.Background(), false},
		{"escaped dot-dot", "GET", "api/v3/repos/octo-org/hello-world/contents/%2e%2e/%2E%2E/secret", scoped, false},
		{"escaped slash", "GET", "api/v3/repos/octo-org/hello-world%2F..%2Fsecret/branches", scoped, false},
		{"empty segment", "GET", "api/v3/repos/octo-org//hello-world/branches", scoped, false},
		{"not a repository endpoint", "GET", "api/v3/orgs/octo-org/repos", scoped, false},
		{"the call's organization's repositories", "GET", "api/v3/orgs/octo-org/repos", owned, true},
		{"a repository created in the call's organization", "POST", "api/v3/orgs/Octo-Org/repos", owned, true},
		{"the call's user's repositories", "GET", "api/v3/users/octo-org/repos", owned, true},
		{"a user's repositories are not created there", "POST", "api/v3/users/octo-org/repos", owned, false},
		{"another organization's repositories", "GET", "api/v3/orgs/other/repos", owned, false},
		{"another organization's endpoint", "GET", "api/v3/orgs/octo-org/members", owned, false},
		{"the identity's repositories", "GET", "api/v3/user/repos?type=owner", context.Background(), true},
		{"a repository of the identity", "POST", "api/v3/user/repos", context.Background(), true},
		{"an installation's repositories", "GET", "api/v3/installation/repositories", context.Background(), true},
		{"search with the wrong method", "DELETE", "api/v3/search/repositories", scoped, false},
		{"outside the API", "GET", "other/repos/octo-org/hello-world", scoped, false},
		{"graphql of the REST path", "POST", "api/v3/graphql", scoped, false},
		{"no name", "GET", "api/v3/repos/octo-org/", With(context.Background(), "octo-org"), false},
		{"a scope that is not owner/name", "GET", "api/v3/repos/octo-org/hello-world", With(context.Background(), "octo-org/hello-world/x"), false},
		{"another host", "GET", "http://example.invalid/api/v3/repos/octo-org/hello-world", scoped, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := tc.url
			if !strings.HasPrefix(u, "http") {
				u = srv.URL + "/" + u
			}
			req, err := http.NewRequestWithContext(tc.ctx, tc.method, u, strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := tr.RoundTrip(req)
			got := rec.take()
			if tc.sent {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				resp.Body.Close()
				if len(got) != 1 {
					t.Fatalf("recorded %v, want one request", got)
				}
				return
			}
			var rf *Refused
			if !errors.As(err, &rf) || rf.Method != tc.method {
				t.Fatalf("err = %v, want Refused", err)
			}
			if len(got) != 0 {
				t.Fatalf("refused request reached the server: %v", got)
			}
		})
	}
}

func TestUnaryScopesToMarkedFields(t *testing.T) {
	tests := []struct {
		name string
		req  proto.Message
		want []string
	}{
		{"repo of a read", &ghopsv1.ReadFileRequest{Repo: "o/r", Path: "a"}, []string{"o/r"}},
		{"repo of a write", &ghopsv1.ApplyPatchRequest{Repo: "o/w", Branch: "b"}, []string{"o/w"}},
		{"optional repo absent", &ghopsv1.ValidateEnvironmentRequest{}, nil},
		{"no repository field", &ghopsv1.SearchRequest{Query: "q"}, nil},
		{"an owner is no repository", &ghopsv1.CreateRepositoryRequest{Owner: proto.String("o"), Name: "n"}, nil},
		{"the repository forked", &ghopsv1.ForkRepositoryRequest{Repo: "o/r", Owner: proto.String("p")}, []string{"o/r"}},
		{"a sub-issue's other repository", &ghopsv1.AddSubIssueRequest{Repo: "o/r", SubIssue: 2, SubIssueRepo: proto.String("o/other")}, []string{"o/r", "o/other"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			_, err := Unary(context.Background(), tc.req, &grpc.UnaryServerInfo{}, func(ctx context.Context, _ any) (any, error) {
				got = From(ctx)
				return nil, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("scope = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestUnaryOwners checks that the owners a request names (fields marked
// RESOURCE_KIND_OWNER) scope the call's account-level requests.
func TestUnaryOwners(t *testing.T) {
	tests := []struct {
		name string
		req  proto.Message
		want []string
	}{
		{"organization of a new repository", &ghopsv1.CreateRepositoryRequest{Owner: proto.String("octo-org"), Name: "n"}, []string{"octo-org"}},
		{"no owner: the identity's own", &ghopsv1.CreateRepositoryRequest{Name: "n"}, nil},
		{"owner listed", &ghopsv1.ListRepositoriesRequest{Owner: proto.String("octocat")}, []string{"octocat"}},
		{"fork target", &ghopsv1.ForkRepositoryRequest{Repo: "o/r", Owner: proto.String("p")}, []string{"p"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			_, err := Unary(context.Background(), tc.req, &grpc.UnaryServerInfo{}, func(ctx context.Context, _ any) (any, error) {
				got, _ = ctx.Value(ownerKey{}).([]string)
				return nil, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("owners = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestEveryToolRequestIsScoped keeps the interceptor true to the contract:
// every request message with a repo field has it marked, so no tool's
// call runs unscoped by omission.
func TestEveryToolRequestIsScoped(t *testing.T) {
	sd := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService")
	for i := 0; i < sd.Methods().Len(); i++ {
		md := sd.Methods().Get(i).Input()
		t.Run(string(md.Name()), func(t *testing.T) {
			fd := md.Fields().ByName("repo")
			if fd == nil {
				return
			}
			if !slices.Contains(fieldsOf(md), fd) {
				t.Errorf("%s.repo is not marked RESOURCE_KIND_REPOSITORY", md.FullName())
			}
		})
	}
}

// TestCheckNamed checks the guard of requests that name their repository
// in the body (createCommitOnBranch's repositoryNameWithOwner): only the
// call's repository passes, compared as GitHub compares names.
func TestCheckNamed(t *testing.T) {
	scoped := With(context.Background(), "octo-org/hello-world")
	tests := []struct {
		name string
		ctx  context.Context
		repo string
		ok   bool
	}{
		{name: "the call's repository", ctx: scoped, repo: "octo-org/hello-world", ok: true},
		{name: "another case", ctx: scoped, repo: "Octo-Org/Hello-World", ok: true},
		{name: "another repository", ctx: scoped, repo: "octo-org/secret"},
		{name: "another owner", ctx: scoped, repo: "evil/hello-world"},
		{name: "a nested name", ctx: scoped, repo: "octo-org/hello-world/x"},
		{name: "no owner", ctx: scoped, repo: "/hello-world"},
		{name: "no slash", ctx: scoped, repo: "hello-world"},
		{name: "no scope at all", ctx: context.Background(), repo: "octo-org/hello-world"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckNamed(tt.ctx, "/graphql", tt.repo)
			var rf *Refused
			if tt.ok != (err == nil) || (err != nil && !errors.As(err, &rf)) {
				t.Fatalf("CheckNamed(%q) = %v, want allowed %v (a *Refused otherwise)", tt.repo, err, tt.ok)
			}
		})
	}
}
