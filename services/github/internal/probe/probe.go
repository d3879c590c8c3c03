// Package probe checks a running ghops-github from outside, as a container
// healthcheck does: the images have no shell and no grpc_health_probe, so
// the binary probes itself ("ghops-github healthcheck"). Address handling is
// shared with the HTTP probes in ghops.dev/probe; only the gRPC health call
// lives here, so the shared module needs no gRPC dependency.
package probe

import (
	"context"
	"errors"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"ghops.dev/probe"
)

// GRPC asks the grpc.health.v1 service at the listen address addr about the
// whole server and returns nil only for SERVING.
func GRPC(ctx context.Context, addr string) error {
	target, err := probe.Target(addr)
	if err != nil {
		return err
	}
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		return err
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return errors.New("health: " + resp.GetStatus().String())
	}
	return nil
}
