// Package ghpath builds the paths of the GitHub API requests the service
// makes from request values. go-github (and a plain string concatenation)
// puts values into paths with fmt.Sprintf and resolves the result with
// url.Parse, which removes dot segments: a branch named
// "a/../../../../octo-org/secret/git/ref/heads/main" once turned
// GET /repos/{owner}/{repo}/git/ref/heads/{branch} into another repository's
// URL. Here every value is escaped segment by segment and a value with an
// empty, "." or ".." segment is refused with an Error naming the request
// field, so a value can never leave the place in the path it is put in,
// even when a future field forgets the contract's rules (proto
// ghops.v1.ref_name). The reposcope package guards the result once more.
package ghpath

import (
	"net/url"
	"strings"
)

// Error is a request value that cannot be put into a path. Field is the
// request field it came from ("branch", "path"), Rule a stable id of the
// broken rule and Reason says it in words; the value itself is not kept,
// so the error never echoes input.
type Error struct {
	Field, Rule, Reason string
}

// Error implements error as "field: reason".
func (e *Error) Error() string { return e.Field + ": " + e.Reason }

// The rules, by id (Error.Rule).
const (
	RuleDotSegment   = "path.dot_segment"
	RuleEmptySegment = "path.empty_segment"
	RuleOneSegment   = "path.one_segment"
)

// Part is one piece of a path: text of the service's own, or a request
// value placed as one segment or as several.
type Part struct {
	field, value string
	literal      bool
	multi        bool
}

// Lit is text of the service's own ("contents", "git/blobs"), used as is.
func Lit(s string) Part { return Part{value: s, literal: true} }

// One is a request value that must be exactly one segment (an owner, a
// name, a sha): a "/" in it is refused rather than escaped, since some
// servers decode %2F before routing.
func One(field, value string) Part { return Part{field: field, value: value} }

// Segments is a request value of "/"-separated segments (a ref, a file
// path), each escaped on its own. An empty value adds nothing (a
// repository's root directory).
func Segments(field, value string) Part { return Part{field: field, value: value, multi: true} }

// Join returns the parts joined by "/", relative to the API root (as
// go-github's NewRequest takes them), or the Error of the first refused
// value.
func Join(parts ...Part) (string, error) {
	var b strings.Builder
	for _, p := range parts {
		var s string
		switch {
		case p.literal:
			s = p.value
		case p.multi:
			if p.value == "" {
				continue
			}
			segs := strings.Split(p.value, "/")
			for i, seg := range segs {
				if err := checkSegment(p.field, seg); err != nil {
					return "", err
				}
				segs[i] = url.PathEscape(seg)
			}
			s = strings.Join(segs, "/")
		default:
			if strings.Contains(p.value, "/") {
				return "", &Error{Field: p.field, Rule: RuleOneSegment, Reason: `must not contain "/"`}
			}
			if err := checkSegment(p.field, p.value); err != nil {
				return "", err
			}
			s = url.PathEscape(p.value)
		}
		if b.Len() > 0 {
			b.WriteByte('/')
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// Repo returns the path of an endpoint of the repository repo ("owner/name",
// from the request field field): "repos/{owner}/{name}" followed by rest.
func Repo(field, repo string, rest ...Part) (string, error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok {
		return "", &Error{Field: field, Rule: RuleOneSegment, Reason: `must be "owner/repo"`}
	}
	return Join(append([]Part{Lit("repos"), One(field, owner), One(field, name)}, rest...)...)
}

// Check refuses a value of "/"-separated segments that Segments would
// refuse, for the go-github methods that take a ref and escape its segments
// themselves (Git.GetRef, Git.DeleteRef, Checks.ListCheckRunsForRef...):
// their escaping keeps dot segments, which URL resolution then removes.
func Check(field, value string) error {
	for _, seg := range strings.Split(value, "/") {
		if err := checkSegment(field, seg); err != nil {
			return err
		}
	}
	return nil
}

func checkSegment(field, seg string) error {
	switch seg {
	case "":
		return &Error{Field: field, Rule: RuleEmptySegment, Reason: "must not have an empty segment"}
	case ".", "..":
		return &Error{Field: field, Rule: RuleDotSegment, Reason: `must not have a "." or ".." segment`}
	}
	return nil
}
