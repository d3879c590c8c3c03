// Package startup is the beginning every ghops binary's main shares: the
// garbage collector's target, the signals that stop a server, the exit
// codes of the command line (-h, a bad flag) and the bounded healthcheck
// command of container images (they have no shell or curl). Each binary
// keeps its own config struct and wiring; what was copied from main to
// main lives here once.
package startup

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"ghops.dev/probe/buildinfo"
)

// DefaultGOGC is the collector's target when the GOGC variable sets none.
// The gateway and the service keep little live heap besides their caches
// and allocate a few kilobytes per call, so at Go's default of 100 the
// collector ran many times a second and took a tenth of the CPU per call
// (docs/benchmarks.md). 400 lets the heap grow to five times its live size
// between collections; a container's memory limit passed as GOMEMLIMIT
// (the Kubernetes manifests do) still bounds it.
const DefaultGOGC = 400

// TuneGC applies DefaultGOGC unless getenv("GOGC") chose a target.
func TuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(DefaultGOGC)
	}
}

// Signals returns a context cancelled at SIGTERM (what container runtimes
// send) or SIGINT, the start of every server's graceful drain.
func Signals() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
}

// Exit codes of every binary.
const (
	// ExitOK is a run that did its work, -h and -version included.
	ExitOK = 0
	// ExitFailure is a run that failed (a server that could not serve, an
	// unhealthy healthcheck).
	ExitFailure = 1
	// ExitUsage is a bad command line or configuration.
	ExitUsage = 2
)

// Load runs a binary's config loader, which writes its usage text to the
// writer it is given, and settles what the command line alone decides: -h
// prints the usage to stdout (ExitOK), a bad flag or value prints it and
// the error, prefixed with name, to stderr (ExitUsage), and -version
// (showVersion reports it) prints the build's version line (package
// buildinfo) to stdout (ExitOK). ok is true when the binary goes on with
// cfg.
func Load[C any](name string, load func(usage io.Writer) (C, error), showVersion func(C) bool, stdout, stderr io.Writer) (cfg C, code int, ok bool) {
	var usage bytes.Buffer
	cfg, err := load(&usage)
	switch {
	case errors.Is(err, flag.ErrHelp):
		_, _ = usage.WriteTo(stdout)
		return cfg, ExitOK, false
	case err != nil:
		_, _ = usage.WriteTo(stderr)
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return cfg, ExitUsage, false
	case showVersion(cfg):
		fmt.Fprintln(stdout, buildinfo.Line(name))
		return cfg, ExitOK, false
	}
	return cfg, ExitOK, true
}

// ProbeTimeout bounds one healthcheck: a container runtime runs it every
// few seconds and a hung probe must not pile up.
const ProbeTimeout = 3 * time.Second

// Healthcheck runs check within ProbeTimeout and returns the exit code of
// the healthcheck command: ExitOK when healthy, else ExitFailure with the
// reason on stderr, prefixed with name.
func Healthcheck(ctx context.Context, name string, stderr io.Writer, check func(context.Context) error) int {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	if err := check(ctx); err != nil {
		fmt.Fprintf(stderr, "%s: healthcheck: %v\n", name, err)
		return ExitFailure
	}
	return ExitOK
}
