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
// ghops.dev/infra/startup's DefaultGOGC); GOMEMLIMIT, when set, still caps
// the heap. -procs sets GOMAXPROCS, 1 by default in front of a -service
// (config.Config.Procs says why); the starting log line says how many.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"time"

	"ghops.dev/gateway/internal/app"
	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/embedded"
	"ghops.dev/infra/startup"
	"ghops.dev/probe"
	"ghops.dev/probe/buildinfo"
	"ghops.dev/telemetry"
)

func main() {
	startup.TuneGC(os.Getenv)
	os.Exit(run(os.Args[1:]))
}

// run is main without the exit, so that deferred cleanups run.
func run(args []string) int {
	cfg, code, ok := startup.Load("ghops-gateway", func(usage io.Writer) (config.Config, error) {
		return config.Load(args, os.Getenv, usage)
	}, func(c config.Config) bool { return c.ShowVersion }, os.Stdout, os.Stderr)
	if !ok {
		return code
	}
	cfg.Version = buildinfo.Version()
	if cfg.Procs > 0 {
		runtime.GOMAXPROCS(cfg.Procs)
	}
	ctx, stop := startup.Signals()
	defer stop()
	if cfg.Command == config.CommandHealthcheck {
		return startup.Healthcheck(ctx, "ghops-gateway", os.Stderr, func(ctx context.Context) error {
			return probe.HTTP(ctx, cfg.Addr, "/readyz")
		})
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
	a.Logger.Info("ghops-gateway starting", "version", cfg.Version, "embedded", cfg.Embedded, "procs", runtime.GOMAXPROCS(0), "tracing", tel.Enabled())

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
