package gatewaytest

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ghops.dev/services/github/servicetest"

	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/httpcall"
)

const serviceSecret = "svc-secret-0123456789abcdef"

// TestServiceAuth runs the gateway against a service that authenticates
// its callers: with the right credentials calls work; with none or wrong
// ones every call is -32603 "Service unavailable", the cause is logged and
// neither secret appears in an answer or a log line.
func TestServiceAuth(t *testing.T) {
	pki := servicetest.NewPKI(t)
	wrong := filepath.Join(t.TempDir(), "wrong")
	if err := os.WriteFile(wrong, []byte("wrong-secret-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(t.TempDir(), "old")
	if err := os.WriteFile(old, []byte(serviceSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		opts      StackOptions
		configure func(*config.Config)
		ok        bool
		cause     string // logged for a refusal
		// notReady: /readyz says 503. A gateway with no secret looks ready
		// (health is open to probes); one with a wrong secret does not.
		notReady bool
	}{
		{name: "shared secret", opts: StackOptions{ServiceSecret: serviceSecret}, ok: true},
		{name: "no secret", opts: StackOptions{ServiceSecret: serviceSecret}, configure: func(c *config.Config) { c.ServiceSecretFile = "" },
			cause: "no bearer secret and no verified client certificate"},
		{name: "wrong secret", opts: StackOptions{ServiceSecret: serviceSecret}, configure: func(c *config.Config) { c.ServiceSecretFile = wrong },
			cause: "wrong bearer secret", notReady: true},
		// A rotation: the service accepts the new secret and the old one
		// (its file has both); gateways still on the old file work, and
		// gateways on the new file send its first line.
		{name: "rotation: gateway on the new file", opts: StackOptions{ServiceSecret: "new-secret-0123456789abcdef\n" + serviceSecret}, ok: true},
		{name: "rotation: gateway still on the old secret", opts: StackOptions{ServiceSecret: "new-secret-0123456789abcdef\n" + serviceSecret},
			configure: func(c *config.Config) { c.ServiceSecretFile = old }, ok: true},
		{name: "rotation: neither secret", opts: StackOptions{ServiceSecret: "new-secret-0123456789abcdef\n" + serviceSecret},
			configure: func(c *config.Config) { c.ServiceSecretFile = wrong }, cause: "wrong bearer secret", notReady: true},
		{name: "mTLS", opts: StackOptions{ServicePKI: &pki}, ok: true},
		{name: "TLS without a client certificate", opts: StackOptions{ServicePKI: &pki},
			configure: func(c *config.Config) { c.ServiceTLSCert, c.ServiceTLSKey = "", "" },
			cause:     "no bearer secret and no verified client certificate"},
		{name: "plaintext to a TLS service", opts: StackOptions{ServicePKI: &pki},
			configure: func(c *config.Config) { c.ServiceTLSCA, c.ServiceTLSCert, c.ServiceTLSKey = "", "", "" },
			cause:     "Unavailable", notReady: true},
		{name: "mTLS or secret: secret over TLS", opts: StackOptions{ServicePKI: &pki, ServiceSecret: serviceSecret},
			configure: func(c *config.Config) { c.ServiceTLSCert, c.ServiceTLSKey = "", "" }, ok: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Configure = tc.configure
			st := StartStack(t, tc.opts)
			resp, body := httpcall.Do(t, http.MethodGet, st.URL+"/readyz", "")
			if want := map[bool]int{false: 200, true: 503}[tc.notReady]; resp.StatusCode != want {
				t.Errorf("/readyz = %d want %d: %s", resp.StatusCode, want, body)
			}
			_, _, out := rpc(t, st.URL, "fetch", `{"repo":"octo-org/hello-world"}`)
			if tc.ok {
				if c := code(t, out); c != 0 {
					t.Fatalf("call failed: %s", out["error"])
				}
			} else {
				var e struct {
					Code    int
					Message string
					Data    map[string]any
				}
				if err := json.Unmarshal(out["error"], &e); err != nil {
					t.Fatalf("want an error, got %v", out)
				}
				if e.Code != -32603 || e.Message != "Service unavailable" || e.Data["requestId"] == nil {
					t.Fatalf("error = %+v, want -32603 Service unavailable with a requestId", e)
				}
				if st.Hub.Stats().Total != 0 {
					t.Errorf("GitHub was called %d times by a refused caller", st.Hub.Stats().Total)
				}
				if !strings.Contains(st.Gateway.Logs(), `msg="Service unavailable"`) {
					t.Errorf("no jsonrpc_error line:\n%s", st.Gateway.Logs())
				}
				if logs := st.Gateway.Logs(); !strings.Contains(logs, tc.cause) {
					t.Errorf("the cause %q is not logged:\n%s", tc.cause, logs)
				}
			}
			raw, _ := json.Marshal(out)
			for _, s := range []string{serviceSecret, "wrong-secret-0123456789", "new-secret-0123456789"} {
				if strings.Contains(string(raw), s) || strings.Contains(st.Gateway.Logs(), s) {
					t.Errorf("%q leaked: answer %s\nlogs:\n%s", s, raw, st.Gateway.Logs())
				}
			}
		})
	}
}
