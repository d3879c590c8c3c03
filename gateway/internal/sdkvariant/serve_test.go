package sdkvariant

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"testing"
	"time"

	"ghops.dev/gateway/internal/app"
	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/server"
)

// gatewayGOGC is ghops-gateway's collector target when GOGC is unset
// (cmd/ghops-gateway's defaultGOGC): the variant runs under the same one, so
// that the comparison measures the MCP layer, not the collector setting.
const gatewayGOGC = 400

// TestMain serves the SDK variant instead of running the tests when
// GHOPS_SDK_VARIANT_ADDR and GHOPS_SDK_VARIANT_SERVICE are set: that is how
// scripts/sdk-compare.sh runs it (the test binary built with go test -c), so
// an ordinary go test run has nothing to skip.
func TestMain(m *testing.M) {
	addr, svc := os.Getenv("GHOPS_SDK_VARIANT_ADDR"), os.Getenv("GHOPS_SDK_VARIANT_SERVICE")
	if addr == "" && svc == "" {
		os.Exit(m.Run())
	}
	if err := serveVariant(addr, svc); err != nil {
		fmt.Fprintln(os.Stderr, "sdkvariant:", err)
		os.Exit(1)
	}
}

// serveVariant serves the SDK variant on addr (127.0.0.1 only) in front of
// the GitHub service at svc, with every other setting at ghops-gateway's
// defaults (and its environment variables), until SIGTERM or SIGINT.
func serveVariant(addr, svc string) error {
	if addr == "" || svc == "" {
		return errors.New("set both GHOPS_SDK_VARIANT_ADDR and GHOPS_SDK_VARIANT_SERVICE")
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gatewayGOGC)
	}
	cfg, err := config.Load([]string{"-addr", addr, "-service", svc}, os.Getenv, io.Discard)
	if err != nil {
		return err
	}
	if !cfg.Loopback() {
		return fmt.Errorf("GHOPS_SDK_VARIANT_ADDR %q is not a loopback address", addr)
	}
	a, err := app.New(cfg, os.Stderr)
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	lis, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	srv := &http.Server{
		Handler:           newHandler(a, server.NewMetrics()),
		ReadHeaderTimeout: server.ReadHeaderTimeout,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(a.Logger.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lis) }()
	a.Logger.Info("SDK variant listening", "addr", lis.Addr().String(), "service", svc)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
