package config

import (
	"io"
	"strings"
	"testing"
)

// TestCommandsEmbeddedVersion covers the gateway's commands and actions;
// where a command may stand, and how flags and variables combine, is
// package flagenv's (TestParse there).
func TestCommandsEmbeddedVersion(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    Config
		wantErr string
	}{
		{name: "serve", want: Config{}},
		{name: "stdio first", args: []string{"stdio", "-embedded"}, want: Config{Command: CommandStdio, Embedded: true}},
		{name: "healthcheck", args: []string{"healthcheck", "-addr", "0.0.0.0:1"}, want: Config{Command: CommandHealthcheck}},
		{name: "embedded from the environment", env: map[string]string{"GHOPS_EMBEDDED": "true"}, want: Config{Embedded: true}},
		{name: "version", args: []string{"-version"}, want: Config{ShowVersion: true}},
		{name: "unknown command", args: []string{"serve"}, wantErr: `unexpected argument "serve" (commands: "healthcheck", "stdio")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Command != tc.want.Command || c.Embedded != tc.want.Embedded || c.ShowVersion != tc.want.ShowVersion || c.Version != "dev" {
				t.Errorf("got command %q embedded %v showVersion %v version %q", c.Command, c.Embedded, c.ShowVersion, c.Version)
			}
		})
	}
}
