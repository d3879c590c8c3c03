package compose

import (
	"bytes"
	"context"
	"io"
	"net"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"

	"ghops.dev/infra/redisbin"
)

// load loads ../../docker-compose.yml as `docker compose` would with env as
// its whole environment (COMPOSE_PROFILES included).
func load(t *testing.T, env map[string]string) *types.Project {
	t.Helper()
	var list []string
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	opts, err := cli.NewProjectOptions([]string{"../../docker-compose.yml"},
		cli.WithName("ghops"), cli.WithWorkingDirectory("../.."), cli.WithEnv(list), cli.WithDefaultProfiles())
	if err != nil {
		t.Fatal(err)
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("loading docker-compose.yml: %v", err)
	}
	return p
}

// envOf returns service s's variable k ("" when unset or empty).
func envOf(s types.ServiceConfig, k string) string {
	if v := s.Environment[k]; v != nil {
		return *v
	}
	return ""
}

// TestSharedState: Redis runs, and both the gateway and the service use it,
// exactly when COMPOSE_PROFILES=redis (or GHOPS_REDIS_URL names one of the
// operator's); the demo runs without it.
func TestSharedState(t *testing.T) {
	const inStack = "redis://redis:6379/0"
	tests := []struct {
		name      string
		env       map[string]string
		wantRedis bool   // the redis service runs
		wantURL   string // GHOPS_REDIS_URL of the gateway and the service
		wantImage string
	}{
		{name: "demo", env: nil},
		{name: "COMPOSE_PROFILES=redis", env: map[string]string{"COMPOSE_PROFILES": "redis"}, wantRedis: true, wantURL: inStack, wantImage: "redis:7.4-alpine"},
		{name: "redis from a mirror", env: map[string]string{"COMPOSE_PROFILES": "redis", "GHOPS_REDIS_IMAGE": "mirror.example/redis:7"}, wantRedis: true, wantURL: inStack, wantImage: "mirror.example/redis:7"},
		{name: "the operator's Redis", env: map[string]string{"GHOPS_REDIS_URL": "redis://cache.example:6379/2"}, wantURL: "redis://cache.example:6379/2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := load(t, tc.env)
			redis, err := p.GetService("redis")
			if (err == nil) != tc.wantRedis {
				t.Fatalf("redis service runs: %v, want %v", err == nil, tc.wantRedis)
			}
			if tc.wantRedis && redis.Image != tc.wantImage {
				t.Errorf("redis image %q, want %q", redis.Image, tc.wantImage)
			}
			for _, name := range []string{"gateway", "github"} {
				s, err := p.GetService(name)
				if err != nil {
					t.Fatal(err)
				}
				if got := envOf(s, "GHOPS_REDIS_URL"); got != tc.wantURL {
					t.Errorf("%s: GHOPS_REDIS_URL %q, want %q", name, got, tc.wantURL)
				}
				dep, ok := s.DependsOn["redis"]
				if !ok || dep.Condition != types.ServiceConditionHealthy || dep.Required {
					t.Errorf("%s: depends on redis %+v (present %v), want healthy and not required", name, dep, ok)
				}
			}
		})
	}
}

// TestHardening: every container of the full stack runs as 65532 with a
// read-only root filesystem, no capabilities, no privilege escalation and a
// healthcheck; only the gateway publishes a port, on loopback.
func TestHardening(t *testing.T) {
	p := load(t, map[string]string{"COMPOSE_PROFILES": "redis"})
	names := p.ServiceNames()
	slices.Sort(names)
	if want := []string{"fakehub", "gateway", "github", "redis"}; !slices.Equal(names, want) {
		t.Fatalf("services %v, want %v", names, want)
	}
	for _, s := range p.Services {
		t.Run(s.Name, func(t *testing.T) {
			if s.User != "65532:65532" || !s.ReadOnly || !slices.Equal(s.CapDrop, []string{"ALL"}) || !slices.Contains(s.SecurityOpt, "no-new-privileges:true") {
				t.Errorf("user %q, read_only %v, cap_drop %v, security_opt %v", s.User, s.ReadOnly, s.CapDrop, s.SecurityOpt)
			}
			if s.HealthCheck == nil || len(s.HealthCheck.Test) < 2 || s.HealthCheck.Test[0] != "CMD" {
				t.Errorf("healthcheck %+v", s.HealthCheck)
			}
			if s.Name != "gateway" && len(s.Ports) != 0 {
				t.Errorf("publishes %+v", s.Ports)
			}
		})
	}
}

// TestPublishedAddr: the gateway is told the address its port is published
// on, which is loopback, whatever GHOPS_PORT says (validate_environment
// then has no not-loopback warning).
func TestPublishedAddr(t *testing.T) {
	for _, port := range []string{"", "9999"} {
		t.Run("GHOPS_PORT="+port, func(t *testing.T) {
			env := map[string]string{}
			if port != "" {
				env["GHOPS_PORT"] = port
			} else {
				port = "8788"
			}
			g, err := load(t, env).GetService("gateway")
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Ports) != 1 || g.Ports[0].HostIP != "127.0.0.1" || g.Ports[0].Published != port {
				t.Fatalf("ports %+v, want 127.0.0.1:%s", g.Ports, port)
			}
			if got := envOf(g, "GHOPS_PUBLISHED_ADDR"); got != "127.0.0.1:"+port {
				t.Errorf("GHOPS_PUBLISHED_ADDR %q, want 127.0.0.1:%s", got, port)
			}
		})
	}
}

// TestRedisCommandStartsRedis runs Debian's redis-server with the redis
// service's command (on a free loopback port) and checks that it answers
// PING: a misspelt option would otherwise only show at `docker compose up`.
func TestRedisCommandStartsRedis(t *testing.T) {
	bin := redisbin.Path(t)
	r, err := load(t, map[string]string{"COMPOSE_PROFILES": "redis"}).GetService("redis")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Command) == 0 || r.Command[0] != "redis-server" {
		t.Fatalf("command %q", r.Command)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	_ = l.Close()
	cmd := exec.Command(bin, append(slices.Clone([]string(r.Command[1:])), "--port", port, "--bind", "127.0.0.1", "--dir", t.TempDir())...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			_, _ = c.Write([]byte("PING\r\n"))
			buf := make([]byte, 7)
			_, err = io.ReadFull(c, buf)
			c.Close()
			if err == nil && string(buf) == "+PONG\r\n" {
				return
			}
		}
		if i == 100 {
			t.Fatalf("redis-server %q never answered PING: %v\n%s", r.Command, err, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
