package config

import (
	"io"
	"slices"
	"testing"
)

// TestConfirmFlag: -confirm and GHOPS_CONFIRM list the tools a person must
// confirm for every caller (the flag beats the variable; none by default).
func TestConfirmFlag(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want []string
	}{
		{"none by default", nil, nil, nil},
		{"from env", nil, map[string]string{"GHOPS_CONFIRM": "merge_pull_request, update_*"}, []string{"merge_pull_request", "update_*"}},
		{"flag beats env", []string{"-confirm", "commit_files"}, map[string]string{"GHOPS_CONFIRM": "merge_pull_request"}, []string{"commit_files"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.Confirm, tc.want) {
				t.Fatalf("Confirm %q, want %q", c.Confirm, tc.want)
			}
		})
	}
}
