package main

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

func TestCommandLine(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		want       int
		wantStdout []string
		wantStderr string
	}{
		{"-h lists the flags and their variables", []string{"-h"}, 0, []string{"-target", "GHOPS_LOAD_TARGET", "-version"}, ""},
		{"-version", []string{"-version"}, 0, []string{"ghops-load dev (commit ", " " + runtime.Version() + " "}, ""},
		{"bad flag", []string{"-nope"}, 2, nil, "-nope"},
		{"stray argument", []string{"run"}, 2, nil, `unexpected argument "run"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			got := run(context.Background(), tc.args, func(string) string { return "" }, &stdout, &stderr)
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
