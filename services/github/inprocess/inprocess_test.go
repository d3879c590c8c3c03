package inprocess_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/inprocess"
)

// syncBuffer is a bytes.Buffer safe for the service's concurrent log writes.
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

// TestSameServiceInMemory checks that the in-process service is the
// service: the tools answer, protovalidate refuses bad input with the
// contract's status, the logging interceptor echoes the request id, health
// answers SERVING, and the token never reaches the log.
func TestSameServiceInMemory(t *testing.T) {
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	logs := &syncBuffer{}
	svc, err := inprocess.Start(inprocess.Options{GitHubURL: hub.URL, Token: fakehub.DemoToken, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close() })
	client := ghopsv1.NewGitHubServiceClient(svc.Conn())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	t.Run("a tool answers", func(t *testing.T) {
		var hdr metadata.MD
		ctx := metadata.AppendToOutgoingContext(ctx, "x-request-id", "req-inproc-1")
		resp, err := client.ReadFile(ctx, &ghopsv1.ReadFileRequest{Repo: "octo-org/hello-world", Path: "go.mod"}, grpc.Header(&hdr))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(resp.GetContent(), "module example.com/hello-world") {
			t.Errorf("content %q", resp.GetContent())
		}
		if got := hdr.Get("x-request-id"); len(got) != 1 || got[0] != "req-inproc-1" {
			t.Errorf("x-request-id header %v", got)
		}
	})
	t.Run("validation interceptor refuses bad input", func(t *testing.T) {
		_, err := client.Search(ctx, &ghopsv1.SearchRequest{})
		if status.Code(err) != codes.InvalidArgument {
			t.Fatalf("Search({}) = %v, want InvalidArgument", err)
		}
	})
	t.Run("GitHub's not found maps to NotFound", func(t *testing.T) {
		_, err := client.Fetch(ctx, &ghopsv1.FetchRequest{Repo: "octo-org/nope"})
		if status.Code(err) != codes.NotFound {
			t.Fatalf("Fetch(nope) = %v, want NotFound", err)
		}
	})
	t.Run("health answers SERVING", func(t *testing.T) {
		resp, err := healthpb.NewHealthClient(svc.Conn()).Check(ctx, &healthpb.HealthCheckRequest{})
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("health %v %v", resp, err)
		}
	})
	t.Run("logs", func(t *testing.T) {
		l := logs.String()
		if !strings.Contains(l, `"msg":"ghops-github running in process"`) || !strings.Contains(l, `"request_id":"req-inproc-1"`) {
			t.Errorf("logs lack the start or the rpc line:\n%s", l)
		}
		if strings.Contains(l, fakehub.DemoToken) {
			t.Error("the token reached the log")
		}
	})
}

func TestShutdown(t *testing.T) {
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	svc, err := inprocess.Start(inprocess.Options{GitHubURL: hub.URL, Token: fakehub.DemoToken})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := svc.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = ghopsv1.NewGitHubServiceClient(svc.Conn()).Fetch(ctx, &ghopsv1.FetchRequest{Repo: "octo-org/hello-world"})
	if err == nil {
		t.Fatal("a call after Close succeeded")
	}
}

func TestOptionsFromEnv(t *testing.T) {
	// limits sets the cost limits' defaults on o.
	limits := func(o inprocess.Options) inprocess.Options {
		o.MaxRequestsPerCall, o.MaxPatchFiles, o.MaxPatchBytes, o.PrincipalShare = 200, 64, 1<<20, 50
		return o
	}
	// with sets the shared state's and the cost limits' defaults on o.
	with := func(o inprocess.Options) inprocess.Options {
		o.RedisTimeout, o.CacheTTL, o.GitHubConcurrency, o.WritesPerMinute, o.CacheEntryBytes = 50*time.Millisecond, 24*time.Hour, 50, 80, 1<<20
		return limits(o)
	}
	tests := []struct {
		name    string
		env     map[string]string
		want    inprocess.Options
		wantErr string
	}{
		{name: "defaults", want: with(inprocess.Options{GitHubURL: "https://api.github.com/", CallTimeout: 30 * time.Second})},
		{name: "the service's variables", env: map[string]string{
			"GITHUB_TOKEN": "tok", "GITHUB_API_URL": "http://127.0.0.1:1/", "GHOPS_ALLOW_CALLER_TOKEN": "true", "GHOPS_GITHUB_CALL_TIMEOUT": "9s",
			"GHOPS_GITHUB_ADDR": "not even an address", "GHOPS_GITHUB_METRICS_ADDR": "ignored",
		}, want: with(inprocess.Options{GitHubURL: "http://127.0.0.1:1/", Token: "tok", AllowCallerToken: true, CallTimeout: 9 * time.Second})},
		{name: "the shared state's variables", env: map[string]string{
			"GHOPS_REDIS_URL": "redis://127.0.0.1:6379/1", "GHOPS_REDIS_TIMEOUT": "30ms", "GHOPS_BUDGET_FAIL_OPEN": "false",
			"GHOPS_GITHUB_CONCURRENCY": "20", "GHOPS_GITHUB_WRITES_PER_MINUTE": "40", "GHOPS_CACHE_TTL": "1h", "GHOPS_CACHE_ENTRY_BYTES": "2048",
		}, want: limits(inprocess.Options{GitHubURL: "https://api.github.com/", CallTimeout: 30 * time.Second, RedisURL: "redis://127.0.0.1:6379/1",
			RedisTimeout: 30 * time.Millisecond, BudgetFailClosed: true, GitHubConcurrency: 20, WritesPerMinute: 40, CacheTTL: time.Hour, CacheEntryBytes: 2048})},
		{name: "the cost limits' variables", env: map[string]string{
			"GHOPS_MAX_REQUESTS_PER_CALL": "-1", "GHOPS_MAX_PATCH_FILES": "10", "GHOPS_MAX_PATCH_BYTES": "4096", "GHOPS_PRINCIPAL_SHARE": "25",
		}, want: func() inprocess.Options {
			o := with(inprocess.Options{GitHubURL: "https://api.github.com/", CallTimeout: 30 * time.Second})
			o.MaxRequestsPerCall, o.MaxPatchFiles, o.MaxPatchBytes, o.PrincipalShare = -1, 10, 4096, 25
			return o
		}()},
		{name: "bad URL", env: map[string]string{"GITHUB_API_URL": "http://127.0.0.1:1", "GITHUB_TOKEN": "secret-tok-123"}, wantErr: "must end in"},
		{name: "bad timeout", env: map[string]string{"GHOPS_GITHUB_CALL_TIMEOUT": "-1s", "GITHUB_TOKEN": "secret-tok-123"}, wantErr: "call-timeout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := inprocess.OptionsFromEnv(func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "secret-tok-123") {
					t.Error("the token reached an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestStartRefusesABadURL(t *testing.T) {
	if _, err := inprocess.Start(inprocess.Options{GitHubURL: "ftp://x/"}); err == nil {
		t.Fatal("started with an ftp URL")
	}
}
