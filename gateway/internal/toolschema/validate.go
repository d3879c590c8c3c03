package toolschema

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Messages are those of the contract (000), which follows AJV v8's default
// English messages except for string lengths: the contract says "must NOT be
// longer than N characters" where AJV 8.17.1 says "must NOT have more than N
// characters", and the contract wins.

// evaluator applies a schema to a parsed instance the way AJV v8 does with
// allErrors: true. Keywords run in AJV's rule-group order:
//
//  1. a type check up front when the schema's type has no rule group in use
//     (integer and boolean always; string with only enum);
//  2. the "any" group: const, enum, not, if/then;
//  3. numbers: maximum, minimum;
//  4. strings: maxLength, minLength, pattern, then the contract's shared
//     string rules (ref_name, repo_name) as custom keywords, one violation
//     per broken check with the check's message and params {"rule": id}
//     (type error here otherwise);
//  5. arrays: maxItems, minItems, items (type error here otherwise);
//  6. objects: required, additionalProperties (in instance key order), then
//     properties (in schema order) (type error here otherwise).
type evaluator struct {
	src   []byte
	out   []Violation
	raws  map[int]json.RawMessage // instance text by start offset: one object reported many times is compacted once
	quiet bool                    // evaluating not/if: only whether anything failed matters
}

// maxViolations caps the list: AJV has no cap, but an object with thousands
// of unknown keys must not turn into a response thousands of times its size.
const maxViolations = 50

func (e *evaluator) add(path, keyword, message string, params map[string]any, v *jvalue) {
	if len(e.out) >= maxViolations {
		return
	}
	var raw json.RawMessage
	if !e.quiet {
		if e.raws == nil {
			e.raws = make(map[int]json.RawMessage)
		}
		var ok bool
		if raw, ok = e.raws[v.start]; !ok {
			raw = v.raw(e.src)
			e.raws[v.start] = raw
		}
	}
	e.out = append(e.out, Violation{
		Message: message,
		Path:    displayPath(path),
		Keyword: keyword,
		Params:  params,
		Value:   raw,
	})
}

func (e *evaluator) typeError(n *node, v *jvalue, path string) {
	e.add(path, "type", "must be "+n.typ, map[string]any{"type": n.typ}, v)
}

// valid evaluates a subschema without reporting (for not and if).
func (e *evaluator) valid(n *node, v *jvalue, path string) bool {
	sub := evaluator{src: e.src, quiet: true}
	sub.eval(n, v, path)
	return len(sub.out) == 0
}

func matchesType(typ string, v *jvalue) bool {
	switch typ {
	case "string":
		return v.kind == jString
	case "integer":
		return v.kind == jNumber && isIntegerText(v.s)
	case "boolean":
		return v.kind == jBool
	case "array":
		return v.kind == jArray
	case "object":
		return v.kind == jObject
	}
	return true
}

func (e *evaluator) eval(n *node, v *jvalue, path string) {
	// 1. Type up front.
	upfront := false
	switch n.typ {
	case "integer", "boolean":
		upfront = true
	case "string":
		upfront = !n.hasStringRules()
	case "array":
		upfront = !n.hasArrayRules()
	case "object":
		upfront = !n.hasObjectRules()
	}
	if upfront && !matchesType(n.typ, v) {
		e.typeError(n, v, path)
	}

	// 2. Any group.
	if n.constVal != nil && !(v.kind == jString && v.s == *n.constVal) {
		e.add(path, "const", "must be equal to constant", map[string]any{"allowedValue": *n.constVal}, v)
	}
	if n.enum != nil {
		ok := false
		if v.kind == jString {
			for _, a := range n.enum {
				if a == v.s {
					ok = true
					break
				}
			}
		}
		if !ok {
			e.add(path, "enum", "must be equal to one of the allowed values", map[string]any{"allowedValues": n.enum}, v)
		}
	}
	if n.not != nil && e.valid(n.not, v, path) {
		e.add(path, "not", "must NOT be valid", map[string]any{}, v)
	}
	if n.ifS != nil && n.thenS != nil && e.valid(n.ifS, v, path) {
		before := len(e.out)
		e.eval(n.thenS, v, path)
		if len(e.out) > before {
			e.add(path, "if", `must match "then" schema`, map[string]any{"failingKeyword": "then"}, v)
		}
	}

	// 3. Numbers.
	if v.kind == jNumber && (n.maximum != nil || n.minimum != nil) {
		f := numberValue(v.s)
		if n.maximum != nil && f > float64(*n.maximum) {
			e.add(path, "maximum", "must be <= "+strconv.FormatInt(*n.maximum, 10),
				map[string]any{"comparison": "<=", "limit": *n.maximum}, v)
		}
		if n.minimum != nil && f < float64(*n.minimum) {
			e.add(path, "minimum", "must be >= "+strconv.FormatInt(*n.minimum, 10),
				map[string]any{"comparison": ">=", "limit": *n.minimum}, v)
		}
	}

	// 4. Strings.
	if n.hasStringRules() {
		if v.kind == jString {
			if n.maxLength >= 0 || n.minLength >= 0 {
				l := utf8.RuneCountInString(v.s)
				if n.maxLength >= 0 && l > n.maxLength {
					e.add(path, "maxLength", "must NOT be longer than "+strconv.Itoa(n.maxLength)+" characters",
						map[string]any{"limit": n.maxLength}, v)
				}
				if n.minLength >= 0 && l < n.minLength {
					e.add(path, "minLength", "must NOT be shorter than "+strconv.Itoa(n.minLength)+" characters",
						map[string]any{"limit": n.minLength}, v)
				}
			}
			if n.re != nil && !n.re.MatchString(v.s) {
				e.add(path, "pattern", `must match pattern "`+n.pattern+`"`, map[string]any{"pattern": n.pattern}, v)
			}
			for _, r := range n.named {
				if r.broken(v.s) {
					e.add(path, r.keyword, r.message, map[string]any{"rule": r.id}, v)
				}
			}
		} else if n.typ == "string" {
			e.typeError(n, v, path)
		}
	}

	// 5. Arrays.
	if n.hasArrayRules() {
		if v.kind == jArray {
			if n.maxItems >= 0 && len(v.elems) > n.maxItems {
				e.add(path, "maxItems", "must NOT have more than "+strconv.Itoa(n.maxItems)+" items",
					map[string]any{"limit": n.maxItems}, v)
			}
			if n.minItems >= 0 && len(v.elems) < n.minItems {
				e.add(path, "minItems", "must NOT have fewer than "+strconv.Itoa(n.minItems)+" items",
					map[string]any{"limit": n.minItems}, v)
			}
			if n.items != nil {
				for i := range v.elems {
					e.eval(n.items, &v.elems[i], path+"/"+strconv.Itoa(i))
				}
			}
		} else if n.typ == "array" {
			e.typeError(n, v, path)
		}
	}

	// 6. Objects.
	if n.hasObjectRules() {
		if v.kind == jObject {
			for _, r := range n.required {
				if _, ok := v.get(r); !ok {
					e.add(path, "required", "must have required property '"+r+"'",
						map[string]any{"missingProperty": r}, v)
				}
			}
			if n.closed {
				for i := range v.members {
					if n.prop(v.members[i].key) == nil {
						e.add(path, "additionalProperties", "must NOT have additional properties",
							map[string]any{"additionalProperty": v.members[i].key}, v)
					}
				}
			}
			for _, p := range n.props {
				if pv, ok := v.get(p.name); ok {
					e.eval(p.s, pv, path+"/"+escapePointer(p.name))
				}
			}
		} else if n.typ == "object" {
			e.typeError(n, v, path)
		}
	}
}

// escapePointer escapes one JSON Pointer reference token (RFC 6901).
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// displayPath renders an AJV instancePath as the contract's path: the root
// (empty pointer) is "root".
func displayPath(p string) string {
	if p == "" {
		return "root"
	}
	return p
}
