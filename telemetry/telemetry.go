// Package telemetry is the one OpenTelemetry setup of ghops' binaries: it
// reads the standard OTEL_ environment variables, exports spans over OTLP
// when they ask for it, and otherwise stays off (no exporter, no
// instrumentation installed, a no-op tracer). It also gives each binary the
// instrumentation it installs (otelhttp for HTTP servers and the GitHub
// client, otelgrpc for the gRPC hop between gateway and service) already
// bound to the one provider and to W3C trace context, so that a trace
// started by a client continues through the gateway and the service, down
// to a span per GitHub request; GitHub itself receives none of the
// caller's context (GitHubContext). docs/architecture.md ("Traces")
// describes the spans.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"go.opentelemetry.io/otel"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"ghops.dev/redact"
)

// ScopeName is the instrumentation scope of the spans ghops starts itself
// (the per-call spans of the gateway).
const ScopeName = "ghops.dev/telemetry"

// The environment variables that decide whether spans are exported (the
// OpenTelemetry specification's names; the exporters read the other
// OTEL_EXPORTER_OTLP_* variables, such as headers and timeouts, themselves).
const (
	EnvSDKDisabled         = "OTEL_SDK_DISABLED"
	EnvTracesExporter      = "OTEL_TRACES_EXPORTER"
	EnvEndpoint            = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint      = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvProtocol            = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol      = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	protocolGRPC           = "grpc"
	protocolHTTPProtobuf   = "http/protobuf"
	exporterOTLP           = "otlp"
	exporterNone           = "none"
	defaultProtocolForOTLP = protocolHTTPProtobuf // the specification's default
)

// Options name the binary in its spans' resource.
type Options struct {
	// Service is service.name unless OTEL_SERVICE_NAME (or service.name in
	// OTEL_RESOURCE_ATTRIBUTES) says otherwise.
	Service string
	// Version is service.version.
	Version string
	// Logger receives the SDK's own errors (an export that failed), as
	// one redacted JSON record each instead of the SDK's plain-text line
	// on stderr (nil: the SDK's default).
	Logger *slog.Logger
}

// Provider is a binary's tracing: on (an SDK tracer provider exporting
// over OTLP, or one a test built) or off. The nil *Provider is off; every
// method is safe on it.
type Provider struct {
	tp       trace.TracerProvider
	prop     propagation.TextMapPropagator
	shutdown func(context.Context) error
}

// Off is tracing switched off: nothing is recorded or exported, and the
// wrappers return what they are given.
func Off() *Provider { return nil }

// New returns a Provider over tp (a test's SDK provider with an in-memory
// exporter, say); shutting it down is left to its owner.
func New(tp trace.TracerProvider) *Provider {
	return &Provider{tp: tp, prop: propagator(), shutdown: func(context.Context) error { return nil }}
}

// propagator is W3C trace context. Not baggage: ghops reads none, and a
// caller's baggage is the caller's data, which has no business travelling
// further (docs/security.md).
func propagator() propagation.TextMapPropagator {
	return propagation.TraceContext{}
}

// Enabled reports whether spans are recorded.
func (p *Provider) Enabled() bool { return p != nil && p.tp != nil }

// TracerProvider is the provider spans are started from (a no-op one when
// off).
func (p *Provider) TracerProvider() trace.TracerProvider {
	if !p.Enabled() {
		return noop.NewTracerProvider()
	}
	return p.tp
}

// Propagator is the W3C trace-context propagator (no baggage).
func (p *Provider) Propagator() propagation.TextMapPropagator {
	if p == nil || p.prop == nil {
		return propagator()
	}
	return p.prop
}

// Tracer is ghops' own tracer (scope ScopeName).
func (p *Provider) Tracer() trace.Tracer { return p.TracerProvider().Tracer(ScopeName) }

// Shutdown flushes the spans not yet exported and stops the exporter; the
// binaries call it once their servers have drained (on SIGTERM too).
func (p *Provider) Shutdown(ctx context.Context) error {
	if !p.Enabled() || p.shutdown == nil {
		return nil
	}
	return p.shutdown(ctx)
}

// Wanted applies the specification's variables to getenv: whether spans
// are to be exported, and over which OTLP protocol. Off unless
// OTEL_TRACES_EXPORTER is "otlp" or an OTLP endpoint variable is set (the
// SDKs' own default would export to localhost:4318 when nothing is set; a
// ghops binary costs nothing until asked); OTEL_SDK_DISABLED=true and
// OTEL_TRACES_EXPORTER=none switch it off whatever else is set. An exporter
// or protocol ghops does not ship is an error, not silence.
func Wanted(getenv func(string) string) (on bool, protocol string, err error) {
	if strings.EqualFold(strings.TrimSpace(getenv(EnvSDKDisabled)), "true") {
		return false, "", nil
	}
	exp := strings.ToLower(strings.TrimSpace(getenv(EnvTracesExporter)))
	switch exp {
	case exporterNone:
		return false, "", nil
	case "":
		if strings.TrimSpace(getenv(EnvEndpoint)) == "" && strings.TrimSpace(getenv(EnvTracesEndpoint)) == "" {
			return false, "", nil
		}
	case exporterOTLP:
	default:
		// A list such as "otlp,console" names more than ghops ships.
		return false, "", fmt.Errorf("%s=%q: ghops exports traces over %q only (or %q for none)", EnvTracesExporter, exp, exporterOTLP, exporterNone)
	}
	protocol = strings.TrimSpace(getenv(EnvTracesProtocol))
	if protocol == "" {
		protocol = strings.TrimSpace(getenv(EnvProtocol))
	}
	if protocol == "" {
		protocol = defaultProtocolForOTLP
	}
	if protocol != protocolGRPC && protocol != protocolHTTPProtobuf {
		return false, "", fmt.Errorf("%s=%q: ghops speaks OTLP over %q or %q", EnvProtocol, protocol, protocolHTTPProtobuf, protocolGRPC)
	}
	return true, protocol, nil
}

// Setup reads the process environment (Wanted) and returns the binary's
// Provider: off, or exporting in batches over OTLP. The sampler follows
// OTEL_TRACES_SAMPLER (default: parent-based, always on) and the batches
// OTEL_BSP_*, both read by the SDK.
func Setup(ctx context.Context, o Options) (*Provider, error) {
	on, protocol, err := Wanted(os.Getenv)
	if err != nil || !on {
		return Off(), err
	}
	var exp sdktrace.SpanExporter
	switch protocol {
	case protocolGRPC:
		exp, err = otlptracegrpc.New(ctx)
	default:
		exp, err = otlptracehttp.New(ctx)
	}
	if err != nil {
		return Off(), fmt.Errorf("OTLP trace exporter: %w", err)
	}
	// The environment's attributes come last so that OTEL_SERVICE_NAME
	// and OTEL_RESOURCE_ATTRIBUTES override the binary's defaults.
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithAttributes(semconv.ServiceName(o.Service), semconv.ServiceVersion(o.Version)),
		resource.WithFromEnv(),
	)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		_ = exp.Shutdown(ctx)
		return Off(), fmt.Errorf("trace resource: %w", err)
	}
	if o.Logger != nil {
		log := o.Logger
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
			log.Warn("opentelemetry", "error", redact.Error(err).Error())
		}))
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return &Provider{tp: tp, prop: propagator(), shutdown: tp.Shutdown}, nil
}
