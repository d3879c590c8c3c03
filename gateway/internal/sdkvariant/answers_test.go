package sdkvariant

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
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

// TestSDKVariantCaller checks that the caller authn authenticates reaches
// the call path through the SDK (callerMiddleware): with a policy file whose
// one principal may call get_branches only, both gateways refuse a request
// without the key alike and serve get_branches, and the variant refuses
// read_file, which it would serve without the caller.
func TestSDKVariantCaller(t *testing.T) {
	const key = "sdkvariant-reader-key"
	sum := sha256.Sum256([]byte(key))
	file := filepath.Join(t.TempDir(), "policy.yaml")
	doc := "principals:\n  - name: reader\n    key_sha256: " + hex.EncodeToString(sum[:]) + "\n    tools: [get_branches]\n"
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	st := newStack(t, "-policy", file)
	branches, readme := callBody("get_branches", `{"repo":"o/r"}`), callBody("read_file", `{"repo":"o/r","path":"README.md"}`)
	tests := []struct {
		name    string
		base    string
		key     string
		body    []byte
		status  int
		want    string // in the body
		refusal bool   // the answer is a refusal (isError or a JSON-RPC error)
	}{
		{"ours without a key", st.ours, "", branches, http.StatusUnauthorized, "Unauthorized", true},
		{"sdk without a key", st.sdk, "", branches, http.StatusUnauthorized, "Unauthorized", true},
		{"ours get_branches", st.ours, key, branches, http.StatusOK, "feature/greeting", false},
		{"sdk get_branches", st.sdk, key, branches, http.StatusOK, "feature/greeting", false},
		{"ours read_file refused", st.ours, key, readme, http.StatusOK, "read_file", true},
		{"sdk read_file refused", st.sdk, key, readme, http.StatusOK, "read_file", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &client{http: http.DefaultClient, url: tc.base + "/mcp", version: "2025-06-18", key: tc.key}
			resp, body := c.post(t, tc.body)
			refused := strings.Contains(string(body), `"isError":true`) || strings.Contains(string(body), `"error":`)
			if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.want) || refused != tc.refusal {
				t.Fatalf("HTTP %d (want %d), refused %v (want %v), want %q in: %s", resp.StatusCode, tc.status, refused, tc.refusal, tc.want, body)
			}
		})
	}
}
