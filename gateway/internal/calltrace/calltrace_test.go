package calltrace_test

import (
	"context"
	"encoding/json"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"ghops.dev/telemetry"

	"ghops.dev/gateway/internal/calltrace"
	"ghops.dev/gateway/internal/jsonrpc"
	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/rpcerror"
)

// fake is a transport answering every call with answer, remembering the
// span context it was served in.
type fake struct {
	name   string
	answer pipeline.Answer
	seen   trace.SpanContext
}

func (f *fake) Name() string { return f.name }
func (f *fake) Begin(context.Context, *pipeline.Body, []*pipeline.Call, bool) *pipeline.Refusal {
	return nil
}
func (f *fake) Serve(ctx context.Context, _ *pipeline.Body, _ *pipeline.Call) pipeline.Answer {
	f.seen = trace.SpanContextFromContext(ctx)
	return f.answer
}
func (f *fake) Status(*pipeline.Body, []pipeline.Answer, bool, bool) int { return 200 }

// TestOffReturnsNoTracer: with tracing off there is no tracer, so calls
// pay nothing for it.
func TestOffReturnsNoTracer(t *testing.T) {
	if calltrace.Tracer(telemetry.Off()) != nil {
		t.Fatal("Tracer with tracing off is not nil")
	}
}

func TestSpans(t *testing.T) {
	const metaTP = `{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}`
	failed := rpcerror.New(rpcerror.InvalidParamsCode, "", rpcerror.Tool("read_file"))
	tests := []struct {
		name      string
		transport string
		req       *jsonrpc.Request
		answer    pipeline.Answer
		span      string // "" : no span
		attrs     map[string]string
		status    codes.Code
		parent    string
	}{
		{name: "mcp tools/call", transport: "mcp",
			req:  &jsonrpc.Request{ID: json.RawMessage(`"a"`), Method: "tools/call", Params: json.RawMessage(`{"name":"read_file","arguments":{"repo":"o/r"}}`)},
			span: "tools/call read_file", attrs: map[string]string{"gen_ai.tool.name": "read_file", "mcp.method.name": "tools/call", "jsonrpc.request.id": `"a"`, "ghops.request_id": "rid"}},
		{name: "mcp tools/list", transport: "stdio",
			req:  &jsonrpc.Request{ID: json.RawMessage(`1`), Method: "tools/list"},
			span: "tools/list", attrs: map[string]string{"mcp.method.name": "tools/list"}},
		{name: "rpc tool", transport: "rpc",
			req:  &jsonrpc.Request{ID: json.RawMessage(`1`), Method: "fetch", Params: json.RawMessage(`{"repo":"o/r"}`)},
			span: "fetch", attrs: map[string]string{"gen_ai.tool.name": "fetch"}},
		{name: "error answer", transport: "mcp",
			req:    &jsonrpc.Request{ID: json.RawMessage(`1`), Method: "tools/call", Params: json.RawMessage(`{"name":"read_file"}`)},
			answer: pipeline.Answer{Err: failed}, span: "tools/call read_file", status: codes.Error,
			attrs: map[string]string{"rpc.jsonrpc.error_code": "-32602"}},
		{name: "_meta parent", transport: "stdio",
			req:  &jsonrpc.Request{ID: json.RawMessage(`1`), Method: "tools/call", Params: json.RawMessage(`{"name":"fetch","_meta":` + metaTP + `}`)},
			span: "tools/call fetch", parent: "b7ad6b7169203331"},
		{name: "_meta on /rpc is an argument, not a parent", transport: "rpc",
			req:  &jsonrpc.Request{ID: json.RawMessage(`1`), Method: "fetch", Params: json.RawMessage(`{"_meta":` + metaTP + `}`)},
			span: "fetch"},
		{name: "notification", transport: "mcp", req: &jsonrpc.Request{Method: "notifications/initialized"}},
		{name: "invalid element", transport: "mcp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			f := &fake{name: tt.transport, answer: tt.answer}
			start := calltrace.Tracer(telemetry.New(tp))
			c := &pipeline.Call{Request: tt.req, RequestID: "rid"}
			if tt.req == nil {
				c.Invalid = &jsonrpc.Error{Code: -32600}
			}
			x := &pipeline.Body{Transport: tt.transport}
			ctx, end := start(context.Background(), x, c)
			got := f.Serve(ctx, x, c)
			if end != nil {
				end(got)
			}
			if got.Err != tt.answer.Err {
				t.Fatal("the answer was changed")
			}
			spans := rec.Ended()
			if tt.span == "" {
				if len(spans) != 0 || f.seen.IsValid() {
					t.Fatalf("%d spans for a call without one", len(spans))
				}
				return
			}
			if len(spans) != 1 || spans[0].Name() != tt.span {
				t.Fatalf("spans %v, want one %q", spans, tt.span)
			}
			sp := spans[0]
			if f.seen.SpanID() != sp.SpanContext().SpanID() {
				t.Error("the transport was not served inside the span")
			}
			attrs := map[string]string{}
			for _, a := range sp.Attributes() {
				attrs[string(a.Key)] = a.Value.Emit()
			}
			for k, v := range tt.attrs {
				if attrs[k] != v {
					t.Errorf("%s = %q, want %q (all: %v)", k, attrs[k], v, attrs)
				}
			}
			if sp.Status().Code != tt.status {
				t.Errorf("status %v, want %v", sp.Status().Code, tt.status)
			}
			if got := sp.Parent().SpanID(); tt.parent == "" && got.IsValid() || tt.parent != "" && got.String() != tt.parent {
				t.Errorf("parent %s, want %q", got, tt.parent)
			}
		})
	}
}
