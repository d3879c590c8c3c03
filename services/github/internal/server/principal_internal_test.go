package server

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/metadata"

	"ghops.dev/infra/callmeta"
	"ghops.dev/services/github/internal/config"
)

// TestPrincipal: the gateway's x-ghops-principal is believed only from a
// caller the service trusts (authenticated, or on a loopback-only
// listener); an untrusted caller, or a malformed value, is charged as
// Anonymous; a trusted caller naming nobody, or a call with the caller's
// own token, is charged to nobody.
func TestPrincipal(t *testing.T) {
	authed := config.Config{Addr: "0.0.0.0:50051", CallerSecretFile: "/run/secret"}
	loopback := config.Config{Addr: "127.0.0.1:50051"}
	open := config.Config{Addr: "0.0.0.0:50051", InsecureNoAuth: true}
	tests := []struct {
		name   string
		cfg    config.Config
		values []string
		token  string // x-github-token
		want   string
	}{
		{name: "caller's own token", cfg: config.Config{Addr: "127.0.0.1:50051", AllowCallerToken: true}, values: []string{"github:octocat"}, token: "gho_x", want: ""},
		{name: "caller's token not allowed", cfg: loopback, values: []string{"github:octocat"}, token: "gho_x", want: "github:octocat"},
		{name: "authenticated caller", cfg: authed, values: []string{"apikey:ci-bot"}, want: "apikey:ci-bot"},
		{name: "loopback caller", cfg: loopback, values: []string{"github:octocat"}, want: "github:octocat"},
		{name: "oidc subject", cfg: authed, values: []string{"oidc:auth0|5f7c"}, want: "oidc:auth0|5f7c"},
		{name: "unauthenticated caller on an open listener", cfg: open, values: []string{"apikey:ci-bot"}, want: Anonymous},
		{name: "none named by a trusted caller", cfg: authed, want: ""},
		{name: "none named by an untrusted caller", cfg: open, want: Anonymous},
		{name: "two named", cfg: authed, values: []string{"apikey:a", "apikey:b"}, want: Anonymous},
		{name: "no kind", cfg: authed, values: []string{"ci-bot"}, want: Anonymous},
		{name: "control character", cfg: authed, values: []string{"apikey:a\x7fb"}, want: Anonymous},
		{name: "too long", cfg: authed, values: []string{"apikey:" + strings.Repeat("a", 300)}, want: Anonymous},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md := metadata.MD{}
			for _, v := range tt.values {
				md.Append(callmeta.Principal, v)
			}
			if tt.token != "" {
				md.Append(callmeta.GitHubToken, tt.token)
			}
			s := &Server{cfg: tt.cfg}
			if got := s.principal(metadata.NewIncomingContext(context.Background(), md)); got != tt.want {
				t.Errorf("principal = %q, want %q", got, tt.want)
			}
		})
	}
}
