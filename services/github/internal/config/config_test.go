package config

import (
	"testing"
	"time"
)

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr bool
		check   func(t *testing.T, c Config)
	}{
		{name: "defaults", check: func(t *testing.T, c Config) {
			if c.Addr != DefaultAddr || c.GitHubURL != DefaultGitHubURL || c.AllowCallerToken || c.CallTimeout != 30*time.Second || c.MetricsAddr != DefaultMetricsAddr || c.MaxFileBytes != 256<<10 {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "env fallbacks", env: map[string]string{"GHOPS_GITHUB_ADDR": "127.0.0.1:1", "GITHUB_API_URL": "http://127.0.0.1:2/", "GHOPS_ALLOW_CALLER_TOKEN": "true", "GITHUB_TOKEN": "tok"},
			check: func(t *testing.T, c Config) {
				if c.Addr != "127.0.0.1:1" || c.GitHubURL != "http://127.0.0.1:2/" || !c.AllowCallerToken || c.Token != "tok" {
					t.Errorf("got %+v", c)
				}
			}},
		{name: "flags win", args: []string{"-addr", "127.0.0.1:3", "-call-timeout", "5s", "-log-level", "debug"}, env: map[string]string{"GHOPS_GITHUB_ADDR": "127.0.0.1:1"},
			check: func(t *testing.T, c Config) {
				if c.Addr != "127.0.0.1:3" || c.CallTimeout != 5*time.Second || c.LogLevel.String() != "DEBUG" {
					t.Errorf("got %+v", c)
				}
			}},
		{name: "url without slash", args: []string{"-github-url", "https://api.github.com"}, wantErr: true},
		{name: "url with query", args: []string{"-github-url", "https://x/?a=b"}, wantErr: true},
		{name: "no token flag", args: []string{"-token", "x"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(tt.args, func(k string) string { return tt.env[k] })
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}
