package telemetry_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"ghops.dev/telemetry"
	"ghops.dev/telemetry/telemetrytest"
)

// otelVars are every variable the tests set; each test starts with all of
// them empty, whatever the machine's environment holds.
var otelVars = []string{
	telemetry.EnvSDKDisabled, telemetry.EnvTracesExporter, telemetry.EnvEndpoint, telemetry.EnvTracesEndpoint,
	telemetry.EnvProtocol, telemetry.EnvTracesProtocol, "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES",
}

func clearEnv(t *testing.T) {
	t.Helper()
	for _, k := range otelVars {
		t.Setenv(k, "")
	}
}

func TestWanted(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		on       bool
		protocol string
		err      string
	}{
		{name: "nothing set", env: nil},
		{name: "service name only", env: map[string]string{"OTEL_SERVICE_NAME": "x"}},
		{name: "endpoint", env: map[string]string{telemetry.EnvEndpoint: "http://c:4318"}, on: true, protocol: "http/protobuf"},
		{name: "traces endpoint", env: map[string]string{telemetry.EnvTracesEndpoint: "http://c:4318/v1/traces"}, on: true, protocol: "http/protobuf"},
		{name: "exporter otlp without endpoint", env: map[string]string{telemetry.EnvTracesExporter: "otlp"}, on: true, protocol: "http/protobuf"},
		{name: "grpc protocol", env: map[string]string{telemetry.EnvEndpoint: "http://c:4317", telemetry.EnvProtocol: "grpc"}, on: true, protocol: "grpc"},
		{name: "traces protocol wins", env: map[string]string{telemetry.EnvEndpoint: "http://c", telemetry.EnvProtocol: "grpc", telemetry.EnvTracesProtocol: "http/protobuf"}, on: true, protocol: "http/protobuf"},
		{name: "sdk disabled", env: map[string]string{telemetry.EnvEndpoint: "http://c", telemetry.EnvSDKDisabled: "TRUE"}},
		{name: "sdk disabled false", env: map[string]string{telemetry.EnvEndpoint: "http://c", telemetry.EnvSDKDisabled: "false"}, on: true, protocol: "http/protobuf"},
		{name: "exporter none", env: map[string]string{telemetry.EnvEndpoint: "http://c", telemetry.EnvTracesExporter: "none"}},
		{name: "exporter console", env: map[string]string{telemetry.EnvTracesExporter: "console"}, err: `OTEL_TRACES_EXPORTER="console"`},
		{name: "protocol json", env: map[string]string{telemetry.EnvEndpoint: "http://c", telemetry.EnvProtocol: "http/json"}, err: `"http/json"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			on, protocol, err := telemetry.Wanted(func(k string) string { return tt.env[k] })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want one naming %s", err, tt.err)
				}
				return
			}
			if err != nil || on != tt.on || protocol != tt.protocol {
				t.Fatalf("Wanted = %v, %q, %v; want %v, %q", on, protocol, err, tt.on, tt.protocol)
			}
		})
	}
}

// TestOffCostsNothing: without OTEL_ variables Setup returns tracing off,
// and every wrapper hands back what it was given, so that the binaries run
// exactly their untraced code.
func TestOffCostsNothing(t *testing.T) {
	clearEnv(t)
	p, err := telemetry.Setup(context.Background(), telemetry.Options{Service: "ghops-test"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Enabled() {
		t.Fatal("tracing on without OTEL_ variables")
	}
	h := &countingHandler{}
	if got := p.HTTPHandler(h); got != http.Handler(h) {
		t.Errorf("HTTPHandler wrapped the handler: %T", got)
	}
	rt := &countingTransport{}
	if got := p.GitHubTransport(rt, telemetry.GitHubContextService); got != http.RoundTripper(rt) {
		t.Errorf("GitHubTransport wrapped the transport: %T", got)
	}
	if d, s := p.DialOptions(), p.ServerOptions(); d != nil || s != nil {
		t.Errorf("gRPC options when off: %d dial, %d server", len(d), len(s))
	}
	_, span := p.Tracer().Start(context.Background(), "x")
	defer span.End()
	if span.IsRecording() || span.SpanContext().IsValid() {
		t.Error("a span off is recorded or has a context")
	}
	if sc := p.FromMeta([]byte(`{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}`)); sc.IsValid() {
		t.Error("FromMeta read _meta with tracing off")
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

type countingHandler struct{ n int }

func (h *countingHandler) ServeHTTP(http.ResponseWriter, *http.Request) { h.n++ }

type countingTransport struct{ n int }

func (c *countingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	c.n++
	return nil, io.EOF
}

// TestSetupExports starts a span under each environment and shuts the
// provider down (as the binaries do on SIGTERM): the span reaches the
// collector exactly when the variables ask for export, and Shutdown alone
// flushes it (nothing is exported before).
func TestSetupExports(t *testing.T) {
	tests := []struct {
		name    string
		env     func(url string) map[string]string
		want    bool
		service string
	}{
		{name: "endpoint", env: func(u string) map[string]string { return map[string]string{telemetry.EnvEndpoint: u} }, want: true, service: "ghops-test"},
		{name: "traces endpoint and service name", env: func(u string) map[string]string {
			return map[string]string{telemetry.EnvTracesEndpoint: u + "/v1/traces", "OTEL_SERVICE_NAME": "renamed"}
		}, want: true, service: "renamed"},
		{name: "sdk disabled", env: func(u string) map[string]string {
			return map[string]string{telemetry.EnvEndpoint: u, telemetry.EnvSDKDisabled: "true"}
		}},
		{name: "exporter none", env: func(u string) map[string]string {
			return map[string]string{telemetry.EnvEndpoint: u, telemetry.EnvTracesExporter: "none"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			c := telemetrytest.Start(t)
			for k, v := range tt.env(c.URL) {
				t.Setenv(k, v)
			}
			p, err := telemetry.Setup(context.Background(), telemetry.Options{Service: "ghops-test", Version: "v1"})
			if err != nil {
				t.Fatal(err)
			}
			if p.Enabled() != tt.want {
				t.Fatalf("Enabled = %v, want %v", p.Enabled(), tt.want)
			}
			_, span := p.Tracer().Start(context.Background(), "probe-span")
			span.End()
			if spans := c.Spans(); len(spans) != 0 {
				t.Fatalf("exported before Shutdown: %v", spans)
			}
			if err := p.Shutdown(context.Background()); err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
			spans, services := c.Spans(), c.Services()
			if !tt.want {
				if len(spans) != 0 {
					t.Fatalf("exported %v with tracing off", spans)
				}
				return
			}
			if !slices.Equal(spans, []string{"probe-span"}) || !slices.Equal(services, []string{tt.service}) {
				t.Fatalf("collector got spans %v of services %v, want [probe-span] of [%s]", spans, services, tt.service)
			}
		})
	}
}

// TestExportErrorsAreLogged: an export the collector refuses is one JSON
// record on the binary's logger, redacted like every other.
func TestExportErrorsAreLogged(t *testing.T) {
	const secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	clearEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "refused for "+secret, http.StatusBadRequest)
	}))
	t.Cleanup(srv.Close)
	t.Setenv(telemetry.EnvEndpoint, srv.URL)
	var logs bytes.Buffer
	p, err := telemetry.Setup(context.Background(), telemetry.Options{Service: "ghops-test", Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	_, span := p.Tracer().Start(context.Background(), "refused")
	span.End()
	_ = p.Shutdown(context.Background())
	if !strings.Contains(logs.String(), `"msg":"opentelemetry"`) || strings.Contains(logs.String(), secret) {
		t.Fatalf("logs %q: want the export error, redacted", logs.String())
	}
}
