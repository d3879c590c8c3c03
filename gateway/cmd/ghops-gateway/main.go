// Command ghops-gateway is the ghops edge: MCP (POST /mcp, every protocol
// version) and plain JSON-RPC 2.0 (POST /rpc) in front of the GitHub gRPC
// service, plus /healthz, /readyz and /metrics. "ghops-gateway stdio" speaks
// MCP over stdin/stdout instead, logging to stderr.
//
// Flags (each with an environment fallback; see package config):
//
//	-addr 127.0.0.1:8788  -service 127.0.0.1:50051  -call-timeout 30s
//	-max-body 1048576  -max-batch 50  -batch-concurrency 8
//	-http-status-mapping=false  -mcp-tool-errors jsonrpc|result
//	-allowed-origins ""  -forward-token=false  -session-secret (random)
//	-log-level info  -shutdown-timeout 15s
//
// SIGTERM or SIGINT stops accepting, drains in-flight requests and exits 0.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"ghops.dev/gateway/internal/app"
	"ghops.dev/gateway/internal/config"
)

func main() { os.Exit(run(os.Args[1:])) }

// run is main without the exit, so that deferred cleanups run.
func run(args []string) int {
	stdio := len(args) > 0 && args[0] == "stdio"
	if stdio {
		args = args[1:]
	}
	cfg, err := config.Load(args, os.Getenv, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ghops-gateway:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	a, err := app.New(cfg, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ghops-gateway:", err)
		return 1
	}
	defer a.Close()

	if stdio {
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
