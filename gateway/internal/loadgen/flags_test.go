package loadgen

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr []string // substrings of the error; nil means no error
		check   func(t *testing.T, o Options)
	}{
		{name: "defaults", check: func(t *testing.T, o Options) {
			c := o.Run
			if c.Target != DefaultTarget || c.Endpoint != EndpointRPC || c.Concurrency != 8 || c.Duration != 10*time.Second ||
				c.Requests != 1000 || c.Warmup != 0 || c.Timeout != 30*time.Second || c.MCPVersion != DefaultMCPVersion ||
				c.FakehubAdminURL != "" || c.FakehubAdminToken != "" || o.JSON {
				t.Errorf("got %+v", o)
			}
			if len(c.Mix) != 1 || c.Mix[0].Tool != "read_file" || string(c.Mix[0].Args) != string(DemoArgs["read_file"]) {
				t.Errorf("mix = %+v", c.Mix)
			}
		}},
		{name: "env fallbacks", env: map[string]string{
			"GHOPS_LOAD_TARGET": "http://127.0.0.1:1", "GHOPS_LOAD_ENDPOINT": "mcp", "GHOPS_LOAD_TOOLS": "search:2",
			"GHOPS_LOAD_CONCURRENCY": "3", "GHOPS_LOAD_DURATION": "2s", "GHOPS_LOAD_REQUESTS": "50",
			"GHOPS_LOAD_FAKEHUB_ADMIN": "http://127.0.0.1:2", "FAKEHUB_ADMIN_TOKEN": "s3cr3t",
		}, check: func(t *testing.T, o Options) {
			c := o.Run
			if c.Target != "http://127.0.0.1:1" || c.Endpoint != EndpointMCP || c.Concurrency != 3 || c.Duration != 2*time.Second ||
				c.Requests != 50 || c.FakehubAdminURL != "http://127.0.0.1:2" || c.FakehubAdminToken != "s3cr3t" {
				t.Errorf("got %+v", c)
			}
			if len(c.Mix) != 2 || c.Mix[0].Tool != "search" {
				t.Errorf("mix = %+v", c.Mix)
			}
		}},
		{name: "flags win", args: []string{"-target", "http://localhost:3", "-endpoint", "rpc", "-tools", "get_tree", "-c", "4",
			"-duration", "1s", "-requests", "9", "-warmup", "2", "-timeout", "5s", "-mcp-version", "2025-03-26", "-json",
			"-args", `get_tree={"repo":"a/b"}`},
			env: map[string]string{"GHOPS_LOAD_TARGET": "http://127.0.0.1:1", "GHOPS_LOAD_ENDPOINT": "mcp", "GHOPS_LOAD_TOOLS": "search",
				"GHOPS_LOAD_CONCURRENCY": "3", "GHOPS_LOAD_DURATION": "2s", "GHOPS_LOAD_REQUESTS": "50"},
			check: func(t *testing.T, o Options) {
				c := o.Run
				if c.Target != "http://localhost:3" || c.Endpoint != EndpointRPC || c.Concurrency != 4 || c.Duration != time.Second ||
					c.Requests != 9 || c.Warmup != 2 || c.Timeout != 5*time.Second || c.MCPVersion != "2025-03-26" || !o.JSON {
					t.Errorf("got %+v", o)
				}
				if len(c.Mix) != 1 || c.Mix[0].Tool != "get_tree" || string(c.Mix[0].Args) != `{"repo":"a/b"}` {
					t.Errorf("mix = %+v", c.Mix)
				}
			}},
		{name: "flag wins over bad env", args: []string{"-c", "2", "-duration", "1s", "-requests", "3"},
			env: map[string]string{"GHOPS_LOAD_CONCURRENCY": "many", "GHOPS_LOAD_DURATION": "10", "GHOPS_LOAD_REQUESTS": "x"},
			check: func(t *testing.T, o Options) {
				if o.Run.Concurrency != 2 || o.Run.Duration != time.Second || o.Run.Requests != 3 {
					t.Errorf("got %+v", o.Run)
				}
			}},
		{name: "bad concurrency env", env: map[string]string{"GHOPS_LOAD_CONCURRENCY": "many"}, wantErr: []string{"GHOPS_LOAD_CONCURRENCY", "-c", `"many"`}},
		{name: "bad duration env", env: map[string]string{"GHOPS_LOAD_DURATION": "10"}, wantErr: []string{"GHOPS_LOAD_DURATION", "-duration"}},
		{name: "bad requests env", env: map[string]string{"GHOPS_LOAD_REQUESTS": "1e3"}, wantErr: []string{"GHOPS_LOAD_REQUESTS", "-requests"}},
		{name: "bad concurrency flag", args: []string{"-c", "x"}, wantErr: []string{"-c"}},
		{name: "zero concurrency", args: []string{"-c", "0"}, wantErr: []string{"concurrency"}},
		{name: "negative duration", args: []string{"-duration", "-1s"}, wantErr: []string{"duration"}},
		{name: "too many requests", args: []string{"-requests", "10000001"}, wantErr: []string{"requests"}},
		{name: "negative warmup", args: []string{"-warmup", "-1"}, wantErr: []string{"warmup"}},
		{name: "bad endpoint", args: []string{"-endpoint", "grpc"}, wantErr: []string{"endpoint"}},
		{name: "non-loopback target", env: map[string]string{"GHOPS_LOAD_TARGET": "http://192.0.2.1:8788"}, wantErr: []string{"loopback"}},
		{name: "non-loopback admin", args: []string{"-fakehub-admin", "http://192.0.2.1/"}, env: map[string]string{"FAKEHUB_ADMIN_TOKEN": "s3cr3t"}, wantErr: []string{"fakehub admin"}},
		{name: "admin without token", args: []string{"-fakehub-admin", "http://127.0.0.1:8789"}, wantErr: []string{"FAKEHUB_ADMIN_TOKEN"}},
		{name: "unknown tool", args: []string{"-tools", "nope"}, wantErr: []string{"-tools", `"nope"`}},
		{name: "bad weight", args: []string{"-tools", "read_file:0"}, wantErr: []string{"-tools", "1..100"}},
		{name: "bad args", args: []string{"-args", "read_file={"}, wantErr: []string{"-args", "tool=JSON"}},
		{name: "args without name", args: []string{"-args", `={}`}, wantErr: []string{"-args"}},
		{name: "unknown flag", args: []string{"-token", "x"}, wantErr: []string{"-token"}},
		{name: "positional argument", args: []string{"read_file"}, wantErr: []string{`"read_file"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := ParseFlags(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				tt.check(t, o)
				return
			}
			if err == nil {
				t.Fatalf("no error; options %+v", o)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("error leaks the admin token: %q", err)
			}
		})
	}
}
