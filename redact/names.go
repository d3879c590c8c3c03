package redact

import "strings"

// secretWords make a name secret wherever they appear in it.
var secretWords = []string{"token", "secret", "passw", "pwd", "apikey", "credential", "session", "signature", "cookie", "jwt"}

// secretSegments make a name secret when one of its segments (split at '.',
// '-' and '_') is exactly one of them: "key" and "x.key" are secret, "monkey"
// and "keyword" are not.
var secretSegments = []string{"key", "sig", "auth", "authorization"}

// IsSecretName reports whether a parameter or JSON member called name holds
// a secret, whose value is then redacted whole whatever its shape: a name
// containing token, secret, passw (password, passwd), pwd, apikey,
// credential, session, signature, cookie or jwt, or with a segment (split at
// '.', '-', '_') that is key, sig, auth or authorization (api_key, x.key,
// X-Amz-Signature, client_secret; not monkey, author or keyword). Case is
// ignored.
func IsSecretName(name string) bool {
	for _, w := range secretWords {
		if containsFold(name, w) {
			return true
		}
	}
	for rest := name; rest != ""; {
		i := strings.IndexAny(rest, ".-_")
		seg := rest
		if i >= 0 {
			seg, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		for _, w := range secretSegments {
			if len(seg) == len(w) && hasPrefixFold(seg, w) {
				return true
			}
		}
	}
	return false
}

// isNameByte reports whether c may be part of a parameter name.
func isNameByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// isSpace is ASCII white space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// endsValue reports whether c ends a parameter value.
func endsValue(c byte) bool { return isSpace(c) || strings.IndexByte(`&#"'<>,;`, c) >= 0 }

// redactParams replaces the value of every secret-named name=value: the
// name is the run of letters, digits, '_', '.' and '-' before the '='
// (spaces allowed around it); the value runs to white space or one of
// &#"'<>,; and is left alone when empty or starting with '['.
func redactParams(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is written to b (when b is in use)
	for i := 0; i < len(s); i++ {
		if s[i] != '=' {
			continue
		}
		end := i
		for end > 0 && isSpace(s[end-1]) {
			end--
		}
		start := end
		for start > 0 && isNameByte(s[start-1]) {
			start--
		}
		if start == end || !IsSecretName(s[start:end]) {
			continue
		}
		v := i + 1
		for v < len(s) && isSpace(s[v]) {
			v++
		}
		if v == len(s) || endsValue(s[v]) || s[v] == '[' {
			continue
		}
		ve := v
		for ve < len(s) && !endsValue(s[ve]) {
			ve++
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[done:v])
		b.WriteString(Mark)
		done = ve
		i = ve - 1
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// redactMembers replaces the value of every secret-named JSON member written
// as text, "name": "value" (the value left alone when empty or starting with
// '['; a name with an escape is not read).
func redactMembers(s string) string {
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); i++ {
		if s[i] != ':' {
			continue
		}
		// Back: spaces, the closing quote, the name, the opening quote.
		q := i
		for q > 0 && isSpace(s[q-1]) {
			q--
		}
		if q == 0 || s[q-1] != '"' {
			continue
		}
		open := strings.LastIndexByte(s[:q-1], '"')
		if open < 0 {
			continue
		}
		name := s[open+1 : q-1]
		if strings.IndexByte(name, '\\') >= 0 || !IsSecretName(name) {
			continue
		}
		// Forward: spaces, the opening quote, the value up to an unescaped quote.
		v := i + 1
		for v < len(s) && isSpace(s[v]) {
			v++
		}
		if v == len(s) || s[v] != '"' {
			continue
		}
		v++
		ve := v
		for ve < len(s) && s[ve] != '"' {
			if s[ve] == '\\' {
				ve++
			}
			ve++
		}
		if ve >= len(s) || ve == v || s[v] == '[' {
			continue
		}
		b.WriteString(s[done:v])
		b.WriteString(Mark)
		done = ve
		i = ve
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}
