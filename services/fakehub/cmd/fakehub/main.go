// Command fakehub serves the GitHub REST emulator.
//
//	fakehub [--listen 127.0.0.1:8789] [--seed demo] [--admin-token T] [--tokens FILE] [--faults FILE]
//
// Each flag can also be set from the environment: FAKEHUB_LISTEN, FAKEHUB_SEED, FAKEHUB_ADMIN_TOKEN,
// FAKEHUB_TOKENS, FAKEHUB_FAULTS, FAKEHUB_CORE_LIMIT, FAKEHUB_SEARCH_LIMIT.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"ghops.dev/services/fakehub"
)

// config is the binary's configuration, from flags with environment defaults.
type config struct {
	Listen      string // default 127.0.0.1:8789
	Seed        string // "" or "demo"; default demo
	AdminToken  string // empty disables /_fakehub/
	TokensFile  string // JSON [{"Value","Login","Repos":{"owner/repo":"write"}}]
	FaultsFile  string // JSON list as accepted by PUT /_fakehub/faults
	CoreLimit   int    // 0 = 5000/hour
	SearchLimit int    // 0 = 30/minute
}

func env(key, def string) string {
	if v, ok := os.LookupEnv(key); ok {
		return v
	}
	return def
}

func envInt(key string) int {
	n, _ := strconv.Atoi(os.Getenv(key))
	return n
}

func main() {
	var c config
	flag.StringVar(&c.Listen, "listen", env("FAKEHUB_LISTEN", "127.0.0.1:8789"), "address to listen on")
	flag.StringVar(&c.Seed, "seed", env("FAKEHUB_SEED", "demo"), `dataset to seed: "demo" or "" for none`)
	flag.StringVar(&c.AdminToken, "admin-token", env("FAKEHUB_ADMIN_TOKEN", ""), "bearer token for /_fakehub/ (empty disables it)")
	flag.StringVar(&c.TokensFile, "tokens", env("FAKEHUB_TOKENS", ""), "JSON file of extra tokens")
	flag.StringVar(&c.FaultsFile, "faults", env("FAKEHUB_FAULTS", ""), "JSON file of faults to inject")
	flag.IntVar(&c.CoreLimit, "core-limit", envInt("FAKEHUB_CORE_LIMIT"), "core requests per hour per token (0 = 5000)")
	flag.IntVar(&c.SearchLimit, "search-limit", envInt("FAKEHUB_SEARCH_LIMIT"), "search requests per minute per token (0 = 30)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(c, log); err != nil {
		log.Error("fakehub", "err", err)
		os.Exit(1)
	}
}

func run(c config, log *slog.Logger) error {
	cfg := fakehub.Config{Seed: c.Seed, AdminToken: c.AdminToken, CoreLimit: c.CoreLimit, SearchLimit: c.SearchLimit, Logger: log}
	if c.TokensFile != "" {
		data, err := os.ReadFile(c.TokensFile)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, &cfg.Tokens); err != nil {
			return fmt.Errorf("tokens file: %w", err)
		}
	}
	if c.FaultsFile != "" {
		data, err := os.ReadFile(c.FaultsFile)
		if err != nil {
			return err
		}
		if cfg.Faults, err = fakehub.ParseFaults(data); err != nil {
			return fmt.Errorf("faults file: %w", err)
		}
	}
	hub, err := fakehub.New(cfg)
	if err != nil {
		return err
	}
	srv := &http.Server{Addr: c.Listen, Handler: hub, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	log.Info("fakehub listening", "addr", c.Listen, "seed", c.Seed, "admin", c.AdminToken != "")
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("fakehub shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
