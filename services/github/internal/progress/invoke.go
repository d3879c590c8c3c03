package progress

import (
	"strings"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/anypb"
)

// Invoker serves ghops.v1.CallService: Invoke runs a unary method of one
// service through the interceptor chain and handler a unary call of it
// runs through, with a Reporter in its context that streams the call's
// progress. The chain is passed in, not rebuilt, so that Invoke cannot be
// a way around any interceptor (authentication, validation, repository
// scope, the per-call caps): a call refused as a unary call is refused
// through Invoke with the same status, details included.
type Invoker struct {
	ghopsv1.UnimplementedCallServiceServer
	srv     any
	service string
	chain   grpc.UnaryServerInterceptor
	methods map[string]invokable // by full method name
}

// invokable is one method Invoke may run.
type invokable struct {
	handler grpc.MethodHandler
	input   protoreflect.FullName
}

// NewInvoker returns the CallService of the unary methods of desc that are
// tools (that carry the ghops.v1.tool option in sd, desc's descriptor),
// implemented by srv and run through chain (the server's whole unary
// interceptor chain; nil runs the handler alone).
func NewInvoker(desc *grpc.ServiceDesc, sd protoreflect.ServiceDescriptor, srv any, chain grpc.UnaryServerInterceptor) *Invoker {
	iv := &Invoker{srv: srv, service: desc.ServiceName, chain: chain, methods: map[string]invokable{}}
	for _, m := range desc.Methods {
		md := sd.Methods().ByName(protoreflect.Name(m.MethodName))
		if md == nil {
			continue
		}
		opts, ok := md.Options().(*descriptorpb.MethodOptions)
		if !ok || opts == nil || !proto.HasExtension(opts, ghopsv1.E_Tool) {
			continue
		}
		iv.methods["/"+desc.ServiceName+"/"+m.MethodName] = invokable{handler: m.Handler, input: md.Input().FullName()}
	}
	return iv
}

// Invoke implements ghops.v1.CallService.
func (iv *Invoker) Invoke(req *ghopsv1.InvokeRequest, stream grpc.ServerStreamingServer[ghopsv1.InvokeResponse]) error {
	m, ok := iv.methods[req.GetMethod()]
	if !ok {
		return status.Errorf(codes.InvalidArgument, "Invoke runs the tools of %s only; %q is not one", iv.service, truncate(req.GetMethod(), 200))
	}
	if got := req.GetRequest().MessageName(); got != m.input {
		return status.Errorf(codes.InvalidArgument, "the request of %s must be a %s, not %q", req.GetMethod(), m.input, truncate(string(got), 200))
	}
	// Send is not safe for concurrent use: the Reporter serializes the
	// progress, and the response is sent after Finish, when no more is.
	r := New(func(e Event) error {
		return stream.Send(&ghopsv1.InvokeResponse{Event: &ghopsv1.InvokeResponse_Progress{
			Progress: &ghopsv1.Progress{Done: e.Done, Total: e.Total, Message: e.Message},
		}})
	})
	ctx := With(stream.Context(), r)
	dec := func(in any) error {
		msg, ok := in.(proto.Message)
		if !ok {
			return status.Error(codes.Internal, "the method's request is not a protobuf message")
		}
		if err := req.GetRequest().UnmarshalTo(msg); err != nil {
			return status.Errorf(codes.InvalidArgument, "the request of %s does not decode: %v", req.GetMethod(), err)
		}
		return nil
	}
	resp, err := m.handler(iv.srv, ctx, dec, iv.chain)
	r.Finish(err == nil)
	if err != nil {
		return err
	}
	out, ok := resp.(proto.Message)
	if !ok {
		return status.Error(codes.Internal, "the method's response is not a protobuf message")
	}
	a, err := anypb.New(out)
	if err != nil {
		return status.Errorf(codes.Internal, "encode the response: %v", err)
	}
	return stream.Send(&ghopsv1.InvokeResponse{Event: &ghopsv1.InvokeResponse_Response{Response: a}})
}

// truncate bounds a caller's string quoted in an error.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
