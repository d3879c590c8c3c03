package toolrpc

import "testing"

// TestToolName: only a method shaped like a tool name is mapped onto a
// tools/call (and so gets the unknown-tool answer when no tool has it);
// anything else is -32601.
func TestToolName(t *testing.T) {
	tests := []struct {
		method string
		want   bool
	}{
		{"read_file", true},
		{"no_such_tool", true},
		{"get2", true},
		{"tools/list", false},
		{"rpc.discover", false},
		{"ReadFile", false},
		{"_x", false},
		{"9lives", false},
		{"", false},
		{string(make([]byte, 129)), false},
	}
	for _, tc := range tests {
		t.Run(tc.method, func(t *testing.T) {
			if got := toolName(tc.method); got != tc.want {
				t.Errorf("toolName(%q) = %v, want %v", tc.method, got, tc.want)
			}
		})
	}
}
