// Package probe checks a running ghops-github from outside, as a container
// healthcheck does: the images have no shell and no grpc_health_probe, so
// the binary probes itself ("ghops-github healthcheck"). Address handling is
// shared with the HTTP probes in ghops.dev/probe; only the gRPC health call
// lives here, so the shared module needs no gRPC dependency.
//
// The health service needs no caller credentials (package callerauth keeps
// it open), so the probe sends none; when the service serves TLS, the probe
// speaks TLS too (see GRPCTLS).
package probe

import (
	"context"
	"crypto/tls"
	"errors"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"ghops.dev/probe"
)

// GRPC asks the grpc.health.v1 service at the listen address addr about the
// whole server and returns nil only for SERVING.
func GRPC(ctx context.Context, addr string) error {
	return GRPCTLS(ctx, addr, nil)
}

// GRPCTLS is GRPC over TLS with tc (plaintext when tc is nil).
func GRPCTLS(ctx context.Context, addr string, tc *tls.Config) error {
	target, err := probe.Target(addr)
	if err != nil {
		return err
	}
	creds := insecure.NewCredentials()
	if tc != nil {
		creds = credentials.NewTLS(tc)
	}
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(creds))
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
