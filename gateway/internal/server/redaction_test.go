package server

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/grpc/codes"

	"ghops.dev/gateway/internal/fakeservicetest"
)

// leakToken is what a client or GitHub might echo: it must never come back.
const leakToken = "ghp_leakleakleakleakleakleakleak0123456789"

func init() {
	// A service status echoing a token in its message, data.github.message and
	// data.resource.id (a GitHub message quoting a URL with credentials, say).
	scenarios["o/leaky"] = fakeservicetest.Status(codes.NotFound, "Not Found: https://x:"+leakToken+"@github.com",
		ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, map[string]string{"repo": "o/leaky", "tool": "fetch"},
		&ghopsv1.GitHubError{Status: 404, Message: "token " + leakToken + " cannot see it",
			Resource: &ghopsv1.Resource{Type: "repository", Id: "o/x_" + leakToken}})
}

var freshIDRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestRequestIDNotEchoedWhenTokenShaped: X-Request-Id is echoed (and logged
// and sent to the service) only when it is plain and holds no token.
func TestRequestIDNotEchoedWhenTokenShaped(t *testing.T) {
	f := newFixture(t)
	gw := f.newGateway(t, nil)
	tests := []struct {
		name, id string
		echoed   bool
	}{
		{"plain id is kept", "req-42.a_b", true},
		{"GitHub token", leakToken, false},
		{"token after a word character", "x_" + leakToken, false},
		{"demo token", "ghops-demo-token", false},
		{"JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl", false},
		{"too long", strings.Repeat("a", 65), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, gw.url, fetch("1", "o/broken"), "X-Request-Id", tc.id)
			got := resp.Header.Get("X-Request-Id")
			if tc.echoed {
				if got != tc.id {
					t.Errorf("X-Request-Id = %q, want %q echoed", got, tc.id)
				}
				return
			}
			if got == tc.id || !freshIDRE.MatchString(got) {
				t.Errorf("X-Request-Id = %q, want a fresh id", got)
			}
			if strings.Contains(string(body), tc.id) || strings.Contains(gw.logs.String(), tc.id) {
				t.Errorf("the id reached the body or the log:\n%s\n%s", body, gw.logs.String())
			}
		})
	}
}

// TestRPCErrorDataRedacted sends a token where /rpc echoes client input
// (data.tool, validation_errors[].value and params) and has the service echo
// one (message, data.github.message, data.resource.id).
func TestRPCErrorDataRedacted(t *testing.T) {
	f := newFixture(t)
	gw := f.newGateway(t, nil)
	tests := []struct {
		name, body, want string
	}{
		{"unknown method named like a token", call("1", leakToken, `{}`), `"tool":"[REDACTED]"`},
		{"token as an invalid argument value", call("1", "fetch", `{"repo":"`+leakToken+`"}`), `"value":"[REDACTED]"`},
		{"token as an unknown argument name", call("1", "fetch", `{"repo":"o/ok","`+leakToken+`":1}`), `"additionalProperty":"[REDACTED]"`},
		{"service echoes a token", fetch("1", "o/leaky"), `"resource":{"type":"repository","id":"o/x_[REDACTED]"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(gw.logs.String())
			_, body := post(t, gw.url, tc.body)
			if !json.Valid(body) {
				t.Fatalf("not JSON: %s", body)
			}
			if strings.Contains(string(body), "leakleak") {
				t.Errorf("token answered: %s", body)
			}
			if !strings.Contains(string(body), tc.want) {
				t.Errorf("body lacks %s: %s", tc.want, body)
			}
			if logs := gw.logs.String()[before:]; strings.Contains(logs, "leakleak") {
				t.Errorf("token logged: %s", logs)
			}
		})
	}
}
