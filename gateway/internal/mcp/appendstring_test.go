package mcp

import (
	"bytes"
	"encoding/json"
	"testing"
)

// encoderString is what appendString must give: encoding/json's Encoder
// without HTML escaping.
func encoderString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// TestAppendString compares appendString with encoding/json on the strings
// whose escaping differs between encoders.
func TestAppendString(t *testing.T) {
	tests := []struct{ name, in string }{
		{"empty", ""},
		{"plain", "octo-org/hello-world"},
		{"json result", `{"path":"README.md","content":"# Hello\n\"quoted\" \\ back"}`},
		{"html kept", "<b>&amp;</b>"},
		{"control characters", "\x00\x01\b\f\n\r\t\x1f\x7f"},
		{"line separators", "a\u2028b\u2029c"},
		{"invalid utf-8", "ok\xff\xc3(\xe2\x82"},
		{"replacement character written out", "\ufffd"},
		{"multi-byte", "héllo ✓ 𝄞 日本語"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := encoderString(tc.in)
			if got := appendString(nil, tc.in); !bytes.Equal(got, want) {
				t.Errorf("appendString(%q) = %s, encoding/json %s", tc.in, got, want)
			}
			if got := appendString([]byte("x"), tc.in); !bytes.Equal(got, append([]byte("x"), want...)) {
				t.Errorf("appendString after a prefix = %s", got)
			}
		})
	}
}

// FuzzAppendString holds appendString to encoding/json's bytes.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\u2028", "\xff", "<&>", "\x00\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendString(nil, s), encoderString(s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, encoding/json %s", s, got, want)
		}
	})
}
