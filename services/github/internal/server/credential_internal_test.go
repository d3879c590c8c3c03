package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"ghops.dev/services/github/internal/config"
)

// TestCredentialWarning: a service without a GitHub credential says so once
// at start, as a warning naming the anonymous limit; with a token or an App
// it says nothing, and the token never reaches the log (issue 23).
func TestCredentialWarning(t *testing.T) {
	const token = "ghp_SECRETSECRETSECRETSECRET1234"
	tests := []struct {
		name     string
		cfg      config.Config
		want     string // a substring of the warning; "" for none
		wantNone bool
	}{
		{name: "a token", cfg: config.Config{Token: token}, wantNone: true},
		{name: "no credential", cfg: config.Config{}, want: "no GitHub credential (GITHUB_TOKEN, or a GitHub App: -github-app-id): calls are anonymous, 60 requests an hour, public repositories only"},
		{name: "no credential, callers' tokens allowed", cfg: config.Config{AllowCallerToken: true}, want: "60 requests an hour, public repositories only, except those that bring their own token (-allow-caller-token)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.GitHubURL = "http://127.0.0.1:1/"
			var logs syncBuf
			s, err := New(tc.cfg, WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Shutdown(context.Background()) })
			var warnings []string
			for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				var rec struct{ Level, Msg string }
				if line == "" {
					continue
				}
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatalf("not JSON: %q", line)
				}
				if rec.Level == "WARN" && strings.Contains(rec.Msg, "GitHub credential") {
					warnings = append(warnings, rec.Msg)
				}
			}
			switch {
			case tc.wantNone && len(warnings) != 0:
				t.Fatalf("warned %q with a credential", warnings)
			case !tc.wantNone && (len(warnings) != 1 || !strings.Contains(warnings[0], tc.want)):
				t.Fatalf("warnings %q, want one with %q", warnings, tc.want)
			}
			if strings.Contains(logs.String(), token) {
				t.Fatal("the token reached the log")
			}
		})
	}
	t.Run("a GitHub App", func(t *testing.T) {
		// The App's key is read by New; that the App counts as a credential
		// is what matters here.
		cfg := config.Config{GitHubAppID: 1, GitHubAppKeyFile: "app.pem", GitHubAppInstallationID: 2}
		if !cfg.GitHubApp() {
			t.Fatal("the config is not an App's")
		}
		if w := credentialWarning(cfg); w != "" {
			t.Fatalf("warned %q for an App", w)
		}
	})
}
