// Command ghops-load is a load generator for a ghops stack running on this machine: it calls tools
// through the gateway's POST /rpc (or /mcp, after initialize) at a fixed concurrency until a duration
// or a call count is reached, then prints throughput, latency percentiles, errors by JSON-RPC code
// and, given fakehub's admin URL and token, the GitHub requests made per tool call.
//
//	ghops-load [-target http://127.0.0.1:8788] [-endpoint rpc|mcp] [-tools read_file:3,search:1]
//	           [-c 8] [-duration 10s] [-requests 1000] [-warmup 0] [-timeout 30s] [-mcp-version V]
//	           [-args tool='{"repo":...}'] [-fakehub-admin http://127.0.0.1:8789] [-json]
//
// Flags fall back to the environment: GHOPS_LOAD_TARGET, GHOPS_LOAD_ENDPOINT, GHOPS_LOAD_TOOLS,
// GHOPS_LOAD_CONCURRENCY, GHOPS_LOAD_DURATION, GHOPS_LOAD_REQUESTS, GHOPS_LOAD_FAKEHUB_ADMIN; the
// admin token is read from FAKEHUB_ADMIN_TOKEN only (never a flag, so it stays out of ps). Only
// loopback targets are accepted. SIGINT or SIGTERM stops the run early and prints what was measured.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"ghops.dev/gateway/internal/loadgen"
)

// config is the binary's configuration: flags over environment over defaults.
type config struct {
	Target      string        // gateway base URL; default http://127.0.0.1:8788
	Endpoint    string        // rpc (default) or mcp
	Tools       string        // mix, tool[:weight],...; default read_file
	Concurrency int           // default 8
	Duration    time.Duration // default 10s
	Requests    int           // default 1000
	Warmup      int           // unmeasured calls first; default 0
	Timeout     time.Duration // per call; default 30s
	MCPVersion  string        // default loadgen.DefaultMCPVersion
	Admin       string        // fakehub base URL for /_fakehub/stats; default none
	JSON        bool          // print the report as JSON
	Args        map[string]json.RawMessage
}

func env(key, def string) string {
	if v, ok := os.LookupEnv(key); ok {
		return v
	}
	return def
}

func envInt(key string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(key)); err == nil {
		return n
	}
	return def
}

func envDuration(key string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(key)); err == nil {
		return d
	}
	return def
}

func main() {
	c := config{Args: map[string]json.RawMessage{}}
	flag.StringVar(&c.Target, "target", env("GHOPS_LOAD_TARGET", "http://127.0.0.1:8788"), "gateway base URL, loopback only (GHOPS_LOAD_TARGET)")
	flag.StringVar(&c.Endpoint, "endpoint", env("GHOPS_LOAD_ENDPOINT", "rpc"), "rpc or mcp (GHOPS_LOAD_ENDPOINT)")
	flag.StringVar(&c.Tools, "tools", env("GHOPS_LOAD_TOOLS", "read_file"), "tool mix, tool[:weight],... (GHOPS_LOAD_TOOLS)")
	flag.IntVar(&c.Concurrency, "c", envInt("GHOPS_LOAD_CONCURRENCY", 8), "concurrent callers (GHOPS_LOAD_CONCURRENCY)")
	flag.DurationVar(&c.Duration, "duration", envDuration("GHOPS_LOAD_DURATION", 10*time.Second), "stop after this long (GHOPS_LOAD_DURATION)")
	flag.IntVar(&c.Requests, "requests", envInt("GHOPS_LOAD_REQUESTS", 1000), "stop after this many calls (GHOPS_LOAD_REQUESTS)")
	flag.IntVar(&c.Warmup, "warmup", 0, "unmeasured sequential calls made first")
	flag.DurationVar(&c.Timeout, "timeout", 30*time.Second, "deadline of one call")
	flag.StringVar(&c.MCPVersion, "mcp-version", loadgen.DefaultMCPVersion, "MCP protocol version offered in initialize")
	flag.StringVar(&c.Admin, "fakehub-admin", env("GHOPS_LOAD_FAKEHUB_ADMIN", ""), "fakehub base URL for GitHub request counts; token from FAKEHUB_ADMIN_TOKEN (GHOPS_LOAD_FAKEHUB_ADMIN)")
	flag.BoolVar(&c.JSON, "json", false, "print the report as JSON")
	flag.Func("args", `arguments of a tool, tool='{"repo":"o/r",...}' (repeatable; default: the demo data's)`, func(s string) error {
		name, js, ok := strings.Cut(s, "=")
		if !ok || !json.Valid([]byte(js)) {
			return fmt.Errorf("want tool=JSON")
		}
		c.Args[name] = json.RawMessage(js)
		return nil
	})
	flag.Parse()
	os.Exit(run(c))
}

func run(c config) int {
	mix, err := loadgen.ParseMix(c.Tools, c.Args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ghops-load:", err)
		return 2
	}
	cfg := loadgen.Config{
		Target: c.Target, Endpoint: c.Endpoint, Mix: mix, Concurrency: c.Concurrency, Duration: c.Duration,
		Requests: c.Requests, Warmup: c.Warmup, Timeout: c.Timeout, MCPVersion: c.MCPVersion,
		FakehubAdminURL: c.Admin, FakehubAdminToken: os.Getenv("FAKEHUB_ADMIN_TOKEN"),
	}
	if c.Admin != "" && cfg.FakehubAdminToken == "" {
		fmt.Fprintln(os.Stderr, "ghops-load: -fakehub-admin needs FAKEHUB_ADMIN_TOKEN in the environment")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rep, err := loadgen.Run(ctx, cfg)
	if rep != nil {
		if c.JSON {
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(rep)
		} else {
			_ = rep.WriteText(os.Stdout)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ghops-load:", err)
		return 1
	}
	return 0
}
