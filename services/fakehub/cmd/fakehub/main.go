// Command fakehub serves the GitHub REST emulator.
//
//	fakehub [-listen 127.0.0.1:8789] [-seed demo] [-admin-token T] [-tokens FILE] [-faults FILE]
//	        [-core-limit 0] [-search-limit 0]
//	fakehub [flags] healthcheck    exit 0 when the fakehub on -listen answers GET /healthz
//
// Each flag can also be set from the environment: FAKEHUB_LISTEN, FAKEHUB_SEED, FAKEHUB_ADMIN_TOKEN,
// FAKEHUB_TOKENS, FAKEHUB_FAULTS, FAKEHUB_CORE_LIMIT, FAKEHUB_SEARCH_LIMIT; a flag wins over its
// variable. Package ghops.dev/services/fakehub/internal/config documents the defaults. -h lists
// them and exits 0; -version prints the version, commit, build date and Go
// version (package buildinfo). A bad value exits 2 with a message naming it. Logs are JSON on stderr.
// SIGTERM or SIGINT stops accepting, drains in-flight requests (at most 10s) and exits 0.
package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"ghops.dev/infra/startup"
	"ghops.dev/probe"
	"ghops.dev/probe/buildinfo"
	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/internal/config"
	"ghops.dev/services/fakehub/internal/liveness"
)

// shutdownTimeout bounds the drain of in-flight requests at shutdown.
const shutdownTimeout = 10 * time.Second

func main() {
	ctx, stop := startup.Signals()
	code := run(ctx, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the exit and the signals: it serves until ctx is done
// and returns the exit code (0 also for -h, -version and a healthy probe; 2
// for a bad configuration, 1 for a failure). Usage asked for with -h goes to
// stdout.
func run(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	c, code, ok := startup.Load("fakehub", func(usage io.Writer) (config.Config, error) {
		return config.Load(args, lookupEnv, usage)
	}, func(c config.Config) bool { return c.ShowVersion }, stdout, stderr)
	if !ok {
		return code
	}
	if c.Command == config.CommandHealthcheck {
		return startup.Healthcheck(ctx, "fakehub", stderr, func(ctx context.Context) error {
			return probe.HTTP(ctx, c.Listen, liveness.Path)
		})
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	hub, err := fakehub.New(c.Hub(log))
	if err != nil {
		log.Error("fakehub", "err", err)
		return 1
	}
	if err := serve(ctx, c, hub, log); err != nil {
		log.Error("fakehub", "err", err)
		return 1
	}
	return 0
}

// serve listens on c.Listen and serves h until ctx is done, then shuts down gracefully.
func serve(ctx context.Context, c config.Config, h http.Handler, log *slog.Logger) error {
	lis, err := net.Listen("tcp", c.Listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: liveness.Handler(h), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lis) }()
	log.Info("fakehub listening", "addr", lis.Addr().String(), "seed", c.Seed, "admin", c.AdminToken != "", "version", buildinfo.Version())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("fakehub shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("fakehub stopped")
	return nil
}
