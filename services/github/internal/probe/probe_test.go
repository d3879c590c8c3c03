package probe_test

import (
	"context"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"ghops.dev/services/github/internal/probe"
)

// TestGRPC probes a real gRPC health server in each state.
func TestGRPC(t *testing.T) {
	hs := health.NewServer()
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	_, port, _ := net.SplitHostPort(lis.Addr().String())
	tests := []struct {
		name   string
		status healthpb.HealthCheckResponse_ServingStatus
		ok     bool
	}{
		{"serving", healthpb.HealthCheckResponse_SERVING, true},
		{"not serving", healthpb.HealthCheckResponse_NOT_SERVING, false},
		{"serving again", healthpb.HealthCheckResponse_SERVING, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hs.SetServingStatus("", tc.status)
			err := probe.GRPC(context.Background(), "0.0.0.0:"+port)
			if (err == nil) != tc.ok {
				t.Errorf("GRPC = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}
