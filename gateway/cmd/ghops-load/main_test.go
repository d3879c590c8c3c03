package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// refusing returns a loopback URL nothing listens on: every call there
// fails at the transport.
func refusing(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// answering returns the URL of a loopback /rpc that answers the first
// failures calls with a JSON-RPC error and every later one with a result.
func answering(t *testing.T, failures int64) string {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if n.Add(1) <= failures {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"down"}}`, req.ID)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"{}"}]}}`, req.ID)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

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
		{"every call failed", []string{"-target", refusing(t), "-requests", "3", "-c", "1", "-timeout", "2s"}, 1, []string{"calls"}, "all 3 calls failed"},
		{"some calls succeeded", []string{"-target", answering(t, 2), "-requests", "4", "-c", "1"}, 0, []string{"calls"}, ""},
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
