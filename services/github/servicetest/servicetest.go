// Package servicetest starts the GitHub-operations gRPC service in process,
// for end-to-end tests of the gateway and the client: the same server code
// the ghops-github binary runs, on 127.0.0.1 with a random port.
package servicetest

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"ghops.dev/services/github/internal/config"
	"ghops.dev/services/github/internal/server"
	"ghops.dev/telemetry"
)

// Options configures the service under test.
type Options struct {
	// GitHubURL is the API root, ending in "/" (e.g. a fakehubtest URL).
	GitHubURL string
	// Token is the service's own GitHub token.
	Token string
	// AllowCallerToken honours metadata x-github-token.
	AllowCallerToken bool
	// CallTimeout bounds each call (default 30s).
	CallTimeout time.Duration
	// Logger receives the service's logs (default: discarded).
	Logger *slog.Logger
	// CallerSecret, when set, is the shared bearer secret callers must send
	// (written to a file, as -caller-secret-file; several lines are several
	// accepted secrets, as during a rotation); Conn sends the first line.
	CallerSecret string
	// TLSCert, TLSKey and TLSClientCA are PEM files, as -tls-cert,
	// -tls-key and -tls-client-ca.
	TLSCert, TLSKey, TLSClientCA string
	// Reflection serves gRPC server reflection (-reflection).
	Reflection bool
	// GitHubAppID, GitHubAppKeyFile and GitHubAppInstallationID make the
	// service act as a GitHub App installation instead of with Token.
	GitHubAppID             int64
	GitHubAppKeyFile        string
	GitHubAppInstallationID int64
	// DialOptions replace Conn's plaintext transport (with TLS, pass the
	// client's credentials here). CallerSecret is sent either way.
	DialOptions []grpc.DialOption
	// RedisURL shares the cache and the GitHub budget with every service
	// started with the same URL ("" keeps them in the process).
	RedisURL string
	// GitHubConcurrency and WritesPerMinute are the shared budget's caps
	// (0: the defaults).
	GitHubConcurrency, WritesPerMinute int
	// Telemetry traces the calls and their GitHub requests (nil: off).
	Telemetry *telemetry.Provider
	// CheckRepo is validate_environment's default repository (-check-repo).
	CheckRepo string
	// MaxRequestsPerCall, MaxPatchFiles, MaxPatchBytes and PrincipalShare
	// are the cost limits (0: the defaults; see package config).
	MaxRequestsPerCall, MaxPatchFiles, MaxPatchBytes, PrincipalShare int
}

// Service is a running service and a client connected to it.
type Service struct {
	// Addr is the listen address, 127.0.0.1:port.
	Addr string
	// Conn is a connection to Addr: plaintext unless Options.DialOptions
	// say otherwise, with the caller secret when there is one.
	Conn *grpc.ClientConn
	// Client is the GitHubService client over Conn.
	Client ghopsv1.GitHubServiceClient
}

// Start runs the service until the test ends (t.Cleanup drains it).
func Start(t testing.TB, o Options) *Service {
	t.Helper()
	opts := []server.Option{server.WithTelemetry(o.Telemetry)}
	if o.Logger != nil {
		opts = append(opts, server.WithLogger(o.Logger))
	}
	cfg := config.Config{
		Addr: "127.0.0.1:0", GitHubURL: o.GitHubURL, Token: o.Token, AllowCallerToken: o.AllowCallerToken, CallTimeout: o.CallTimeout,
		RedisURL: o.RedisURL, GitHubConcurrency: o.GitHubConcurrency, WritesPerMinute: o.WritesPerMinute,
		MaxRequestsPerCall: o.MaxRequestsPerCall, MaxPatchFiles: o.MaxPatchFiles, MaxPatchBytes: o.MaxPatchBytes, PrincipalShare: o.PrincipalShare,
		TLSCert: o.TLSCert, TLSKey: o.TLSKey, TLSClientCA: o.TLSClientCA, Reflection: o.Reflection,
		GitHubAppID: o.GitHubAppID, GitHubAppKeyFile: o.GitHubAppKeyFile, GitHubAppInstallationID: o.GitHubAppInstallationID,
		CheckRepo: o.CheckRepo,
	}
	if o.CallerSecret != "" {
		cfg.CallerSecretFile = filepath.Join(t.TempDir(), "caller-secret")
		if err := os.WriteFile(cfg.CallerSecretFile, []byte(o.CallerSecret+"\n"), 0o600); err != nil {
			t.Fatalf("servicetest: %v", err)
		}
	}
	srv, err := server.New(cfg, opts...)
	if err != nil {
		t.Fatalf("servicetest: %v", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("servicetest: listen: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(lis) }()
	dial := o.DialOptions
	if len(dial) == 0 {
		dial = []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	}
	if o.CallerSecret != "" {
		first, _, _ := strings.Cut(o.CallerSecret, "\n")
		dial = append(dial, grpc.WithPerRPCCredentials(Bearer(first)))
	}
	conn, err := grpc.NewClient(lis.Addr().String(), dial...)
	if err != nil {
		t.Fatalf("servicetest: dial: %v", err)
	}
	t.Cleanup(func() {
		_ = conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		if err := <-done; err != nil {
			t.Errorf("servicetest: serve: %v", err)
		}
	})
	return &Service{Addr: lis.Addr().String(), Conn: conn, Client: ghopsv1.NewGitHubServiceClient(conn)}
}

// Bearer is per-call credentials sending "authorization: Bearer <secret>",
// as the gateway does; tests dial with it (or a wrong one) themselves.
type Bearer string

// GetRequestMetadata implements credentials.PerRPCCredentials.
func (b Bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

// RequireTransportSecurity implements credentials.PerRPCCredentials: tests
// send the secret over plaintext loopback connections too.
func (Bearer) RequireTransportSecurity() bool { return false }
