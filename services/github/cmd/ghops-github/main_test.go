package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/servicetest"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// freeAddr returns a 127.0.0.1 address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestCommandLine(t *testing.T) {
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	svc := servicetest.Start(t, servicetest.Options{GitHubURL: hub.URL, Token: fakehub.DemoToken})
	_, port, _ := net.SplitHostPort(svc.Addr)
	pki := servicetest.NewPKI(t)
	tlsSvc := servicetest.Start(t, servicetest.Options{GitHubURL: hub.URL, Token: fakehub.DemoToken, CallerSecret: "0123456789abcdef-secret",
		TLSCert: pki.ServerCert, TLSKey: pki.ServerKey, TLSClientCA: pki.CA})
	_, tlsPort, _ := net.SplitHostPort(tlsSvc.Addr)
	tlsEnv := map[string]string{"GHOPS_GITHUB_ADDR": "0.0.0.0:" + tlsPort, "GHOPS_GITHUB_TLS_CERT": pki.ServerCert, "GHOPS_GITHUB_TLS_KEY": pki.ServerKey,
		"GHOPS_GITHUB_TLS_CLIENT_CA": pki.CA}
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		want       int
		wantStdout []string
		wantStderr []string
	}{
		{name: "-h lists the commands", args: []string{"-h"}, want: 0, wantStdout: []string{"ghops-github [flags] healthcheck", "-metrics-addr", "GHOPS_GITHUB_METRICS_ADDR"}},
		{name: "-version", args: []string{"-version"}, want: 0, wantStdout: []string{"ghops-github dev (commit ", ", built ", " " + runtime.Version() + " "}},
		{name: "healthcheck of a serving service", args: []string{"healthcheck", "-addr", svc.Addr}, want: 0},
		{name: "healthcheck through a wildcard listen address", args: []string{"healthcheck"}, env: map[string]string{"GHOPS_GITHUB_ADDR": "0.0.0.0:" + port}, want: 0},
		{name: "healthcheck of nothing", args: []string{"-addr", freeAddr(t), "healthcheck"}, want: 1, wantStderr: []string{"healthcheck:"}},
		{name: "healthcheck over TLS of a service requiring caller auth", args: []string{"healthcheck"}, env: tlsEnv, want: 0},
		{name: "plaintext healthcheck of a TLS service", args: []string{"healthcheck", "-addr", tlsSvc.Addr}, want: 1, wantStderr: []string{"healthcheck:"}},
		{name: "healthcheck pins the service's certificate", args: []string{"healthcheck", "-tls-cert", pki.ClientCert, "-tls-key", pki.ClientKey, "-addr", tlsSvc.Addr},
			want: 1, wantStderr: []string{"not the one in -tls-cert"}},
		{name: "refuses a non-loopback address without caller auth", args: []string{"-addr", "0.0.0.0:0", "-metrics-addr", "off"}, want: 1,
			wantStderr: []string{"refusing to serve a non-loopback address", "-insecure-no-auth"}},
		{name: "bad flag", args: []string{"-nope"}, want: 2, wantStderr: []string{"-nope", "usage:"}},
		{name: "bad command", args: []string{"serve"}, want: 2, wantStderr: []string{`unexpected argument "serve"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			got := run(context.Background(), tc.args, env(tc.env), &stdout, &stderr)
			if got != tc.want {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", got, tc.want, stdout.String(), stderr.String())
			}
			for _, w := range tc.wantStdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			for _, w := range tc.wantStderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
		})
	}
}

// TestServeAndStop runs the real main until its context ends: it serves
// (its own healthcheck passes), never logs the token, and stops in order.
func TestServeAndStop(t *testing.T) {
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	addr := freeAddr(t)
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	e := env(map[string]string{"GITHUB_TOKEN": fakehub.DemoToken, "GITHUB_API_URL": hub.URL, "GHOPS_GITHUB_ADDR": addr, "GHOPS_GITHUB_METRICS_ADDR": "off"})
	go func() {
		done <- run(ctx, nil, e, io.Discard, pw)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var logs strings.Builder
	for sc.Scan() {
		logs.WriteString(sc.Text() + "\n")
		var rec struct{ Msg string }
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "ghops-github listening" {
			break
		}
	}
	// Keep draining the log, or the service blocks writing its rpc lines.
	rest := make(chan string)
	go func() {
		var b strings.Builder
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
		}
		rest <- b.String()
	}()
	var probeErr strings.Builder
	deadline := time.Now().Add(10 * time.Second)
	for run(context.Background(), []string{"healthcheck", "-addr", addr}, env(nil), io.Discard, &probeErr) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("never healthy: %s", probeErr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	logs.WriteString(<-rest)
	if code := <-done; code != 0 {
		t.Fatalf("exit %d\n%s", code, logs.String())
	}
	for _, w := range []string{`"msg":"ghops-github starting","version":"dev"`, `"msg":"shutting down: draining in-flight calls"`, `"msg":"ghops-github stopped"`} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("logs lack %s:\n%s", w, logs.String())
		}
	}
	if strings.Contains(logs.String(), fakehub.DemoToken) {
		t.Error("the token reached the logs")
	}
}
