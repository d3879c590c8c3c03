package sdkvariant

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// TestSDKVariantAnswers checks that the SDK variant answers the measured
// calls as today's gateway does (the same result or error object), so that
// the two are compared doing the same work.
func TestSDKVariantAnswers(t *testing.T) {
	st := newStack(t)
	tests := []struct {
		name, version, tool, args string
		want                      string // a substring both answers must contain
	}{
		{"read_file", "2025-06-18", "read_file", `{"repo":"o/r","path":"README.md","branch":"main"}`, `"structuredContent"`},
		{"get_branches", "2025-06-18", "get_branches", `{"repo":"o/r"}`, `feature/greeting`},
		{"read_file 2025-03-26 has no structuredContent", "2025-03-26", "read_file", `{"repo":"o/r","path":"README.md"}`, `A demo repository`},
		{"not found is an isError result", "2025-06-18", "read_file", `{"repo":"o/missing","path":"README.md"}`, `"isError":true`},
		{"not found without a version is a JSON-RPC error", "", "read_file", `{"repo":"o/missing","path":"README.md"}`, `"code":-32002`},
		{"_meta in arguments is ignored", "2025-06-18", "get_branches", `{"repo":"o/r","_meta":{"x":1}}`, `"main"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got [2]answer
			for i, base := range []string{st.ours, st.sdk} {
				c := newClient(t, base, tc.version)
				resp, body := c.post(t, callBody(tc.tool, tc.args))
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), tc.want) {
					t.Fatalf("%s: HTTP %d, want %s in: %s", base, resp.StatusCode, tc.want, body)
				}
				got[i] = decode(t, body)
			}
			if !reflect.DeepEqual(got[0], got[1]) {
				t.Errorf("answers differ:\nours %#v\nsdk  %#v", got[0], got[1])
			}
		})
	}
}
