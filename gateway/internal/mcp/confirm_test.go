package mcp

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"ghops.dev/gateway/internal/toolcall"
)

// question is a confirmation of a call whose digest is d.
func question(d byte) toolcall.Question {
	q := toolcall.Question{Tool: "merge_pull_request", Message: "Allow merge_pull_request on o/r?"}
	q.Digest[0] = d
	return q
}

// TestConfirmState: a sealed state opens only for the principal, the
// call (digest) and before the expiry it was sealed for; anything else,
// including a flipped byte, is refused; a nonce is spent once.
func TestConfirmState(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	c := &confirmStates{secret: []byte("k"), now: func() time.Time { return now }}
	state := c.seal("api-key:a", question(1))
	flipped := []byte(state)
	flipped[len(flipped)-2] ^= 1
	parts := strings.Split(state, ".")
	forged := "c1." + base64.RawURLEncoding.EncodeToString([]byte("9999999999.n")) + "." + parts[2]
	tests := []struct {
		name, state, binding string
		q                    toolcall.Question
		at                   time.Duration // after sealing
		wantErr              string
	}{
		{"as sealed", state, "api-key:a", question(1), 0, ""},
		{"just before expiry", state, "api-key:a", question(1), ConfirmTTL - time.Second, ""},
		{"expired", state, "api-key:a", question(1), ConfirmTTL, "expired"},
		{"another principal", state, "api-key:b", question(1), 0, "not issued"},
		{"another call", state, "api-key:a", question(2), 0, "not issued"},
		{"flipped byte", string(flipped), "api-key:a", question(1), 0, "not issued"},
		{"forged expiry", forged, "api-key:a", question(1), 0, "not issued"},
		{"another secret", (&confirmStates{secret: []byte("x"), now: c.now}).seal("api-key:a", question(1)), "api-key:a", question(1), 0, "not issued"},
		{"empty", "", "api-key:a", question(1), 0, "not issued"},
		{"too long", state + strings.Repeat("A", maxState), "api-key:a", question(1), 0, "not issued"},
		{"wrong version", "c2" + state[2:], "api-key:a", question(1), 0, "not issued"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			at := &confirmStates{secret: c.secret, now: func() time.Time { return now.Add(tc.at) }}
			nonce, why := at.open(tc.state, tc.binding, tc.q)
			if tc.wantErr == "" {
				if why != "" || nonce == "" {
					t.Fatalf("refused: %q", why)
				}
				return
			}
			if !strings.Contains(why, tc.wantErr) {
				t.Fatalf("why %q, want %q", why, tc.wantErr)
			}
		})
	}
	nonce, _ := c.open(state, "api-key:a", question(1))
	if !c.spend(nonce) || c.spend(nonce) {
		t.Fatal("a nonce must be spendable exactly once")
	}
}

// FuzzConfirmState: no requestState a client sends makes open panic or
// pass unless the gateway sealed it for that caller and call.
func FuzzConfirmState(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	c := &confirmStates{secret: []byte("k"), now: func() time.Time { return now }}
	good := c.seal("api-key:a", question(1))
	for _, s := range []string{good, "", "c1..", "c1.AAAA.BBBB", good + "=", strings.ToUpper(good)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, why := c.open(s, "api-key:a", question(1)); why == "" && s != good {
			t.Fatalf("accepted a state the gateway did not seal: %q", s)
		}
	})
}

// TestElicitationDeclared reads ClientCapabilities as MCP defines them: an
// empty elicitation object means form.
func TestElicitationDeclared(t *testing.T) {
	tests := []struct {
		caps string
		want bool
	}{
		{`{"elicitation":{}}`, true},
		{`{"elicitation":{"form":{}}}`, true},
		{`{"elicitation":{"form":{},"url":{}}}`, true},
		{`{"elicitation":{"url":{}}}`, false},
		{`{"sampling":{}}`, false},
		{`{}`, false},
		{`{"elicitation":true}`, false},
		{``, false},
	}
	for _, tc := range tests {
		if got := elicitationDeclared([]byte(tc.caps)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.caps, got, tc.want)
		}
	}
}

// TestVerdict: only accept with confirm true confirms.
func TestVerdict(t *testing.T) {
	tests := []struct {
		result string
		want   toolcall.Verdict
	}{
		{`{"action":"accept","content":{"confirm":true}}`, toolcall.Confirmed},
		{`{"action":"accept","content":{"confirm":false}}`, toolcall.Declined},
		{`{"action":"accept","content":{"confirm":"true"}}`, toolcall.Declined},
		{`{"action":"accept"}`, toolcall.Declined},
		{`{"action":"decline"}`, toolcall.Declined},
		{`{"action":"cancel"}`, toolcall.Cancelled},
		{`{"action":"ACCEPT","content":{"confirm":true}}`, toolcall.Cancelled},
		{`{}`, toolcall.Cancelled},
		{`not json`, toolcall.Cancelled},
	}
	for _, tc := range tests {
		if got := verdict([]byte(tc.result)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.result, got, tc.want)
		}
	}
}

// TestSessionElicitFlag: a session minted for a client that declared
// elicitation says so to any replica; the flag is under the MAC.
func TestSessionElicitFlag(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := &sessions{secret: []byte("k"), maxAge: time.Hour, now: func() time.Time { return now }}
	for _, elicit := range []bool{false, true} {
		id := s.mintWith(V20251125, "api-key:a", elicit)
		v, err := s.lookup(id, "api-key:a")
		if err != nil || v.elicit != elicit || v.version != V20251125 {
			t.Fatalf("elicit %v: %+v %v", elicit, v, err)
		}
	}
	parts := strings.Split(s.mintWith(V20251125, "api-key:a", false), ".")
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	forged := "s1." + base64.RawURLEncoding.EncodeToString(append(raw, ".e"...)) + "." + parts[2]
	if _, err := s.lookup(forged, "api-key:a"); err == nil {
		t.Fatal("a session id with an added elicitation flag was accepted")
	}
}
