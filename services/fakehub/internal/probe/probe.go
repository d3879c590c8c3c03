// Package probe gives the fakehub binary its liveness endpoint, GET
// /healthz, outside the emulated API (so that probes never count in the
// hub's request statistics or rate limits), and the client side of it for
// "fakehub healthcheck": the images have no shell and no curl.
package probe

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
)

// Path is the liveness endpoint.
const Path = "/healthz"

// Handler answers GET Path with 200 "ok" and passes every other request to
// next.
func Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == Path && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = io.WriteString(w, "ok\n")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Target turns a listen address into one to dial: a wildcard or empty host
// (0.0.0.0:8789, [::]:8789, :8789) is reached on loopback.
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

// Check asks GET Path of the fakehub listening on listen and returns nil
// only for 200.
func Check(ctx context.Context, listen string) error {
	target, err := Target(listen)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+target+Path, nil)
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
		return fmt.Errorf("GET %s: %s", Path, resp.Status)
	}
	return nil
}
