package toolschema

import "strings"

// check is one check of a shared string rule of the contract (a
// protovalidate predefined rule of proto/ghops/v1/rules.proto), reported as
// an AJV custom keyword: keyword is the rule's name (ref_name), id and
// message the check's.
type check struct {
	keyword, id, message string
	broken               func(string) bool
}

// The checks are plain string functions rather than regular expressions:
// they run on every string argument of every call, and a regexp match cost
// about a tenth of argument decoding (TestCheckFuncsAgreeWithPatterns holds
// them to the patterns they replace).

// checkFuncs are the Go equivalents of the shared rules' CEL checks, by id.
// The generator (tools/schemagen) pins each id's expression, so a check
// whose expression changed fails `make generate`; an id unknown here fails
// NewRegistry. Our own code because JSON Schema has no keyword that states
// these rules in words (a pattern would only say "must match pattern"), and
// the gateway does not run CEL (protovalidate stays the service's check).
var checkFuncs = map[string]func(string) bool{
	"ref_name.dot_dot":       func(s string) bool { return strings.Contains(s, "..") },
	"ref_name.empty_segment": func(s string) bool { return strings.Contains(s, "//") },
	"ref_name.slash_edge":    func(s string) bool { return strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") },
	"ref_name.dot_edge":      func(s string) bool { return strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") },
	"ref_name.dot_segment":   func(s string) bool { return strings.Contains(s, "/.") },
	"ref_name.lock_suffix":   func(s string) bool { return strings.Contains(s, ".lock/") || strings.HasSuffix(s, ".lock") },
	"ref_name.at_brace":      func(s string) bool { return strings.Contains(s, "@{") },
	"ref_name.control":       hasControl,
	"repo_name.dot_segment":  func(s string) bool { return hasAnyPrefix(s, "./", "../") || hasAnySuffix(s, "/.", "/..") },
}

// hasControl reports whether s holds an ASCII control character (what
// [[:cntrl:]] matches: U+0000 to U+001F and U+007F); bytes of multi-byte
// UTF-8 sequences are never below 0x80, so a byte scan is exact.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return true
		}
	}
	return false
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func hasAnySuffix(s string, suffixes ...string) bool {
	for _, p := range suffixes {
		if strings.HasSuffix(s, p) {
			return true
		}
	}
	return false
}
