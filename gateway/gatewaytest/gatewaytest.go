// Package gatewaytest starts ghops gateways for end-to-end tests, alone in
// front of a given service (StartGateway) or as the whole stack: fakehub
// with the demo data, the GitHub service and the gateway, each on
// 127.0.0.1 with a random port and cleaned up with t.Cleanup (StartStack).
// The stack comes in both shapes ghops is deployed in (Shapes): split, the
// service in its own server, and embedded, the service inside the gateway
// as ghops-gateway -embedded runs it. The gateway runs exactly the wiring
// of the ghops-gateway binary.
package gatewaytest

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/servicetest"
	"ghops.dev/telemetry"

	"ghops.dev/gateway/internal/app"
	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/embedded"
	"ghops.dev/gateway/internal/logtest"
	"ghops.dev/gateway/internal/servicedial"
)

// Shape is one way to deploy ghops, for tables of end-to-end tests.
type Shape struct {
	// Name names the shape in test names: "split" or "embedded".
	Name string
	// Embedded runs the service inside the gateway.
	Embedded bool
}

// Shapes are both deployment shapes; end-to-end tests run over each.
var Shapes = []Shape{{Name: "split"}, {Name: "embedded", Embedded: true}}

// StackOptions configures the stack; the zero value is the binary's defaults
// with the demo seed.
type StackOptions struct {
	// Seed is the fakehub seed (default "demo").
	Seed string
	// Hub overrides the whole fakehub configuration (Seed is then ignored).
	Hub *fakehub.Config
	// HTTPStatusMapping turns on /rpc's HTTP status mapping.
	HTTPStatusMapping bool
	// MCPToolErrors is "auto" (default), "jsonrpc" or "result".
	MCPToolErrors string
	// GitHubOAuth makes GitHub (fakehub) the gateway's OAuth issuer: a
	// caller's bearer token is verified against fakehub's /user and forwarded
	// to the service, which is then started with AllowCallerToken.
	GitHubOAuth bool
	// GitHubURL is the API root the gateway verifies GitHub tokens against
	// (StartStack sets it to fakehub's).
	GitHubURL string
	// Policy is a policy file's content ("" for none).
	Policy string
	// ReadOnly runs the gateway with -read-only.
	ReadOnly bool
	// Configure adjusts the gateway configuration last (nil: nothing).
	Configure func(*config.Config)
	// CallTimeout bounds each service call (default 30s).
	CallTimeout time.Duration
	// MaxBody is the body limit in bytes (default 1 MiB).
	MaxBody int64
	// AllowedOrigins are extra Origins /mcp accepts.
	AllowedOrigins []string
	// SessionSecret keys MCP session ids (default: random per gateway; set
	// it to share sessions between gateways).
	SessionSecret []byte
	// Embedded runs the GitHub service inside the gateway, wired as
	// ghops-gateway -embedded wires it (Stack.Service is then nil).
	Embedded bool
	// ServiceSecret, when set, is the shared secret the service requires
	// and the gateway sends (-service-secret-file).
	ServiceSecret string
	// ServicePKI, when set, makes the service serve TLS and authenticate
	// client certificates of its CA, and gives the gateway that CA and a
	// client certificate (-service-tls-*).
	ServicePKI *servicetest.PKI
	// Telemetry traces the gateway and the service (split or embedded)
	// into one provider, such as a test's SDK provider over an in-memory
	// exporter (nil: tracing off, as the binaries without OTEL_ variables).
	Telemetry *telemetry.Provider
}

// Gateway is a running gateway.
type Gateway struct {
	// URL is the base URL, http://127.0.0.1:port (no trailing slash).
	URL string
	// Addr is the listen address.
	Addr string
	logs *SyncBuffer
}

// Logs returns everything the gateway logged so far (structured records and
// jsonrpc_error lines).
func (g *Gateway) Logs() string { return g.logs.String() }

// Stack is a running fakehub + service + gateway.
type Stack struct {
	// URL is the gateway's base URL; MCP is URL+"/mcp", JSON-RPC URL+"/rpc".
	URL string
	// Hub is the fakehub emulator (inspect or mutate GitHub's state).
	Hub *fakehub.Hub
	// HubURL is fakehub's API root.
	HubURL string
	// Service is the GitHub gRPC service (nil when Embedded).
	Service *servicetest.Service
	// Gateway is the gateway.
	Gateway *Gateway
}

// StartStack starts fakehub, the service (with fakehub.DemoToken) and a
// gateway in front of it.
func StartStack(t testing.TB, opts StackOptions) *Stack {
	t.Helper()
	hc := fakehub.Config{Seed: opts.Seed}
	if hc.Seed == "" {
		hc.Seed = "demo"
	}
	if opts.Hub != nil {
		hc = *opts.Hub
	}
	hub := fakehubtest.Start(t, hc)
	if opts.GitHubURL == "" {
		opts.GitHubURL = hub.URL
	}
	if opts.Embedded {
		gw := startEmbedded(t, hub.URL, opts)
		return &Stack{URL: gw.URL, Hub: hub.Hub, HubURL: hub.URL, Gateway: gw}
	}
	so := servicetest.Options{
		GitHubURL: hub.URL, Token: fakehub.DemoToken, AllowCallerToken: opts.GitHubOAuth, CallTimeout: opts.CallTimeout,
		CallerSecret: opts.ServiceSecret, Telemetry: opts.Telemetry,
	}
	if p := opts.ServicePKI; p != nil {
		so.TLSCert, so.TLSKey, so.TLSClientCA = p.ServerCert, p.ServerKey, p.CA
		dial, err := servicedial.Options(servicedial.Config{CA: p.CA, Cert: p.ClientCert, Key: p.ClientKey})
		if err != nil {
			t.Fatalf("gatewaytest: %v", err)
		}
		so.DialOptions = dial
	}
	svc := servicetest.Start(t, so)
	gw := StartGateway(t, svc.Addr, opts)
	return &Stack{URL: gw.URL, Hub: hub.Hub, HubURL: hub.URL, Service: svc, Gateway: gw}
}

// config returns the gateway configuration opts describe, for serviceAddr.
func (opts StackOptions) config(t testing.TB, serviceAddr string) config.Config {
	cfg := config.Default()
	cfg.Addr = "127.0.0.1:0"
	cfg.ServiceAddr = serviceAddr
	cfg.HTTPStatusMapping = opts.HTTPStatusMapping
	cfg.AllowedOrigins = opts.AllowedOrigins
	cfg.ReadOnly = opts.ReadOnly
	cfg.ShutdownTimeout = 35 * time.Second
	if opts.GitHubOAuth {
		cfg.OAuthIssuer = "github"
		cfg.GitHubURL = opts.GitHubURL
	}
	if opts.Policy != "" {
		cfg.PolicyFile = filepath.Join(t.TempDir(), "policy.yaml")
		if err := os.WriteFile(cfg.PolicyFile, []byte(opts.Policy), 0o600); err != nil {
			t.Fatalf("gatewaytest: %v", err)
		}
	}
	if opts.MCPToolErrors != "" {
		cfg.MCPToolErrors = opts.MCPToolErrors
	}
	if opts.CallTimeout > 0 {
		cfg.CallTimeout = opts.CallTimeout
	}
	if opts.MaxBody > 0 {
		cfg.MaxBody = opts.MaxBody
	}
	if len(opts.SessionSecret) > 0 {
		cfg.SessionSecret = opts.SessionSecret
	}
	if opts.ServiceSecret != "" {
		cfg.ServiceSecretFile = filepath.Join(t.TempDir(), "service-secret")
		if err := os.WriteFile(cfg.ServiceSecretFile, []byte(opts.ServiceSecret+"\n"), 0o600); err != nil {
			t.Fatalf("gatewaytest: %v", err)
		}
	}
	if p := opts.ServicePKI; p != nil {
		cfg.ServiceTLSCA, cfg.ServiceTLSCert, cfg.ServiceTLSKey = p.CA, p.ClientCert, p.ClientKey
	}
	if opts.Configure != nil {
		opts.Configure(&cfg)
	}
	return cfg
}

// StartGateway starts a gateway in front of the service at serviceAddr; it
// is drained and stopped when the test ends.
func StartGateway(t testing.TB, serviceAddr string, opts StackOptions) *Gateway {
	t.Helper()
	return serve(t, opts.config(t, serviceAddr), &SyncBuffer{}, app.WithTelemetry(opts.Telemetry))
}

// NewApp assembles, without serving it, a gateway of the stack's shape
// with logs going to logs: in front of st.Service when split, else with its
// own in-process service against st's fakehub. It is closed when the test
// ends. The stdio tests serve it over pipes.
func NewApp(t testing.TB, st *Stack, opts StackOptions, logs *SyncBuffer) *app.App {
	t.Helper()
	var (
		cfg  config.Config
		opt  []app.Option
		addr string
	)
	if st.Service != nil {
		addr = st.Service.Addr
	}
	cfg = opts.config(t, addr)
	opt = append(opt, app.WithTelemetry(opts.Telemetry))
	if st.Service == nil {
		cfg.Embedded = true
		o, err := embedded.Start(cfg, embeddedEnv(st.HubURL, opts), logs, opts.Telemetry)
		if err != nil {
			t.Fatalf("gatewaytest: %v", err)
		}
		opt = append(opt, o)
	}
	a, err := app.New(cfg, logs, opt...)
	if err != nil {
		t.Fatalf("gatewaytest: %v", err)
	}
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Errorf("gatewaytest: close: %v", err)
		}
	})
	return a
}

// startEmbedded starts a gateway running the service in process against
// the GitHub API at githubURL with fakehub's demo token, through the same
// environment variables the binary reads.
func startEmbedded(t testing.TB, githubURL string, opts StackOptions) *Gateway {
	t.Helper()
	cfg := opts.config(t, "")
	cfg.Embedded = true
	logs := &SyncBuffer{}
	opt, err := embedded.Start(cfg, embeddedEnv(githubURL, opts), logs, opts.Telemetry)
	if err != nil {
		t.Fatalf("gatewaytest: %v", err)
	}
	return serve(t, cfg, logs, opt, app.WithTelemetry(opts.Telemetry))
}

// embeddedEnv is the environment the embedded service reads: the GitHub
// API at githubURL with fakehub's demo token, and the stack's options.
func embeddedEnv(githubURL string, opts StackOptions) func(string) string {
	env := map[string]string{
		"GITHUB_API_URL": githubURL, "GITHUB_TOKEN": fakehub.DemoToken,
		"GHOPS_ALLOW_CALLER_TOKEN": strconv.FormatBool(opts.GitHubOAuth),
	}
	if opts.CallTimeout > 0 {
		env["GHOPS_GITHUB_CALL_TIMEOUT"] = opts.CallTimeout.String()
	}
	return func(k string) string { return env[k] }
}

// serve runs a gateway built from cfg on a random 127.0.0.1 port until the
// test ends, then drains it and closes its service connection.
func serve(t testing.TB, cfg config.Config, logs *SyncBuffer, opts ...app.Option) *Gateway {
	t.Helper()
	a, err := app.New(cfg, logs, opts...)
	if err != nil {
		t.Fatalf("gatewaytest: %v", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("gatewaytest: listen: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, lis) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("gatewaytest: serve: %v", err)
		}
		if err := a.Close(); err != nil {
			t.Errorf("gatewaytest: close: %v", err)
		}
	})
	return &Gateway{URL: "http://" + lis.Addr().String(), Addr: lis.Addr().String(), logs: logs}
}

// SyncBuffer is a bytes.Buffer safe for concurrent writers and readers, for
// a gateway's log output; its ErrorLines lists the jsonrpc_error lines.
type SyncBuffer = logtest.Buffer
