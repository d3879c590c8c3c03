package toolschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// fastSchema is a tool's validation schema (or one of its subschemas)
// compiled into an accept-only check, which Decode runs before the JSON
// Schema library. Why beside the library: the library's Validate is generic
// (it walks keyword tables, resolves scopes and allocates per call) and is
// the largest piece of the gateway's own CPU per tools/call, while the
// validation schemas use a handful of keywords. The check never rejects:
// accepts says true only when the library would surely accept the
// instance; on false Decode runs the library as before, so every violation,
// its order and its wording still come from the library (docs/errors.md).
//
// Soundness (accepts(x) implies the library accepts x) rests on two rules:
// a subschema with any keyword not implemented here compiles to nil, and a
// nil *fastSchema accepts nothing; and an instance whose judgement is not
// certain (numbers other than plain integer literals where a number rule
// applies) is not accepted. The semantics mirrored are the library's
// (draft 2020-12): lengths count code points, patterns are Go regexps
// matched unanchored, keywords apply only to instances of their type.
type fastSchema struct {
	types uint8 // allowed instance types (typeNull, ...); 0: any

	hasEnum bool
	enum    []string // allowed values: strings only

	minLength, maxLength int // -1: none
	pattern              *regexp.Regexp
	seq                  classSeq // pattern without the regexp machine; nil: not of that form

	minimum, maximum       int64
	hasMinimum, hasMaximum bool

	props      map[string]*fastSchema // properties; a nil value: not implemented
	closed     bool                   // additionalProperties false
	required   []string
	notAll     [][]string          // not {"required": [...]}: never all of these
	oneOf      [][]string          // oneOf [{"required": [...]}, ...]: exactly one all given
	dependents map[string][]string // dependentRequired
	maxProps   int                 // -1: none

	hasItems           bool
	items              *fastSchema // nil with hasItems: not implemented
	minItems, maxItems int         // -1: none
	uniqueItems        bool
}

// Instance types, as the type keyword names them.
const (
	typeNull uint8 = 1 << iota
	typeBoolean
	typeObject
	typeArray
	typeNumber
	typeInteger
	typeString
)

var typeBits = map[string]uint8{
	"null": typeNull, "boolean": typeBoolean, "object": typeObject, "array": typeArray,
	"number": typeNumber, "integer": typeInteger, "string": typeString,
}

// annotations are the keywords that never affect validation.
var annotations = map[string]bool{
	"description": true, "title": true, "$comment": true, "examples": true,
	"default": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

// validate is the library's Validate of inst, skipped when the fast check
// vouches for inst.
func (t *Tool) validate(inst any) error {
	if t.fast.accepts(inst) {
		return nil
	}
	return t.schema.Validate(inst)
}

// compileFast compiles a validation schema for accepts. It returns nil (no
// fast path: Decode always runs the library) when the root uses a keyword
// it does not implement.
func compileFast(schema []byte) *fastSchema {
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil
	}
	s, err := fastFrom(doc)
	if err != nil {
		return nil
	}
	return s
}

// fastFrom compiles one subschema. An error means a keyword or keyword
// value it does not implement; the caller keeps nil for it.
func fastFrom(doc any) (*fastSchema, error) {
	if b, ok := doc.(bool); ok {
		if b {
			return &fastSchema{minLength: -1, maxLength: -1, maxProps: -1, minItems: -1, maxItems: -1}, nil
		}
		return nil, fmt.Errorf("false schema")
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema is %T", doc)
	}
	s := &fastSchema{minLength: -1, maxLength: -1, maxProps: -1, minItems: -1, maxItems: -1}
	for kw, v := range obj {
		var err error
		switch {
		case annotations[kw]:
		case kw == "type":
			err = s.setTypes(v)
		case kw == "enum":
			s.hasEnum = true
			s.enum, err = stringList(v)
		case kw == "minLength":
			s.minLength, err = count(v)
		case kw == "maxLength":
			s.maxLength, err = count(v)
		case kw == "pattern":
			p, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("pattern is %T", v)
			}
			s.pattern, err = regexp.Compile(p)
			s.seq, _ = compileClassSeq(p)
		case kw == "minimum":
			s.hasMinimum = true
			s.minimum, err = plainInt(v)
		case kw == "maximum":
			s.hasMaximum = true
			s.maximum, err = plainInt(v)
		case kw == "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("properties is %T", v)
			}
			s.props = make(map[string]*fastSchema, len(props))
			for name, sub := range props {
				s.props[name], _ = fastFrom(sub) // nil: that property falls back
			}
		case kw == "additionalProperties":
			b, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("additionalProperties is a schema")
			}
			s.closed = !b
		case kw == "required":
			s.required, err = stringList(v)
		case kw == "not":
			var names []string
			names, err = requiredOnly(v)
			s.notAll = append(s.notAll, names)
		case kw == "oneOf":
			alts, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("oneOf is %T", v)
			}
			s.oneOf = [][]string{} // non-nil: a oneOf to hold
			for _, alt := range alts {
				names, err := requiredOnly(alt)
				if err != nil {
					return nil, err
				}
				s.oneOf = append(s.oneOf, names)
			}
		case kw == "dependentRequired":
			deps, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("dependentRequired is %T", v)
			}
			s.dependents = map[string][]string{}
			for name, list := range deps {
				if s.dependents[name], err = stringList(list); err != nil {
					return nil, err
				}
			}
		case kw == "maxProperties":
			s.maxProps, err = count(v)
		case kw == "items":
			s.hasItems = true
			s.items, _ = fastFrom(v) // nil: a non-empty array falls back
		case kw == "minItems":
			s.minItems, err = count(v)
		case kw == "maxItems":
			s.maxItems, err = count(v)
		case kw == "uniqueItems":
			b, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("uniqueItems is %T", v)
			}
			s.uniqueItems = b
		default:
			return nil, fmt.Errorf("keyword %q not implemented", kw)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kw, err)
		}
	}
	return s, nil
}

func (s *fastSchema) setTypes(v any) error {
	names := []any{v}
	if list, ok := v.([]any); ok {
		names = list
	}
	for _, n := range names {
		name, _ := n.(string)
		bit, ok := typeBits[name]
		if !ok {
			return fmt.Errorf("unknown type %v", n)
		}
		s.types |= bit
	}
	if s.types == 0 {
		return fmt.Errorf("no type") // "type": [] is not a valid schema
	}
	return nil
}

// requiredOnly reads the one form of a not or oneOf subschema implemented:
// {"required": [...]}.
func requiredOnly(v any) ([]string, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not is %T", v)
	}
	var names []string
	for kw, val := range obj {
		switch {
		case annotations[kw]:
		case kw == "required":
			list, err := stringList(val)
			if err != nil {
				return nil, err
			}
			names = list
		default:
			return nil, fmt.Errorf("%q beside required not implemented", kw)
		}
	}
	if names == nil {
		return nil, fmt.Errorf("no required")
	}
	return names, nil
}

func stringList(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("not a list: %T", v)
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("list item %T", e)
		}
		out = append(out, s)
	}
	return out, nil
}

// count reads a non-negative integer keyword value (maxLength, ...).
func count(v any) (int, error) {
	n, err := plainInt(v)
	if err != nil || n < 0 || n > 1<<31 {
		return 0, fmt.Errorf("count %v", v)
	}
	return int(n), nil
}

// plainInt reads a number written as a plain integer literal (no fraction,
// no exponent) that fits an int64; any other form is not certain enough.
func plainInt(v any) (int64, error) {
	n, ok := v.(json.Number)
	if !ok || strings.ContainsAny(string(n), ".eE") {
		return 0, fmt.Errorf("not a plain integer: %v", v)
	}
	return strconv.ParseInt(string(n), 10, 64)
}

// allows says whether the type keyword allows the type bit t.
func (s *fastSchema) allows(t uint8) bool { return s.types == 0 || s.types&t != 0 }

// accepts reports whether the library surely accepts inst (an instance as
// readInstance reads it). False means only "not certain".
func (s *fastSchema) accepts(inst any) bool {
	if s == nil {
		return false
	}
	if _, obj := inst.(map[string]any); !obj && (s.notAll != nil || s.oneOf != nil) {
		// {"required": ...} holds for a non-object: not fails, and oneOf
		// holds only if it has exactly one alternative; left to the library.
		return false
	}
	switch v := inst.(type) {
	case string:
		return s.acceptsString(v)
	case json.Number:
		return s.acceptsNumber(v)
	case map[string]any:
		return s.acceptsObject(v)
	case []any:
		return s.acceptsArray(v)
	case bool:
		return s.allows(typeBoolean) && !s.hasEnum
	case nil:
		return s.allows(typeNull) && !s.hasEnum
	}
	return false
}

func (s *fastSchema) acceptsString(v string) bool {
	if !s.allows(typeString) {
		return false
	}
	if s.hasEnum && !slices.Contains(s.enum, v) {
		return false
	}
	if s.minLength >= 0 || s.maxLength >= 0 {
		n := utf8.RuneCountInString(v)
		if n < s.minLength || (s.maxLength >= 0 && n > s.maxLength) {
			return false
		}
	}
	switch {
	case s.pattern == nil:
		return true
	case s.seq != nil:
		return s.seq.match(v)
	}
	return s.pattern.MatchString(v)
}

func (s *fastSchema) acceptsNumber(v json.Number) bool {
	if s.hasEnum {
		return false
	}
	needInt := s.types != 0 && s.types&typeNumber == 0
	if needInt && s.types&typeInteger == 0 {
		return false
	}
	if !needInt && !s.hasMinimum && !s.hasMaximum {
		return true
	}
	// 1.0 and 1e2 are integers to the library too, but only plain
	// literals are judged here; the library judges the rest.
	n, err := plainInt(v)
	if err != nil {
		return false
	}
	return (!s.hasMinimum || n >= s.minimum) && (!s.hasMaximum || n <= s.maximum)
}

func (s *fastSchema) acceptsObject(v map[string]any) bool {
	if !s.allows(typeObject) || s.hasEnum {
		return false
	}
	has := func(name string) bool { _, ok := v[name]; return ok }
	if !s.holdsObjectRules(len(v), has) {
		return false
	}
	for name, val := range v {
		sub, known := s.props[name]
		if !known {
			if s.closed {
				return false
			}
		} else if !sub.accepts(val) {
			return false
		}
	}
	return true
}

// holdsObjectRules reports whether an object of n properties, has saying
// which names it has, meets s's rules on the object as a whole
// (maxProperties, required, not and oneOf of required lists,
// dependentRequired); accepts and the one pass (onepass.go) share it.
func (s *fastSchema) holdsObjectRules(n int, has func(string) bool) bool {
	if s.maxProps >= 0 && n > s.maxProps {
		return false
	}
	all := func(names []string) bool {
		for _, name := range names {
			if !has(name) {
				return false
			}
		}
		return true
	}
	if !all(s.required) {
		return false
	}
	for _, names := range s.notAll {
		if all(names) {
			return false
		}
	}
	if s.oneOf != nil {
		k := 0
		for _, names := range s.oneOf {
			if all(names) {
				k++
			}
		}
		if k != 1 {
			return false
		}
	}
	for name, deps := range s.dependents {
		if has(name) && !all(deps) {
			return false
		}
	}
	return true
}

func (s *fastSchema) acceptsArray(v []any) bool {
	if !s.allows(typeArray) || s.hasEnum {
		return false
	}
	if len(v) < s.minItems || (s.maxItems >= 0 && len(v) > s.maxItems) {
		return false
	}
	var seen map[string]bool
	if s.uniqueItems {
		seen = make(map[string]bool, len(v))
	}
	for _, e := range v {
		if s.hasItems && !s.items.accepts(e) {
			return false
		}
		if s.uniqueItems {
			// Judged for strings only: equal strings are equal JSON values.
			str, ok := e.(string)
			if !ok || seen[str] {
				return false
			}
			seen[str] = true
		}
	}
	return true
}
