package startup_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"testing"

	"ghops.dev/infra/startup"
)

func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	tests := []struct {
		name string
		gogc string
		want int
	}{
		{name: "GOGC unset: the default", gogc: "", want: startup.DefaultGOGC},
		{name: "GOGC set: left to the runtime", gogc: "100", want: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetGCPercent(100) // as the runtime sets it from GOGC=100
			startup.TuneGC(func(k string) string {
				if k == "GOGC" {
					return tt.gogc
				}
				return ""
			})
			if got := debug.SetGCPercent(100); got != tt.want {
				t.Errorf("GC percent = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		version    bool
		wantCode   int
		wantOK     bool
		wantStdout string
		wantStderr string
	}{
		{name: "good command line", wantCode: startup.ExitOK, wantOK: true},
		{name: "-version", version: true, wantCode: startup.ExitOK, wantStdout: "bin dev (commit "},
		{name: "-h", err: flag.ErrHelp, wantCode: startup.ExitOK, wantStdout: "usage: bin"},
		{name: "bad flag", err: fmt.Errorf("-max-body: %w", errors.New("must be positive")), wantCode: startup.ExitUsage,
			wantStderr: "usage: bin\nbin: -max-body: must be positive\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			cfg, code, ok := startup.Load("bin", func(usage io.Writer) (int, error) {
				fmt.Fprint(usage, "usage: bin\n")
				return 7, tc.err
			}, func(int) bool { return tc.version }, &stdout, &stderr)
			if code != tc.wantCode || ok != tc.wantOK {
				t.Errorf("code %d ok %v, want %d %v", code, ok, tc.wantCode, tc.wantOK)
			}
			if ok && cfg != 7 {
				t.Errorf("cfg = %d, want the loader's 7", cfg)
			}
			if !strings.Contains(stdout.String(), tc.wantStdout) || (tc.wantStdout == "" && stdout.Len() > 0) {
				t.Errorf("stdout %q, want %q", stdout.String(), tc.wantStdout)
			}
			if stderr.String() != tc.wantStderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.wantStderr)
			}
		})
	}
}

func TestHealthcheck(t *testing.T) {
	tests := []struct {
		name       string
		check      func(context.Context) error
		wantCode   int
		wantStderr string
	}{
		{name: "healthy", check: func(context.Context) error { return nil }, wantCode: startup.ExitOK},
		{name: "unhealthy", check: func(context.Context) error { return errors.New("connection refused") },
			wantCode: startup.ExitFailure, wantStderr: "bin: healthcheck: connection refused\n"},
		{name: "bounded", check: func(ctx context.Context) error {
			if _, ok := ctx.Deadline(); !ok {
				return errors.New("no deadline")
			}
			return nil
		}, wantCode: startup.ExitOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			if code := startup.Healthcheck(context.Background(), "bin", &stderr, tc.check); code != tc.wantCode {
				t.Errorf("code %d, want %d (stderr %q)", code, tc.wantCode, stderr.String())
			}
			if stderr.String() != tc.wantStderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.wantStderr)
			}
		})
	}
}
