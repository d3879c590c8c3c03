package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	ghopsv1 "ghops.dev/gen/ghops/v1"

	"ghops.dev/gateway/internal/fakeservicetest"
	"ghops.dev/gateway/internal/httpcall"
	"ghops.dev/gateway/internal/logtest"
	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolschema"
)

// fakeService answers merge_pull_request with the error its prNumber names
// (the HTTP-like status GitHub would have sent) and succeeds otherwise.
type fakeService struct {
	ghopsv1.UnimplementedGitHubServiceServer
}

func (fakeService) MergePullRequest(ctx context.Context, r *ghopsv1.MergePullRequestRequest) (*ghopsv1.MergePullRequestResponse, error) {
	md := map[string]string{"repo": r.GetRepo(), "pr": "2"}
	switch r.GetPrNumber() {
	case 999:
		blockStarted <- struct{}{}
		<-ctx.Done()
		select {
		case blockCancelled <- struct{}{}:
		default:
		}
		return nil, status.FromContextError(ctx.Err()).Err()
	case 401:
		return nil, fakeservicetest.Status(codes.Unauthenticated, "Bad credentials", ghopsv1.ErrorReason_ERROR_REASON_UNAUTHENTICATED, md,
			&ghopsv1.GitHubError{Status: 401, Message: "Bad credentials", DocumentationUrl: "https://docs.github.com/rest"})
	case 403:
		return nil, fakeservicetest.Status(codes.PermissionDenied, "Resource not accessible by personal access token", ghopsv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED, md,
			&ghopsv1.GitHubError{Status: 403, Message: "Resource not accessible by personal access token", Resource: &ghopsv1.Resource{Type: "repository", Id: r.GetRepo()}})
	case 404:
		return nil, fakeservicetest.Status(codes.NotFound, "Not Found", ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, md,
			&ghopsv1.GitHubError{Status: 404, Message: "Not Found", DocumentationUrl: "https://docs.github.com/rest/pulls/pulls#merge-a-pull-request", Resource: &ghopsv1.Resource{Type: "pr", Id: r.GetRepo() + "#404"}})
	case 422:
		return nil, fakeservicetest.Status(codes.FailedPrecondition, "Validation Failed", ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION, md,
			&ghopsv1.GitHubError{Status: 422, Message: "Validation Failed"})
	case 429:
		return nil, fakeservicetest.Status(codes.ResourceExhausted, "API rate limit exceeded", ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED, md,
			&ghopsv1.GitHubError{Status: 403, Message: "API rate limit exceeded", RateLimit: &ghopsv1.RateLimit{Limit: 5000, Remaining: 0, Reset_: 1795000000, RetryAfterSeconds: 42, Resource: "core"}},
			&errdetails.RetryInfo{RetryDelay: durationpb.New(42 * time.Second)})
	case 405:
		md["pr"] = "2"
		return nil, fakeservicetest.Status(codes.FailedPrecondition, "Pull Request is not mergeable", ghopsv1.ErrorReason_ERROR_REASON_PR_NOT_MERGEABLE, md,
			&ghopsv1.GitHubError{Status: 405, Message: "Pull Request is not mergeable", MergeableState: "dirty"})
	case 409:
		md["sha"] = r.GetSha()
		return nil, fakeservicetest.Status(codes.Aborted, "Head branch was modified. Review and try the merge again.", ghopsv1.ErrorReason_ERROR_REASON_HEAD_SHA_MISMATCH, md,
			&ghopsv1.GitHubError{Status: 409, Message: "Head branch was modified. Review and try the merge again.", ExpectedSha: r.GetSha(), ActualSha: "0123456789abcdef0123456789abcdef01234567"})
	case 500:
		return nil, fakeservicetest.Status(codes.Unavailable, "GitHub answered 502 after 3 attempts (token ghp_SECRETSECRETSECRET)", ghopsv1.ErrorReason_ERROR_REASON_UPSTREAM_UNAVAILABLE, md)
	}
	return &ghopsv1.MergePullRequestResponse{Merged: true, Sha: "6dcb09b5b57875f334f61aebed695e2e4193db5e", Message: "Pull Request successfully merged"}, nil
}

// blockStarted receives when a blocking call (prNumber 999) has started.
var blockStarted = make(chan struct{}, 1)

// blockCancelled receives when a blocking call saw its context end at the
// service: the cancellation crossed gRPC.
var blockCancelled = make(chan struct{}, 1)

// drainCancelled forgets an earlier call's cancellation.
func drainCancelled() {
	select {
	case <-blockCancelled:
	default:
	}
}

// waitServiceCancelled fails unless the service saw the blocking call's
// context end (the deadline only bounds a failure).
func waitServiceCancelled(t *testing.T) {
	t.Helper()
	select {
	case <-blockCancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the service's context was not cancelled")
	}
}

// newRegistry builds the real tool registry.
func newRegistry(t testing.TB) *toolschema.Registry {
	t.Helper()
	reg, err := toolschema.NewRegistry(ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService"))
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// testServer is the MCP transport over the fake service, served by the
// pipeline on 127.0.0.1.
type testServer struct {
	s   *Server
	p   *pipeline.Pipeline
	srv *httptest.Server
	log *logtest.Buffer
}

// newTestServer starts the MCP layer with the real call path.
func newTestServer(t testing.TB, opts ...Option) *testServer {
	t.Helper()
	return newModeServer(t, ToolErrorsAuto, opts...)
}

// newModeServer is newTestServer whose dispatcher applies the tool-error
// mode (WithToolErrors).
func newModeServer(t testing.TB, mode string, opts ...Option) *testServer {
	t.Helper()
	reg := newRegistry(t)
	caller := toolcall.New(reg, fakeservicetest.Serve(t, fakeService{}), toolcall.WithTimeout(5*time.Second))
	log := &logtest.Buffer{}
	logger := slog.New(slog.NewJSONHandler(log, nil))
	opts = append([]Option{WithSessionSecret([]byte("test-secret")), WithLogger(logger)}, opts...)
	s, err := New(reg, caller, append([]Option{WithToolErrors(mode)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	p := pipeline.New(pipeline.Options{MaxBody: 1 << 16, MaxBatch: 10, Sink: rpcerror.NewSink(log, logger), Logger: logger})
	srv := httptest.NewServer(p.Handler(s.HTTP()))
	t.Cleanup(srv.Close)
	return &testServer{s: s, p: p, srv: srv, log: log}
}

// reply is one HTTP answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// post sends body with headers (name, value pairs).
func (s *testServer) post(t testing.TB, body string, headers ...string) reply {
	t.Helper()
	return s.do(t, http.MethodPost, body, headers...)
}

func (s *testServer) do(t testing.TB, method, body string, headers ...string) reply {
	t.Helper()
	resp, b := httpcall.Do(t, method, s.srv.URL, body,
		append([]string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}, headers...)...)
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// decode parses a JSON body into a generic value.
func decode(t testing.TB, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body %q: %v", b, err)
	}
	return m
}

var (
	tsRE   = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`)
	ridRE  = regexp.MustCompile(`\b[0-9a-f]{32}\b`)
	sessRE = regexp.MustCompile(`s1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+`)
)

// normalize replaces the run-dependent parts of a body.
func normalize(b []byte) []byte {
	b = tsRE.ReplaceAll(b, []byte("<timestamp>"))
	b = sessRE.ReplaceAll(b, []byte("<session>"))
	return ridRE.ReplaceAll(b, []byte("<request-id>"))
}
