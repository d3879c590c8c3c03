package e2e

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"ghops.dev/services/fakehub"
	"ghops.dev/telemetry"

	"ghops.dev/gateway/gatewaytest"
	"ghops.dev/gateway/internal/httpcall"
)

// tracedStack is the whole stack tracing into one in-memory recorder, as
// a collector would receive it from the gateway and the service.
func tracedStack(t *testing.T, opts gatewaytest.StackOptions) (*gatewaytest.Stack, *tracetest.SpanRecorder, *telemetry.Provider) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	opts.Telemetry = telemetry.New(tp)
	st := gatewaytest.StartStack(t, opts)
	return st, rec, opts.Telemetry
}

// traceSpans are the ended spans of one trace, by role.
type traceSpans struct {
	all                                []sdktrace.ReadOnlySpan
	http, call, grpcClient, grpcServer sdktrace.ReadOnlySpan
	github                             []sdktrace.ReadOnlySpan
}

// collect sorts the ended spans of trace id into roles.
func collect(rec *tracetest.SpanRecorder, id trace.TraceID, callName string) traceSpans {
	var s traceSpans
	for _, sp := range rec.Ended() {
		if sp.SpanContext().TraceID() != id {
			continue
		}
		s.all = append(s.all, sp)
		switch {
		case sp.SpanKind() == trace.SpanKindServer && strings.HasPrefix(sp.Name(), "POST /"):
			s.http = sp
		case sp.Name() == callName:
			s.call = sp
		case sp.SpanKind() == trace.SpanKindClient && strings.HasPrefix(sp.Name(), "ghops.v1.GitHubService/"):
			s.grpcClient = sp
		case sp.SpanKind() == trace.SpanKindServer && strings.HasPrefix(sp.Name(), "ghops.v1.GitHubService/"):
			s.grpcServer = sp
		case sp.SpanKind() == trace.SpanKindClient && sp.InstrumentationScope().Name == "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp":
			s.github = append(s.github, sp)
		}
	}
	return s
}

// waitSpans waits until the spans of trace id include every role ready
// asks for. Spans end as their servers finish, which may be just after the
// client has its answer; the deadline only stops a broken test.
func waitSpans(t *testing.T, rec *tracetest.SpanRecorder, id trace.TraceID, callName string, ready func(traceSpans) bool) traceSpans {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := collect(rec, id, callName)
		if ready(s) {
			return s
		}
		if time.Now().After(deadline) {
			var names []string
			for _, sp := range s.all {
				names = append(names, sp.Name())
			}
			t.Fatalf("trace %s never held every span; it has %q", id, names)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func attrsOf(sp sdktrace.ReadOnlySpan) map[attribute.Key]string {
	m := map[attribute.Key]string{}
	for _, a := range sp.Attributes() {
		m[a.Key] = a.Value.Emit()
	}
	return m
}

// childOf fails unless child's parent is parent.
func childOf(t *testing.T, what string, child, parent sdktrace.ReadOnlySpan) {
	t.Helper()
	if child.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("%s: %q's parent is %s, want %q (%s)", what, child.Name(), child.Parent().SpanID(), parent.Name(), parent.SpanContext().SpanID())
	}
}

// traceCallerToken is a caller's own GitHub-shaped token (the gateway
// sends no other bearer to GitHub), which no span may hold either.
const traceCallerToken = "ghu_trace0123456789abcdef0123456789ab"

// noSecretIn fails when a span's name, attributes, events, links, status
// or resource holds the GitHub token or an Authorization value.
func noSecretIn(t *testing.T, spans []sdktrace.ReadOnlySpan) {
	t.Helper()
	bad := func(s string) bool {
		return strings.Contains(s, fakehub.DemoToken) || strings.Contains(s, traceCallerToken) || strings.Contains(strings.ToLower(s), "authorization") || strings.Contains(s, "Bearer ")
	}
	check := func(sp sdktrace.ReadOnlySpan, where string, attrs []attribute.KeyValue) {
		for _, a := range attrs {
			if bad(string(a.Key)) || bad(a.Value.Emit()) {
				t.Errorf("span %q %s: %s=%s holds a secret", sp.Name(), where, a.Key, a.Value.Emit())
			}
		}
	}
	for _, sp := range spans {
		if bad(sp.Name()) || bad(sp.Status().Description) {
			t.Errorf("span %q names a secret", sp.Name())
		}
		check(sp, "attributes", sp.Attributes())
		check(sp, "resource", sp.Resource().Attributes())
		for _, e := range sp.Events() {
			check(sp, "event "+e.Name, e.Attributes)
		}
		for _, l := range sp.Links() {
			check(sp, "link", l.Attributes)
		}
	}
}

const (
	traceID1   = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentSpan = "00f067aa0ba902b7"
)

func mustTraceID(t *testing.T, s string) trace.TraceID {
	t.Helper()
	id, err := trace.TraceIDFromHex(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestTraceAcrossTheStack sends one read_file over /mcp with a W3C
// traceparent header to the whole stack (fakehub, service, gateway on
// 127.0.0.1), in both deployment shapes, and requires one trace holding the
// gateway's HTTP span, its call span, the gRPC client and server spans and
// each GitHub request, each the child of the one before, with the tool,
// the repository, the request id, the GitHub status and rate limit as
// attributes, and no token anywhere: neither the service's nor, with
// GitHub as the OAuth issuer, the caller's own, sent in the Authorization
// header and forwarded to the service.
func TestTraceAcrossTheStack(t *testing.T) {
	type run struct {
		name string
		opts gatewaytest.StackOptions
		hdr  []string
	}
	var runs []run
	for _, shape := range gatewaytest.Shapes {
		runs = append(runs, run{name: shape.Name, opts: gatewaytest.StackOptions{Embedded: shape.Embedded}})
	}
	runs = append(runs, run{name: "caller's own token", opts: gatewaytest.StackOptions{GitHubOAuth: true, Hub: &fakehub.Config{Seed: "demo",
		Tokens: []fakehub.Token{{Value: traceCallerToken, Login: "carol", Repos: map[string]fakehub.Permission{"octo-org/hello-world": fakehub.PermRead}}}}},
		hdr: []string{"Authorization", "Bearer " + traceCallerToken}})
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			st, rec, _ := tracedStack(t, r.opts)
			body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":{"repo":"octo-org/hello-world","path":"README.md"}}}`
			resp, b := httpcall.Do(t, http.MethodPost, st.URL+"/mcp", body, append([]string{"Content-Type", "application/json",
				"Accept", "application/json, text/event-stream", "X-Request-Id", "trace-e2e-1",
				"Traceparent", "00-" + traceID1 + "-" + parentSpan + "-01"}, r.hdr...)...)
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "hello-world") && !strings.Contains(string(b), `"content"`) {
				t.Fatalf("answer %d %s", resp.StatusCode, b)
			}
			s := waitSpans(t, rec, mustTraceID(t, traceID1), "tools/call read_file", func(s traceSpans) bool {
				return s.http != nil && s.call != nil && s.grpcClient != nil && s.grpcServer != nil && len(s.github) > 0
			})
			if got := s.http.Parent().SpanID().String(); got != parentSpan || !s.http.Parent().IsRemote() {
				t.Errorf("HTTP span's parent %s, want the caller's %s", got, parentSpan)
			}
			childOf(t, "call", s.call, s.http)
			childOf(t, "gRPC client", s.grpcClient, s.call)
			childOf(t, "gRPC server", s.grpcServer, s.grpcClient)
			for _, g := range s.github {
				childOf(t, "GitHub request", g, s.grpcServer)
				a := attrsOf(g)
				if a["http.response.status_code"] == "" || a[telemetry.AttrRateLimitRemaining] == "" {
					t.Errorf("GitHub span %v lacks the status or the rate limit", a)
				}
				if u := a["url.full"]; !strings.HasPrefix(u, st.HubURL) || strings.Contains(u, "?") {
					t.Errorf("GitHub span url.full %q: not fakehub's, or with a query", u)
				}
			}
			want := map[attribute.Key]string{
				telemetry.AttrTool: "read_file", telemetry.AttrRequestID: "trace-e2e-1", telemetry.AttrRepository: "octo-org/hello-world",
			}
			for name, sp := range map[string]sdktrace.ReadOnlySpan{"call": s.call, "service": s.grpcServer} {
				a := attrsOf(sp)
				for k, v := range want {
					if a[k] != v {
						t.Errorf("%s span %s = %q, want %q", name, k, a[k], v)
					}
				}
			}
			if a := attrsOf(s.call); a[telemetry.AttrMCPMethod] != "tools/call" || a[telemetry.AttrJSONRPCID] != "7" {
				t.Errorf("call span %v: want mcp.method.name tools/call and jsonrpc.request.id 7", a)
			}
			noSecretIn(t, rec.Ended())
		})
	}
}

// TestTraceparentContinued: a caller's trace context is continued from
// the traceparent header (/mcp and /rpc) and from an MCP request's
// params._meta (HTTP and stdio); when both are sent, _meta's is the call's
// parent and the HTTP request's span is linked to it.
func TestTraceparentContinued(t *testing.T) {
	st, rec, tel := tracedStack(t, gatewaytest.StackOptions{})
	const (
		headerTrace = "11111111111111111111111111111111"
		metaTrace   = "22222222222222222222222222222222"
		metaSpan    = "2222222222222222"
	)
	call := `{"name":"read_file","arguments":{"repo":"octo-org/hello-world","path":"README.md"}`
	withMeta := call + `,"_meta":{"traceparent":"00-` + metaTrace + `-` + metaSpan + `-01","tracestate":"ghops=t"}}`
	tests := []struct {
		name, path, body, header string
		callName                 string
		trace, parent            string // the call span's trace and parent span
		linked                   bool   // the call span links the HTTP span (another trace)
	}{
		{name: "header on /mcp", path: "/mcp", header: headerTrace, callName: "tools/call read_file", trace: headerTrace,
			body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + call + `}}`},
		{name: "header on /rpc", path: "/rpc", header: headerTrace, callName: "read_file", trace: headerTrace,
			body: `{"jsonrpc":"2.0","id":1,"method":"read_file","params":{"repo":"octo-org/hello-world","path":"README.md"}}`},
		{name: "_meta on /mcp", path: "/mcp", callName: "tools/call read_file", trace: metaTrace, parent: metaSpan, linked: true,
			body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + withMeta + `}`},
		{name: "_meta and header on /mcp", path: "/mcp", header: headerTrace, callName: "tools/call read_file", trace: metaTrace, parent: metaSpan, linked: true,
			body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + withMeta + `}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec.Reset()
			hdr := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}
			if tt.header != "" {
				hdr = append(hdr, "Traceparent", "00-"+tt.header+"-"+parentSpan+"-01")
			}
			resp, b := httpcall.Do(t, http.MethodPost, st.URL+tt.path, tt.body, hdr...)
			if resp.StatusCode != http.StatusOK || strings.Contains(string(b), `"error"`) {
				t.Fatalf("answer %d %s", resp.StatusCode, b)
			}
			s := waitSpans(t, rec, mustTraceID(t, tt.trace), tt.callName, func(s traceSpans) bool {
				return s.call != nil && s.grpcServer != nil && len(s.github) > 0
			})
			childOf(t, "service", s.grpcServer, s.grpcClient)
			if tt.parent == "" {
				if s.http == nil {
					t.Fatal("no HTTP span in the caller's trace")
				}
				if s.http.Parent().SpanID().String() != parentSpan {
					t.Errorf("HTTP span's parent %s, want %s", s.http.Parent().SpanID(), parentSpan)
				}
				childOf(t, "call", s.call, s.http)
				return
			}
			if got := s.call.Parent().SpanID().String(); got != tt.parent || !s.call.Parent().IsRemote() {
				t.Errorf("call span's parent %s, want _meta's %s", got, tt.parent)
			}
			if got := s.call.Parent().TraceState().String(); got != "ghops=t" {
				t.Errorf("tracestate %q, want ghops=t", got)
			}
			links := s.call.Links()
			if len(links) != 1 {
				t.Fatalf("call span has %d links, want the HTTP span's", len(links))
			}
			var httpSpan sdktrace.ReadOnlySpan
			for _, sp := range rec.Ended() {
				if sp.SpanContext().SpanID() == links[0].SpanContext.SpanID() {
					httpSpan = sp
				}
			}
			if httpSpan == nil || httpSpan.Name() != "POST /mcp" {
				t.Fatalf("the link names no HTTP span")
			}
			if tt.header != "" && httpSpan.SpanContext().TraceID().String() != tt.header {
				t.Errorf("HTTP span in trace %s, want the header's %s", httpSpan.SpanContext().TraceID(), tt.header)
			}
		})
	}

	t.Run("_meta on stdio", func(t *testing.T) {
		rec.Reset()
		a := gatewaytest.NewApp(t, st, gatewaytest.StackOptions{Telemetry: tel}, &gatewaytest.SyncBuffer{})
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		go func() { _ = a.ServeStdio(context.Background(), inR, outW); _ = outW.Close() }()
		t.Cleanup(func() { _ = inW.Close() })
		if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+withMeta+"}\n"); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(outR).ReadString('\n')
		if err != nil || strings.Contains(line, `"error"`) {
			t.Fatalf("answer %q: %v", line, err)
		}
		s := waitSpans(t, rec, mustTraceID(t, metaTrace), "tools/call read_file", func(s traceSpans) bool {
			return s.call != nil && s.grpcServer != nil && len(s.github) > 0
		})
		if got := s.call.Parent().SpanID().String(); got != metaSpan {
			t.Errorf("call span's parent %s, want _meta's %s", got, metaSpan)
		}
		if len(s.call.Links()) != 0 {
			t.Errorf("stdio call span links %v (there is no HTTP span)", s.call.Links())
		}
	})
}
