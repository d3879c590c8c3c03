package policy

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// Search narrowing. Filtering a search answer after GitHub matched it
// (Confine) leaves every field that describes the whole match (has_next,
// incomplete_results, counts) speaking of repositories the principal may
// not see. So, for a principal with repos globs, the query of every field
// marked (ghops.v1.search_query) (proto/ghops/v1/tool.proto) is narrowed
// before GitHub sees it, and GitHub matches only allowed repositories;
// Confine stays as a second line. The rule, exactly (docs/security.md):
//
//  1. The query is split into terms at spaces (U+0020, the one separator
//     GitHub surely reads as one; tabs, "+" and other white space stay in
//     their term), a double-quoted phrase being one term. Refused, as they
//     could make GitHub read the query otherwise than the gateway: an odd
//     number of double quotes, a backslash before a double quote, a double
//     quote inside a word (anywhere but around a whole term, "-" aside, or
//     around a qualifier's whole value), OR and NOT (any case) and
//     parentheses outside quotes (GitHub's boolean syntax would apply the
//     appended qualifiers to one side only: quote such a word to search for
//     it), and repo, org, user or owner (any case) before a colon anywhere
//     but at the start of a term ("a+repo:x", "x,org:y").
//  2. The caller's own repo:, org:, user: (and owner:) qualifiers: GitHub
//     ORs them, so one that names anything outside the globs is refused,
//     never appended to. repo:o/r is inside when o/r matches a glob; org:o,
//     user:o and owner:o when a glob is o/* (every repository of o). A
//     value GitHub might read as a pattern (anything but owner/name, or a
//     login) is refused, negated or not. Negated ones (-repo:o/r) only
//     exclude: they are kept, inside the globs or not, and narrow nothing.
//  3. When the caller's query holds at least one repo:, org: or user:
//     qualifier (all inside), it is already narrowed and is sent unchanged:
//     appending would widen it (GitHub ORs them). owner: and keys spelt
//     with non-ASCII letters that fold to them ("uſer:") never count here
//     (GitHub may read them as words).
//  4. Otherwise one qualifier per glob is appended: repo:o/r for a glob
//     without wildcards, user:o for o/* (user: matches repositories of a
//     user or an organisation). "*/*" allows every repository: the query
//     is sent unchanged. Any other glob (octo-org/hello-*, */x, o?/r)
//     cannot be stated by a qualifier, and the call is refused: the caller
//     can still search by naming allowed repositories itself (3).
//  5. The narrowed query must fit GitHub's limit of 256 characters (the
//     contract's limit too); else the call is refused. Nothing appended is
//     an AND, OR or NOT operator, so GitHub's limit of five is the
//     caller's own.
//
// Every refusal is the policy's -32001 with rule "repos" and a detail that
// states which part of the rule refused the query.

// maxSearchQuery is GitHub's longest search query, in characters, and the
// contract's max_len of every search query.
const maxSearchQuery = 256

// searchFields caches whether a field is marked as a search query.
var searchFields sync.Map // protoreflect.FullName -> bool

// IsSearchQuery reports whether fd is marked (ghops.v1.search_query).
func IsSearchQuery(fd protoreflect.FieldDescriptor) bool {
	if v, ok := searchFields.Load(fd.FullName()); ok {
		return v.(bool)
	}
	marked := false
	if opts := fd.Options(); opts != nil && proto.HasExtension(opts, ghopsv1.E_SearchQuery) {
		marked = proto.GetExtension(opts, ghopsv1.E_SearchQuery).(bool)
	}
	marked = marked && fd.Kind() == protoreflect.StringKind
	searchFields.Store(fd.FullName(), marked)
	return marked
}

// NarrowSearch narrows, in place, every search query of request m (the
// fields marked as search queries, at any depth) to pr's repos globs
// (NarrowQuery); nil means the request may go to GitHub as it now is.
// Nothing is changed for a principal without repos globs, and nothing at
// all when the call is refused.
func NarrowSearch(pr *Principal, m proto.Message) *Denial {
	if pr == nil || len(pr.Repos) == 0 || m == nil || !marksSearch(m.ProtoReflect().Descriptor(), 0) {
		return nil
	}
	type edit struct {
		m  protoreflect.Message
		fd protoreflect.FieldDescriptor
		i  int // list index, -1 for a singular field
		q  string
	}
	var edits []edit
	var denial *Denial
	var walk func(m protoreflect.Message, depth int) bool
	walk = func(m protoreflect.Message, depth int) bool {
		if depth > maxDepth {
			denial = &Denial{Rule: "repos", Detail: "the request nests too deep to be checked"}
			return false
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsMap():
			case IsSearchQuery(fd) && fd.IsList():
				for i := range v.List().Len() {
					q, d := NarrowQuery(pr, v.List().Get(i).String())
					if d != nil {
						denial = d
						return false
					}
					edits = append(edits, edit{m, fd, i, q})
				}
			case IsSearchQuery(fd):
				q, d := NarrowQuery(pr, v.String())
				if d != nil {
					denial = d
					return false
				}
				edits = append(edits, edit{m, fd, -1, q})
			case fd.Kind() == protoreflect.MessageKind && fd.IsList():
				for i := range v.List().Len() {
					if !walk(v.List().Get(i).Message(), depth+1) {
						return false
					}
				}
			case fd.Kind() == protoreflect.MessageKind:
				return walk(v.Message(), depth+1)
			}
			return true
		})
		return denial == nil
	}
	if !walk(m.ProtoReflect(), 0) {
		return denial
	}
	// Applied only once every query passed: a refused call changes nothing.
	for _, e := range edits {
		if e.i < 0 {
			e.m.Set(e.fd, protoreflect.ValueOfString(e.q))
		} else {
			e.m.Mutable(e.fd).List().Set(e.i, protoreflect.ValueOfString(e.q))
		}
	}
	return nil
}

// messageSearch caches marksSearch by message.
var messageSearch sync.Map // protoreflect.FullName -> bool

// marksSearch reports whether messages of type md hold a field marked as a
// search query at some depth: the walk of every other request is skipped.
func marksSearch(md protoreflect.MessageDescriptor, depth int) bool {
	if v, ok := messageSearch.Load(md.FullName()); ok {
		return v.(bool)
	}
	if depth > maxDepth {
		return true // deep enough that the walk decides (and refuses)
	}
	found := false
	fs := md.Fields()
	for i := range fs.Len() {
		fd := fs.Get(i)
		if IsSearchQuery(fd) || (!fd.IsMap() && fd.Kind() == protoreflect.MessageKind && fd.Message() != md && marksSearch(fd.Message(), depth+1)) {
			found = true
			break
		}
	}
	if depth == 0 {
		messageSearch.Store(md.FullName(), found)
	}
	return found
}

// NarrowQuery returns query narrowed to pr's repos globs by the rule above,
// or the denial that refuses it. A principal without globs gets query back.
func NarrowQuery(pr *Principal, query string) (string, *Denial) {
	if pr == nil || len(pr.Repos) == 0 {
		return query, nil
	}
	deny := func(format string, a ...any) (string, *Denial) {
		return "", &Denial{Rule: "repos", Detail: "search narrowed to the allowed repositories (" +
			strings.Join(pr.Repos, ", ") + "): " + fmt.Sprintf(format, a...)}
	}
	terms, err := SearchTerms(query)
	if err != nil {
		return deny("%v", err)
	}
	scoped := false
	for _, t := range terms {
		if t.Negated || t.Key == "" {
			continue
		}
		if !scopeInside(pr, t.Key, t.Value) {
			return deny("the query's %s:%s names repositories outside them; GitHub ORs repo:, org: and user:, so such a qualifier is refused, never narrowed", t.Key, t.Value)
		}
		// owner: and keys spelt by case folding (uſer:) are checked but never
		// trusted to narrow: should GitHub read them as words, the query
		// would otherwise go out unnarrowed.
		scoped = scoped || (t.Key != "owner" && t.Exact)
	}
	if scoped {
		return query, nil
	}
	quals, inexpressible := scopeQualifiers(pr.Repos)
	switch {
	case quals == nil && inexpressible == "":
		return query, nil // "*/*": every repository
	case inexpressible != "":
		return deny("the glob %q cannot be stated as a repo:, org: or user: qualifier; name the repositories to search with repo: in the query", inexpressible)
	}
	narrowed := query + " " + strings.Join(quals, " ")
	if n := utf8.RuneCountInString(narrowed); n > maxSearchQuery {
		return deny("the narrowed query would be %d characters, over GitHub's %d; name the repositories to search with repo: in the query", n, maxSearchQuery)
	}
	return narrowed, nil
}

// scopeQualifiers returns the qualifiers that state globs (deduplicated,
// in their order; repo: ones an owner's user: already covers left out), or
// the first glob no qualifier can state. Both are empty when a glob allows
// every repository.
func scopeQualifiers(globs []string) (quals []string, inexpressible string) {
	owners := map[string]bool{}
	for _, g := range globs {
		g = strings.ToLower(g)
		owner, name, _ := strings.Cut(g, "/")
		switch {
		case owner == "*" && name == "*":
			return nil, ""
		case name == "*" && loginRE.MatchString(owner) && !strings.HasSuffix(owner, "]"):
			owners[owner] = true
		case !isRepoName(g):
			return nil, g
		}
	}
	seen := map[string]bool{}
	for _, g := range globs {
		g = strings.ToLower(g)
		owner, name, _ := strings.Cut(g, "/")
		q := "repo:" + g
		if name == "*" {
			q = "user:" + owner
		} else if owners[owner] {
			continue
		}
		if !seen[q] {
			seen[q] = true
			quals = append(quals, q)
		}
	}
	return quals, ""
}

// repoNameRE is an owner/name as GitHub spells repositories (and as the
// contract's repo fields accept them).
var repoNameRE = regexp.MustCompile(`^[A-Za-z0-9._-]+/[A-Za-z0-9._-]+$`)

// isRepoName reports whether s is a plain owner/name (no pattern).
func isRepoName(s string) bool { return repoNameRE.MatchString(s) }

// scopeInside reports whether the caller's qualifier key:value (repo, org,
// user or owner) stays within pr's globs.
func scopeInside(pr *Principal, key, value string) bool {
	if key == "repo" {
		return isRepoName(value) && RepoAllowed(pr, value)
	}
	if !loginRE.MatchString(value) {
		return false
	}
	owner := strings.ToLower(value)
	for _, g := range pr.Repos {
		og, ng, _ := strings.Cut(strings.ToLower(g), "/")
		if ng == "*" && match(og, owner) {
			return true
		}
	}
	return false
}

// SearchTerm is one term of a search query; for one that scopes
// repositories (a repo:, org:, user: or owner: qualifier) Key is the
// qualifier's name lower-cased and Value its value without quotes. Other
// terms have an empty Key.
type SearchTerm struct {
	// Text is the term as written.
	Text string
	// Key is "repo", "org", "user" or "owner" for a scoping qualifier, else "".
	Key string
	// Value is the qualifier's value, quotes removed.
	Value string
	// Negated is true for a leading "-" (the qualifier excludes).
	Negated bool
	// Exact is true when Key is written in ASCII letters of any case; a key
	// that is one only by Unicode case folding ("uſer") is checked like
	// the key but never trusted to narrow (GitHub may read it as a word).
	Exact bool
}

// scopeKeys are the qualifiers that choose repositories; GitHub ORs them.
// owner: is among them in case GitHub reads it as org: and user: (some of
// its search syntaxes do): it is refused outside the globs like them.
var scopeKeys = []string{"repo", "org", "user", "owner"}

// SearchTerms splits a query into its terms and reads the scoping
// qualifiers among them, or says why the query is too ambiguous to narrow
// (rule 1 above). It never panics, whatever the input.
func SearchTerms(query string) ([]SearchTerm, error) {
	if strings.Contains(query, `\"`) {
		return nil, fmt.Errorf(`a backslash before a double quote is refused (GitHub may or may not read it as an escape)`)
	}
	if strings.Count(query, `"`)%2 != 0 {
		return nil, fmt.Errorf("an unbalanced double quote is refused (GitHub would read the rest of the query, appended qualifiers included, as a phrase)")
	}
	var terms []SearchTerm
	var cur strings.Builder
	inQuote := false
	flush := func() error {
		if cur.Len() == 0 {
			return nil
		}
		t, err := readTerm(cur.String())
		cur.Reset()
		if err != nil {
			return err
		}
		terms = append(terms, t)
		return nil
	}
	for _, r := range query {
		switch {
		case r == '"':
			inQuote = !inQuote
			cur.WriteRune(r)
		case inQuote:
			cur.WriteRune(r)
		case r == '(' || r == ')':
			return nil, fmt.Errorf("parentheses outside quotes are refused (GitHub's grouping would apply the appended qualifiers to one group only): quote the text to search for it")
		case r == ' ':
			if err := flush(); err != nil {
				return nil, err
			}
		default:
			cur.WriteRune(r)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return terms, nil
}

// readTerm reads one term (quotes balanced, no separator outside them).
func readTerm(s string) (SearchTerm, error) {
	t := SearchTerm{Text: s}
	if strings.EqualFold(s, "OR") || strings.EqualFold(s, "NOT") {
		return t, fmt.Errorf("the operator %s is refused (GitHub would apply the appended qualifiers to one side only): quote the word to search for it", s)
	}
	body := s
	if strings.HasPrefix(body, "-") {
		body = body[1:]
	}
	// A phrase: quotes around the whole term, and nothing after them.
	if strings.HasPrefix(body, `"`) {
		if strings.Index(body[1:], `"`) != len(body)-2 {
			return t, fmt.Errorf("the term %s has a double quote inside a word: quote whole terms or a qualifier's whole value", s)
		}
		return t, nil
	}
	// Outside quotes, find every colon and the word before it.
	unquoted, value, hasQuote := body, "", false
	if i := strings.IndexByte(body, '"'); i >= 0 {
		unquoted, hasQuote = body[:i], true
		// Quotes only around a qualifier's whole value: key:"...".
		rest := body[i:]
		if !strings.HasSuffix(unquoted, ":") || strings.Count(unquoted, ":") != 1 || strings.Index(rest[1:], `"`) != len(rest)-2 {
			return t, fmt.Errorf("the term %s has a double quote inside a word: quote whole terms or a qualifier's whole value", s)
		}
	}
	first := strings.IndexByte(unquoted, ':')
	for i := 0; i < len(unquoted); i++ {
		if unquoted[i] != ':' {
			continue
		}
		start := i
		for start > 0 {
			r, size := utf8.DecodeLastRuneInString(unquoted[:start])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
				break
			}
			start -= size
		}
		word := unquoted[start:i]
		if !isScopeKey(word) {
			continue
		}
		if start != 0 || i != first {
			return t, fmt.Errorf("the term %s holds %s: inside a word: put qualifiers at the start of a term", s, word)
		}
	}
	if first < 0 || !isScopeKey(unquoted[:first]) {
		return t, nil
	}
	t.Key, t.Negated = scopeKey(unquoted[:first]), len(body) < len(s)
	t.Exact = strings.ToLower(unquoted[:first]) == t.Key
	if hasQuote {
		value = strings.Trim(body[first+1:], `"`)
	} else {
		value = body[first+1:]
	}
	if value == "" || !isScopeValue(t.Key, value) {
		return t, fmt.Errorf("the qualifier %s must name one repository (owner/name) or one owner (a login), not a pattern", s)
	}
	t.Value = value
	return t, nil
}

// scopeKey returns the scopeKeys entry word is in any case (by Unicode
// case folding, which GitHub might apply too: "uſer" is user), or "".
func scopeKey(word string) string {
	for _, k := range scopeKeys {
		if strings.EqualFold(word, k) {
			return k
		}
	}
	return ""
}

// isScopeKey reports whether word is a scopeKeys entry in any case.
func isScopeKey(word string) bool { return scopeKey(word) != "" }

// isScopeValue reports whether v is a value key can take without being a
// pattern: owner/name for repo, a login for org, user and owner.
func isScopeValue(key, v string) bool {
	if key == "repo" {
		return isRepoName(v)
	}
	return loginRE.MatchString(v) && !strings.HasSuffix(v, "]")
}
