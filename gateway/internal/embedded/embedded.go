// Package embedded wires ghops-gateway -embedded: it starts the GitHub
// service inside the gateway (ghops.dev/services/github/inprocess, the same
// server as ghops-github, over an in-memory connection) and hands that
// connection to app.New. The binary and gatewaytest both use it, so the
// end-to-end tests run exactly the embedded wiring the binary runs.
package embedded

import (
	"fmt"
	"io"

	"ghops.dev/services/github/inprocess"
	"ghops.dev/telemetry"

	"ghops.dev/gateway/internal/app"
	"ghops.dev/gateway/internal/config"
)

// Start starts the service with the options its own binary would read from
// getenv (GITHUB_TOKEN, GITHUB_API_URL, GHOPS_ALLOW_CALLER_TOKEN,
// GHOPS_GITHUB_CALL_TIMEOUT), logging to logOut at cfg.LogLevel. With
// GitHub as the OAuth issuer the service honours the callers' own tokens,
// which the gateway forwards. The returned option gives app.New the
// connection; the App's Close stops the service. tel traces the service's
// calls and GitHub requests (nil: off); give the gateway the same one
// (app.WithTelemetry), so that one trace holds both.
func Start(cfg config.Config, getenv func(string) string, logOut io.Writer, tel *telemetry.Provider) (app.Option, error) {
	o, err := inprocess.OptionsFromEnv(getenv)
	if err != nil {
		return nil, fmt.Errorf("embedded service: %w", err)
	}
	o.AllowCallerToken = o.AllowCallerToken || cfg.OAuthIssuer == "github"
	// The service is built into this binary: its version is the gateway's.
	o.Version = cfg.Version
	o.Logger = app.NewLogger(logOut, cfg.LogLevel)
	o.Telemetry = tel
	svc, err := inprocess.Start(o)
	if err != nil {
		return nil, fmt.Errorf("embedded service: %w", err)
	}
	return app.WithService(svc.Conn(), svc.Close), nil
}
