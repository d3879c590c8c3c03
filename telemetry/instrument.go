package telemetry

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc/filters"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/stats"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"ghops.dev/redact"
)

// Attribute keys ghops adds to the instrumentation's own (the HTTP and
// RPC semantic conventions). The MCP ones follow OpenTelemetry's MCP
// semantic conventions.
const (
	// AttrTool is the tool called (gateway and service spans).
	AttrTool = attribute.Key("gen_ai.tool.name")
	// AttrMCPMethod is the MCP or JSON-RPC method of a gateway call span.
	AttrMCPMethod = attribute.Key("mcp.method.name")
	// AttrJSONRPCID is the JSON-RPC id of a call, as sent.
	AttrJSONRPCID = attribute.Key("jsonrpc.request.id")
	// AttrJSONRPCErrorCode is the code of an error answer (docs/errors.md).
	AttrJSONRPCErrorCode = attribute.Key("rpc.jsonrpc.error_code")
	// AttrRequestID is ghops' request id (X-Request-Id, x-request-id), the
	// one in the logs and in every error's data.
	AttrRequestID = attribute.Key("ghops.request_id")
	// AttrRepository is the repository a call names, "owner/repo".
	AttrRepository = attribute.Key("ghops.repository")
	// AttrRateLimitRemaining is GitHub's x-ratelimit-remaining of an answer.
	AttrRateLimitRemaining = attribute.Key("github.ratelimit.remaining")
	// AttrRateLimitResource is GitHub's x-ratelimit-resource ("core", "search").
	AttrRateLimitResource = attribute.Key("github.ratelimit.resource")
	// AttrGitHubRequestID is GitHub's x-github-request-id, which GitHub
	// support asks for.
	AttrGitHubRequestID = attribute.Key("github.request_id")
)

// noMeters keeps the instrumentation's metrics off: ghops' metrics are
// Prometheus' (/metrics), and the global meter provider must not matter.
var noMeters = metricnoop.NewMeterProvider()

// HTTPHandler wraps an HTTP server's handler in a server span that
// continues a caller's W3C traceparent header (otelhttp records no
// header, and of the URL only its path). Off: h itself.
func (p *Provider) HTTPHandler(h http.Handler) http.Handler {
	if !p.Enabled() {
		return h
	}
	return otelhttp.NewHandler(h, "",
		otelhttp.WithTracerProvider(p.tp), otelhttp.WithPropagators(p.prop), otelhttp.WithMeterProvider(noMeters),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method + " " + r.URL.Path }))
}

// GitHubContext says what trace context the requests to GitHub carry.
// Never the caller's: a caller's trace id says who asked and when, and
// GitHub is outside ghops. Never baggage.
type GitHubContext int

const (
	// GitHubContextOff sends no trace context at all (no traceparent,
	// tracestate or baggage header): the default.
	GitHubContextOff GitHubContext = iota
	// GitHubContextService sends the service's own: each request to GitHub
	// starts a new trace (one span, linked to the request's span in the
	// caller's trace) whose traceparent GitHub receives, so that a GitHub
	// support case can name a trace without exposing the caller's.
	GitHubContextService
)

// outboundHeaders are the propagation headers a request to GitHub never
// carries from elsewhere (W3C trace context and baggage).
var outboundHeaders = []string{"Traceparent", "Tracestate", "Baggage"}

// noPropagation injects nothing: otelhttp's client transport would
// otherwise write the caller's context into GitHub's request.
var noPropagation = propagation.NewCompositeTextMapPropagator()

// GitHubTransport wraps the transport of the GitHub client: one client
// span per request sent (cache hits send none), carrying the status, the
// rate limit GitHub reports and GitHub's request id, and the URL without
// its query (RedactURL). otelhttp records no header, so the Authorization
// header never reaches a span. The span belongs to the caller's trace;
// what GitHub receives is gc's (GitHubContext). Off: rt itself (nothing
// then puts a trace context on the requests).
func (p *Provider) GitHubTransport(rt http.RoundTripper, gc GitHubContext) http.RoundTripper {
	if !p.Enabled() {
		return rt
	}
	return otelhttp.NewTransport(githubAttributes{base: rt, gc: gc, tracer: p.tp.Tracer(ScopeName)},
		otelhttp.WithTracerProvider(p.tp), otelhttp.WithPropagators(noPropagation), otelhttp.WithMeterProvider(noMeters),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method }))
}

// githubAttributes sits below otelhttp's transport, so that the request's
// context holds otelhttp's span: it replaces url.full with the redacted
// URL (the SDK keeps the last value of a key), adds GitHub's headers, and
// sets the trace context GitHub receives (GitHubContext).
type githubAttributes struct {
	base   http.RoundTripper
	gc     GitHubContext
	tracer trace.Tracer
}

func (g githubAttributes) RoundTrip(r *http.Request) (*http.Response, error) {
	span := trace.SpanFromContext(r.Context())
	span.SetAttributes(semconv.URLFull(RedactURL(r.URL)))
	out := r.Clone(r.Context())
	for _, h := range outboundHeaders {
		out.Header.Del(h)
	}
	if g.gc == GitHubContextService {
		ctx, own := g.tracer.Start(r.Context(), "GitHub "+r.Method, trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindClient),
			trace.WithLinks(trace.LinkFromContext(r.Context())),
			trace.WithAttributes(semconv.HTTPRequestMethodKey.String(r.Method), semconv.URLFull(RedactURL(r.URL))))
		defer own.End()
		propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(out.Header))
	}
	resp, err := g.base.RoundTrip(out)
	if resp != nil {
		if v, perr := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Remaining"), 10, 64); perr == nil {
			span.SetAttributes(AttrRateLimitRemaining.Int64(v))
		}
		if v := resp.Header.Get("X-Ratelimit-Resource"); v != "" {
			span.SetAttributes(AttrRateLimitResource.String(redact.String(v)))
		}
		if v := resp.Header.Get("X-Github-Request-Id"); v != "" {
			span.SetAttributes(AttrGitHubRequestID.String(redact.String(v)))
		}
	}
	return resp, err
}

// RedactURL is u as spans may show it: package redact's rule for URLs
// (no user information, no query: any parameter may be a secret, and a
// search query is the caller's text) and token shapes in the path
// redacted.
func RedactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.User = nil
	c.Fragment, c.RawFragment = "", ""
	return redact.String(c.String())
}

// DialOptions are the gRPC client options of a connection to the service:
// a client span per call whose context goes out in the call's metadata
// (traceparent), and the repository on the caller's span. Health checks
// are not traced (readiness probes would bury the calls). Off: none.
func (p *Provider) DialOptions() []grpc.DialOption {
	if !p.Enabled() {
		return nil
	}
	return []grpc.DialOption{grpc.WithStatsHandler(p.ClientStatsHandler()), grpc.WithChainUnaryInterceptor(AnnotateClient)}
}

// ClientStatsHandler is DialOptions' stats handler, for a connection
// that is no grpc.ClientConn (the in-process channel); nil when off.
func (p *Provider) ClientStatsHandler() stats.Handler {
	if !p.Enabled() {
		return nil
	}
	return otelgrpc.NewClientHandler(
		otelgrpc.WithTracerProvider(p.tp), otelgrpc.WithPropagators(p.prop), otelgrpc.WithMeterProvider(noMeters),
		otelgrpc.WithFilter(filters.Not(filters.HealthCheck())))
}

// AnnotateClient puts the request's repository on the span that makes the
// call (the gateway's call span): the interceptor runs before otelgrpc
// starts its client span. DialOptions installs it.
func AnnotateClient(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if m, ok := req.(proto.Message); ok {
		if repo := Repository(m); repo != "" {
			trace.SpanFromContext(ctx).SetAttributes(AttrRepository.String(repo))
		}
	}
	return invoker(ctx, method, req, reply, cc, opts...)
}

// ServerOptions are the gRPC server options of the service: a server span
// per call, continuing the trace context of the call's metadata. Health
// checks are not traced. Off: none.
func (p *Provider) ServerOptions() []grpc.ServerOption {
	if !p.Enabled() {
		return nil
	}
	return []grpc.ServerOption{grpc.StatsHandler(p.ServerStatsHandler())}
}

// ServerStatsHandler is ServerOptions' stats handler, for a server that
// is no grpc.Server (the in-process channel); nil when off.
func (p *Provider) ServerStatsHandler() stats.Handler {
	if !p.Enabled() {
		return nil
	}
	return otelgrpc.NewServerHandler(
		otelgrpc.WithTracerProvider(p.tp), otelgrpc.WithPropagators(p.prop), otelgrpc.WithMeterProvider(noMeters),
		otelgrpc.WithFilter(filters.Not(filters.HealthCheck())))
}

// Repository is the "owner/repo" a ghops request names: its top-level
// string field repo (every repository tool has one, see
// proto/ghops/v1/github_service.proto), or "".
func Repository(m proto.Message) string {
	if m == nil {
		return ""
	}
	r := m.ProtoReflect()
	fd := r.Descriptor().Fields().ByName("repo")
	if fd == nil || fd.Kind() != protoreflect.StringKind || fd.Cardinality() == protoreflect.Repeated {
		return ""
	}
	return r.Get(fd).String()
}
