// Package calltrace gives every JSON-RPC call the gateway serves its own
// span, on every transport (/rpc, MCP over HTTP and stdio): named for the
// method and tool ("tools/call get_file"), carrying the tool, the request
// id and the JSON-RPC id, with the repository added by the gRPC client
// (package telemetry) and the error code of a failure. An MCP request's
// params._meta may carry a W3C traceparent (the MCP specification leaves
// _meta to such data): the span then continues that trace and links the
// HTTP request's span, as OpenTelemetry's MCP conventions say; otherwise
// it is the HTTP span's child (which continued the traceparent header).
// It is one pipeline.Middleware, applied once to every transport, so that the
// pipeline and the transports stay unaware of tracing; with tracing off,
// Middleware returns nil (no middleware at all).
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

// Middleware returns the middleware that serves each call inside its span
// (nil when tracing is off: the pipeline skips a nil middleware).
func Middleware(p *telemetry.Provider) pipeline.Middleware {
	if !p.Enabled() {
		return nil
	}
	t := &tracing{tel: p, tracer: p.Tracer()}
	return func(next pipeline.Handler) pipeline.Handler {
		return func(ctx context.Context, x *pipeline.Body, c *pipeline.Call) pipeline.Answer {
			return t.serve(ctx, x, c, next)
		}
	}
}

// tracing is the middleware's state.
type tracing struct {
	tel    *telemetry.Provider
	tracer trace.Tracer
}

// serve runs next inside the call's span. MCP requests (every transport
// but /rpc) are named for method and params.name and may carry a
// traceparent in params._meta; /rpc's method is the tool.
func (t *tracing) serve(ctx context.Context, x *pipeline.Body, c *pipeline.Call, next pipeline.Handler) pipeline.Answer {
	if c.Request == nil || c.Request.IsNotification() {
		return next(ctx, x, c)
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
	defer span.End()
	a := next(ctx, x, c)
	// Err is set for MCP's isError results too (pipeline.Answer): the span
	// says the call failed however the failure was rendered. The message
	// stays out: it may quote the caller's input.
	if a.Err != nil {
		span.SetAttributes(telemetry.AttrJSONRPCErrorCode.Int(a.Err.Code))
		span.SetStatus(codes.Error, "JSON-RPC error "+strconv.Itoa(a.Err.Code))
	}
	return a
}
