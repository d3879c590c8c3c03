package server_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/github/internal/config"
	"ghops.dev/services/github/internal/server"
	"ghops.dev/services/github/servicetest"
)

const callerSecret = "s3cret-0123456789-abcdef"

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// dial connects to addr with opts, closed at the end of the test.
func dial(t *testing.T, addr string, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// wantCallerRefused checks err is the contract's refusal of a caller.
func wantCallerRefused(t *testing.T, err error) {
	t.Helper()
	d := detailsOf(t, err)
	if d.st.Code() != codes.Unauthenticated {
		t.Fatalf("code = %s, want Unauthenticated (%v)", d.st.Code(), err)
	}
	if d.info.GetReason() != ghopsv1.ErrorReason_ERROR_REASON_CALLER_UNAUTHENTICATED.String() || d.info.GetDomain() != "ghops.dev" {
		t.Fatalf("ErrorInfo = %v", d.info)
	}
}

// TestCallerSecret runs real calls against a service that requires the
// shared secret: each case is one caller, over its own connection.
func TestCallerSecret(t *testing.T) {
	var logs syncBuffer
	e := start(t, fakehub.Config{}, servicetest.Options{CallerSecret: callerSecret, Reflection: true,
		Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	plain := grpc.WithTransportCredentials(insecure.NewCredentials())
	tests := []struct {
		name    string
		opts    []grpc.DialOption
		refused bool
	}{
		{name: "no secret", opts: []grpc.DialOption{plain}, refused: true},
		{name: "wrong secret", opts: []grpc.DialOption{plain, grpc.WithPerRPCCredentials(servicetest.Bearer("wrong-0123456789-abcdef"))}, refused: true},
		{name: "secret with a suffix", opts: []grpc.DialOption{plain, grpc.WithPerRPCCredentials(servicetest.Bearer(callerSecret + "x"))}, refused: true},
		{name: "secret prefix only", opts: []grpc.DialOption{plain, grpc.WithPerRPCCredentials(servicetest.Bearer(callerSecret[:16]))}, refused: true},
		{name: "right secret", opts: []grpc.DialOption{plain, grpc.WithPerRPCCredentials(servicetest.Bearer(callerSecret))}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn := dial(t, e.svc.Addr, tc.opts...)
			before := e.hub.Stats().Total
			_, err := ghopsv1.NewGitHubServiceClient(conn).GetBranches(ctx(t), &ghopsv1.GetBranchesRequest{Repo: repo})
			if !tc.refused {
				if err != nil {
					t.Fatalf("call: %v", err)
				}
				return
			}
			wantCallerRefused(t, err)
			if got := e.hub.Stats().Total; got != before {
				t.Errorf("a refused call reached GitHub: %d requests", got-before)
			}
			// Refused too: the reflection stream (behind the same check).
			stream, err := grpc_reflection_v1.NewServerReflectionClient(conn).ServerReflectionInfo(ctx(t))
			if err == nil {
				_ = stream.Send(&grpc_reflection_v1.ServerReflectionRequest{MessageRequest: &grpc_reflection_v1.ServerReflectionRequest_ListServices{}})
				_, err = stream.Recv()
			}
			wantCallerRefused(t, err)
		})
	}
	t.Run("health stays open", func(t *testing.T) {
		conn := dial(t, e.svc.Addr, plain)
		resp, err := healthpb.NewHealthClient(conn).Check(ctx(t), &healthpb.HealthCheckRequest{})
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("health = %v, %v", resp, err)
		}
	})
	t.Run("no secret in the logs", func(t *testing.T) {
		out := logs.String()
		if !strings.Contains(out, "Unauthenticated") {
			t.Fatalf("the refusals were not logged:\n%s", out)
		}
		for _, s := range []string{callerSecret, callerSecret[:16], "wrong-0123456789"} {
			if strings.Contains(out, s) {
				t.Errorf("log holds %q:\n%s", s, out)
			}
		}
	})
}

// TestMTLS authenticates callers by client certificate.
func TestMTLS(t *testing.T) {
	pki := servicetest.NewPKI(t)
	e := start(t, fakehub.Config{}, servicetest.Options{TLSCert: pki.ServerCert, TLSKey: pki.ServerKey, TLSClientCA: pki.CA,
		DialOptions: []grpc.DialOption{grpc.WithTransportCredentials(clientTLS(t, pki, pki.ClientCert, pki.ClientKey))}})
	tests := []struct {
		name      string
		creds     credentials.TransportCredentials
		wantCode  codes.Code // OK for success
		callerRef bool       // refused by the interceptor (vs the handshake)
	}{
		{name: "trusted client certificate", creds: clientTLS(t, pki, pki.ClientCert, pki.ClientKey), wantCode: codes.OK},
		{name: "no client certificate", creds: clientTLS(t, pki, "", ""), wantCode: codes.Unauthenticated, callerRef: true},
		// Go's client sends no certificate the server's CA list does not
		// name; the caller is then refused like one with none.
		{name: "untrusted client certificate held back", creds: clientTLS(t, pki, pki.UntrustedCert, pki.UntrustedKey), wantCode: codes.Unauthenticated, callerRef: true},
		// Presented anyway, it fails the handshake.
		{name: "untrusted client certificate presented", creds: forcedClientTLS(t, pki, pki.UntrustedCert, pki.UntrustedKey), wantCode: codes.Unavailable},
		{name: "plaintext", creds: insecure.NewCredentials(), wantCode: codes.Unavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn := dial(t, e.svc.Addr, grpc.WithTransportCredentials(tc.creds))
			_, err := ghopsv1.NewGitHubServiceClient(conn).GetBranches(ctx(t), &ghopsv1.GetBranchesRequest{Repo: repo})
			if got := status.Code(err); got != tc.wantCode {
				t.Fatalf("code = %s want %s (%v)", got, tc.wantCode, err)
			}
			if tc.callerRef {
				wantCallerRefused(t, err)
			}
		})
	}
	t.Run("servicetest conn", func(t *testing.T) {
		if _, err := e.svc.Client.GetBranches(ctx(t), &ghopsv1.GetBranchesRequest{Repo: repo}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestMTLSOrSecret accepts either credential when both are configured.
func TestMTLSOrSecret(t *testing.T) {
	pki := servicetest.NewPKI(t)
	e := start(t, fakehub.Config{}, servicetest.Options{TLSCert: pki.ServerCert, TLSKey: pki.ServerKey, TLSClientCA: pki.CA,
		CallerSecret: callerSecret, DialOptions: []grpc.DialOption{grpc.WithTransportCredentials(clientTLS(t, pki, "", ""))}})
	tests := []struct {
		name string
		opts []grpc.DialOption
		ok   bool
	}{
		{name: "secret over TLS", opts: []grpc.DialOption{grpc.WithTransportCredentials(clientTLS(t, pki, "", "")), grpc.WithPerRPCCredentials(servicetest.Bearer(callerSecret))}, ok: true},
		{name: "certificate", opts: []grpc.DialOption{grpc.WithTransportCredentials(clientTLS(t, pki, pki.ClientCert, pki.ClientKey))}, ok: true},
		{name: "neither", opts: []grpc.DialOption{grpc.WithTransportCredentials(clientTLS(t, pki, "", ""))}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn := dial(t, e.svc.Addr, tc.opts...)
			_, err := ghopsv1.NewGitHubServiceClient(conn).GetBranches(ctx(t), &ghopsv1.GetBranchesRequest{Repo: repo})
			if tc.ok {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantCallerRefused(t, err)
		})
	}
}

// clientTLS trusts the PKI's CA and presents cert/key when given.
func clientTLS(t *testing.T, pki servicetest.PKI, cert, key string) credentials.TransportCredentials {
	t.Helper()
	ca, err := os.ReadFile(pki.CA)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return credentials.NewTLS(cfg)
}

// forcedClientTLS presents cert/key whatever CAs the server asks for.
func forcedClientTLS(t *testing.T, pki servicetest.PKI, cert, key string) credentials.TransportCredentials {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(pki.CA)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return credentials.NewTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil }})
}

// TestReflectionSwitch: reflection is served only with -reflection.
func TestReflectionSwitch(t *testing.T) {
	tests := []struct {
		name string
		on   bool
	}{{"off by default", false}, {"on", true}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := start(t, fakehub.Config{}, servicetest.Options{Reflection: tc.on})
			stream, err := grpc_reflection_v1.NewServerReflectionClient(e.svc.Conn).ServerReflectionInfo(ctx(t))
			if err == nil {
				// Send answers io.EOF when the server already ended the
				// stream; the status is then Recv's (grpc-go's contract).
				if err = stream.Send(&grpc_reflection_v1.ServerReflectionRequest{MessageRequest: &grpc_reflection_v1.ServerReflectionRequest_ListServices{}}); err == nil || errors.Is(err, io.EOF) {
					_, err = stream.Recv()
				}
			}
			if tc.on && err != nil {
				t.Fatalf("reflection on: %v", err)
			}
			if !tc.on && status.Code(err) != codes.Unimplemented {
				t.Fatalf("reflection off: err = %v, want Unimplemented", err)
			}
		})
	}
}

// TestCheckExposure is the start-up rule of a non-loopback address.
func TestCheckExposure(t *testing.T) {
	tests := []struct {
		name     string
		cfg      config.Config
		wantErr  bool
		wantWarn bool
	}{
		{name: "loopback without auth", cfg: config.Config{Addr: "127.0.0.1:50051"}},
		{name: "localhost without auth", cfg: config.Config{Addr: "localhost:50051"}},
		{name: "ipv6 loopback", cfg: config.Config{Addr: "[::1]:50051"}},
		{name: "wildcard without auth", cfg: config.Config{Addr: "0.0.0.0:50051"}, wantErr: true},
		{name: "empty host without auth", cfg: config.Config{Addr: ":50051"}, wantErr: true},
		{name: "wildcard with a secret", cfg: config.Config{Addr: "0.0.0.0:50051", CallerSecretFile: "/run/secrets/x"}},
		{name: "wildcard with mTLS", cfg: config.Config{Addr: "0.0.0.0:50051", TLSCert: "c", TLSKey: "k", TLSClientCA: "ca"}},
		{name: "wildcard with TLS but no client CA", cfg: config.Config{Addr: "0.0.0.0:50051", TLSCert: "c", TLSKey: "k"}, wantErr: true},
		{name: "wildcard, insecure accepted", cfg: config.Config{Addr: "0.0.0.0:50051", InsecureNoAuth: true}, wantWarn: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			err := server.CheckExposure(tc.cfg, slog.New(slog.NewTextHandler(&logs, nil)))
			if tc.wantErr != errors.Is(err, server.ErrNoAuth) {
				t.Fatalf("err = %v, want ErrNoAuth: %v", err, tc.wantErr)
			}
			if warned := strings.Contains(logs.String(), "WITHOUT caller authentication"); warned != tc.wantWarn {
				t.Errorf("warned = %v want %v: %s", warned, tc.wantWarn, logs.String())
			}
		})
	}
}

// TestRunRefusesExposure: Run stops before listening.
func TestRunRefusesExposure(t *testing.T) {
	err := server.Run(context.Background(), config.Config{Addr: "0.0.0.0:0", MetricsAddr: ""}, slog.New(slog.DiscardHandler), 0)
	if !errors.Is(err, server.ErrNoAuth) {
		t.Fatalf("Run = %v, want ErrNoAuth", err)
	}
}

// TestBadAuthConfig: broken credentials files stop New with a clear error
// that quotes no file content.
func TestBadAuthConfig(t *testing.T) {
	dir := t.TempDir()
	short := dir + "/short"
	if err := os.WriteFile(short, []byte("tooshort-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	notKey := dir + "/key.pem"
	if err := os.WriteFile(notKey, []byte("-----BEGIN RSA PRIVATE KEY-----\nbm90IGEga2V5\n-----END RSA PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		cfg     config.Config
		wantErr string
	}{
		{name: "missing secret file", cfg: config.Config{CallerSecretFile: dir + "/none"}, wantErr: "-caller-secret-file"},
		{name: "short secret", cfg: config.Config{CallerSecretFile: short}, wantErr: "at least 16 bytes"},
		{name: "missing certificate", cfg: config.Config{TLSCert: dir + "/c", TLSKey: dir + "/k"}, wantErr: "-tls-cert"},
		{name: "key without cert", cfg: config.Config{TLSKey: dir + "/k"}, wantErr: "go together"},
		{name: "client CA without TLS", cfg: config.Config{TLSClientCA: dir + "/ca"}, wantErr: "needs -tls-cert"},
		{name: "app key not a key", cfg: config.Config{GitHubAppID: 1, GitHubAppKeyFile: notKey, GitHubAppInstallationID: 2}, wantErr: "private key"},
		{name: "app and token", cfg: config.Config{Token: "t", GitHubAppID: 1, GitHubAppKeyFile: notKey, GitHubAppInstallationID: 2}, wantErr: "exclude each other"},
		{name: "app half configured", cfg: config.Config{GitHubAppID: 1}, wantErr: "needs all of"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := server.New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if strings.Contains(err.Error(), "tooshort") || strings.Contains(err.Error(), "bm90IGEga2V5") {
				t.Errorf("error quotes the file: %v", err)
			}
		})
	}
}
