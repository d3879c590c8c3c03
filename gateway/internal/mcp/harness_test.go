package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	ghopsv1 "ghops.dev/gen/ghops/v1"

	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolschema"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fakeService answers merge_pull_request with the error its prNumber names
// (the HTTP-like status GitHub would have sent) and succeeds otherwise.
type fakeService struct {
	ghopsv1.UnimplementedGitHubServiceServer
}

func errStatus(c codes.Code, msg string, reason ghopsv1.ErrorReason, md map[string]string, gh *ghopsv1.GitHubError, extra ...*durationpb.Duration) error {
	st := status.New(c, msg)
	info := &errdetails.ErrorInfo{Reason: reason.String(), Domain: "ghops.dev", Metadata: md}
	var err error
	if gh != nil {
		st, err = st.WithDetails(info, gh)
	} else {
		st, err = st.WithDetails(info)
	}
	if err != nil {
		panic(err)
	}
	for _, d := range extra {
		st, _ = st.WithDetails(&errdetails.RetryInfo{RetryDelay: d})
	}
	return st.Err()
}

func (fakeService) MergePullRequest(ctx context.Context, r *ghopsv1.MergePullRequestRequest) (*ghopsv1.MergePullRequestResponse, error) {
	md := map[string]string{"repo": r.GetRepo(), "pr": "2"}
	switch r.GetPrNumber() {
	case 999:
		blockStarted <- struct{}{}
		<-ctx.Done()
		return nil, status.FromContextError(ctx.Err()).Err()
	case 401:
		return nil, errStatus(codes.Unauthenticated, "Bad credentials", ghopsv1.ErrorReason_ERROR_REASON_UNAUTHENTICATED, md,
			&ghopsv1.GitHubError{Status: 401, Message: "Bad credentials", DocumentationUrl: "https://docs.github.com/rest"})
	case 403:
		return nil, errStatus(codes.PermissionDenied, "Resource not accessible by personal access token", ghopsv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED, md,
			&ghopsv1.GitHubError{Status: 403, Message: "Resource not accessible by personal access token", Resource: &ghopsv1.Resource{Type: "repository", Id: r.GetRepo()}})
	case 404:
		return nil, errStatus(codes.NotFound, "Not Found", ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, md,
			&ghopsv1.GitHubError{Status: 404, Message: "Not Found", DocumentationUrl: "https://docs.github.com/rest/pulls/pulls#merge-a-pull-request", Resource: &ghopsv1.Resource{Type: "pull_request", Id: r.GetRepo() + "#404"}})
	case 422:
		return nil, errStatus(codes.FailedPrecondition, "Validation Failed", ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION, md,
			&ghopsv1.GitHubError{Status: 422, Message: "Validation Failed"})
	case 429:
		return nil, errStatus(codes.ResourceExhausted, "API rate limit exceeded", ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED, md,
			&ghopsv1.GitHubError{Status: 403, Message: "API rate limit exceeded", RateLimit: &ghopsv1.RateLimit{Limit: 5000, Remaining: 0, Reset_: 1795000000, RetryAfterSeconds: 42, Resource: "core"}},
			durationpb.New(42*time.Second))
	case 405:
		md["pr"] = "2"
		return nil, errStatus(codes.FailedPrecondition, "Pull Request is not mergeable", ghopsv1.ErrorReason_ERROR_REASON_PR_NOT_MERGEABLE, md,
			&ghopsv1.GitHubError{Status: 405, Message: "Pull Request is not mergeable", MergeableState: "dirty"})
	case 409:
		md["sha"] = r.GetSha()
		return nil, errStatus(codes.Aborted, "Head branch was modified. Review and try the merge again.", ghopsv1.ErrorReason_ERROR_REASON_HEAD_SHA_MISMATCH, md,
			&ghopsv1.GitHubError{Status: 409, Message: "Head branch was modified. Review and try the merge again.", ExpectedSha: r.GetSha(), ActualSha: "0123456789abcdef0123456789abcdef01234567"})
	case 500:
		return nil, errStatus(codes.Unavailable, "GitHub answered 502 after 3 attempts (token ghp_SECRETSECRETSECRET)", ghopsv1.ErrorReason_ERROR_REASON_UPSTREAM_UNAVAILABLE, md, nil)
	}
	return &ghopsv1.MergePullRequestResponse{Merged: true, Sha: "6dcb09b5b57875f334f61aebed695e2e4193db5e", Message: "Pull Request successfully merged"}, nil
}

// blockStarted receives when a blocking call (prNumber 999) has started.
var blockStarted = make(chan struct{}, 1)

// newRegistry builds the real tool registry.
func newRegistry(t testing.TB) *toolschema.Registry {
	t.Helper()
	reg, err := toolschema.NewRegistry(ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService"))
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// startFakeService serves fakeService on 127.0.0.1 and returns a connection.
func startFakeService(t testing.TB) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	ghopsv1.RegisterGitHubServiceServer(srv, fakeService{})
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// syncBuffer is a goroutine-safe log buffer.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// errorLines returns the jsonrpc_error lines logged so far.
func (s *syncBuffer) errorLines() []string {
	var out []string
	for _, l := range strings.Split(s.String(), "\n") {
		if strings.HasPrefix(l, "jsonrpc_error ") {
			out = append(out, l)
		}
	}
	return out
}

// testServer is an MCP handler over the fake service behind httptest.
type testServer struct {
	h   *Handler
	srv *httptest.Server
	log *syncBuffer
}

// newTestServer starts a handler with the real call path.
func newTestServer(t testing.TB, opts ...Option) *testServer {
	t.Helper()
	reg := newRegistry(t)
	caller := toolcall.New(reg, startFakeService(t), toolcall.WithTimeout(5*time.Second))
	log := &syncBuffer{}
	opts = append([]Option{WithSink(rpcerror.NewSink(log, nil)), WithSessionSecret([]byte("test-secret"))}, opts...)
	h := NewHandler(reg, caller, opts...)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &testServer{h: h, srv: srv, log: log}
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
	req, err := http.NewRequest(method, s.srv.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
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
	tsRE  = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`)
	ridRE = regexp.MustCompile(`\b[0-9a-f]{32}\b`)
)

// normalize replaces the run-dependent parts of a body.
func normalize(b []byte) []byte {
	b = tsRE.ReplaceAll(b, []byte("<timestamp>"))
	return ridRE.ReplaceAll(b, []byte("<request-id>"))
}

// golden compares got with testdata/<name>, rewriting it under -update.
func golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden:\n got: %s\nwant: %s", name, got, want)
	}
}
