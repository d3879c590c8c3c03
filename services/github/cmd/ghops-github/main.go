// Command ghops-github serves the GitHub-operations gRPC service.
//
// Flags (env fallback): -addr (GHOPS_GITHUB_ADDR, 127.0.0.1:50051),
// -github-url (GITHUB_API_URL, https://api.github.com/), -allow-caller-token
// (GHOPS_ALLOW_CALLER_TOKEN, false), -call-timeout (30s), -metrics-addr
// (127.0.0.1:9464), -log-level (info). The token comes from GITHUB_TOKEN
// only. SIGTERM or SIGINT drains in-flight calls before exiting.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"ghops.dev/redact"

	"ghops.dev/services/github/internal/config"
	"ghops.dev/services/github/internal/server"
)

func main() {
	cfg, err := config.Load(os.Args[1:], os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ghops-github:", err)
		os.Exit(2)
	}
	// Every record is redacted, whatever its author passed (package redact).
	log := slog.New(redact.Handler(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel})))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := server.Run(ctx, cfg, log, cfg.CallTimeout+5*time.Second); err != nil {
		log.Error("ghops-github failed", "error", err.Error())
		os.Exit(1)
	}
}
