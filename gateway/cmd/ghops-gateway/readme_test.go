package main

import (
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"

	"ghops.dev/gateway/internal/config"
)

// hostConfig is one README snippet: how an MCP host starts ghops (stdio) or
// where it finds it (http).
type hostConfig struct {
	host, kind string
	command    string
	args       []string
	env        map[string]string
	url        string
}

// hostSnippet matches a marked snippet: <!-- host-config: HOST KIND -->
// followed by a fenced block.
var hostSnippet = regexp.MustCompile("(?s)<!-- host-config: ([a-z-]+) (stdio|http) -->\\s*```(json|sh)\\n(.*?)```")

// server is a server entry of the JSON configurations (Claude Desktop and
// Cursor: mcpServers; VS Code: servers, with type and inputs).
type server struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
}

// parseHostConfig reads one snippet in its host's format.
func parseHostConfig(host, kind, lang, body string) (hostConfig, error) {
	hc := hostConfig{host: host, kind: kind}
	switch lang {
	case "json":
		var doc struct {
			MCPServers map[string]server `json:"mcpServers"`
			Servers    map[string]server `json:"servers"`
			Inputs     []struct {
				Type        string `json:"type"`
				ID          string `json:"id"`
				Description string `json:"description"`
				Password    bool   `json:"password"`
			} `json:"inputs"`
		}
		dec := json.NewDecoder(strings.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&doc); err != nil {
			return hc, err
		}
		servers := doc.MCPServers
		if host == "vscode" {
			if doc.MCPServers != nil {
				return hc, errors.New("VS Code's mcp.json has servers, not mcpServers")
			}
			servers = doc.Servers
		} else if doc.Servers != nil {
			return hc, errors.New(host + " reads mcpServers, not servers")
		}
		s, ok := servers["ghops"]
		if !ok || len(servers) != 1 {
			return hc, errors.New(`want exactly one server, "ghops"`)
		}
		if host == "vscode" && s.Type != kind {
			return hc, errors.New(`VS Code needs "type": "` + kind + `"`)
		}
		for k, v := range s.Env {
			if m := regexp.MustCompile(`^\$\{input:([a-z_]+)\}$`).FindStringSubmatch(v); m != nil {
				found := false
				for _, in := range doc.Inputs {
					found = found || in.ID == m[1]
				}
				if !found {
					return hc, errors.New(k + " names an input that is not declared: " + m[1])
				}
			}
		}
		hc.command, hc.args, hc.env, hc.url = s.Command, s.Args, s.Env, s.URL
		if hc.command == "npx" && kind == "http" {
			// mcp-remote bridges a stdio-only host to the HTTP endpoint.
			if len(s.Args) == 0 || s.Args[len(s.Args)-1] == "" || !containsString(s.Args, "mcp-remote") {
				return hc, errors.New("npx without mcp-remote URL")
			}
			hc.url = s.Args[len(s.Args)-1]
		}
	case "sh":
		words := strings.Fields(strings.TrimSpace(strings.ReplaceAll(body, "\\\n", " ")))
		if len(words) < 4 || strings.Join(words[:3], " ") != "claude mcp add" {
			return hc, errors.New("not a `claude mcp add` command")
		}
		hc.env = map[string]string{}
		rest := words[3:]
		transport := ""
		var positional []string
		for i := 0; i < len(rest); i++ {
			switch w := rest[i]; {
			case w == "--":
				positional = append(positional, rest[i+1:]...)
				i = len(rest)
			case (w == "--transport" || w == "-t") && i+1 < len(rest):
				transport = rest[i+1]
				i++
			case (w == "--env" || w == "-e") && i+1 < len(rest):
				k, v, ok := strings.Cut(rest[i+1], "=")
				if !ok {
					return hc, errors.New("--env wants KEY=value")
				}
				hc.env[k] = v
				i++
			case strings.HasPrefix(w, "-"):
				return hc, errors.New("unexpected option " + w)
			default:
				positional = append(positional, w)
			}
		}
		if transport != kind {
			return hc, errors.New("--transport " + transport + ", want " + kind)
		}
		if len(positional) < 2 || positional[0] != "ghops" {
			return hc, errors.New("want: claude mcp add [options] ghops <command or URL> [args]")
		}
		if kind == "http" {
			hc.url = positional[1]
		} else {
			hc.command, hc.args = positional[1], positional[2:]
		}
	}
	return hc, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestREADMEHostConfigs parses every host snippet of README.md and starts
// what it names: a stdio snippet's command is the built ghops-gateway,
// started with the snippet's arguments and environment (its token replaced
// by fakehub's, and GITHUB_API_URL pointing at fakehub) and driven over
// stdio; an HTTP snippet must name the gateway's default /mcp endpoint,
// which is then called on a running gateway.
func TestREADMEHostConfigs(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	matches := hostSnippet.FindAllStringSubmatch(string(readme), -1)
	seen := map[string]bool{}
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	gw := startHTTP(t, hub, nil)
	wantURL := "http://" + config.Default().Addr + "/mcp"
	for _, m := range matches {
		host, kind, lang, body := m[1], m[2], m[3], m[4]
		seen[host+" "+kind] = true
		t.Run(host+" "+kind, func(t *testing.T) {
			hc, err := parseHostConfig(host, kind, lang, body)
			if err != nil {
				t.Fatalf("snippet:\n%s\n%v", body, err)
			}
			switch kind {
			case "stdio":
				if filepath.Base(hc.command) != "ghops-gateway" || !filepath.IsAbs(hc.command) {
					t.Fatalf("command %q: want the absolute path of bin/ghops-gateway", hc.command)
				}
				if !containsString(hc.args, "-embedded") || !containsString(hc.args, "stdio") || len(hc.args) != 2 {
					t.Fatalf("args %q: want -embedded and stdio", hc.args)
				}
				if _, ok := hc.env["GITHUB_TOKEN"]; !ok {
					t.Fatalf("env %v sets no GITHUB_TOKEN", hc.env)
				}
				env := demoEnv(hub)
				for k, v := range hc.env {
					if k != "GITHUB_TOKEN" {
						env[k] = v
					}
				}
				s, _, stderr := stdioSession(t, gatewayBinary(t), hc.args, env)
				checkSession(t, s)
				if err := s.Close(); err != nil {
					t.Errorf("close: %v\n%s", err, stderr.String())
				}
			case "http":
				if hc.url != wantURL {
					t.Fatalf("URL %q, want the gateway's default endpoint %s", hc.url, wantURL)
				}
				if hc.command != "" && hc.command != "npx" {
					t.Fatalf("an HTTP snippet starts %q", hc.command)
				}
				u, _ := url.Parse(hc.url)
				u.Host = gw.addr // the same endpoint, on the test's port
				checkSession(t, httpSession(t, u.String()))
			}
		})
	}
	for _, host := range []string{"claude-desktop", "claude-code", "vscode", "cursor"} {
		for _, kind := range []string{"stdio", "http"} {
			if !seen[host+" "+kind] {
				t.Errorf("README.md has no %s snippet for %s", kind, host)
			}
		}
	}
}
