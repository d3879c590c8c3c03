// Package validation enforces the contract's protovalidate rules in gRPC
// interceptors (unary and streaming), so that a request breaking a rule
// never reaches a handler. The answer is InvalidArgument carrying
// ErrorInfo (ERROR_REASON_INVALID_ARGUMENT), google.rpc.BadRequest (one
// FieldViolation per violation: field = the proto field path such as
// "files[0].path", reason = the rule id such as "string.pattern",
// description = the rule's message) and the buf.validate.Violations detail
// itself, which carries the full paths and rule ids for the gateway.
package validation

import (
	"context"
	"errors"
	"strings"

	"buf.build/go/protovalidate"
	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"ghops.dev/services/github/internal/ghstatus"
)

// Interceptors validates requests with one protovalidate validator.
type Interceptors struct {
	v protovalidate.Validator
}

// New compiles a validator.
func New() (*Interceptors, error) {
	v, err := protovalidate.New()
	if err != nil {
		return nil, err
	}
	return &Interceptors{v: v}, nil
}

// Check validates msg and returns nil or the InvalidArgument status error.
func (i *Interceptors) Check(msg any, fullMethod string) error {
	m, ok := msg.(proto.Message)
	if !ok {
		return nil
	}
	err := i.v.Validate(m)
	if err == nil {
		return nil
	}
	var ve *protovalidate.ValidationError
	if !errors.As(err, &ve) {
		// A rule that could not be evaluated is our bug, not the caller's.
		return ghstatus.Internal(ghstatus.Context{Tool: ToolOf(fullMethod)})
	}
	br := &errdetails.BadRequest{}
	msgs := make([]string, 0, len(ve.Violations))
	for _, v := range ve.Violations {
		path := protovalidate.FieldPathString(v.Proto.GetField())
		br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{
			Field: path, Description: v.Proto.GetMessage(), Reason: v.Proto.GetRuleId(),
		})
		if path != "" {
			msgs = append(msgs, path+": "+v.Proto.GetMessage())
		} else {
			msgs = append(msgs, v.Proto.GetMessage())
		}
	}
	return ghstatus.New(codes.InvalidArgument, ghopsv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT,
		"invalid request: "+strings.Join(msgs, "; "), ghstatus.Context{Tool: ToolOf(fullMethod)}, nil, br, ve.ToProto())
}

// Unary is the unary server interceptor.
func (i *Interceptors) Unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := i.Check(req, info.FullMethod); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

// Stream is the streaming server interceptor: every received message is
// validated before the handler sees it.
func (i *Interceptors) Stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return handler(srv, &stream{ServerStream: ss, i: i, method: info.FullMethod})
}

type stream struct {
	grpc.ServerStream
	i      *Interceptors
	method string
}

func (s *stream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	return s.i.Check(m, s.method)
}

// ToolOf names the MCP tool of a full method from the contract's options.
// It runs for every call's log line, so the names are read once.
func ToolOf(fullMethod string) string {
	return toolNames[fullMethod[strings.LastIndex(fullMethod, "/")+1:]]
}

// toolNames maps each GitHubService method to its tool name.
var toolNames = func() map[string]string {
	names := map[string]string{}
	sd := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService")
	if sd == nil {
		return names
	}
	for i := 0; i < sd.Methods().Len(); i++ {
		md := sd.Methods().Get(i)
		if opt, ok := proto.GetExtension(md.Options(), ghopsv1.E_Tool).(*ghopsv1.ToolOptions); ok && opt != nil {
			names[string(md.Name())] = opt.GetName()
		}
	}
	return names
}()
