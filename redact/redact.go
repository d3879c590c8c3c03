// Package redact removes secrets from text and from JSON values before they
// reach a log line, an error message or a response. It is the one redactor
// of the gateway, the service and the client: every token shape the project
// cares about is listed here and nowhere else.
//
// What it removes:
//
//   - GitHub tokens: ghp_, gho_, ghu_, ghs_, ghr_ and github_pat_ followed by
//     at least 8 token characters, wherever they start (also after a word
//     character: x_ghp_...);
//   - ghops API keys: ghk_ followed by at least 16 base64url characters (the
//     shape the gateway's policy file keys are to be minted in; a key of
//     another shape is still caught after "Bearer" or "Authorization:");
//   - bearer and basic credentials ("Bearer <8+ token68 chars>"), and the
//     whole value of an Authorization header or field;
//   - JWTs: three (up to five) base64url segments, the first starting "eyJ";
//   - AWS access key ids: AKIA (long-term) or ASIA (temporary) and 16
//     upper-case letters or digits, as a whole word;
//   - the demo token ghops-demo-token;
//   - PEM private key blocks (a GitHub App key);
//   - URL userinfo and query strings (https://user:pass@host/p?x=1#a becomes
//     https://host/p#a: an error needs no query, and any parameter may be a
//     secret; the fragment stays, for documentation anchors);
//   - the value of a secret-named parameter (name=value: a query string, a
//     form, a log field) or JSON member ("name": "value"), see IsSecretName.
//
// A secret becomes Mark ("[REDACTED]"); a bearer credential keeps its scheme
// ("Bearer [REDACTED]") and a parameter its name ("token=[REDACTED]") so that
// the text still says what was there. A parameter value starting with '[' is
// taken for a placeholder (Mark itself, "[hidden]") and left alone. Redaction
// is idempotent and its output holds nothing Contains reports (both fuzzed).
// Over-redaction is preferred to a leak: prose such as "Bearer
// authentication" loses its second word.
//
// No maintained Go library does this job: secret scanners such as gitleaks
// are programs with rule files built to find secrets in repositories, not to
// rewrite every error answer in microseconds. Hence this small package, whose
// cheap pre-checks keep a clean string (the common case) at a few hundred
// nanoseconds without allocating.
//
// The API:
//
//	String(s) string                    // every secret in s replaced
//	StringWith(s, secrets...) string    // and every occurrence of known secrets (a configured token)
//	Secrets(s, secrets...) (string, int) // only the fixed shapes and known secrets, counted: for text people wrote
//	Contains(s) bool                    // whether String would change s
//	IsSecretName(name) bool             // whether a parameter or member called name holds a secret
//	Value(v any) any                    // a JSON-shaped value with every string (and map key) redacted
//	JSON(raw []byte) []byte             // JSON text, redacted, member order kept
//	Error(err, secrets...) error        // err whose message is redacted; errors.Is/As still see err
//	Handler(h slog.Handler) slog.Handler // every log record redacted
package redact

import (
	"regexp"
	"strings"
)

// Mark replaces every secret.
const Mark = "[REDACTED]"

// rule is one redaction. maybe is a cheap test that must be true whenever
// the rule can change s; apply rewrites s.
type rule struct {
	maybe func(s string) bool
	apply func(s string) string
}

// rules run in order (URLs first, so that a query goes whole before a
// secret inside it becomes Mark). Each replacement is built so that no rule applies to
// it (it starts with '[' where a value is expected, or removes text), which
// makes String idempotent.
var rules = []rule{
	{maybe: func(s string) bool { return strings.Contains(s, "://") && strings.ContainsAny(s, "@?") }, apply: redactURLs},
	{maybe: hasSecretPrefix, apply: replacer(secretsRE, Mark)},
	{maybe: func(s string) bool { return containsFold(s, "bearer") || containsFold(s, "basic") }, apply: replacer(schemeRE, "${1}${2}"+Mark)},
	{maybe: func(s string) bool { return containsFold(s, "authorization") }, apply: replacer(authorizationRE, "${1}"+Mark)},
	{maybe: func(s string) bool { return strings.IndexByte(s, '=') >= 0 }, apply: redactParams},
	{maybe: func(s string) bool { return strings.Contains(s, `"`) && strings.IndexByte(s, ':') >= 0 }, apply: redactMembers},
}

var (
	// secretsRE matches whole secrets: PEM private keys, GitHub tokens, ghops
	// API keys, JWTs, AWS access key ids, the demo token.
	secretsRE = regexp.MustCompile(`-----BEGIN[A-Z ]*PRIVATE KEY-----(?:[\s\S]*?-----END[A-Z ]*PRIVATE KEY-----|[\s\S]*)` +
		`|(?i:(?:gh[pousr]|github_pat)_[A-Za-z0-9_]{8,})` +
		`|(?i:ghk_[A-Za-z0-9_-]{16,})` +
		`|eyJ[A-Za-z0-9_-]{5,}(?:\.[A-Za-z0-9_-]*){2,4}` +
		`|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b` +
		`|(?i:ghops-demo-token)`)
	// urlRE matches a URL in text.
	urlRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]+`)
	// schemeRE matches a bearer or basic credential (RFC 6750 b64token, RFC
	// 7617).
	schemeRE = regexp.MustCompile(`(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/-]{8,}=*`)
	// authorizationRE matches an Authorization header or field and its value.
	authorizationRE = regexp.MustCompile(`(?i)(authorization["']?\s*[:=]\s*["']?)[^\s\[\r\n"',;&][^\r\n"',;&]*`)
)

// replacer returns a rule's apply function for re and its template.
func replacer(re *regexp.Regexp, repl string) func(string) string {
	if !strings.Contains(repl, "$") {
		return func(s string) string { return re.ReplaceAllLiteralString(s, repl) }
	}
	return func(s string) string { return re.ReplaceAllString(s, repl) }
}

// redactURLs removes the userinfo and the query of every URL in s. The
// query goes whole: an error needs none, and any parameter may be a secret.
// The fragment stays (documentation anchors); a secret-named parameter in it
// is redacted by the parameter rule.
func redactURLs(s string) string {
	return urlRE.ReplaceAllStringFunc(s, func(u string) string {
		// Punctuation ending the URL belongs to the sentence: "(see URL)".
		trimmed := strings.TrimRight(u, ").,;:!}")
		u, tail := trimmed, u[len(trimmed):]
		i := strings.Index(u, "://") + len("://")
		head, rest := u[:i], u[i:]
		if end := strings.IndexAny(rest, "/?#"); end >= 0 {
			if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
				rest = rest[at+1:]
			}
		} else if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			rest = rest[at+1:]
		}
		if q := strings.IndexByte(rest, '?'); q >= 0 {
			if f := strings.IndexByte(rest, '#'); f < 0 {
				rest = rest[:q]
			} else if q < f {
				rest = rest[:q] + rest[f:]
			}
		}
		return head + rest + tail
	})
}

// String returns s with every secret replaced (see the package comment).
// A string without any is returned as is.
func String(s string) string {
	for i := range rules {
		if r := &rules[i]; r.maybe(s) {
			s = r.apply(s)
		}
	}
	return s
}

// StringWith is String that also replaces every occurrence of the given
// secrets (for example the token a client was configured with, whatever its
// shape). Empty secrets are ignored.
func StringWith(s string, secrets ...string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, Mark)
		}
	}
	return String(s)
}

// minKnown is the shortest known secret Secrets replaces: a shorter value
// (a test's "x") is no credential and would mangle every text.
const minKnown = 8

// Secrets replaces the secrets of a fixed shape in s (GitHub tokens, ghops
// API keys, AWS access key ids, JWTs, PEM private keys, the demo token) and
// every occurrence of the known secrets (of at least 8 bytes) with Mark,
// and returns how many it replaced. Unlike String it leaves URLs, parameters
// and authentication schemes alone: it is for text people wrote or builds
// printed (issue bodies, comments, job logs), whose links and prose must
// survive, while String is for the project's own errors and logs. A string
// without any is returned as is, without allocating.
func Secrets(s string, known ...string) (string, int) {
	n := 0
	for _, sec := range known {
		if len(sec) >= minKnown {
			if c := strings.Count(s, sec); c > 0 {
				n += c
				s = strings.ReplaceAll(s, sec, Mark)
			}
		}
	}
	if !hasSecretPrefix(s) {
		return s, n
	}
	locs := secretsRE.FindAllStringIndex(s, -1)
	if len(locs) == 0 {
		return s, n
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, l := range locs {
		b.WriteString(s[last:l[0]])
		b.WriteString(Mark)
		last = l[1]
	}
	b.WriteString(s[last:])
	return b.String(), n + len(locs)
}

// Contains reports whether s holds anything String would remove.
func Contains(s string) bool {
	for i := range rules {
		if r := &rules[i]; r.maybe(s) && r.apply(s) != s {
			return true
		}
	}
	return false
}

// hasSecretPrefix is secretsRE's pre-check: whether s holds the start of
// one of its shapes.
func hasSecretPrefix(s string) bool {
	for i := 0; i+3 < len(s); i++ {
		switch s[i] {
		case 'g', 'G':
			if lower(s[i+1]) != 'h' {
				continue
			}
			if strings.IndexByte("pousrk", lower(s[i+2])) >= 0 && s[i+3] == '_' {
				return true
			}
			if hasPrefixFold(s[i:], "ghops-demo-token") {
				return true
			}
		case 'i', 'I': // github_pat_, from its "i"
			if i > 0 && lower(s[i-1]) == 'g' && hasPrefixFold(s[i-1:], "github_pat_") {
				return true
			}
		case 'e':
			if s[i+1] == 'y' && s[i+2] == 'J' {
				return true
			}
		case '-':
			if strings.HasPrefix(s[i:], "-----BEGIN") {
				return true
			}
		case 'A':
			if (s[i+1] == 'K' || s[i+1] == 'S') && s[i+2] == 'I' && s[i+3] == 'A' {
				return true
			}
		}
	}
	return false
}

// lower lower-cases an ASCII letter.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold reports whether s starts with the lower-case ASCII prefix.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for j := 0; j < len(prefix); j++ {
		if lower(s[j]) != prefix[j] {
			return false
		}
	}
	return true
}

// containsFold reports whether s contains the lower-case ASCII string sub,
// ignoring ASCII case, without allocating.
func containsFold(s, sub string) bool {
	first := sub[0]
	for i := 0; i+len(sub) <= len(s); i++ {
		// c|0x20 lower-cases an ASCII letter and maps no other byte to one.
		if s[i]|0x20 == first && hasPrefixFold(s[i:], sub) {
			return true
		}
	}
	return false
}
