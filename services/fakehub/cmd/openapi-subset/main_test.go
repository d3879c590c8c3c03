package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	desc := filepath.Join(dir, "deref.json")
	ops := filepath.Join(dir, "ops.txt")
	if err := os.WriteFile(desc, []byte(`{"openapi":"3.0.3","info":{"title":"GitHub","version":"1"},"paths":{"/a":{"get":{"responses":{}}},"/b":{"get":{}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ops, []byte("# kept\nGET /a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
		want    string // a fragment of the written subset
	}{
		{name: "flags", args: []string{"-description", desc, "-operations", ops, "-out", filepath.Join(dir, "flags.json")}, want: `"/a"`},
		{name: "environment", env: map[string]string{"OPENAPI_SUBSET_DESCRIPTION": desc, "OPENAPI_SUBSET_OPERATIONS": ops, "OPENAPI_SUBSET_OUT": filepath.Join(dir, "env.json")}, want: `"/a"`},
		{name: "no description", args: []string{"-operations", ops}, wantErr: "-description is required"},
		{name: "missing operations file", args: []string{"-description", desc, "-operations", filepath.Join(dir, "none.txt")}, wantErr: "none.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			err := run(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out := tc.env["OPENAPI_SUBSET_OUT"]
			if out == "" {
				out = tc.args[len(tc.args)-1]
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), tc.want) || strings.Contains(string(data), `"/b"`) {
				t.Fatalf("subset %s", data)
			}
		})
	}
}
