package main

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/telemetry/telemetrytest"
)

// TestTracesFlushedAtStop runs the real main with OTEL_EXPORTER_OTLP_ENDPOINT
// naming a collector on 127.0.0.1 and a batch delay of an hour: one
// read_file is traced (the gRPC server span and its GitHub request, as
// service ghops-github), nothing is exported while it serves, and ending
// its context (what SIGTERM does) exports them before run returns.
func TestTracesFlushedAtStop(t *testing.T) {
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	col := telemetrytest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", col.URL)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "3600000")
	t.Setenv("OTEL_SDK_DISABLED", "")
	t.Setenv("OTEL_TRACES_EXPORTER", "")
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	e := env(map[string]string{"GITHUB_TOKEN": fakehub.DemoToken, "GITHUB_API_URL": hub.URL, "GHOPS_GITHUB_ADDR": addr, "GHOPS_GITHUB_METRICS_ADDR": "off"})
	var logs bytes.Buffer
	go func() { done <- run(ctx, nil, e, io.Discard, &logs) }()
	deadline := time.Now().Add(10 * time.Second)
	for run(context.Background(), []string{"healthcheck", "-addr", addr}, env(nil), io.Discard, io.Discard) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("never healthy")
		}
		time.Sleep(50 * time.Millisecond)
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := ghopsv1.NewGitHubServiceClient(conn).ReadFile(ctx, &ghopsv1.ReadFileRequest{Repo: "octo-org/hello-world", Path: "README.md"}); err != nil {
		t.Fatalf("read_file: %v", err)
	}
	if spans := col.Spans(); len(spans) != 0 {
		t.Fatalf("exported before the stop: %q", spans)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d\n%s", code, logs.String())
	}
	if !strings.Contains(logs.String(), `"tracing":true`) {
		t.Errorf("the listening line does not say tracing is on:\n%s", logs.String())
	}
	spans := col.Spans()
	for _, want := range []string{"ghops.v1.GitHubService/ReadFile", "GET"} {
		if !slices.Contains(spans, want) {
			t.Errorf("no %q span among the exported %q", want, spans)
		}
	}
	if s := col.Services(); len(s) == 0 || s[0] != "ghops-github" {
		t.Errorf("service.name %q, want ghops-github", s)
	}
	for _, b := range col.Bodies() {
		if bytes.Contains(b, []byte(fakehub.DemoToken)) {
			t.Error("the token was exported")
		}
	}
}

// TestBadTracingVariable: an OTEL_ value ghops cannot honour stops the
// start with exit 2 and says which.
func TestBadTracingVariable(t *testing.T) {
	t.Setenv("OTEL_TRACES_EXPORTER", "zipkin")
	var stderr strings.Builder
	code := run(context.Background(), []string{"-addr", freeAddr(t), "-metrics-addr", "off"}, env(nil), io.Discard, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), `OTEL_TRACES_EXPORTER=\"zipkin\"`) {
		t.Fatalf("exit %d, want 2 naming the variable:\n%s", code, stderr.String())
	}
}
