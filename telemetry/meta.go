package telemetry

import (
	"context"
	"encoding/json"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// metaCarrier is the trace context an MCP request may carry in
// params._meta: the "traceparent" and "tracestate" keys, with the W3C
// header values (the MCP specification reserves _meta for such data, and
// OpenTelemetry's MCP conventions name these keys).
type metaCarrier struct {
	Traceparent string `json:"traceparent"`
	Tracestate  string `json:"tracestate"`
}

// FromMeta returns the remote span context of an MCP request's
// params._meta object (raw JSON, untrusted): invalid when _meta has no
// well-formed traceparent. Off: always invalid, and _meta is not read.
func (p *Provider) FromMeta(meta json.RawMessage) trace.SpanContext {
	if !p.Enabled() || len(meta) == 0 || meta[0] != '{' {
		return trace.SpanContext{}
	}
	var c metaCarrier
	if json.Unmarshal(meta, &c) != nil || c.Traceparent == "" {
		return trace.SpanContext{}
	}
	carrier := propagation.MapCarrier{"traceparent": c.Traceparent}
	if c.Tracestate != "" {
		carrier["tracestate"] = c.Tracestate
	}
	// Extract on an empty context: only what _meta says counts.
	return trace.SpanContextFromContext(p.prop.Extract(context.Background(), carrier))
}
