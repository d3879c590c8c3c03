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
// defaultGOGC); GOMEMLIMIT, when set, still caps the heap.
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"ghops.dev/probe/buildinfo"
	"ghops.dev/redact"
	"ghops.dev/telemetry"

	"ghops.dev/services/github/internal/callerauth"
	"ghops.dev/services/github/internal/config"
	"ghops.dev/services/github/internal/probe"
	"ghops.dev/services/github/internal/server"
)

// probeTimeout bounds one healthcheck.
const probeTimeout = 3 * time.Second

// defaultGOGC is the collector's target when the GOGC variable sets none.
// The service keeps little live heap besides its caches and allocates a few
// kilobytes per call, so at Go's default of 100 the collector ran many
// times a second and took a tenth of the CPU per call (docs/benchmarks.md).
// 400 lets the heap grow to five times its live size between collections;
// a container's memory limit passed as GOMEMLIMIT (the Kubernetes manifests
// do) still bounds it.
const defaultGOGC = 400

// tuneGC applies defaultGOGC unless getenv("GOGC") chose a target.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGOGC)
	}
}

func main() {
	tuneGC(os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the exit and the signals; it returns the exit code:
// 0 done (or -h, -version, a healthy probe), 1 failure, 2 bad command line.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	var usage bytes.Buffer
	cfg, err := config.Load(args, getenv, &usage)
	if errors.Is(err, flag.ErrHelp) {
		_, _ = usage.WriteTo(stdout)
		return 0
	}
	if err != nil {
		_, _ = usage.WriteTo(stderr)
		fmt.Fprintln(stderr, "ghops-github:", err)
		return 2
	}
	cfg.Version = buildinfo.Version()
	if cfg.ShowVersion {
		fmt.Fprintln(stdout, buildinfo.Line("ghops-github"))
		return 0
	}
	if cfg.Command == config.CommandHealthcheck {
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		var tc *tls.Config
		if cfg.TLSCert != "" {
			if tc, err = callerauth.ProbeTLS(cfg.TLSCert); err != nil {
				fmt.Fprintln(stderr, "ghops-github: healthcheck:", err)
				return 1
			}
		}
		if err := probe.GRPCTLS(pctx, cfg.Addr, tc); err != nil {
			fmt.Fprintln(stderr, "ghops-github: healthcheck:", err)
			return 1
		}
		return 0
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
