// Package searchq parses GitHub search queries: plain words, quoted phrases and key:value qualifiers
// such as repo:owner/name, user:, org:, language: and in:name, and issue search's is:, state:,
// label:, author:, assignee: and type:.
package searchq

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// MaxLen is the longest query GitHub accepts, in characters.
const MaxLen = 256

// ErrTooLong reports a query over MaxLen characters.
var ErrTooLong = errors.New("The search is longer than 256 characters.")

// Qualifier is one key:value term; Negated for a leading "-".
type Qualifier struct {
	Key, Value string
	Negated    bool
}

// Query is a parsed search query.
type Query struct {
	Words      []string
	Qualifiers []Qualifier
}

// Values returns the values of every non-negated qualifier with the key (compared case-insensitively).
func (q Query) Values(key string) []string {
	var out []string
	for _, x := range q.Qualifiers {
		if !x.Negated && strings.EqualFold(x.Key, key) {
			out = append(out, x.Value)
		}
	}
	return out
}

var known = map[string]bool{
	"repo": true, "user": true, "org": true, "language": true, "in": true, "path": true,
	"filename": true, "extension": true, "is": true, "topic": true, "fork": true, "archived": true,
	// Issue search's qualifiers.
	"state": true, "label": true, "author": true, "assignee": true, "type": true, "milestone": true, "no": true,
	"created": true, "updated": true,
}

// Parse splits a query into words and qualifiers. Unknown keys stay plain words, as on GitHub.
func Parse(s string) (Query, error) {
	var q Query
	if utf8.RuneCountInString(s) > MaxLen {
		return q, ErrTooLong
	}
	for _, tok := range tokenize(s) {
		neg := false
		t := tok.text
		if !tok.quoted && strings.HasPrefix(t, "-") && len(t) > 1 {
			neg = true
			t = t[1:]
		}
		if !tok.quoted {
			if k, v, ok := strings.Cut(t, ":"); ok && known[strings.ToLower(k)] {
				q.Qualifiers = append(q.Qualifiers, Qualifier{Key: strings.ToLower(k), Value: strings.Trim(v, `"`), Negated: neg})
				continue
			}
		}
		if !tok.quoted && (strings.EqualFold(tok.text, "AND") || strings.EqualFold(tok.text, "OR")) {
			continue
		}
		if tok.text != "" {
			q.Words = append(q.Words, tok.text)
		}
	}
	return q, nil
}

type token struct {
	text   string
	quoted bool
}

// tokenize splits on whitespace; double quotes group a phrase, including inside a qualifier value
// (repo:"a b" is unusual but kept whole).
func tokenize(s string) []token {
	var out []token
	var cur strings.Builder
	inQuote, quoted := false, false
	flush := func() {
		if cur.Len() > 0 || quoted {
			out = append(out, token{text: cur.String(), quoted: quoted && !strings.Contains(cur.String(), ":")})
		}
		cur.Reset()
		quoted = false
	}
	for _, r := range s {
		switch {
		case r == '"':
			inQuote = !inQuote
			if cur.Len() == 0 {
				quoted = true
			}
		case !inQuote && (r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '+'):
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return out
}
