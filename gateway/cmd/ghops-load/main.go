// Command ghops-load is a load generator for a ghops stack running on this machine: it calls tools
// through the gateway's POST /rpc (or /mcp, after initialize) at a fixed concurrency until a duration
// or a call count is reached, then prints throughput, latency percentiles, errors by JSON-RPC code
// and, given fakehub's admin URL and token, the GitHub requests made per tool call. With
// -endpoint stdio it starts the MCP server given by -command and calls it over its stdin and stdout,
// and also reports that server's CPU time.
//
//	ghops-load [-target http://127.0.0.1:8788] [-endpoint rpc|mcp|stdio] [-command 'server args']
//	           [-tools read_file:3,search:1]
//	           [-c 8] [-duration 10s] [-requests 1000] [-warmup 0] [-timeout 30s] [-mcp-version V]
//	           [-args tool='{"repo":...}'] [-fakehub-admin http://127.0.0.1:8789] [-json]
//
// Flags fall back to the environment: GHOPS_LOAD_TARGET, GHOPS_LOAD_ENDPOINT, GHOPS_LOAD_TOOLS,
// GHOPS_LOAD_CONCURRENCY, GHOPS_LOAD_DURATION, GHOPS_LOAD_REQUESTS, GHOPS_LOAD_WARMUP,
// GHOPS_LOAD_TIMEOUT, GHOPS_LOAD_MCP_VERSION, GHOPS_LOAD_JSON, GHOPS_LOAD_ARGS,
// GHOPS_LOAD_FAKEHUB_ADMIN, GHOPS_LOAD_COMMAND; the admin token is read from FAKEHUB_ADMIN_TOKEN
// only (never a flag, so it stays out of ps), and so is GHOPS_LOAD_AUTHORIZATION, the Authorization
// header sent to the target (e.g. "Bearer <token>", to drive another MCP server such as
// github-mcp-server's http mode with any tool name and -args). A stdio server inherits the
// environment, so its token travels there too, never in -command. -h prints the flags and exits 0; -version prints the version, commit,
// build date and Go version (package ghops.dev/probe/buildinfo). Only
// loopback targets are accepted. A bad flag or variable exits 2 with a message naming it;
// loadgen.ParseFlags (package ghops.dev/gateway/internal/loadgen) documents the defaults. SIGINT or
// SIGTERM stops the run early and prints what was measured.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"ghops.dev/infra/startup"

	"ghops.dev/gateway/internal/loadgen"
)

func main() {
	ctx, stop := startup.Signals()
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the exit and the signals: it makes the run until it ends or ctx is done,
// prints the report and returns the exit code (2 for a bad command line, 1 for a failed run or
// one in which every call failed).
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	o, code, ok := startup.Load("ghops-load", func(usage io.Writer) (loadgen.Options, error) {
		return loadgen.ParseFlags(args, getenv, usage)
	}, func(c loadgen.Options) bool { return c.ShowVersion }, stdout, stderr)
	if !ok {
		return code
	}
	rep, err := loadgen.Run(ctx, o.Run)
	if rep != nil {
		if o.JSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(rep)
		} else {
			_ = rep.WriteText(stdout)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "ghops-load:", err)
		return startup.ExitFailure
	}
	// A run in which no call succeeded measured nothing but the failure
	// (a wrong target, a stopped stack, a bad token): scripts that chain
	// runs must see it, not a table of zeros.
	if rep != nil && rep.Calls > 0 && rep.OK == 0 {
		fmt.Fprintf(stderr, "ghops-load: all %d calls failed (see errors above)\n", rep.Calls)
		return startup.ExitFailure
	}
	return startup.ExitOK
}
