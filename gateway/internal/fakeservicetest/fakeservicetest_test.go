package fakeservicetest

import (
	"context"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// fake fails Fetch with the status it holds.
type fake struct {
	ghopsv1.UnimplementedGitHubServiceServer
	err error
}

func (f fake) Fetch(context.Context, *ghopsv1.FetchRequest) (*ghopsv1.FetchResponse, error) {
	return nil, f.err
}

func TestStatusThroughServe(t *testing.T) {
	gh := &ghopsv1.GitHubError{Status: 403, Message: "API rate limit exceeded"}
	retry := &errdetails.RetryInfo{RetryDelay: durationpb.New(42 * time.Second)}
	tests := []struct {
		name    string
		err     error
		code    codes.Code
		details int
	}{
		{name: "error info only", err: Status(codes.Unavailable, "down", ghopsv1.ErrorReason_ERROR_REASON_UPSTREAM_UNAVAILABLE, nil), code: codes.Unavailable, details: 1},
		{name: "github error and retry info", err: Status(codes.ResourceExhausted, "limited", ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED, map[string]string{"repo": "o/r"}, gh, retry),
			code: codes.ResourceExhausted, details: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn := Serve(t, fake{err: tc.err})
			_, err := ghopsv1.NewGitHubServiceClient(conn).Fetch(context.Background(), &ghopsv1.FetchRequest{Repo: "o/r"})
			st := status.Convert(err)
			if st.Code() != tc.code || st.Message() != status.Convert(tc.err).Message() {
				t.Fatalf("got %v", err)
			}
			ds := st.Details()
			if len(ds) != tc.details {
				t.Fatalf("details %v, want %d", ds, tc.details)
			}
			info, ok := ds[0].(*errdetails.ErrorInfo)
			if !ok || info.GetDomain() != Domain || info.GetReason() != status.Convert(tc.err).Details()[0].(*errdetails.ErrorInfo).GetReason() {
				t.Errorf("first detail %v", ds[0])
			}
			if tc.details == 3 && (!proto.Equal(ds[1].(proto.Message), gh) || !proto.Equal(ds[2].(proto.Message), retry)) {
				t.Errorf("details out of order: %v", ds)
			}
		})
	}
}

func TestServeRegistersMore(t *testing.T) {
	conn := Serve(t, fake{}, func(s *grpc.Server) { healthpb.RegisterHealthServer(s, health.NewServer()) })
	r, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
	if err != nil || r.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health %v, %v", r, err)
	}
}

func TestStatusPanicsOnOK(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for codes.OK")
		}
	}()
	_ = Status(codes.OK, "", ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, nil)
}
