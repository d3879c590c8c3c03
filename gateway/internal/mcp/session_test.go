package mcp

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSessionsAcrossReplicas serves one client alternately from two handlers
// sharing a secret: a session minted by A is accepted by B and vice versa,
// while a third handler with another secret refuses it with 404.
func TestSessionsAcrossReplicas(t *testing.T) {
	a := newTestServer(t, WithSessionSecret([]byte("shared")))
	b := newTestServer(t, WithSessionSecret([]byte("shared")))
	c := newTestServer(t, WithSessionSecret([]byte("other")))
	r := a.post(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := r.header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("no session id")
	}
	replicas := []*testServer{b, a, b, a}
	for i, s := range replicas {
		r := s.post(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"merge_pull_request","arguments":{"repo":"octo-org/hello-world","prNumber":1}}}`,
			"Mcp-Session-Id", sid, "MCP-Protocol-Version", V20251125)
		if r.status != http.StatusOK || !strings.Contains(string(r.body), `"merged":true`) {
			t.Fatalf("call %d: %d %s", i, r.status, r.body)
		}
	}
	if r := c.post(t, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, "Mcp-Session-Id", sid); r.status != http.StatusNotFound {
		t.Fatalf("replica with another secret answered %d", r.status)
	}
}

// TestSessionIDs checks minting and verification, including tampering and
// expiry.
func TestSessionIDs(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := &sessions{secret: []byte("k"), maxAge: time.Hour, now: func() time.Time { return now }}
	id := s.mint(V20250618, "api-key:a")
	tests := []struct {
		name    string
		id      string
		at      time.Time
		wantErr bool
	}{
		{"fresh", id, now, false},
		{"other replica, later", id, now.Add(59 * time.Minute), false},
		{"expired", id, now.Add(61 * time.Minute), true},
		{"tampered mac", tamperMAC(id), now, true},
		{"tampered payload", strings.Replace(id, "s1.", "s1.A", 1), now, true},
		{"garbage", "hello", now, true},
		{"another principal", id, now, true},
		{"empty", "", now, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			at := tc.at
			s.now = func() time.Time { return at }
			b := "api-key:a"
			if tc.name == "another principal" {
				b = "github:a"
			}
			v, err := s.check(tc.id, b)
			if (err != nil) != tc.wantErr {
				t.Fatalf("check err %v, wantErr %v", err, tc.wantErr)
			}
			if err == nil && v != V20250618 {
				t.Fatalf("version %q", v)
			}
		})
	}
}

// tamperMAC changes one character of the id's MAC, always to a different one:
// a fixed replacement would sometimes equal the original (the MAC is random),
// and the last character of unpadded base64 carries unused bits, so the third
// from last is changed.
func tamperMAC(id string) string {
	i := len(id) - 3
	c := byte('A')
	if id[i] == c {
		c = 'B'
	}
	return id[:i] + string(c) + id[i+1:]
}
