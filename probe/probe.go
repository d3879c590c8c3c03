// Package probe checks a running ghops server from outside, as a container
// healthcheck or a Kubernetes exec probe does: the images have no shell and
// no curl, so every binary probes its own listen address ("healthcheck"
// command). The gRPC health check of the service builds on Target.
package probe

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
)

// Target turns a listen address into one to dial: a wildcard or empty host
// (0.0.0.0:8788, [::]:8788, :8788) is reached on loopback.
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

// HTTP asks GET path of the server listening on listen and returns nil only
// for 200.
func HTTP(ctx context.Context, listen, path string) error {
	target, err := Target(listen)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+target+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return nil
}
