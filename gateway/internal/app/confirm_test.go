package app

import (
	"strings"
	"testing"

	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/logtest"
)

// TestConfirmFlagChecked: -confirm names tools as the policy file does: a
// name or glob that matches no tool stops the gateway at start, naming it;
// one that matches starts it.
func TestConfirmFlagChecked(t *testing.T) {
	tests := []struct {
		name    string
		confirm []string
		wantErr string
	}{
		{"tool names", []string{"merge_pull_request", "update_*"}, ""},
		{"typo", []string{"merge_pull_reqest"}, `-confirm: "merge_pull_reqest" matches no tool`},
		{"bad glob", []string{"["}, `-confirm: "["`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Addr = "127.0.0.1:0"
			cfg.ServiceAddr = "127.0.0.1:1" // dialled lazily: nothing is called
			cfg.Confirm = tc.confirm
			a, err := New(cfg, &logtest.Buffer{})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				_ = a.Close()
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err %v, want %q", err, tc.wantErr)
			}
		})
	}
}
