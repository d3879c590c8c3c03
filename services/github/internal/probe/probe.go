// Package probe checks a running ghops-github from outside, as a container
// healthcheck does: the images have no shell and no grpc_health_probe, so
// the binary probes itself ("ghops-github healthcheck").
package probe

import (
	"context"
	"errors"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// Target turns a listen address into one to dial: a wildcard or empty host
// (0.0.0.0:50051, [::]:50051, :50051) is reached on loopback.
func Target(listen string) (string, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", err
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	return net.JoinHostPort(host, port), nil
}

// GRPC asks the grpc.health.v1 service at the listen address addr about the
// whole server and returns nil only for SERVING.
func GRPC(ctx context.Context, addr string) error {
	target, err := Target(addr)
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
