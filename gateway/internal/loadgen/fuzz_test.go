package loadgen

import "testing"

// FuzzClassify feeds arbitrary answers (the gateway's output is untrusted input here) to the
// answer parser: it never panics and every answer lands in exactly one known class.
func FuzzClassify(f *testing.F) {
	seeds := []struct {
		status int
		body   string
		mcp    bool
	}{
		{200, `{"jsonrpc":"2.0","id":1,"result":{}}`, false},
		{200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32004,"message":"x","data":{"retryAfter":3}}}`, false},
		{429, `{"jsonrpc":"2.0","id":null,"error":{"code":"x"}}`, false},
		{200, `{"jsonrpc":"2.0","id":1,"result":{"isError":true,"structuredContent":{"code":-32005}}}`, true},
		{200, `{"jsonrpc":"2.0","id":1,"result":{"isError":true,"_meta":{"dev.ghops/error":{"code":-32005}}}}`, true},
		{200, `{"jsonrpc":"2.0","id":1,"result":{"isError":"yes","structuredContent":[]}}`, true},
		{502, `bad gateway`, false},
		{200, `[{"jsonrpc":"2.0","id":1,"result":{}}]`, false},
		{200, "", true},
	}
	for _, s := range seeds {
		f.Add(s.status, []byte(s.body), s.mcp)
	}
	f.Fuzz(func(t *testing.T, status int, body []byte, mcp bool) {
		k, code := classify(status, body, "1", mcp)
		switch k {
		case kindOK, kindMalformed:
			if code != 0 {
				t.Fatalf("kind %v with code %d", k, code)
			}
		case kindHTTP:
			if code != status {
				t.Fatalf("HTTP failure code %d for status %d", code, status)
			}
		case kindRPCError:
		default:
			t.Fatalf("unexpected kind %v", k)
		}
	})
}
