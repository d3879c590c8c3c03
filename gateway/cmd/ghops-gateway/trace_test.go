package main

import (
	"bytes"
	"slices"
	"strings"
	"syscall"
	"testing"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/telemetry/telemetrytest"
)

// TestBinaryFlushesTracesOnSIGTERM runs the real binary (service
// embedded) with OTEL_EXPORTER_OTLP_ENDPOINT naming a collector on
// 127.0.0.1 and a batch delay of an hour: nothing is exported while it
// serves, and SIGTERM exports every span of the session (gateway, service
// and GitHub requests, as service ghops-gateway) before the process exits,
// with no token in what was sent.
func TestBinaryFlushesTracesOnSIGTERM(t *testing.T) {
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	col := telemetrytest.Start(t)
	g := startHTTP(t, hub, map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": col.URL,
		"OTEL_BSP_SCHEDULE_DELAY":     "3600000",
	})
	checkSession(t, httpSession(t, "http://"+g.addr+"/mcp"))
	if !strings.Contains(g.stderr.String(), `"tracing":true`) {
		t.Errorf("the start-up line does not say tracing is on:\n%s", g.stderr.String())
	}
	if spans := col.Spans(); len(spans) != 0 {
		t.Fatalf("exported before SIGTERM: %q", spans)
	}
	if err := g.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-g.done
	if err := g.cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, g.stderr.String())
	}
	spans := col.Spans()
	for _, want := range []string{"POST /mcp", "tools/call read_file", "ghops.v1.GitHubService/ReadFile", "GET"} {
		if !slices.Contains(spans, want) {
			t.Errorf("no %q span among the exported %q", want, spans)
		}
	}
	for _, s := range col.Services() {
		if s != "ghops-gateway" {
			t.Errorf("service.name %q, want ghops-gateway", s)
		}
	}
	for _, b := range col.Bodies() {
		if bytes.Contains(b, []byte(fakehub.DemoToken)) {
			t.Error("the token was exported")
		}
	}
}
