package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
)

func TestCommands(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0"}, noEnv, io.Discard, pw)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	addr := waitListening(t, sc)
	go func() {
		for sc.Scan() {
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	_, port, _ := net.SplitHostPort(addr)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nothing := l.Addr().String()
	l.Close()

	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		want       int
		wantStdout []string
		wantStderr string
	}{
		{name: "-h lists the command and the variables", args: []string{"-h"}, want: 0, wantStdout: []string{"fakehub [flags] healthcheck", "FAKEHUB_LISTEN", "-version"}},
		{name: "-version", args: []string{"-version"}, want: 0, wantStdout: []string{"fakehub dev (commit ", ", built ", " " + runtime.Version() + " "}},
		{name: "healthcheck of a running fakehub", args: []string{"healthcheck", "-listen", addr}, want: 0},
		{name: "healthcheck through a wildcard address from the environment", args: []string{"healthcheck"}, env: map[string]string{"FAKEHUB_LISTEN": "0.0.0.0:" + port}, want: 0},
		{name: "healthcheck of nothing", args: []string{"-listen", nothing, "healthcheck"}, want: 1, wantStderr: "fakehub: healthcheck:"},
		{name: "unknown command", args: []string{"serve"}, want: 2, wantStderr: `unexpected argument "serve"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			got := run(context.Background(), tc.args, lookup, &stdout, &stderr)
			if got != tc.want {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", got, tc.want, stdout.String(), stderr.String())
			}
			for _, w := range tc.wantStdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantStderr, stderr.String())
			}
		})
	}
}
