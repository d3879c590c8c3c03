package loadgen

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// stdioServerEnv makes the test binary, started as a stdio server by the tests below, play an MCP
// server instead of running the tests; its value is the server's behaviour.
const stdioServerEnv = "GHOPS_LOADGEN_TEST_STDIO_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(stdioServerEnv); mode != "" {
		serveStdio(mode, os.Stdin, os.Stdout)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveStdio is a line-delimited MCP server. Tools answer like fakeGateway's: "ok" succeeds,
// "tool-error" is an isError result with a contract code, "limited" a JSON-RPC error -32004. Each
// call is answered from its own goroutine, so answers come out of order, and each answer follows a
// notification, which the client must skip. Modes: "serve"; "exit-after-initialized" exits once
// initialized (the handshake's notification); "refuse" answers initialize with a JSON-RPC error.
func serveStdio(mode string, in io.Reader, out io.Writer) {
	var mu sync.Mutex
	write := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(out, format+"\n", a...)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil {
			return
		}
		switch req.Method {
		case "initialize":
			if mode == "refuse" {
				write(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unsupported protocol version"}}`, req.ID)
				continue
			}
			write(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"fake","version":"1"}}}`, req.ID)
		case "notifications/initialized":
			if mode == "exit-after-initialized" {
				return
			}
		case "tools/call":
			wg.Add(1)
			go func(id json.RawMessage, tool string) {
				defer wg.Done()
				write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"calling %s"}}`, tool)
				switch tool {
				case "ok":
					write(`{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}`, id)
				case "tool-error":
					write(`{"jsonrpc":"2.0","id":%s,"result":{"isError":true,"_meta":{"dev.ghops/error":{"code":-32002}},"content":[]}}`, id)
				default:
					write(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32004,"message":"Rate limit exceeded"}}`, id)
				}
			}(req.ID, req.Params.Name)
		}
	}
}

// stdioCommand starts this test binary as a stdio server in the given mode.
func stdioCommand(t *testing.T, mode string) []string {
	t.Helper()
	t.Setenv(stdioServerEnv, mode)
	return []string{os.Args[0], "-test.run=^$"}
}

func TestRunStdio(t *testing.T) {
	tests := []struct {
		name, mix  string
		requests   int
		wantOK     int
		wantErrors map[int]int
	}{
		{"all ok", "ok", 60, 60, map[int]int{}},
		{"tool errors and JSON-RPC errors", "ok,tool-error,limited", 30, 10, map[int]int{-32002: 10, -32004: 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Run(context.Background(), Config{Endpoint: EndpointStdio, Command: stdioCommand(t, "serve"), Target: DefaultTarget,
				Mix: mix(t, tc.mix), Concurrency: 4, Duration: time.Hour, Requests: tc.requests, Warmup: 3})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Calls != tc.requests || rep.OK != tc.wantOK || rep.Transport != 0 || rep.Malformed != 0 || fmt.Sprint(rep.Errors) != fmt.Sprint(tc.wantErrors) {
				t.Fatalf("calls %d ok %d transport %d malformed %d errors %v; want %d %d 0 0 %v",
					rep.Calls, rep.OK, rep.Transport, rep.Malformed, rep.Errors, tc.requests, tc.wantOK, tc.wantErrors)
			}
			if rep.ServerCPU < 0 || rep.MCPVersion != DefaultMCPVersion || !strings.Contains(rep.Target, "-test.run") {
				t.Fatalf("server CPU %v, MCP version %q, target %q", rep.ServerCPU, rep.MCPVersion, rep.Target)
			}
		})
	}
}

// TestRunStdioServerFailures: a server that exits or refuses gives a clear answer, and no call
// waits for an answer that cannot come.
func TestRunStdioServerFailures(t *testing.T) {
	t.Run("exits after the handshake: every call fails in transport", func(t *testing.T) {
		rep, err := Run(context.Background(), Config{Endpoint: EndpointStdio, Command: stdioCommand(t, "exit-after-initialized"), Target: DefaultTarget,
			Mix: mix(t, "ok"), Concurrency: 2, Duration: time.Hour, Requests: 10})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Calls != 10 || rep.OK != 0 || rep.Transport != 10 {
			t.Fatalf("calls %d ok %d transport %d, want 10 0 10", rep.Calls, rep.OK, rep.Transport)
		}
	})
	t.Run("refuses initialize", func(t *testing.T) {
		rep, err := Run(context.Background(), Config{Endpoint: EndpointStdio, Command: stdioCommand(t, "refuse"), Target: DefaultTarget,
			Mix: mix(t, "ok"), Concurrency: 1, Duration: time.Hour, Requests: 1})
		if err == nil || rep != nil || !strings.Contains(err.Error(), "MCP initialize failed") || !strings.Contains(err.Error(), "unsupported protocol version") {
			t.Fatalf("Run = %+v, %v; want the refusal", rep, err)
		}
	})
	t.Run("no such program", func(t *testing.T) {
		rep, err := Run(context.Background(), Config{Endpoint: EndpointStdio, Command: []string{"/nonexistent/mcp-server"}, Target: DefaultTarget,
			Mix: mix(t, "ok"), Concurrency: 1, Duration: time.Hour, Requests: 1})
		if err == nil || rep != nil || !strings.Contains(err.Error(), "starting the stdio server") {
			t.Fatalf("Run = %+v, %v", rep, err)
		}
	})
	t.Run("no command", func(t *testing.T) {
		rep, err := Run(context.Background(), Config{Endpoint: EndpointStdio, Target: DefaultTarget,
			Mix: mix(t, "ok"), Concurrency: 1, Duration: time.Hour, Requests: 1})
		if err == nil || rep != nil || !strings.Contains(err.Error(), "-command") {
			t.Fatalf("Run = %+v, %v", rep, err)
		}
	})
}

func TestParseProcStatCPU(t *testing.T) {
	tests := []struct {
		name, stat string
		want       time.Duration
		ok         bool
	}{
		{"plain", "1234 (ghops-gateway) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 9 0 100 0 0", 3 * time.Second, true},
		{"name with spaces and parentheses", "77 (a) b (c)) R 1 77 77 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 5 0 0", 100 * time.Millisecond, true},
		{"truncated", "77 (x) R 1 77", 0, false},
		{"no name", "77 x R", 0, false},
		{"not numbers", "77 (x) R 1 77 77 0 -1 0 0 0 0 0 a b 0", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseProcStatCPU(tc.stat)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("parseProcStatCPU = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
