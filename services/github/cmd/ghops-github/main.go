// Command ghops-github serves the GitHub-operations gRPC service.
//
//	ghops-github [flags]              serve
//	ghops-github [flags] healthcheck  probe the running service (exit 0 when SERVING)
//
// Flags and their environment variables are listed by -h and documented in
// package ghops.dev/services/github/internal/config; the token comes from
// GITHUB_TOKEN only (or a GitHub App's key file). Callers authenticate with
// mTLS or a shared secret (package callerauth); the healthcheck needs
// neither and speaks TLS when -tls-cert is set. -version prints the version, commit, build date and
// Go version (package buildinfo). A bad flag exits 2. SIGTERM or SIGINT
// drains in-flight calls (at most -call-timeout plus 5s) and exits 0.
//
// The garbage collector's target is GOGC=400 unless GOGC is set (see
// ghops.dev/infra/startup's DefaultGOGC); GOMEMLIMIT, when set, still caps
// the heap.
package main

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"os"
	"time"

	"ghops.dev/infra/startup"
	"ghops.dev/probe/buildinfo"
	"ghops.dev/redact"
	"ghops.dev/telemetry"

	"ghops.dev/services/github/internal/callerauth"
	"ghops.dev/services/github/internal/config"
	"ghops.dev/services/github/internal/probe"
	"ghops.dev/services/github/internal/server"
)

func main() {
	startup.TuneGC(os.Getenv)
	ctx, stop := startup.Signals()
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the exit and the signals; it returns the exit code:
// 0 done (or -h, -version, a healthy probe), 1 failure, 2 bad command line.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, code, ok := startup.Load("ghops-github", func(usage io.Writer) (config.Config, error) {
		return config.Load(args, getenv, usage)
	}, func(c config.Config) bool { return c.ShowVersion }, stdout, stderr)
	if !ok {
		return code
	}
	cfg.Version = buildinfo.Version()
	if cfg.Command == config.CommandHealthcheck {
		return startup.Healthcheck(ctx, "ghops-github", stderr, func(ctx context.Context) error {
			var tc *tls.Config
			if cfg.TLSCert != "" {
				var err error
				if tc, err = callerauth.ProbeTLS(cfg.TLSCert); err != nil {
					return err
				}
			}
			return probe.GRPCTLS(ctx, cfg.Addr, tc)
		})
	}
	// Every record is redacted, whatever its author passed (package redact).
	log := slog.New(redact.Handler(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel})))
	log.Info("ghops-github starting", "version", cfg.Version)
	tel, err := telemetry.Setup(ctx, telemetry.Options{Service: "ghops-github", Version: cfg.Version, Logger: log})
	if err != nil {
		log.Error("ghops-github: tracing", "error", err.Error())
		return 2
	}
	// Flushed once the calls have drained, SIGTERM included.
	defer flushTraces(tel, log)
	if err := server.Run(ctx, cfg, log, cfg.CallTimeout+5*time.Second, server.WithTelemetry(tel)); err != nil {
		log.Error("ghops-github failed", "error", err.Error())
		return 1
	}
	log.Info("ghops-github stopped")
	return 0
}

// flushTimeout bounds the export of the last spans at exit.
const flushTimeout = 5 * time.Second

// flushTraces exports the spans still buffered (no-op when tracing is off).
func flushTraces(tel *telemetry.Provider, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if err := tel.Shutdown(ctx); err != nil {
		log.Warn("ghops-github: flushing traces", "error", err.Error())
	}
}
