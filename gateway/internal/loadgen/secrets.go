package loadgen

import "strings"

// redact removes a secret from an error's text.
func redact(err error, secret string) string {
	return redactText(err.Error(), secret)
}

// redactText removes a secret from a text. It stays next to the only two secrets ghops-load holds
// (the fakehub admin token and the Authorization value), both known exactly, rather than using the
// shape-based ghops.dev/redact: a value such as "Bearer s3cret" need not look like a token.
func redactText(s, secret string) string {
	if secret != "" {
		s = strings.ReplaceAll(s, secret, "[redacted]")
		// The bare token of a "Bearer t" value may be echoed alone.
		if _, tok, ok := strings.Cut(secret, " "); ok && tok != "" {
			s = strings.ReplaceAll(s, tok, "[redacted]")
		}
	}
	return s
}
