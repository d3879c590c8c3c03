package toolschema

import (
	"regexp"
	"strings"
)

// check is one check of a shared string rule of the contract (a
// protovalidate predefined rule of proto/ghops/v1/rules.proto), reported as
// an AJV custom keyword: keyword is the rule's name (ref_name), id and
// message the check's.
type check struct {
	keyword, id, message string
	broken               func(string) bool
}

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
	"ref_name.lock_suffix":   regexp.MustCompile(`[.]lock(/|$)`).MatchString,
	"ref_name.at_brace":      func(s string) bool { return strings.Contains(s, "@{") },
	"ref_name.control":       regexp.MustCompile(`[[:cntrl:]]`).MatchString,
	"repo_name.dot_segment":  regexp.MustCompile(`^[.]{1,2}/|/[.]{1,2}$`).MatchString,
}
