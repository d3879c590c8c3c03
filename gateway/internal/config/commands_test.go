package config

import (
	"errors"
	"flag"
	"io"
	"regexp"
	"strings"
	"testing"
)

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
		{name: "stdio last", args: []string{"-embedded", "stdio"}, want: Config{Command: CommandStdio, Embedded: true}},
		{name: "stdio between flags", args: []string{"-log-level", "debug", "stdio", "-embedded"}, want: Config{Command: CommandStdio, Embedded: true}},
		{name: "healthcheck", args: []string{"healthcheck", "-addr", "0.0.0.0:1"}, want: Config{Command: CommandHealthcheck}},
		{name: "embedded from the environment", env: map[string]string{"GHOPS_EMBEDDED": "true"}, want: Config{Embedded: true}},
		{name: "-embedded=false beats the environment", args: []string{"-embedded=false"}, env: map[string]string{"GHOPS_EMBEDDED": "1"}, want: Config{}},
		{name: "version", args: []string{"-version"}, want: Config{ShowVersion: true}},
		{name: "bad GHOPS_EMBEDDED", env: map[string]string{"GHOPS_EMBEDDED": "yes"}, wantErr: "GHOPS_EMBEDDED"},
		{name: "unknown command", args: []string{"serve"}, wantErr: `unexpected arguments: ["serve"]`},
		{name: "two commands", args: []string{"stdio", "healthcheck"}, wantErr: `unexpected arguments: ["healthcheck"]`},
		{name: "bad flag after the command", args: []string{"stdio", "-nope"}, wantErr: "-nope"},
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

// TestEveryFlagHasAnEnvironmentVariable reads the -h text: it lists the
// commands, every flag but the -version action names a variable, and Load
// really consults it.
func TestEveryFlagHasAnEnvironmentVariable(t *testing.T) {
	asked := map[string]bool{}
	var out strings.Builder
	_, err := Load([]string{"-h"}, func(k string) string { asked[k] = true; return "" }, &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	text := out.String()
	for _, cmd := range []string{"ghops-gateway [flags] stdio", "ghops-gateway [flags] healthcheck", "GITHUB_TOKEN"} {
		if !strings.Contains(text, cmd) {
			t.Errorf("-h lacks %q", cmd)
		}
	}
	flags := regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(text, -1)
	if len(flags) < 15 {
		t.Fatalf("found %d flags in:\n%s", len(flags), text)
	}
	for _, f := range flags {
		if f[1] == "version" {
			continue
		}
		t.Run(f[1], func(t *testing.T) {
			loc := regexp.MustCompile(`(?m)^  -` + f[1] + `\b`).FindStringIndex(text)
			block := text[loc[0]:]
			if next := strings.Index(block[3:], "\n  -"); next >= 0 {
				block = block[:next+3]
			}
			m := regexp.MustCompile(`\(((?:GHOPS|GITHUB)_[A-Z_]+)\)`).FindStringSubmatch(block)
			if m == nil {
				t.Fatalf("no (GHOPS_...) in %q", block)
			}
			if !asked[m[1]] {
				t.Errorf("Load never reads %s", m[1])
			}
		})
	}
}
