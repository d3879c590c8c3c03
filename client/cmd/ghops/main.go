// Command ghops lists and calls the ghops gateway's tools; see package
// ghops.dev/client/internal/cli for flags, environment and exit codes.
// --version prints the version, commit, build date and Go version (package
// ghops.dev/probe/buildinfo).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"ghops.dev/probe/buildinfo"

	"ghops.dev/client/internal/cli"
)

func main() {
	cli.Version = buildinfo.Read().String()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
