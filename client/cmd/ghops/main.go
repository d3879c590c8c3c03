// Command ghops lists and calls the ghops gateway's tools; see package
// ghops.dev/client/internal/cli for flags, environment and exit codes.
// --version prints the version stamped at build time (-ldflags
// "-X main.version=...").
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"ghops.dev/client/internal/cli"
)

// version is stamped at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	cli.Version = version
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
