// Command ghops-gateway is the ghops edge: MCP (POST /mcp, every protocol
// version) and plain JSON-RPC 2.0 (POST /rpc) in front of the GitHub gRPC
// service, plus /healthz, /readyz and /metrics.
//
//	ghops-gateway [flags]              serve HTTP on -addr
//	ghops-gateway [flags] stdio        speak MCP over stdin/stdout, logging to stderr
//	ghops-gateway [flags] healthcheck  exit 0 when the gateway on -addr is ready
//
// The command may also follow the flags. -embedded runs the GitHub service
// inside the gateway, reading GITHUB_TOKEN and GITHUB_API_URL itself, so
// that "ghops-gateway -embedded stdio" is all a local MCP host needs.
// Flags and their environment variables are listed by -h (see package
// config); -version prints the version, commit, build date and Go version
// (package buildinfo); the version is also serverInfo.version.
//
// "stdio" without -embedded first checks that the service answers (at most
// the call timeout, 5s) and, if it does not, exits 1 with a log line saying
// how to fix it.
//
// Exit codes: 0 done (also -h, -version, a ready healthcheck), 1 failure,
// 2 bad command line. SIGTERM or SIGINT stops accepting, drains in-flight
// requests and exits 0.
//
// The garbage collector's target is GOGC=400 unless GOGC is set (see
// defaultGOGC); GOMEMLIMIT, when set, still caps the heap.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"ghops.dev/gateway/internal/app"
	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/embedded"
	"ghops.dev/probe"
	"ghops.dev/probe/buildinfo"
	"ghops.dev/telemetry"
)

// probeTimeout bounds one healthcheck.
const probeTimeout = 3 * time.Second

// defaultGOGC is the collector's target when the GOGC variable sets none.
// The gateway keeps little live heap and allocates a few tens of kilobytes
// per call, so at Go's default of 100 the collector ran many times a second
// and took a tenth of the CPU per call (docs/benchmarks.md). 400 lets the
// heap grow to five times its live size between collections; a container's
// memory limit passed as GOMEMLIMIT (the Kubernetes manifests do) still
// bounds it.
const defaultGOGC = 400

// tuneGC applies defaultGOGC unless getenv("GOGC") chose a target.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGOGC)
	}
}

func main() {
	tuneGC(os.Getenv)
	os.Exit(run(os.Args[1:]))
}

// run is main without the exit, so that deferred cleanups run.
func run(args []string) int {
	var usage bytes.Buffer
	cfg, err := config.Load(args, os.Getenv, &usage)
	if errors.Is(err, flag.ErrHelp) {
		_, _ = usage.WriteTo(os.Stdout)
		return 0
	}
	if err != nil {
		_, _ = usage.WriteTo(os.Stderr)
		fmt.Fprintln(os.Stderr, "ghops-gateway:", err)
		return 2
	}
	cfg.Version = buildinfo.Version()
	if cfg.ShowVersion {
		fmt.Println(buildinfo.Line("ghops-gateway"))
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if cfg.Command == config.CommandHealthcheck {
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		if err := probe.HTTP(pctx, cfg.Addr, "/readyz"); err != nil {
			fmt.Fprintln(os.Stderr, "ghops-gateway: healthcheck:", err)
			return 1
		}
		return 0
	}

	tel, err := telemetry.Setup(ctx, telemetry.Options{Service: "ghops-gateway", Version: cfg.Version,
		Logger: app.NewLogger(os.Stderr, cfg.LogLevel)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "ghops-gateway: tracing:", err)
		return 2
	}
	// Deferred first, so it runs last: after the server has drained and
	// the service (embedded one included) has stopped, SIGTERM included.
	defer flushTraces(tel)
	opts := []app.Option{app.WithTelemetry(tel)}
	if cfg.Embedded {
		opt, err := embedded.Start(cfg, os.Getenv, os.Stderr, tel)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ghops-gateway:", err)
			return 2
		}
		opts = append(opts, opt)
		cfg.ServiceAddr = "in-process" // only logged: nothing is dialed
	}
	a, err := app.New(cfg, os.Stderr, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ghops-gateway:", err)
		return 1
	}
	defer a.Close()
	a.Logger.Info("ghops-gateway starting", "version", cfg.Version, "embedded", cfg.Embedded, "tracing", tel.Enabled())

	if cfg.Command == config.CommandStdio {
		// A local MCP host shows stderr: fail fast with the fix rather than
		// answer every call "Service unavailable".
		if !cfg.Embedded {
			if err := a.CheckService(ctx); err != nil {
				a.Logger.Error("cannot serve stdio: "+err.Error(), "service", cfg.ServiceAddr)
				return 1
			}
		}
		if err := a.ServeStdio(ctx, os.Stdin, os.Stdout); err != nil {
			a.Logger.Error("stdio", "error", err)
			return 1
		}
		return 0
	}
	lis, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		a.Logger.Error("listen", "addr", cfg.Addr, "error", err)
		return 1
	}
	if err := a.Serve(ctx, lis); err != nil {
		a.Logger.Error("serve", "error", err)
		return 1
	}
	return 0
}

// flushTimeout bounds the export of the last spans at exit.
const flushTimeout = 5 * time.Second

// flushTraces exports the spans still buffered (nothing when tracing is
// off).
func flushTraces(tel *telemetry.Provider) {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if err := tel.Shutdown(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "ghops-gateway: flushing traces:", err)
	}
}
