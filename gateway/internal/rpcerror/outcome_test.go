package rpcerror

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
)

func TestLostAnswer(t *testing.T) {
	withInfo := func(c codes.Code) error {
		st, err := status.New(c, "m").WithDetails(protoadapt.MessageV1Of(&errdetails.ErrorInfo{Reason: "ERROR_REASON_INTERNAL", Domain: "ghops.dev"}))
		if err != nil {
			t.Fatal(err)
		}
		return st.Err()
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"no error", nil, false},
		{"connection lost", status.Error(codes.Unavailable, "error reading from server: EOF"), true},
		{"reset stream", status.Error(codes.Internal, "stream terminated by RST_STREAM"), true},
		{"deadline status", status.Error(codes.DeadlineExceeded, "context deadline exceeded"), true},
		{"deadline context error", fmt.Errorf("call: %w", context.DeadlineExceeded), true},
		{"cancelled", context.Canceled, true},
		{"not a status", errors.New("boom"), true},
		{"the service's internal error", withInfo(codes.Internal), false},
		{"the service's unavailable upstream", withInfo(codes.Unavailable), false},
		{"a refusal without a reason", status.Error(codes.FailedPrecondition, "no"), false},
		{"invalid argument", status.Error(codes.InvalidArgument, "bad"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := LostAnswer(tc.err); got != tc.want {
				t.Fatalf("LostAnswer(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
