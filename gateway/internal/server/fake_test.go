package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/fakeservicetest"
	"ghops.dev/gateway/internal/httpcall"
	"ghops.dev/gateway/internal/logtest"
	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolrpc"
	"ghops.dev/gateway/internal/toolschema"
)

// fakeService answers Fetch by the repo's name: "o/ok" succeeds, "o/<scenario>"
// fails with the crafted status of that scenario, "o/slow" blocks until
// release is closed.
type fakeService struct {
	ghopsv1.UnimplementedGitHubServiceServer
	started chan struct{} // receives one value per o/slow call
	release chan struct{}
	mu      sync.Mutex
	md      []map[string][]string
}

// scenarios are the crafted service failures, by repo name.
var scenarios = map[string]error{
	"o/denied": fakeservicetest.Status(codes.PermissionDenied, "Resource not accessible by personal access token",
		ghopsv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED, map[string]string{"repo": "o/denied", "tool": "fetch"},
		&ghopsv1.GitHubError{Status: 403, Message: "Resource not accessible by personal access token", DocumentationUrl: "https://docs.github.com/rest/repos/repos#get-a-repository",
			Resource: &ghopsv1.Resource{Type: "repository", Id: "o/denied"}}),
	"o/missing": fakeservicetest.Status(codes.NotFound, "Not Found",
		ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, map[string]string{"repo": "o/missing", "tool": "fetch"},
		&ghopsv1.GitHubError{Status: 404, Message: "Not Found", DocumentationUrl: "https://docs.github.com/rest/repos/repos#get-a-repository",
			Resource: &ghopsv1.Resource{Type: "repository", Id: "o/missing"}},
		&errdetails.ResourceInfo{ResourceType: "repository", ResourceName: "o/missing"}),
	"o/unprocessable": fakeservicetest.Status(codes.FailedPrecondition, "Validation Failed: No commits between main and feature/x",
		ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION, map[string]string{"repo": "o/unprocessable", "tool": "fetch"},
		&ghopsv1.GitHubError{Status: 422, Message: "Validation Failed", DocumentationUrl: "https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
			FieldErrors: []*ghopsv1.GitHubFieldError{{Resource: "PullRequest", Code: "custom", Message: "No commits between main and feature/x"}}}),
	"o/limited": fakeservicetest.Status(codes.ResourceExhausted, "API rate limit exceeded",
		ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED, map[string]string{"repo": "o/limited", "tool": "fetch"},
		&ghopsv1.GitHubError{Status: 403, Message: "API rate limit exceeded for user ID 1.", DocumentationUrl: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
			RateLimit: &ghopsv1.RateLimit{Limit: 5000, Remaining: 0, Reset_: 1795000000, RetryAfterSeconds: 42, Resource: "core"}},
		&errdetails.RetryInfo{RetryDelay: durationpb.New(42 * time.Second)}),
	"o/dirty": fakeservicetest.Status(codes.FailedPrecondition, "Pull Request is not mergeable",
		ghopsv1.ErrorReason_ERROR_REASON_PR_NOT_MERGEABLE, map[string]string{"repo": "o/dirty", "pr": "7", "tool": "fetch"},
		&ghopsv1.GitHubError{Status: 405, Message: "Pull Request is not mergeable", DocumentationUrl: "https://docs.github.com/rest/pulls/pulls#merge-a-pull-request",
			MergeableState: "dirty", Resource: &ghopsv1.Resource{Type: "pr", Id: "o/dirty#7"}}),
	"o/moved": fakeservicetest.Status(codes.Aborted, "Head branch was modified. Review and try the merge again.",
		ghopsv1.ErrorReason_ERROR_REASON_HEAD_SHA_MISMATCH, map[string]string{"repo": "o/moved", "pr": "7", "sha": "aaaaaaa", "tool": "fetch"},
		&ghopsv1.GitHubError{Status: 409, Message: "Head branch was modified. Review and try the merge again.",
			ExpectedSha: "aaaaaaa", ActualSha: "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", Resource: &ghopsv1.Resource{Type: "pr", Id: "o/moved#7"}}),
	"o/broken": fakeservicetest.Status(codes.Unavailable, "GitHub answered 502 Bad Gateway after 3 attempts (token ghp_secretsecretsecret)",
		ghopsv1.ErrorReason_ERROR_REASON_UPSTREAM_UNAVAILABLE, map[string]string{"repo": "o/broken", "tool": "fetch"}),
}

// Fetch implements the fake.
func (f *fakeService) Fetch(ctx context.Context, req *ghopsv1.FetchRequest) (*ghopsv1.FetchResponse, error) {
	if md, ok := metadataOf(ctx); ok {
		f.mu.Lock()
		f.md = append(f.md, md)
		f.mu.Unlock()
	}
	switch req.GetRepo() {
	case "o/ok":
		return &ghopsv1.FetchResponse{Repository: &ghopsv1.Repository{FullName: "o/ok", Description: "a <demo> & \"repo\""}}, nil
	case "o/slow":
		f.started <- struct{}{}
		<-f.release
		return &ghopsv1.FetchResponse{Repository: &ghopsv1.Repository{FullName: "o/slow"}}, nil
	case "o/panic":
		var m map[string]int
		m["x"] = 1 // a service bug must not reach the client
	}
	if err, ok := scenarios[req.GetRepo()]; ok {
		return nil, err
	}
	return nil, status.Error(codes.NotFound, "no such scenario")
}

// fixture is a fake service plus the pieces a Server needs.
type fixture struct {
	svc    *fakeService
	conn   *grpc.ClientConn
	reg    *toolschema.Registry
	health *health.Server
}

// newFixture starts the fake service on 127.0.0.1.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	fs := &fakeService{started: make(chan struct{}, 16), release: make(chan struct{})}
	hs := health.NewServer()
	conn := fakeservicetest.Serve(t, fs, func(gs *grpc.Server) { healthpb.RegisterHealthServer(gs, hs) })
	reg, err := toolschema.NewRegistry(ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService"))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{svc: fs, conn: conn, reg: reg, health: hs}
}

// gateway is a Server under test with its captured log output.
type gateway struct {
	srv  *Server
	logs *logtest.Buffer
	url  string
}

// newGateway builds a Server over the fixture and serves it with httptest.
func (f *fixture) newGateway(t testing.TB, mutate func(*config.Config)) *gateway {
	t.Helper()
	cfg := config.Default()
	cfg.MaxBody = 4096
	cfg.MaxBatch = 10
	cfg.CallTimeout = 10 * time.Second
	if mutate != nil {
		mutate(&cfg)
	}
	logs := &logtest.Buffer{}
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	caller := toolcall.New(f.reg, f.conn, toolcall.WithTimeout(cfg.CallTimeout))
	metrics := NewMetrics()
	srv := New(Options{
		Config: cfg,
		Pipeline: pipeline.New(pipeline.Options{
			MaxBody: cfg.MaxBody, MaxBatch: cfg.MaxBatch, BatchConcurrency: cfg.BatchConcurrency,
			Sink: rpcerror.NewSink(logs, logger), Logger: logger, Observe: metrics.ObserveCall,
		}),
		Metrics: metrics,
		RPC:     toolrpc.New(caller, cfg.HTTPStatusMapping),
		Logger:  logger,
		Ready:   HealthCheck(f.conn),
	})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &gateway{srv: srv, logs: logs, url: hs.URL}
}

// reply is a captured HTTP answer.
type reply struct {
	Status     int             `json:"status"`
	RetryAfter string          `json:"retryAfter,omitempty"`
	Body       json.RawMessage `json:"body,omitempty"`
}

// post sends body to /rpc.
func post(t testing.TB, url, body string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	return httpcall.Do(t, http.MethodPost, url+"/rpc", body, append([]string{"Content-Type", "application/json"}, hdr...)...)
}

var (
	timestampRE  = regexp.MustCompile(`"timestamp":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"`)
	requestIDRE2 = regexp.MustCompile(`"requestId":"[^"]*"`)
)

// normalise replaces the run-dependent values of a body.
func normalise(b []byte) []byte {
	b = timestampRE.ReplaceAll(b, []byte(`"timestamp":"<timestamp>"`))
	return requestIDRE2.ReplaceAll(b, []byte(`"requestId":"<requestId>"`))
}
