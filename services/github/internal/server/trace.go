package server

import (
	"context"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"ghops.dev/telemetry"

	"ghops.dev/services/github/internal/validation"
)

// unaryTrace names the call on the server span otelgrpc started (package
// telemetry): the tool, the repository and the request id, so that a
// trace finds the call's log lines. Installed only when tracing is on.
func (s *Server) unaryTrace(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	span := trace.SpanFromContext(ctx)
	id, _ := ctx.Value(ridKey{}).(string)
	span.SetAttributes(telemetry.AttrTool.String(validation.ToolOf(info.FullMethod)), telemetry.AttrRequestID.String(id))
	if m, ok := req.(proto.Message); ok {
		if repo := telemetry.Repository(m); repo != "" {
			span.SetAttributes(telemetry.AttrRepository.String(repo))
		}
	}
	return handler(ctx, req)
}
