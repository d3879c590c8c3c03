// Package calltrace gives every JSON-RPC call the gateway serves its own
// span, on every transport (/rpc, MCP over HTTP and stdio): named for the
// method and tool ("tools/call get_file"), carrying the tool, the request
// id and the JSON-RPC id, with the repository added by the gRPC client
// (package telemetry) and the error code of a failure. An MCP request's
// params._meta may carry a W3C traceparent (the MCP specification leaves
// _meta to such data): the span then continues that trace and links the
// HTTP request's span, as OpenTelemetry's MCP conventions say; otherwise
// it is the HTTP span's child (which continued the traceparent header).
// It is the pipeline's one Tracer (pipeline.Options.Trace), applied once to
// every transport, so that the pipeline and the transports stay unaware of
// tracing; with tracing off, Tracer returns nil (no hook at all).
package calltrace

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/tidwall/gjson"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"ghops.dev/redact"
	"ghops.dev/telemetry"

	"ghops.dev/gateway/internal/pipeline"
)

// maxIDBytes bounds the JSON-RPC id recorded on a span (ids are the
// caller's and unbounded in JSON-RPC).
const maxIDBytes = 128

// Tracer returns the hook that serves each call inside its span (nil when
// tracing is off: the pipeline then traces nothing).
func Tracer(p *telemetry.Provider) pipeline.Tracer {
	if !p.Enabled() {
		return nil
	}
	t := &tracing{tel: p, tracer: p.Tracer()}
	return t.start
}

// tracing is the tracer's state.
type tracing struct {
	tel    *telemetry.Provider
	tracer trace.Tracer
}

// start opens the call's span; the call is served in the context it
// returns, and the span ends with its answer. MCP requests (every
// transport but /rpc) are named for method and params.name and may carry a
// traceparent in params._meta; /rpc's method is the tool.
func (t *tracing) start(ctx context.Context, x *pipeline.Body, c *pipeline.Call) (context.Context, func(pipeline.Answer)) {
	if c.Request == nil || c.Request.IsNotification() {
		return ctx, nil
	}
	method := c.Request.Method
	name, attrs := method, make([]attribute.KeyValue, 0, 5)
	attrs = append(attrs, telemetry.AttrRequestID.String(c.RequestID))
	if id := c.Request.ID; len(id) <= maxIDBytes {
		attrs = append(attrs, telemetry.AttrJSONRPCID.String(redact.String(string(id))))
	}
	var meta json.RawMessage
	if x.Transport != "rpc" {
		attrs = append(attrs, telemetry.AttrMCPMethod.String(method))
		params := c.Request.Params
		if len(params) > 0 && params[0] == '{' {
			r := gjson.GetManyBytes(params, "name", "_meta")
			if method == "tools/call" && r[0].Type == gjson.String {
				name = method + " " + r[0].Str
				attrs = append(attrs, telemetry.AttrTool.String(r[0].Str))
			}
			if r[1].IsObject() {
				meta = json.RawMessage(r[1].Raw)
			}
		}
	} else {
		attrs = append(attrs, telemetry.AttrTool.String(method))
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...)}
	if remote := t.tel.FromMeta(meta); remote.IsValid() {
		if local := trace.SpanContextFromContext(ctx); local.IsValid() {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: local}))
		}
		ctx = trace.ContextWithRemoteSpanContext(ctx, remote)
	}
	ctx, span := t.tracer.Start(ctx, name, opts...)
	return ctx, func(a pipeline.Answer) {
		// Err is set for MCP's isError results too (pipeline.Answer): the
		// span says the call failed however the failure was rendered. The
		// message stays out: it may quote the caller's input.
		if a.Err != nil {
			span.SetAttributes(telemetry.AttrJSONRPCErrorCode.Int(a.Err.Code))
			span.SetStatus(codes.Error, "JSON-RPC error "+strconv.Itoa(a.Err.Code))
		}
		span.End()
	}
}
