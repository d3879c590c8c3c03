package toolcall

import (
	"context"
	"errors"
	"io"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// invokeWithProgress makes the call of method through the service's
// ghops.v1.CallService/Invoke instead of the unary method: the same
// interceptors and handler run, and the call's progress comes back on the
// call's own stream (so from the replica that runs it), each step handed to
// report before the response arrives. Its error is the status the unary
// call would have failed with, so the caller maps it the same way
// (rpcerror.FromStatus).
//
// Only calls whose request asked for progress come here: the unary path
// stays as it is, with no stream's cost.
//
// A service without CallService (one older than the gateway, during a
// rolling upgrade; a test's stand-in) answers Unimplemented before
// anything ran, since the service's tools never answer it themselves: the
// call is then made unary, without progress, rather than failed.
func invokeWithProgress(ctx context.Context, conn grpc.ClientConnInterface, method string, req, resp proto.Message, report ProgressFunc) error {
	err := invokeStream(ctx, conn, method, req, resp, report)
	var u unimplemented
	if errors.As(err, &u) {
		return conn.Invoke(ctx, method, req, resp)
	}
	return err
}

// unimplemented is the service's Unimplemented to Invoke, before any
// message of the call.
type unimplemented struct{ error }

// invokeStream makes the call through CallService/Invoke.
func invokeStream(ctx context.Context, conn grpc.ClientConnInterface, method string, req, resp proto.Message, report ProgressFunc) error {
	a, err := anypb.New(req)
	if err != nil {
		return status.Errorf(codes.Internal, "encode the request: %v", err)
	}
	stream, err := ghopsv1.NewCallServiceClient(conn).Invoke(ctx, &ghopsv1.InvokeRequest{Method: method, Request: a})
	if status.Code(err) == codes.Unimplemented {
		return unimplemented{err}
	}
	if err != nil {
		return err
	}
	for first := true; ; first = false {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return status.Error(codes.Internal, "the service ended the call without an answer")
		}
		if first && status.Code(err) == codes.Unimplemented {
			return unimplemented{err}
		}
		if err != nil {
			return err
		}
		if p := m.GetProgress(); p != nil {
			report(Progress{Done: p.GetDone(), Total: p.GetTotal(), Message: p.GetMessage()})
			continue
		}
		if r := m.GetResponse(); r != nil {
			if err := r.UnmarshalTo(resp); err != nil {
				return status.Errorf(codes.Internal, "decode the answer: %v", err)
			}
			// The response is the stream's last message: reading on
			// ends the stream cleanly and returns its status (OK).
			if _, err := stream.Recv(); !errors.Is(err, io.EOF) && err != nil {
				return err
			}
			return nil
		}
	}
}
