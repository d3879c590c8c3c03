package loadgen

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseFlagsMoreVariables(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
		check   func(t *testing.T, o Options)
	}{
		{name: "variables", env: map[string]string{
			"GHOPS_LOAD_WARMUP": "4", "GHOPS_LOAD_TIMEOUT": "3s", "GHOPS_LOAD_MCP_VERSION": "2025-06-18", "GHOPS_LOAD_JSON": "true",
			"GHOPS_LOAD_ARGS": `{"read_file":{"repo":"octo-org/hello-world","path":"docs/guide.md"}}`,
		}, check: func(t *testing.T, o Options) {
			c := o.Run
			if c.Warmup != 4 || c.Timeout != 3*time.Second || c.MCPVersion != "2025-06-18" || !o.JSON {
				t.Errorf("got %+v", o)
			}
			if len(c.Mix) != 1 || !strings.Contains(string(c.Mix[0].Args), "docs/guide.md") {
				t.Errorf("mix = %+v", c.Mix)
			}
		}},
		{name: "flags win", args: []string{"-warmup", "1", "-timeout", "9s", "-json=false", "-args", `read_file={"repo":"a/b","path":"x"}`},
			env: map[string]string{"GHOPS_LOAD_WARMUP": "4", "GHOPS_LOAD_TIMEOUT": "3s", "GHOPS_LOAD_JSON": "true", "GHOPS_LOAD_ARGS": `{"read_file":{"repo":"c/d","path":"y"}}`},
			check: func(t *testing.T, o Options) {
				c := o.Run
				if c.Warmup != 1 || c.Timeout != 9*time.Second || o.JSON || !strings.Contains(string(c.Mix[0].Args), `"a/b"`) {
					t.Errorf("got %+v, mix %s", o, c.Mix[0].Args)
				}
			}},
		{name: "version", args: []string{"-version"}, check: func(t *testing.T, o Options) {
			if !o.ShowVersion {
				t.Errorf("got %+v", o)
			}
		}},
		{name: "authorization from the environment only", env: map[string]string{"GHOPS_LOAD_AUTHORIZATION": "Bearer github_pat_x"},
			check: func(t *testing.T, o Options) {
				if o.Run.Authorization != "Bearer github_pat_x" {
					t.Errorf("Authorization = %q", o.Run.Authorization)
				}
			}},
		{name: "authorization on two lines", env: map[string]string{"GHOPS_LOAD_AUTHORIZATION": "Bearer a\r\nX-Evil: 1"}, wantErr: "GHOPS_LOAD_AUTHORIZATION must be one line"},
		{name: "stdio command", args: []string{"-endpoint", "stdio", "-command", "  /bin/mcp-server  stdio --x "},
			check: func(t *testing.T, o Options) {
				if o.Run.Endpoint != EndpointStdio || strings.Join(o.Run.Command, "|") != "/bin/mcp-server|stdio|--x" {
					t.Errorf("endpoint %q command %q", o.Run.Endpoint, o.Run.Command)
				}
			}},
		{name: "stdio command from the environment", env: map[string]string{"GHOPS_LOAD_ENDPOINT": "stdio", "GHOPS_LOAD_COMMAND": "srv stdio"},
			check: func(t *testing.T, o Options) {
				if strings.Join(o.Run.Command, "|") != "srv|stdio" {
					t.Errorf("command %q", o.Run.Command)
				}
			}},
		{name: "stdio without a command", args: []string{"-endpoint", "stdio"}, wantErr: "needs the server's command (-command)"},
		{name: "command without stdio", args: []string{"-endpoint", "mcp", "-command", "srv"}, wantErr: "-command is for -endpoint stdio"},
		{name: "bad args", env: map[string]string{"GHOPS_LOAD_ARGS": "[1]"}, wantErr: "GHOPS_LOAD_ARGS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ParseFlags(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, o)
		})
	}
}
