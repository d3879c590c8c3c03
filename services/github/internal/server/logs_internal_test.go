package server

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/infra/callmeta"

	"ghops.dev/services/github/internal/config"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLogsAndMetrics checks the request id in the log line, that no token
// is logged, and the RPC and GitHub-call metrics.
func TestLogsAndMetrics(t *testing.T) {
	const token = "ghp_SECRETSECRETSECRETSECRET1234"
	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Remaining", "4321")
		w.Header().Set("X-RateLimit-Resource", "core")
		w.WriteHeader(401)
		_, _ = w.Write([]byte(`{"message":"Bad credentials ` + token + `"}`))
	}))
	t.Cleanup(gh.Close)
	var logs syncBuf
	s, err := New(config.Config{GitHubURL: gh.URL + "/", Token: token}, WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	conn, _ := serve(t, s)
	ctx := metadata.AppendToOutgoingContext(context.Background(), callmeta.RequestID, "rid-42")
	_, err = ghopsv1.NewGitHubServiceClient(conn).GetBranches(ctx, &ghopsv1.GetBranchesRequest{Repo: "o/r"})
	if err == nil || strings.Contains(err.Error(), token) {
		t.Fatalf("err = %v", err)
	}
	out := logs.String()
	if !strings.Contains(out, `"request_id":"rid-42"`) || !strings.Contains(out, `"code":"Unauthenticated"`) || strings.Contains(out, token) {
		t.Errorf("log = %s", out)
	}
	rec := httptest.NewRecorder()
	s.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{
		`ghops_grpc_requests_total{code="Unauthenticated",method="/ghops.v1.GitHubService/GetBranches"} 1`,
		`ghops_github_requests_total{route="GET /repos/{owner}/{repo}/branches",status="401"} 1`,
		`ghops_github_rate_limit_remaining{resource="core"} 4321`,
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
