package server_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"

	"ghops.dev/infra/redistest"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/internal/config"
	"ghops.dev/services/github/internal/server"
	"ghops.dev/services/github/servicetest"
)

// soonClock is a fakehub clock an hour minus lead behind: a rate-limit
// window that starts now resets (by its x-ratelimit-reset) lead from now.
// fakehub itself refills the bucket an hour later, so tests call
// ResetRateLimits at the reset, as GitHub would refill it.
func soonClock(lead time.Duration) func() time.Time {
	return func() time.Time { return time.Now().Add(-time.Hour + lead) }
}

// TestHonestPrimaryLimit: after GitHub's primary limit, a call is refused
// without being sent, says until when (RFC 3339), carries the figures and
// no GitHub status; after the reset calls go through, without a restart.
func TestHonestPrimaryLimit(t *testing.T) {
	e := start(t, fakehub.Config{Now: soonClock(3 * time.Second)}, servicetest.Options{})
	e.hub.ResetRateLimits() // a fresh window: it resets in 3s
	e.hub.SetFaults([]fakehub.Fault{{Route: "/repos/{owner}/{repo}/branches", RateLimit: "primary", Count: 1}})
	call := func() error {
		_, err := e.svc.Client.GetBranches(ctx(t), &ghopsv1.GetBranchesRequest{Repo: repo})
		return err
	}
	d := wantStatus(t, call(), codes.ResourceExhausted, ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED)
	if d.gh.GetStatus() != 403 {
		t.Fatalf("GitHub's own answer: status %d", d.gh.GetStatus())
	}
	reset := time.Unix(d.gh.GetRateLimit().GetReset_(), 0)
	steps := []string{"the next call", "and the one after"}
	for _, name := range steps {
		t.Run(name+" is refused without being sent", func(t *testing.T) {
			before := e.hub.Stats().Total
			d := wantStatus(t, call(), codes.ResourceExhausted, ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED)
			msg := d.st.Message()
			if !strings.Contains(msg, "not sent") || !strings.Contains(msg, reset.UTC().Format(time.RFC3339)) || strings.Contains(msg, "m=+") || strings.Contains(msg, "403") {
				t.Errorf("message %q", msg)
			}
			if d.gh.GetStatus() != 0 || d.gh.GetMessage() != "" {
				t.Errorf("claims GitHub answered: %v", d.gh)
			}
			if r := d.gh.GetRateLimit(); r.GetRemaining() != 0 || r.GetLimit() != 5000 || r.GetReset_() != reset.Unix() || r.GetRetryAfterSeconds() < 1 {
				t.Errorf("rate limit %v", r)
			}
			if n := e.hub.Stats().Total - before; n != 0 {
				t.Errorf("%d requests reached GitHub", n)
			}
		})
	}
	time.Sleep(time.Until(reset) + 100*time.Millisecond)
	e.hub.ResetRateLimits()
	if err := call(); err != nil {
		t.Fatalf("after the reset: %v", err)
	}
}

// TestRedisOutage: with Redis gone a service answers reads (uncached by
// Redis), logs the outage once, and counts the failures in a metric.
func TestRedisOutage(t *testing.T) {
	rs := redistest.Start(t)
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	var logs syncBuffer
	srv, err := server.New(config.Config{GitHubURL: hub.URL, Token: fakehub.DemoToken, RedisURL: rs.URL, CallTimeout: 10 * time.Second},
		server.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() {
		c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(c)
	})
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	client := ghopsv1.NewGitHubServiceClient(conn)
	read := func(t *testing.T) {
		t.Helper()
		start := time.Now()
		r, err := client.ReadFile(ctx(t), &ghopsv1.ReadFileRequest{Repo: repo, Path: "README.md", Branch: ptr("main")})
		if err != nil || r.Content == "" {
			t.Fatalf("read_file: %v", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("a read took %v", d)
		}
	}
	read(t)
	rs.Stop()
	for range 10 {
		read(t)
	}
	if n := strings.Count(logs.String(), "redis unreachable"); n != 1 {
		t.Errorf("outage logged %d times:\n%s", n, logs.String())
	}
	rec := httptest.NewRecorder()
	srv.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	if !bytes.Contains(body, []byte("ghops_redis_errors_total{op=")) || !bytes.Contains(body, []byte(`ghops_cache_lookups_total{outcome="revalidated",tier="lru"}`)) {
		t.Errorf("metrics lack Redis errors or cache lookups:\n%s", grepLines(string(body), "ghops_redis_errors_total", "ghops_cache_lookups_total"))
	}
}

func grepLines(s string, prefixes ...string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				out = append(out, l)
			}
		}
	}
	return strings.Join(out, "\n")
}
